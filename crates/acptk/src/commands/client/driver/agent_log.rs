//! The agent's standard error, captured per run: into a log file in the client's state
//! directory (`$XDG_STATE_HOME/acp/client/logs/`, else `~/.local/state/acp/client/logs/`;
//! the last [`KEEP_RUNS`] runs are kept), into a short tail for messages (a failure names the
//! file and shows the last lines), and with `--verbose` onto the client's standard error,
//! each line prefixed `agent: `. The terminal UI captures the same way (without the copy on
//! standard error) and can show [`AgentLog::tail`].

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::commands::client::shared::exit::{Failure, say};
use crate::commands::client::shared::lock;
use crate::commands::client::shared::state::state_dir;
use crate::commands::client::shared::text::terminal_safe;

/// How many runs' logs are kept (the oldest go first).
pub const KEEP_RUNS: usize = 20;

/// How many of the last lines are kept in memory (and shown with a failure: [`SHOWN_LINES`]).
pub const TAIL_LINES: usize = 200;

/// How many of the last lines a failure shows.
pub const SHOWN_LINES: usize = 10;

/// The most bytes written to one run's log file; later lines are only counted.
pub const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Default)]
struct Inner {
    file: Option<File>,
    path: Option<PathBuf>,
    written: u64,
    tail: VecDeque<String>,
    lines: u64,
    verbose: bool,
}

/// The agent's standard error of one run. Cheap to clone; clones share the log.
#[derive(Debug, Clone)]
pub struct AgentLog {
    inner: Arc<Mutex<Inner>>,
    /// The number of lines so far, for whoever shows them as they come.
    changes: tokio::sync::watch::Sender<u64>,
}

impl Default for AgentLog {
    fn default() -> Self {
        Self {
            inner: Arc::default(),
            changes: tokio::sync::watch::channel(0).0,
        }
    }
}

/// The directory of the logs: `logs` in [`state_dir`].
#[must_use]
pub fn logs_dir() -> Option<PathBuf> {
    state_dir().map(|dir| dir.join("logs"))
}

impl AgentLog {
    /// A log in a new file of [`logs_dir`] (the oldest beyond [`KEEP_RUNS`] are removed);
    /// without a usable directory, the log is kept in memory only. With `verbose`, each line
    /// is also written to standard error.
    #[must_use]
    pub fn open(verbose: bool) -> Self {
        let log = Self::default();
        {
            let mut inner = lock(&log.inner);
            inner.verbose = verbose;
            if let Some(dir) = logs_dir()
                && std::fs::create_dir_all(&dir).is_ok()
            {
                prune(&dir, KEEP_RUNS.saturating_sub(1));
                let stamp = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |elapsed| elapsed.as_millis());
                let path = dir.join(format!("agent-{stamp}-{}.log", std::process::id()));
                if let Ok(file) = File::create(&path) {
                    inner.file = Some(file);
                    inner.path = Some(path);
                }
            }
        }
        log
    }

    /// Takes one line the agent wrote.
    pub fn line(&self, line: &str) {
        let mut inner = lock(&self.inner);
        inner.lines += 1;
        if inner.written < MAX_LOG_BYTES {
            let bytes = line.len() as u64 + 1;
            if let Some(file) = &mut inner.file {
                let _ = writeln!(file, "{line}");
            }
            inner.written += bytes;
        }
        if inner.tail.len() >= TAIL_LINES {
            inner.tail.pop_front();
        }
        inner.tail.push_back(line.to_owned());
        if inner.verbose {
            say(&format!("agent: {}", terminal_safe(line)));
        }
        let lines = inner.lines;
        drop(inner);
        self.changes.send_replace(lines);
    }

    /// A receiver that changes with every line (its value: the number of lines so far), for
    /// a view that shows [`AgentLog::tail`] as it grows.
    #[must_use]
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The log file, when there is one.
    #[must_use]
    pub fn path(&self) -> Option<PathBuf> {
        lock(&self.inner).path.clone()
    }

    /// The last lines (at most [`TAIL_LINES`]), oldest first.
    #[must_use]
    pub fn tail(&self) -> Vec<String> {
        lock(&self.inner).tail.iter().cloned().collect()
    }

    /// How many lines the agent wrote.
    #[must_use]
    pub fn lines(&self) -> u64 {
        lock(&self.inner).lines
    }

    /// `failure` with where the agent's standard error is and its last lines, when it wrote
    /// any.
    #[must_use]
    pub fn explain(&self, mut failure: Failure) -> Failure {
        let inner = lock(&self.inner);
        if inner.lines == 0 {
            return failure;
        }
        let place = inner.path.as_ref().map_or_else(
            || "the agent's standard error".to_owned(),
            |path| format!("the agent's standard error is in {}", path.display()),
        );
        let skip = inner.tail.len().saturating_sub(SHOWN_LINES);
        failure
            .message
            .push_str(&format!("\n{place}; its last lines:"));
        for line in inner.tail.iter().skip(skip) {
            failure.message.push_str("\n  ");
            failure.message.push_str(&terminal_safe(line));
        }
        failure
    }
}

/// Removes the oldest `agent-*.log` files of `dir` so that at most `keep` are left.
fn prune(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut logs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.starts_with("agent-") && name.ends_with(".log"))
        })
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.path())))
        .collect();
    if logs.len() <= keep {
        return;
    }
    logs.sort();
    let excess = logs.len() - keep;
    for (_, path) in logs.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}
