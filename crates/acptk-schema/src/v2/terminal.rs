//! Terminals in ACP v2: the agent reports terminals through session updates, and the client
//! may cancel one (`terminal/cancel`).

#[allow(unused_imports)]
use super::*;

empty_object! {
    /// The agent's answer to `terminal/cancel`.
    CancelTerminalResponse, new: "An empty success response."
}

wire_struct! {
    /// Output of a terminal.
    pub struct TerminalOutput {
        /// The output bytes, base64-encoded.
        pub data: String,
    }
}

constructor! {
    /// Output from base64 text.
    TerminalOutput(data: impl Into<String>) { meta: None }
}

wire_struct! {
    /// How a terminal's command exited: an exit code, or the signal that ended it.
    #[derive(Default)]
    pub struct TerminalExitStatus {
        /// The exit code, if the command exited normally. A malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub exit_code: Option<i64>,
        /// The name of the signal that ended the command, if any. A non-string value is treated as
        /// absent.
        #[opt("crate::de::lenient_string")]
        pub signal: Option<String>,
    }
}

default_new!(
    TerminalExitStatus,
    "An exit status with neither code nor signal."
);

setters!(TerminalExitStatus { opt exit_code: i64, opt signal: String });

wire_struct! {
    /// The size of a terminal in character cells (each at least 1).
    pub struct TerminalSize {
        /// The number of columns.
        pub cols: u16,
        /// The number of rows.
        pub rows: u16,
    }
}

constructor! {
    /// A size of `cols` by `rows` cells.
    TerminalSize(cols: impl Into<u16>, rows: impl Into<u16>) { meta: None }
}

wire_struct! {
    patch_meta
    /// Creates or changes a terminal (the `terminal_update` session update).
    ///
    /// The first update for a `terminalId` creates the terminal; later ones change only the
    /// fields they carry.
    ///
    /// ```json
    /// {"terminalId": "term_1", "command": "cargo test", "cwd": "/repo", "size": {"cols": 120, "rows": 40}}
    /// ```
    pub struct TerminalUpdate {
        /// The terminal this update is about; unique within the session.
        pub terminal_id: TerminalId,
        /// The command line the terminal runs. A non-string value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub command: crate::Patch<String>,
        /// The absolute working directory. A non-string value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub cwd: crate::Patch<AbsolutePath>,
        /// Output that replaces what was shown so far. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub output: crate::Patch<TerminalOutput>,
        /// How the command exited, once it has. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub exit_status: crate::Patch<TerminalExitStatus>,
        /// The terminal's size. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub size: crate::Patch<TerminalSize>,
        /// What the client may do with this terminal (for example cancel it). A malformed value is
        /// treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub capabilities: crate::Patch<TerminalCapabilities>,
    }
}

impl TerminalUpdate {
    /// An update for `terminal_id` that changes nothing yet.
    pub fn new(terminal_id: impl Into<TerminalId>) -> Self {
        Self {
            terminal_id: terminal_id.into(),
            command: crate::Patch::Unchanged,
            cwd: crate::Patch::Unchanged,
            output: crate::Patch::Unchanged,
            exit_status: crate::Patch::Unchanged,
            size: crate::Patch::Unchanged,
            capabilities: crate::Patch::Unchanged,
            meta: crate::Patch::Unchanged,
        }
    }
}

setters!(TerminalUpdate { patch command: String, patch cwd: AbsolutePath, patch output: TerminalOutput, patch exit_status: TerminalExitStatus, patch size: TerminalSize, patch capabilities: TerminalCapabilities });

wire_struct! {
    /// Appends output to a terminal (the `terminal_output_chunk` session update).
    pub struct TerminalOutputChunk {
        /// The terminal to append to.
        pub terminal_id: TerminalId,
        /// The output bytes, base64-encoded.
        pub data: String,
    }
}

constructor! {
    /// A chunk of base64 `data` for `terminal_id`.
    TerminalOutputChunk(terminal_id: impl Into<TerminalId>, data: impl Into<String>) { meta: None }
}

wire_struct! {
    /// Asks the agent to stop the command running in a terminal (`terminal/cancel`).
    pub struct CancelTerminalRequest {
        /// The session the terminal belongs to.
        pub session_id: SessionId,
        /// The terminal to cancel.
        pub terminal_id: TerminalId,
    }
}

constructor! {
    /// Asks to cancel `terminal_id` in `session_id`.
    CancelTerminalRequest(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)
    { meta: None }
}
