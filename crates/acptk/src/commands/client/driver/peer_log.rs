//! What the connection skipped or refused from the agent (lines that are not JSON, too long,
//! not JSON-RPC), kept briefly so that a failure can say why the agent made no sense.

use std::sync::{Arc, Mutex};

use acptk_runtime::log::{Level, Logger};

use crate::commands::client::shared::exit::{Failure, say};
use crate::commands::client::shared::lock;
use crate::commands::client::shared::text::terminal_safe;

/// How many records are kept (the first ones; the rest are only counted).
pub const KEPT: usize = 3;

/// How many of the latest records are kept for the terminal UI's agent pane.
pub const RECENT: usize = 100;

#[derive(Debug, Default)]
struct Records {
    first: Vec<String>,
    recent: std::collections::VecDeque<String>,
    count: u64,
}

/// The agent's protocol problems, as the runtime logs them.
#[derive(Debug, Clone, Default)]
pub struct PeerLog {
    records: Arc<Mutex<Records>>,
    verbose: bool,
}

/// How the runtime logs a line from the agent that is not JSON (it skips it).
const NOT_JSON: &str = "skipped a line that is not JSON: ";

impl PeerLog {
    /// An empty log.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// With `verbose`, every record is also written to standard error as it comes; a line
    /// the agent wrote that is not JSON as `agent (not JSON): LINE`.
    #[must_use]
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    /// A runtime logger that feeds this log with warnings and errors.
    #[must_use]
    pub fn logger(&self) -> Logger {
        let records = Arc::clone(&self.records);
        let verbose = self.verbose;
        Logger::new(move |level, message| {
            if level < Level::Warn {
                return;
            }
            if verbose {
                match message.strip_prefix(NOT_JSON) {
                    Some(line) => say(&format!("agent (not JSON): {}", terminal_safe(line))),
                    None => say(&format!("acp: {}", terminal_safe(message))),
                }
            }
            let mut records = lock(&records);
            records.count += 1;
            // A line the agent printed is kept whole (the runtime bounds it): it may be a
            // login URL to open.
            let keep = if message.starts_with(NOT_JSON) {
                usize::MAX
            } else {
                200
            };
            let record: String = message.chars().take(keep).collect();
            if records.first.len() < KEPT {
                records.first.push(record.chars().take(200).collect());
            }
            if records.recent.len() >= RECENT {
                records.recent.pop_front();
            }
            records.recent.push_back(record);
        })
    }

    /// The latest records (at most [`RECENT`], oldest first) and how many there were in all.
    #[must_use]
    pub fn recent(&self) -> (Vec<String>, u64) {
        let records = lock(&self.records);
        (records.recent.iter().cloned().collect(), records.count)
    }

    /// The lines the agent wrote to the protocol stream that are not JSON (a login's
    /// prompts, say), without their escape sequences, among the records after the first `seen`, and the count to pass next
    /// time.
    #[must_use]
    pub fn not_json_since(&self, seen: u64) -> (Vec<String>, u64) {
        let records = lock(&self.records);
        let new = usize::try_from(records.count.saturating_sub(seen)).unwrap_or(usize::MAX);
        let skip = records.recent.len().saturating_sub(new);
        let lines = records
            .recent
            .iter()
            .skip(skip)
            .filter_map(|record| record.strip_prefix(NOT_JSON))
            .map(|line| acptk_notice_center::sanitize::text(line).into_owned())
            .filter(|line| !line.is_empty())
            .collect();
        (lines, records.count)
    }

    /// What was logged, as lines to add to a message (`None` when nothing was).
    #[must_use]
    pub fn summary(&self) -> Option<String> {
        let records = lock(&self.records);
        if records.count == 0 {
            return None;
        }
        let mut text = format!(
            "what went wrong on the connection ({} problem(s)):",
            records.count
        );
        for record in &records.first {
            text.push_str("\n  ");
            text.push_str(&terminal_safe(record));
        }
        Some(text)
    }

    /// `failure` with the summary added, when there is one.
    #[must_use]
    pub fn explain(&self, mut failure: Failure) -> Failure {
        if let Some(summary) = self.summary() {
            failure.message = format!("{}\n{summary}", failure.message);
        }
        failure
    }
}
