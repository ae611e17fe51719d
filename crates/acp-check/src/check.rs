//! Checking a whole transcript: the engine behind `acp check`.

use std::io::{self, BufRead};

use crate::engine::{Checker, too_long};
use crate::finding::{Finding, Rule};
use crate::lines::{DEFAULT_MAX_LINE, LineRead, read_line};
use crate::report::Summary;
use crate::transcript::{Entry, parse_line};

/// Options of a check.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Lines longer than this many bytes are skipped with `line-too-long`.
    pub max_line: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            max_line: DEFAULT_MAX_LINE,
        }
    }
}

impl CheckOptions {
    /// The defaults: a 16 MiB line limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the line limit in bytes.
    #[must_use]
    pub fn max_line(mut self, bytes: usize) -> Self {
        self.max_line = bytes;
        self
    }
}

/// Checks a transcript read from `reader`, handing each finding to `on_finding` as soon as it
/// is found, and returns the summary. Fails only when reading fails; any content is checked.
pub fn check<R: BufRead>(
    mut reader: R,
    options: &CheckOptions,
    mut on_finding: impl FnMut(&Finding),
) -> io::Result<Summary> {
    let mut checker = Checker::new();
    let mut summary = Summary::new();
    let mut buf = Vec::new();
    let mut line: u64 = 0;
    // Messages came before the first run header (or there is none).
    let mut unmarked = false;
    while let Some(read) = read_line(&mut reader, &mut buf, options.max_line)? {
        line += 1;
        let findings = match read {
            LineRead::TooLong => vec![too_long(line, options.max_line as u64)],
            LineRead::Line if buf.iter().all(u8::is_ascii_whitespace) => continue,
            LineRead::Line => match std::str::from_utf8(&buf) {
                Ok(text) => match parse_line(text) {
                    // A new run: a new connection, with nothing carried over.
                    Entry::Header(_) => {
                        checker = Checker::new();
                        summary.headers += 1;
                        continue;
                    }
                    entry => checker.observe_entry(line, &entry).findings,
                },
                Err(error) => vec![Finding::new(
                    line,
                    Rule::InvalidMessage,
                    format!("line is not UTF-8: {error}"),
                )],
            },
        };
        summary.messages += 1;
        unmarked |= summary.headers == 0;
        for finding in &findings {
            summary.add(finding);
            on_finding(finding);
        }
    }
    summary.runs = summary.headers + u64::from(unmarked);
    Ok(summary)
}

/// Checks a transcript held in memory; returns every finding and the summary.
pub fn check_bytes(input: &[u8], options: &CheckOptions) -> (Vec<Finding>, Summary) {
    let mut findings = Vec::new();
    // Reading from a slice cannot fail.
    let summary = check(input, options, |f| findings.push(f.clone())).unwrap_or_default();
    (findings, summary)
}
