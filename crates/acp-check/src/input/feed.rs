//! Feeding entries of any format to the checker: run headers, counts, findings, skips.

use crate::engine::Checker;
use crate::finding::{Finding, Rule};
use crate::report::Summary;
use crate::transcript::{Entry, Side};

/// One check of one input: the checker of the current run, the summary, and where findings go.
pub(crate) struct Feed<'f> {
    checker: Checker,
    summary: Summary,
    /// Messages came before the first run header (or there is none).
    unmarked: bool,
    /// The kinds of skipped entries already said.
    told: Vec<&'static str>,
    on_finding: &'f mut dyn FnMut(&Finding),
}

impl<'f> Feed<'f> {
    pub(crate) fn new(on_finding: &'f mut dyn FnMut(&Finding)) -> Self {
        Self {
            checker: Checker::new(),
            summary: Summary::new(),
            unmarked: false,
            told: Vec::new(),
            on_finding,
        }
    }

    /// A run header: a new connection, with nothing carried over.
    pub(crate) fn header(&mut self) {
        self.checker = Checker::new();
        self.summary.headers += 1;
    }

    /// A transcript entry at `line`.
    pub(crate) fn entry(&mut self, line: u64, entry: &Entry<'_>) {
        if let Entry::Header(_) = entry {
            self.header();
            return;
        }
        let findings = self.checker.observe_entry(line, entry).findings;
        self.findings(&findings);
    }

    /// A message `from` sent (`None`: to be inferred), at `line`.
    pub(crate) fn message(&mut self, line: u64, from: Option<Side>, text: &str) {
        let findings = self.checker.observe(line, from, text).findings;
        self.findings(&findings);
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
    pub(crate) fn finish(mut self, format: crate::input::InputFormat) -> Summary {
        self.summary.runs = self.summary.headers + u64::from(self.unmarked);
        self.summary.format = format;
        self.summary
    }
}
