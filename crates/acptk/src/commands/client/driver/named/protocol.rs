//! What goes over an owner's socket: one JSON object per line. A connection carries one
//! [`Request`]; the owner answers with [`Reply`] lines (for a prompt that waits: the output of
//! its turn, then its end). While a waiting prompt streams, the submitter may send
//! `{"op":"cancel"}` on the same connection; closing the connection cancels it too.

use serde::{Deserialize, Serialize};

/// The longest line either side accepts (a prompt, or a piece of output).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// What a client asks of an owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Run a turn with this prompt, after the ones queued before it.
    Prompt {
        /// The prompt.
        text: String,
        /// `text`, `json` or `quiet`: how the turn's output is printed for this client.
        format: String,
        /// Stream the turn's output back and end with its exit code; otherwise the owner
        /// answers once the prompt is queued (and the session open) and the connection ends.
        wait: bool,
        /// Seconds the turn may take (`--timeout`).
        #[serde(default)]
        timeout: Option<f64>,
    },
    /// Cancel the running turn (`session/cancel`); on a prompt's own connection, cancel that
    /// prompt (dropped from the queue when it has not started).
    Cancel,
    /// Say how the owner is doing.
    Status,
    /// Cancel the running turn, drop the queue and exit (`acp sessions forget`).
    Stop,
}

/// What the owner is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Waiting for another run of the session to end (its pid).
    Waiting(u32),
    /// Starting the agent and opening the session.
    Starting,
    /// Serving prompts.
    Ready,
    /// Exiting.
    Closing,
}

/// The turn an owner is running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Running {
    /// Its ticket.
    pub ticket: u64,
    /// The start of its prompt.
    pub prompt: String,
    /// Since when.
    pub since: String,
}

/// The answer to [`Request::Status`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The owner's process id.
    pub pid: u32,
    /// The session's name.
    pub name: String,
    /// The agent's session id, once open.
    pub session_id: Option<String>,
    /// The agent.
    pub agent: String,
    /// The working directory.
    pub cwd: String,
    /// When the owner started.
    pub started_at: String,
    /// Seconds since then.
    pub uptime_seconds: u64,
    /// What it is doing.
    pub phase: Phase,
    /// The turn it runs.
    pub running: Option<Running>,
    /// Prompts waiting.
    pub queued: usize,
    /// The last prompt it took (the running one, or the one before).
    pub last_prompt: Option<Running>,
    /// Seconds it waits idle before it exits.
    pub ttl_seconds: f64,
}

/// What an owner answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// The prompt is queued: `ahead` prompts run before it.
    Queued {
        /// Its ticket.
        ticket: u64,
        /// How many run before it.
        ahead: usize,
        /// The owner's process id.
        pid: u32,
        /// What the owner is doing.
        phase: Phase,
    },
    /// Output of the turn for the client's standard output.
    Out {
        /// The text.
        data: String,
    },
    /// A line for the client's standard error.
    Say {
        /// The line.
        line: String,
    },
    /// The prompt's turn is over (or it never ran): the client exits with `exit`.
    End {
        /// The exit code.
        exit: u8,
    },
    /// Not taken: the owner is exiting (try again: another run gets the session) or its
    /// queue is full.
    Refused {
        /// Why.
        message: String,
        /// Whether trying again may work.
        retry: bool,
    },
    /// The answer to [`Request::Cancel`]: the ticket cancelled, if a turn ran.
    Cancelled {
        /// The ticket.
        ticket: Option<u64>,
    },
    /// The answer to [`Request::Status`].
    Status(Box<Status>),
    /// The answer to [`Request::Stop`].
    Stopping,
}
