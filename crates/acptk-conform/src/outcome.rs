//! What the suite found for each requirement: the outcomes and their evidence.

use crate::requirement::{Level, Requirement};

/// A line of a recorded run that shows why a requirement failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Evidence {
    /// The run's transcript name (`v1-main.jsonl`).
    pub run: String,
    /// The 1-based line in that transcript.
    pub line: u64,
    /// What the line shows, in one line.
    pub note: String,
}

impl Evidence {
    /// Evidence at `line` of `run`.
    pub fn new(run: impl Into<String>, line: u64, note: impl Into<String>) -> Self {
        Evidence {
            run: run.into(),
            line,
            note: note.into(),
        }
    }
}

/// The outcome of one requirement in one protocol version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The agent did what the requirement asks, every time it was exercised.
    Passed,
    /// The agent did not; the evidence names the transcript lines.
    Failed {
        /// One line or more that show the failure.
        evidence: Vec<Evidence>,
    },
    /// The situation did not arise (the agent sent no notice, advertised no method to try).
    NotExercised {
        /// Why.
        why: String,
    },
    /// The requirement does not concern this agent or version (it answered another version).
    NotApplicable {
        /// Why.
        why: String,
    },
}

impl Outcome {
    /// `passed`, `failed`, `not exercised` or `not applicable`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed { .. } => "failed",
            Outcome::NotExercised { .. } => "not exercised",
            Outcome::NotApplicable { .. } => "not applicable",
        }
    }

    /// A failure with one line of evidence.
    pub fn failed(run: &str, line: u64, note: impl Into<String>) -> Self {
        Outcome::Failed {
            evidence: vec![Evidence::new(run, line, note)],
        }
    }

    /// Not exercised, because `why`.
    pub fn not_exercised(why: impl Into<String>) -> Self {
        Outcome::NotExercised { why: why.into() }
    }

    /// Not applicable, because `why`.
    pub fn not_applicable(why: impl Into<String>) -> Self {
        Outcome::NotApplicable { why: why.into() }
    }
}

/// A requirement's outcome in one protocol version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verdict {
    /// The requirement.
    pub requirement: &'static Requirement,
    /// The protocol version the run spoke.
    pub version: u16,
    /// What happened.
    pub outcome: Outcome,
}

impl Verdict {
    /// Whether this verdict fails the run: a failed `MUST`.
    pub fn fails_run(&self) -> bool {
        self.requirement.level == Level::Must && matches!(self.outcome, Outcome::Failed { .. })
    }
}
