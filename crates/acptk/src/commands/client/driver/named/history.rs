//! The client's own record of each turn of a named session (`KEY.history.jsonl`): one JSON
//! object per line, written when the turn ends, so `acp sessions history` and `export` work
//! with agents that cannot load sessions, and after the agent forgot them.
//!
//! ```json
//! {"turn":1,"sessionId":"sess_1","startedAt":"2026-05-01T10:00:00Z","endedAt":"2026-05-01T10:00:02Z",
//!  "prompt":"hello","stopReason":"end_turn","error":null,"exitCode":0,
//!  "entries":[{"type":"message","role":"agent","text":"Hi!"},
//!             {"type":"tool_call","id":"t1","title":"Read a.rs","kind":"read","status":"completed",
//!              "content":["..."],"diffs":[{"path":"a.rs","added":3,"removed":1}]}]}
//! ```
//!
//! `role` is `agent` or `thought`; `stopReason` is the agent's (null when the turn failed),
//! `error` the client's message when it failed, `exitCode` what `acp client` exited with.

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};
use std::path::Path;

use acptk_runtime::client::Client;
use acptk_runtime::client::transcript::{Entry, Role};
use serde::{Deserialize, Serialize};

/// The longest history line read back (longer ones are skipped).
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// What a tool call changed in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// The file.
    pub path: String,
    /// Lines added, when known.
    pub added: Option<usize>,
    /// Lines removed, when known.
    pub removed: Option<usize>,
}

/// One thing the agent did in a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HistoryEntry {
    /// A message or a thought.
    Message {
        /// `agent` or `thought`.
        role: String,
        /// Its text.
        text: String,
    },
    /// A tool call, as it last was.
    ToolCall {
        /// Its id.
        id: String,
        /// Its title.
        title: String,
        /// Its kind, when the agent gave one.
        #[serde(default)]
        kind: Option<String>,
        /// Its last status.
        status: String,
        /// The text of its content.
        #[serde(default)]
        content: Vec<String>,
        /// The files it changed.
        #[serde(default)]
        diffs: Vec<FileChange>,
    },
}

/// One turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// Its number in the named session (1 for the first).
    pub turn: u64,
    /// The agent's session id it ran in.
    pub session_id: String,
    /// When it started.
    pub started_at: String,
    /// When it ended.
    pub ended_at: String,
    /// The prompt.
    pub prompt: String,
    /// The agent's stop reason, when the agent ended the turn.
    pub stop_reason: Option<String>,
    /// Why the turn failed, when it did.
    pub error: Option<String>,
    /// The exit code of the run.
    pub exit_code: u8,
    /// What the agent did, in order.
    pub entries: Vec<HistoryEntry>,
}

/// What the agent did in the session's last turn: the entries after the last user message.
#[must_use]
pub fn last_turn(client: &Client, session: &str) -> Vec<HistoryEntry> {
    let Some(transcript) = client.session_transcript(session) else {
        return Vec::new();
    };
    let start = transcript
        .entries
        .iter()
        .rposition(|entry| matches!(entry, Entry::Message(m) if m.role == Role::User))
        .map_or(0, |at| at + 1);
    transcript.entries[start..]
        .iter()
        .filter_map(|entry| match entry {
            Entry::Message(message) => Some(HistoryEntry::Message {
                role: match message.role {
                    Role::Thought => "thought",
                    _ => "agent",
                }
                .to_owned(),
                text: message.text.clone(),
            }),
            Entry::ToolCall(call) => Some(HistoryEntry::ToolCall {
                id: call.id.clone(),
                title: call.title.clone(),
                kind: call.kind.clone(),
                status: call.status.clone(),
                content: call.content.clone(),
                diffs: call
                    .diffs
                    .iter()
                    .flat_map(|diff| &diff.summaries)
                    .map(|summary| FileChange {
                        path: summary.path.clone(),
                        added: summary.added,
                        removed: summary.removed,
                    })
                    .collect(),
            }),
            _ => None,
        })
        .collect()
}

/// Appends `turn` to the history file `path` (one line).
pub fn append(path: &Path, turn: &TurnRecord) -> Result<(), String> {
    let line = serde_json::to_string(turn).map_err(|error| error.to_string())?;
    let mut file = super::store::private_file()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|error| format!("cannot open {}: {error}", path.display()))?;
    file.write_all(format!("{line}\n").as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// Hands each turn of the history file `path` to `each`, oldest first (a missing file has no
/// turns; lines that are not turns are skipped).
pub fn each(path: &Path, mut each: impl FnMut(TurnRecord)) -> Result<(), String> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(format!("{}: {error}", path.display())),
    };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        if read == 0 {
            return Ok(());
        }
        if line.len() > MAX_LINE {
            // Skip the rest of an oversized line.
            let mut rest = Vec::new();
            let _ = reader.read_until(b'\n', &mut rest);
            continue;
        }
        if let Ok(turn) = serde_json::from_slice::<TurnRecord>(&line) {
            each(turn);
        }
    }
}

/// The last `limit` turns (all with `None`), oldest first.
pub fn read(path: &Path, limit: Option<usize>) -> Result<Vec<TurnRecord>, String> {
    let mut turns = VecDeque::new();
    each(path, |turn| {
        if limit.is_some_and(|limit| turns.len() >= limit) {
            turns.pop_front();
        }
        if limit != Some(0) {
            turns.push_back(turn);
        }
    })?;
    Ok(turns.into())
}
