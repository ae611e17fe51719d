//! The state both directions of the proxy share: one checker, the record, the report.

use std::io;
use std::time::SystemTime;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::Mutex;

use crate::engine::{Checker, too_long};
use crate::finding::{Finding, Rule};
use crate::proxy::{Hooks, ProxyOptions};
use crate::repair::{Action, Fallback, decide};
use crate::report::Summary;
use crate::transcript::{Recorded, Side, write_entry};

/// Everything behind the lock: taking it orders the two directions into one sequence, so a
/// finding's number is the line of the record.
pub(crate) struct Shared {
    inner: Mutex<Inner>,
}

struct Inner {
    checker: Checker,
    /// Messages seen so far (blank lines do not count): the record's line number.
    seq: u64,
    summary: Summary,
    fallback: Fallback,
    max_line: usize,
    timestamps: bool,
    on_finding: Box<dyn FnMut(&Finding) + Send>,
    record: Option<BufWriter<Box<dyn AsyncWrite + Unpin + Send>>>,
    record_error: Option<io::Error>,
    entry: Vec<u8>,
}

impl Shared {
    pub(crate) fn new(checker: Checker, options: &ProxyOptions, hooks: Hooks) -> Self {
        Self {
            inner: Mutex::new(Inner {
                checker,
                seq: 0,
                summary: Summary::new(),
                fallback: options.fallback,
                max_line: options.max_line,
                timestamps: options.timestamps,
                on_finding: hooks.on_finding,
                record: hooks
                    .record
                    .map(|writer| BufWriter::with_capacity(64 * 1024, writer)),
                record_error: None,
                entry: Vec::new(),
            }),
        }
    }

    /// Checks and records one line `side` sent (without its line break) and says what to
    /// forward.
    pub(crate) async fn observe(&self, side: Side, content: &[u8]) -> Action {
        if content.iter().all(u8::is_ascii_whitespace) {
            return Action::Forward;
        }
        let mut inner = self.inner.lock().await;
        inner.seq += 1;
        let line = inner.seq;
        let (findings, notice, recorded) = match std::str::from_utf8(content) {
            Ok(text) => {
                let obs = inner.checker.observe(line, Some(side), text);
                let recorded = if obs.json {
                    Recorded::Json(text)
                } else {
                    Recorded::NotJson(content)
                };
                (obs.findings, obs.notice, recorded)
            }
            Err(error) => (
                vec![Finding::new(
                    line,
                    Rule::InvalidMessage,
                    format!("line is not UTF-8: {error}"),
                )],
                None,
                Recorded::NotJson(content),
            ),
        };
        inner.record(side, recorded).await;
        for finding in &findings {
            inner.report(finding);
        }
        let (action, repair) = match notice {
            Some(event) if side == Side::Agent => decide(line, &event, inner.fallback),
            _ => (Action::Forward, None),
        };
        if let Some(repair) = repair {
            inner.report(&repair);
        }
        action
    }

    /// Notes a line `side` sent that is longer than the limit (forwarded unchecked).
    pub(crate) async fn too_long(&self, side: Side) {
        let mut inner = self.inner.lock().await;
        inner.seq += 1;
        let limit = inner.max_line as u64;
        let finding = too_long(inner.seq, limit);
        inner.record(side, Recorded::TooLong(limit)).await;
        inner.report(&finding);
    }

    /// Flushes the record; returns the summary and why the record stopped, if it did.
    pub(crate) async fn finish(&self) -> (Summary, Option<io::Error>) {
        let mut inner = self.inner.lock().await;
        if let Some(mut record) = inner.record.take() {
            if let Err(error) = record.flush().await {
                inner.record_error.get_or_insert(error);
            }
        }
        inner.summary.messages = inner.seq;
        (inner.summary.clone(), inner.record_error.take())
    }
}

impl Inner {
    fn report(&mut self, finding: &Finding) {
        self.summary.add(finding);
        (self.on_finding)(finding);
    }

    async fn record(&mut self, side: Side, line: Recorded<'_>) {
        let Some(record) = self.record.as_mut() else {
            return;
        };
        self.entry.clear();
        let time = self.timestamps.then(SystemTime::now);
        write_entry(&mut self.entry, side, time, line);
        if let Err(error) = record.write_all(&self.entry).await {
            self.record = None;
            self.record_error = Some(error);
        }
    }
}
