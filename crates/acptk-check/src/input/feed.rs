//! Feeding entries of any format to the checker: run headers, counts, findings, skips.

use crate::engine::{Checker, Observation};
use crate::finding::{Finding, Rule};
use crate::report::Summary;
use crate::transcript::{Entry, Header, Side};

/// What [`crate::visit`] reads from a trace, in input order: run headers and messages. The
/// findings about a message are reported right after it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A run header (a new connection starts here), at `line`.
    Header {
        /// The line (or Zed log element) it is on.
        line: u64,
        /// The header.
        header: &'a Header,
    },
    /// A message between the client and the agent.
    Message(Seen<'a>),
}

/// One message of a trace, with what the checker made of it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Seen<'a> {
    /// The line it is on (for a Zed log copy: the line its element starts on).
    pub line: u64,
    /// The entry of the input it was read from, as it is there: a transcript line, a
    /// conductor event, a Zed log element (a timestamp, when the format has one, is in it).
    pub source: &'a str,
    /// The JSON-RPC message text; `None` for a recorded line that was too long to keep.
    pub text: Option<&'a str>,
    /// The sender as the checker took it (given, or inferred) and its findings and notice.
    pub observation: &'a Observation,
    /// The connection state after the message (version, client capabilities).
    pub checker: &'a Checker,
}

/// One check of one input: the checker of the current run, the summary, and where findings go.
pub(crate) struct Feed<'f> {
    checker: Checker,
    summary: Summary,
    /// Messages came before the first run header (or there is none).
    unmarked: bool,
    /// The kinds of skipped entries already said.
    told: Vec<&'static str>,
    on_finding: &'f mut dyn FnMut(&Finding),
    on_event: Option<&'f mut dyn FnMut(Event<'_>)>,
}

impl<'f> Feed<'f> {
    pub(crate) fn new(on_finding: &'f mut dyn FnMut(&Finding)) -> Self {
        Self {
            checker: Checker::new(),
            summary: Summary::new(),
            unmarked: false,
            told: Vec::new(),
            on_finding,
            on_event: None,
        }
    }

    /// Also hands every header and message to `on_event`.
    pub(crate) fn events(mut self, on_event: &'f mut dyn FnMut(Event<'_>)) -> Self {
        self.on_event = Some(on_event);
        self
    }

    /// A run header: a new connection, with nothing carried over.
    pub(crate) fn header(&mut self) {
        self.checker = Checker::new();
        self.summary.headers += 1;
    }

    /// A transcript entry at `line`, read from `source`.
    pub(crate) fn entry(&mut self, line: u64, source: &str, entry: &Entry<'_>) {
        if let Entry::Header(header) = entry {
            self.header();
            if let Some(on_event) = self.on_event.as_mut() {
                on_event(Event::Header { line, header });
            }
            return;
        }
        let observation = self.checker.observe_entry(line, entry);
        let text = match entry {
            Entry::Message { text, .. } => Some(*text),
            Entry::NotJson { text, .. } => Some(text.as_str()),
            _ => None,
        };
        if !matches!(entry, Entry::Invalid { .. }) {
            self.event(line, source, text, &observation);
        }
        self.findings(&observation.findings);
    }

    /// A message `from` sent (`None`: to be inferred), at `line`, read from `source`.
    pub(crate) fn message(&mut self, line: u64, source: &str, from: Option<Side>, text: &str) {
        let observation = self.checker.observe(line, from, text);
        self.event(line, source, Some(text), &observation);
        self.findings(&observation.findings);
    }

    /// Hands a message to `on_event`, if it is there.
    fn event(&mut self, line: u64, source: &str, text: Option<&str>, observation: &Observation) {
        if let Some(on_event) = self.on_event.as_mut() {
            on_event(Event::Message(Seen {
                line,
                source,
                text,
                observation,
                checker: &self.checker,
            }));
        }
    }

    /// The findings of one message.
    pub(crate) fn findings(&mut self, findings: &[Finding]) {
        self.summary.messages += 1;
        self.unmarked |= self.summary.headers == 0;
        for finding in findings {
            self.report(finding);
        }
    }

    /// An entry that is not a message between the client and the agent: said once per
    /// `kind`, not counted as a message.
    pub(crate) fn skip(&mut self, line: u64, kind: &'static str, reason: impl FnOnce() -> String) {
        if !self.told.contains(&kind) {
            self.told.push(kind);
            let finding = Finding::new(line, Rule::SkippedEntry, reason());
            self.report(&finding);
        }
    }

    /// A finding about the input itself, not about a message.
    pub(crate) fn report(&mut self, finding: &Finding) {
        self.summary.add(finding);
        (self.on_finding)(finding);
    }

    /// The summary of the whole input.
    pub(crate) fn finish(mut self, format: crate::input_format::InputFormat) -> Summary {
        self.summary.runs = self.summary.headers + u64::from(self.unmarked);
        self.summary.format = format;
        self.summary
    }
}
