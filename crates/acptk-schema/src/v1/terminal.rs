//! Terminals in ACP v1: the client runs commands for the agent (`terminal/*` methods).

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// Asks the client to start a command in a new terminal (`terminal/create`).
    ///
    /// The client answers at once with the terminal's id; the command keeps running.
    ///
    /// ```json
    /// {"sessionId": "sess_1", "command": "cargo", "args": ["test"], "outputByteLimit": 1048576}
    /// ```
    pub struct CreateTerminalRequest {
        /// The session the terminal belongs to.
        pub session_id: SessionId,
        /// The program to run.
        pub command: String,
        /// Its arguments. `null` means none.
        #[list("crate::de::null_as_default")]
        pub args: Vec<String>,
        /// Extra environment variables. `null` means none.
        #[list("crate::de::null_as_default")]
        pub env: Vec<EnvVariable>,
        /// The absolute working directory; the client chooses one when absent.
        #[opt]
        pub cwd: Option<String>,
        /// How many bytes of output the client keeps at most; when more arrives, the oldest output
        /// is dropped (at a character boundary). No limit when absent.
        #[opt]
        pub output_byte_limit: Option<u64>,
    }
}

impl CreateTerminalRequest {
    /// Asks to run `command` in `session_id` with no arguments.
    pub fn new(session_id: impl Into<SessionId>, command: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            output_byte_limit: None,
            meta: None,
        }
    }
}

setters!(CreateTerminalRequest { set args: Vec<String>, set env: Vec<EnvVariable>, opt cwd: String, opt output_byte_limit: u64 });

wire_struct! {
    /// Asks for the output collected so far and the exit status, if any (`terminal/output`).
    pub struct TerminalOutputRequest {
        /// The session the terminal belongs to.
        pub session_id: SessionId,
        /// The terminal to act on.
        pub terminal_id: TerminalId,
    }
}

constructor! {
    /// Asks for the output of `terminal_id`.
    TerminalOutputRequest(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)
    { meta: None }
}

wire_struct! {
    /// Releases a terminal: kills its command if still running and frees it (`terminal/release`).
    /// The id is invalid afterwards.
    pub struct ReleaseTerminalRequest {
        /// The session the terminal belongs to.
        pub session_id: SessionId,
        /// The terminal to act on.
        pub terminal_id: TerminalId,
    }
}

constructor! {
    /// Asks to release `terminal_id`.
    ReleaseTerminalRequest(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)
    { meta: None }
}

wire_struct! {
    /// Waits until the terminal's command exits (`terminal/wait_for_exit`).
    pub struct WaitForTerminalExitRequest {
        /// The session the terminal belongs to.
        pub session_id: SessionId,
        /// The terminal to act on.
        pub terminal_id: TerminalId,
    }
}

constructor! {
    /// Asks to wait for `terminal_id`.
    WaitForTerminalExitRequest(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)
    { meta: None }
}

wire_struct! {
    /// Kills the terminal's command but keeps the terminal, so its output can still be read
    /// (`terminal/kill`). It must still be released later.
    pub struct KillTerminalRequest {
        /// The session the terminal belongs to.
        pub session_id: SessionId,
        /// The terminal to act on.
        pub terminal_id: TerminalId,
    }
}

constructor! {
    /// Asks to kill the command of `terminal_id`.
    KillTerminalRequest(session_id: impl Into<SessionId>, terminal_id: impl Into<TerminalId>)
    { meta: None }
}

wire_struct! {
    /// The client's answer to `terminal/create`.
    pub struct CreateTerminalResponse {
        /// The id of the new terminal.
        pub terminal_id: TerminalId,
    }
}

constructor! {
    /// The answer with the new terminal's id.
    CreateTerminalResponse(terminal_id: impl Into<TerminalId>) { meta: None }
}

wire_struct! {
    /// The client's answer to `terminal/output`.
    pub struct TerminalOutputResponse {
        /// The output collected so far.
        pub output: String,
        /// Whether older output was dropped because of the byte limit.
        pub truncated: bool,
        /// How the command exited, if it has. A malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub exit_status: Option<TerminalExitStatus>,
    }
}

impl TerminalOutputResponse {
    /// The output and whether it was truncated; no exit status.
    pub fn new(output: impl Into<String>, truncated: impl Into<bool>) -> Self {
        Self {
            output: output.into(),
            truncated: truncated.into(),
            exit_status: None,
            meta: None,
        }
    }
}

setters!(TerminalOutputResponse { opt exit_status: TerminalExitStatus });

// An exit status and the answer to `terminal/wait_for_exit` carry the same fields.
twin_structs! {
    {
        /// The exit code, if the command exited normally. A malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub exit_code: Option<u32>,
        /// The name of the signal that ended the command, if any. A non-string value is treated as
        /// absent.
        #[opt("crate::de::lenient_string")]
        pub signal: Option<String>,
    }
    /// Neither code nor signal.
    new() { exit_code: None, signal: None, meta: None }
    setters { opt exit_code: u32, opt signal: String }
    /// How a terminal's command exited: an exit code, or the signal that ended it.
    #[derive(Default)]
    TerminalExitStatus;
    /// The client's answer to `terminal/wait_for_exit`: how the command exited.
    #[derive(Default)]
    WaitForTerminalExitResponse;
}

empty_object! {
    /// The client's answer to `terminal/release`.
    ReleaseTerminalResponse, new: "An empty success response."
}

empty_object! {
    /// The client's answer to `terminal/kill`.
    KillTerminalResponse, new: "An empty success response."
}
