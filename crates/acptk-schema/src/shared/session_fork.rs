//! Forking sessions (cargo feature `unstable_session_fork`): `session/fork` starts a new session
//! whose history is a copy of an existing one, whole or (with `unstable_session_cursors`) up to
//! a cursor. The request is the same in every protocol version; each version's
//! session-operations module has the response.
//!
//! An agent that supports it advertises `sessionCapabilities.fork` (`{}`).

#[allow(unused_imports)]
use super::*;

marker_capability! {
    /// Agent capability (`sessionCapabilities.fork`): `session/fork` is supported. Sent as
    /// `{}`.
    SessionForkCapabilities
}

wire_struct! {
    /// `session/fork` parameters: the session to copy and the setup of the new one.
    ///
    /// ```json
    /// {"sessionId": "sess_1", "cwd": "/home/me/project", "mcpServers": []}
    /// ```
    pub struct ForkSessionRequest {
        /// The session to fork.
        pub session_id: SessionId,
        /// Fork at this cursor: the new history is the source's history before it. Absent or
        /// `null` forks the whole session. Only the id of a cursor the agent announced on the
        /// source session, and that currently allows forking, is valid; any other is refused
        /// with invalid params (never a fork of the whole session instead).
        #[unstable("unstable_session_cursors")]
        #[opt]
        pub cursor_id: Option<CursorId>,
        /// Working directory of the new session (an absolute path).
        pub cwd: FsPath,
        /// Further directories the new session may work in, the complete list; absent or
        /// `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<FsPath>,
        /// MCP servers the agent should connect to; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub mcp_servers: Vec<McpServer>,
        /// System prompt text for the new session (only if the agent advertised
        /// `systemPrompt`, normally the one of the source session). Absent: the agent may keep
        /// the source's or use its own.
        #[opt]
        pub system_prompt: Option<SystemPrompt>,
        /// Initial config option values, applied in order on top of the configuration the fork
        /// starts with (only if the agent advertised `options`); absent or `null` means none.
        #[unstable("unstable_session_options")]
        #[list("crate::de::null_as_default")]
        pub config_options: Vec<InitialSessionConfigOption>,
    }
}

constructor! {
    /// A request to fork all of `session_id` into a new session in `cwd`.
    ForkSessionRequest(session_id: impl Into<SessionId>, cwd: impl Into<FsPath>) {
        #[cfg(feature = "unstable_session_cursors")]
        cursor_id: None,
        additional_directories: Vec::new(),
        mcp_servers: Vec::new(),
        system_prompt: None,
        #[cfg(feature = "unstable_session_options")]
        config_options: Vec::new(),
        meta: None,
    }
}

setters!(ForkSessionRequest {
    set additional_directories: Vec<FsPath>,
    set mcp_servers: Vec<McpServer>,
    opt system_prompt: SystemPrompt,
});

#[cfg(feature = "unstable_session_cursors")]
setters!(ForkSessionRequest { opt cursor_id: CursorId });

#[cfg(feature = "unstable_session_options")]
setters!(ForkSessionRequest { set config_options: Vec<InitialSessionConfigOption> });
