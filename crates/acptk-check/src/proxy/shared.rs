//! The state both directions of the proxy share: one checker, the record, the report.
//!
//! Everything here is synchronous and sits behind one plain mutex that is never held across an
//! await: taking it orders the two directions into one sequence, so a finding's number is the
//! line of the record. Record entries are appended to a buffer under the lock, and
//! [`Shared::write_record`] hands the whole buffer to the record's writer, which a direction
//! calls before it forwards anything it checked: whatever it forwards is in the record first.

use std::io::{self, Write};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use crate::engine::{Checker, too_long};
use crate::finding::{Finding, Rule};
use crate::proxy::{Body, Frame, Hooks, ProxyOptions, Tap};
use crate::repair::{Action, Fallback, decide};
use crate::report::Summary;
use crate::transcript::{Recorded, Side, rfc3339, write_stamped};

pub(crate) struct Shared {
    inner: Mutex<Inner>,
}

struct Inner {
    checker: Checker,
    /// The record line of the last entry (blank lines are not recorded).
    line: u64,
    summary: Summary,
    fallback: Fallback,
    max_line: usize,
    timestamps: bool,
    on_finding: Box<dyn FnMut(&Finding) + Send>,
    /// Names this run's fallback messages (`acp-proxy-<time>-<pid>`), made unique with the
    /// line of the notice.
    run: String,
    /// The record's writer; `None` once it failed (or when there is no record).
    record: Option<Box<dyn Write + Send>>,
    on_record_error: Box<dyn FnMut(&io::Error) + Send>,
    /// Entries not yet handed to the record.
    pending: Vec<u8>,
    /// The timestamp of the entries of the current batch (the lines one read brought in were
    /// all seen at that moment); empty until the batch's first entry.
    stamp: String,
    /// Entries handed to the record.
    recorded: u64,
    /// Entries in `pending`.
    pending_entries: u64,
    record_error: Option<io::Error>,
    /// The capture hook; `None` once it failed (or when there is none).
    tap: Option<Box<dyn Tap>>,
    on_tap_error: Box<dyn FnMut(&io::Error) + Send>,
    tap_error: Option<io::Error>,
    /// When the current batch was read, once a tap asked.
    batch_time: Option<SystemTime>,
}

/// What [`Shared::finish`] returns.
pub(crate) struct Finished {
    pub(crate) summary: Summary,
    pub(crate) record_error: Option<io::Error>,
    pub(crate) recorded: u64,
    pub(crate) tap_error: Option<io::Error>,
}

impl Shared {
    pub(crate) fn new(checker: Checker, options: &ProxyOptions, hooks: Hooks) -> Self {
        let mut inner = Inner {
            checker,
            line: options.first_line - 1,
            summary: Summary::new(),
            fallback: options.fallback,
            max_line: options.max_line,
            timestamps: options.timestamps,
            on_finding: hooks.on_finding,
            run: run_name(),
            record: hooks.record,
            on_record_error: hooks.on_record_error,
            pending: Vec::new(),
            stamp: String::new(),
            recorded: 0,
            pending_entries: 0,
            record_error: None,
            tap: hooks.tap,
            on_tap_error: hooks.on_tap_error,
            tap_error: None,
            batch_time: None,
        };
        if let Some(header) = &options.header {
            inner.line += 1;
            inner.summary.headers = 1;
            inner.summary.runs = 1;
            if inner.record.is_some() {
                inner.pending.extend_from_slice(header.entry().as_bytes());
                inner.pending_entries += 1;
            }
            inner.write_record();
        }
        Self {
            inner: Mutex::new(inner),
        }
    }

    /// Checks one line `side` sent (without its line break), queues its record entry, and
    /// says what to forward.
    pub(crate) fn observe(&self, side: Side, content: &[u8]) -> Action {
        if content.iter().all(u8::is_ascii_whitespace) {
            return Action::Forward;
        }
        self.lock().observe(side, content)
    }

    /// Notes a line `side` sent that is longer than the limit (forwarded unchecked).
    pub(crate) fn too_long(&self, side: Side) {
        let mut inner = self.lock();
        inner.line += 1;
        inner.summary.messages += 1;
        let limit = inner.max_line as u64;
        let finding = too_long(inner.line, limit);
        inner.record(side, Recorded::TooLong(limit));
        inner.report(&finding);
        inner.tap(
            side,
            Body::TooLong(limit),
            &[finding],
            None,
            &Action::Forward,
        );
    }

    /// Hands every queued entry to the record.
    pub(crate) fn write_record(&self) {
        self.lock().write_record();
    }

    /// Writes what is left and flushes the record and the tap; returns the summary, why the
    /// record or the tap stopped (if they did) and how many entries the record got.
    pub(crate) fn finish(&self) -> Finished {
        let mut inner = self.lock();
        inner.write_record();
        if let Some(writer) = inner.record.as_mut()
            && let Err(error) = writer.flush()
        {
            inner.failed(error);
        }
        if let Some(tap) = inner.tap.as_mut()
            && let Err(error) = tap.finish()
        {
            inner.tap_failed(error);
        }
        if inner.summary.runs == 0 && inner.summary.messages > 0 {
            inner.summary.runs = 1;
        }
        Finished {
            summary: inner.summary.clone(),
            record_error: inner.record_error.take(),
            recorded: inner.recorded,
            tap_error: inner.tap_error.take(),
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
        self.line += 1;
        self.summary.messages += 1;
        let line = self.line;
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
        let (action, repair) = match &notice {
            Some(event) if side == Side::Agent => {
                let run = &self.run;
                decide(line, event, self.fallback, || format!("{run}-{line}"))
            }
            _ => (Action::Forward, None),
        };
        if let Some(repair) = &repair {
            self.report(repair);
        }
        if self.tap.is_some() {
            let mut findings = findings;
            findings.extend(repair);
            let body = Body::Line(content);
            self.tap(side, body, &findings, notice.as_ref(), &action);
        }
        action
    }

    /// Shows one line to the tap, if there is one.
    fn tap(
        &mut self,
        side: Side,
        body: Body<'_>,
        findings: &[Finding],
        notice: Option<&crate::engine::NoticeEvent>,
        action: &Action,
    ) {
        let Some(tap) = self.tap.as_mut() else {
            return;
        };
        let time = *self.batch_time.get_or_insert_with(SystemTime::now);
        tap.frame(&Frame {
            side,
            time,
            body,
            findings,
            notice,
            action,
            client_notices: self.checker.client_advertises_notices(),
            version: self.checker.version(),
        });
    }

    /// Commits the tap's frames (before the batch is forwarded).
    fn commit_tap(&mut self) {
        self.batch_time = None;
        if let Some(tap) = self.tap.as_mut()
            && let Err(error) = tap.commit()
        {
            self.tap_failed(error);
        }
    }

    /// The tap failed: say so at once, and stop tapping.
    fn tap_failed(&mut self, error: io::Error) {
        (self.on_tap_error)(&error);
        self.tap = None;
        self.tap_error.get_or_insert(error);
    }

    fn report(&mut self, finding: &Finding) {
        self.summary.add(finding);
        (self.on_finding)(finding);
    }

    /// Queues the record entry of one line.
    fn record(&mut self, side: Side, line: Recorded<'_>) {
        if self.record.is_none() {
            return;
        }
        if self.timestamps && self.stamp.is_empty() {
            self.stamp = rfc3339(SystemTime::now());
        }
        let stamp = self.timestamps.then_some(self.stamp.as_str());
        write_stamped(&mut self.pending, side, stamp, line);
        self.pending_entries += 1;
    }

    /// Hands the queued entries to the record's writer, in one write. The next batch gets a
    /// timestamp of its own.
    fn write_record(&mut self) {
        self.stamp.clear();
        if self.tap.is_some() {
            self.commit_tap();
        }
        if self.pending.is_empty() {
            return;
        }
        let Some(writer) = self.record.as_mut() else {
            self.pending.clear();
            return;
        };
        match writer.write_all(&self.pending) {
            Ok(()) => {
                self.recorded += self.pending_entries;
                self.pending.clear();
                self.pending_entries = 0;
            }
            Err(error) => self.failed(error),
        }
    }

    /// The record failed: say so at once, and stop recording.
    fn failed(&mut self, error: io::Error) {
        (self.on_record_error)(&error);
        self.record = None;
        self.pending = Vec::new();
        self.pending_entries = 0;
        self.record_error.get_or_insert(error);
    }
}
