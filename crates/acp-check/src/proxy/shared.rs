//! The state both directions of the proxy share: one checker, the record, the report.
//!
//! Checking is synchronous and sits behind a plain mutex that is never held across an await:
//! taking it orders the two directions into one sequence, so a finding's number is the line
//! of the record. Record entries are appended to a buffer under the same lock and written to
//! the record's writer in chunks, by whichever direction fills the buffer, under a second
//! (async) lock that keeps the chunks in order.

use std::io;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use tokio::io::{AsyncWrite, AsyncWriteExt};

use crate::engine::{Checker, too_long};
use crate::finding::{Finding, Rule};
use crate::proxy::{Hooks, ProxyOptions};
use crate::repair::{Action, Fallback, decide};
use crate::report::Summary;
use crate::transcript::{Recorded, Side, write_entry};

/// Record bytes buffered before a direction writes them out.
const RECORD_CHUNK: usize = 64 * 1024;

/// The record's writer; `None` once it failed (or when there is no record).
type RecordWriter = Option<Box<dyn AsyncWrite + Unpin + Send>>;

pub(crate) struct Shared {
    inner: Mutex<Inner>,
    record: tokio::sync::Mutex<RecordWriter>,
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
    /// Names this run's fallback messages (`acp-proxy-<time>-<pid>`), made unique with the
    /// line of the notice.
    run: String,
    /// Whether entries are recorded (cleared when the record's writer fails).
    recording: bool,
    /// Entries not yet written to the record.
    pending: Vec<u8>,
    record_error: Option<io::Error>,
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
                run: run_name(),
                recording: hooks.record.is_some(),
                pending: Vec::new(),
                record_error: None,
            }),
            record: tokio::sync::Mutex::new(hooks.record),
        }
    }

    /// Checks and records one line `side` sent (without its line break) and says what to
    /// forward.
    pub(crate) async fn observe(&self, side: Side, content: &[u8]) -> Action {
        if content.iter().all(u8::is_ascii_whitespace) {
            return Action::Forward;
        }
        let (action, full) = {
            let mut inner = self.lock();
            let action = inner.observe(side, content);
            (action, inner.pending.len() >= RECORD_CHUNK)
        };
        if full {
            self.write_record().await;
        }
        action
    }

    /// Notes a line `side` sent that is longer than the limit (forwarded unchecked).
    pub(crate) async fn too_long(&self, side: Side) {
        let full = {
            let mut inner = self.lock();
            inner.seq += 1;
            let limit = inner.max_line as u64;
            let finding = too_long(inner.seq, limit);
            inner.record(side, Recorded::TooLong(limit));
            inner.report(&finding);
            inner.pending.len() >= RECORD_CHUNK
        };
        if full {
            self.write_record().await;
        }
    }

    /// Writes the record's whole buffer and flushes the record; returns the summary and why
    /// the record stopped, if it did.
    pub(crate) async fn finish(&self) -> (Summary, Option<io::Error>) {
        self.write_record().await;
        if let Some(writer) = self.record.lock().await.as_mut() {
            if let Err(error) = writer.flush().await {
                self.lock().record_error.get_or_insert(error);
            }
        }
        let mut inner = self.lock();
        inner.summary.messages = inner.seq;
        (inner.summary.clone(), inner.record_error.take())
    }

    /// Writes the buffered record entries. The buffer is taken only once the writer's lock
    /// is held, so chunks reach the record in the order their entries were made.
    pub(crate) async fn write_record(&self) {
        let mut writer = self.record.lock().await;
        let chunk = std::mem::take(&mut self.lock().pending);
        if chunk.is_empty() {
            return;
        }
        let Some(out) = writer.as_mut() else {
            return;
        };
        if let Err(error) = out.write_all(&chunk).await {
            *writer = None;
            let mut inner = self.lock();
            inner.recording = false;
            inner.pending = Vec::new();
            inner.record_error = Some(error);
            return;
        }
        // Hand the allocation back for the next chunk.
        let mut inner = self.lock();
        if inner.pending.is_empty() && inner.recording {
            let mut chunk = chunk;
            chunk.clear();
            inner.pending = chunk;
        }
    }

    /// The checking state. A panic while it was held (a bug) leaves it usable: the worst
    /// outcome is one message checked against a half-updated state.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A name for this proxy run, unique across runs on a machine: the start time in
/// microseconds and the process id.
fn run_name() -> String {
    let micros = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_micros();
    format!("acp-proxy-{micros:x}-{:x}", std::process::id())
}

impl Inner {
    fn observe(&mut self, side: Side, content: &[u8]) -> Action {
        self.seq += 1;
        let line = self.seq;
        let (findings, notice, recorded) = match std::str::from_utf8(content) {
            Ok(text) => {
                let obs = self.checker.observe(line, Some(side), text);
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
        self.record(side, recorded);
        for finding in &findings {
            self.report(finding);
        }
        let (action, repair) = match notice {
            Some(event) if side == Side::Agent => {
                let run = &self.run;
                decide(line, &event, self.fallback, || format!("{run}-{line}"))
            }
            _ => (Action::Forward, None),
        };
        if let Some(repair) = repair {
            self.report(&repair);
        }
        action
    }

    fn report(&mut self, finding: &Finding) {
        self.summary.add(finding);
        (self.on_finding)(finding);
    }

    fn record(&mut self, side: Side, line: Recorded<'_>) {
        if self.recording {
            let time = self.timestamps.then(SystemTime::now);
            write_entry(&mut self.pending, side, time, line);
        }
    }
}
