//! Counts of messages and findings per rule.

use crate::finding::{Finding, Rule, Severity};

/// How many messages were checked and how many findings each rule produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines checked (blank lines and run headers do not count).
    pub messages: u64,
    /// Runs seen: one per run header (see [`crate::transcript::Header`]), plus one for the
    /// messages before the first header, if any.
    pub runs: u64,
    /// Run headers seen.
    pub headers: u64,
    /// The format the input was read as.
    pub format: crate::input_format::InputFormat,
    counts: [u64; Rule::ALL.len()],
}

impl Summary {
    /// An empty summary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one finding.
    pub fn add(&mut self, finding: &Finding) {
        self.counts[finding.rule.index()] += 1;
    }

    /// Findings of `rule`.
    pub fn count(&self, rule: Rule) -> u64 {
        self.counts[rule.index()]
    }

    /// Findings of every rule with that severity.
    pub fn by_severity(&self, severity: Severity) -> u64 {
        Rule::ALL
            .iter()
            .filter(|rule| rule.severity() == severity)
            .map(|rule| self.count(*rule))
            .sum()
    }

    /// All findings.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The rules that found something, with their counts, in [`Rule::ALL`] order.
    pub fn rules(&self) -> impl Iterator<Item = (Rule, u64)> + '_ {
        Rule::ALL
            .iter()
            .map(|rule| (*rule, self.count(*rule)))
            .filter(|(_, n)| *n > 0)
    }

    /// Whether any error was found (`acp check` then exits with status 1).
    pub fn has_errors(&self) -> bool {
        self.by_severity(Severity::Error) > 0
    }
}
