//! What the connection skipped or refused from the agent (lines that are not JSON, too long,
//! not JSON-RPC), kept briefly so that a failure can say why the agent made no sense.

use std::sync::{Arc, Mutex};

use acp_runtime::log::{Level, Logger};

use super::app::lock;
use super::exit::{Failure, say};
use super::text::terminal_safe;

/// How many records are kept (the first ones; the rest are only counted).
pub const KEPT: usize = 3;

#[derive(Debug, Default)]
struct Records {
    first: Vec<String>,
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
            if records.first.len() < KEPT {
                records.first.push(message.chars().take(200).collect());
            }
        })
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
