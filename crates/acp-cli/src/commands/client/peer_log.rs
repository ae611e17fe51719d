//! What the connection skipped or refused from the agent (lines that are not JSON, too long,
//! not JSON-RPC), kept briefly so that a failure can say why the agent made no sense.

use std::sync::{Arc, Mutex};

use acp_runtime::log::{Level, Logger};

use super::app::lock;
use super::exit::Failure;
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
}

impl PeerLog {
    /// An empty log.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A runtime logger that feeds this log with warnings and errors.
    #[must_use]
    pub fn logger(&self) -> Logger {
        let records = Arc::clone(&self.records);
        Logger::new(move |level, message| {
            if level < Level::Warn {
                return;
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
