//! Session setup in v1: creating (`session/new`), loading (`session/load`), listing
//! (`session/list`) and resuming (`session/resume`) sessions.

#[allow(unused_imports)]
use super::*;

/// Declares one of the agent's answers that make a session active (`session/new`,
/// `session/load`, `session/resume`, `session/fork`) with `session_state_response_of!`: the
/// fields written in the invocation, then the session's modes and config options (both lenient,
/// both absent when `None`), with their setters; `new: "<doc>"` writes `new(session_id)`.
macro_rules! session_state_response {
    ($($item:tt)*) => {
        session_state_response_of! {
            state {
                /// The session modes and the current one; absent if the agent has no modes. A malformed
                /// value is treated as absent.
                #[opt("crate::de::lenient_object")]
                pub modes: Option<SessionModeState>,
                /// The session's config options, in display order; absent if the agent offers none. A
                /// malformed list is treated as absent and malformed entries are dropped.
                #[opt("crate::de::lenient_items_opt")]
                pub config_options: Option<Vec<SessionConfigOption>>,
            }
            setters { opt modes: SessionModeState, opt config_options: Vec<SessionConfigOption> }
            empty { modes: None, config_options: None, }
            $($item)*
        }
    };
}

session_state_response! {
    /// The agent's answer to `session/new`: the id of the new session and its initial
    /// settings.
    pub struct NewSessionResponse {
        /// The new session's id, used in every later request about it.
        pub session_id: SessionId,
    }
    new: "A response for the new session `session_id`."
}

session_state_response! {
    /// The agent's answer to `session/load`, sent after it has replayed the whole
    /// conversation as `session/update` notifications.
    #[derive(Default)]
    pub struct LoadSessionResponse {
    }
}

default_new!(LoadSessionResponse, "An empty response.");

wire_struct! {
    /// The agent's answer to `session/list`: one page of known sessions.
    pub struct ListSessionsResponse {
        /// The sessions on this page. A malformed list decodes as empty and malformed entries
        /// are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
        pub sessions: Vec<SessionInfo>,
        /// Opaque cursor for the next page; absent on the last page. A malformed value is
        /// treated as absent.
        #[opt("crate::de::lenient_string")]
        pub next_cursor: Option<String>,
    }
}

constructor! {
    /// A (last) page holding `sessions`.
    ListSessionsResponse(sessions: impl Into<Vec<SessionInfo>>) { next_cursor: None, meta: None }
}

setters!(ListSessionsResponse { opt next_cursor: String });

// Built with the constructor and setters in `shared/sessions.rs`, the same in both versions.
wire_struct! {
    /// One entry of a session list.
    pub struct SessionInfo {
        /// The session's id.
        pub session_id: SessionId,
        /// The session's working directory (an absolute path).
        pub cwd: String,
        /// Further directories the session may work in. A malformed list decodes as empty and
        /// malformed entries are dropped.
        #[list("crate::de::lenient_items")]
        pub additional_directories: Vec<String>,
        /// Human-readable title; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// When the session last changed (an ISO 8601 timestamp); a malformed value is treated
        /// as absent.
        #[opt("crate::de::lenient_string")]
        pub updated_at: Option<String>,
        /// Whether the session is archived. Absent: not reported (an agent that advertised
        /// `sessionCapabilities.archive` reports it for every session). A malformed value is
        /// treated as absent.
        #[unstable("unstable_session_archive")]
        #[opt("crate::de::lenient")]
        pub archived: Option<bool>,
    }
}

session_state_response! {
    /// The agent's answer to `session/resume`: the session is active again, without a replay
    /// of its history.
    #[derive(Default)]
    pub struct ResumeSessionResponse {
    }
}

default_new!(ResumeSessionResponse, "An empty response.");

setup_request! {
    /// `session/new` parameters: the client starts a new conversation with the agent.
    pub struct NewSessionRequest {
        /// Working directory of the session (an absolute path); file operations are relative
        /// to it.
        pub cwd: String,
        /// Further directories the session may work in; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<String>,
        /// MCP servers the agent should connect to for this session. Required; `null` means
        /// none.
        #[serde(deserialize_with = "crate::de::null_as_default")]
        pub mcp_servers: Vec<McpServer>,
    }
    /// A request for a session in `cwd` with the given MCP servers.
    new(cwd: impl Into<String>, mcp_servers: impl Into<Vec<McpServer>>)
    { additional_directories: Vec::new(), }
}

setters!(NewSessionRequest { set additional_directories: Vec<String> });

wire_struct! {
    /// System prompt text supplied by the client for a session.
    pub struct SystemPrompt {
        /// Whether the text is added to or replaces the agent's own system prompt.
        pub mode: SystemPromptMode,
        /// The text (and other content) of the prompt.
        pub content: Vec<ContentBlock>,
    }
}

impl SystemPrompt {
    /// A system prompt with the given mode and content.
    pub fn new(mode: impl Into<SystemPromptMode>, content: impl Into<Vec<ContentBlock>>) -> Self {
        Self {
            mode: mode.into(),
            content: content.into(),
            meta: None,
        }
    }
}

setup_request! {
    /// `session/load` parameters: the client reopens an earlier session and wants its whole
    /// history replayed. Only for agents that advertised `loadSession`.
    pub struct LoadSessionRequest {
        /// MCP servers the agent should connect to for this session. Required; `null` means
        /// none.
        #[serde(deserialize_with = "crate::de::null_as_default")]
        pub mcp_servers: Vec<McpServer>,
        /// Working directory of the session (an absolute path).
        pub cwd: String,
        /// Further directories the session may work in; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<String>,
        /// The session to load.
        pub session_id: SessionId,
    }
    /// A request loading `session_id` in `cwd` with the given MCP servers.
    new(
        mcp_servers: impl Into<Vec<McpServer>>,
        cwd: impl Into<String>,
        session_id: impl Into<SessionId>,
    )
    { additional_directories: Vec::new(), }
}

setters!(LoadSessionRequest { set additional_directories: Vec<String> });

setup_request! {
    /// `session/resume` parameters: the client continues an earlier session without a replay
    /// of its history.
    pub struct ResumeSessionRequest {
        /// The session to resume.
        pub session_id: SessionId,
        /// Working directory of the session (an absolute path).
        pub cwd: String,
        /// Further directories the session may work in; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<String>,
        /// MCP servers the agent should connect to; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub mcp_servers: Vec<McpServer>,
    }
    /// A request resuming `session_id` in `cwd`.
    new(session_id: impl Into<SessionId>, cwd: impl Into<String>)
    { additional_directories: Vec::new(), mcp_servers: Vec::new(), }
}

setters!(ResumeSessionRequest { set additional_directories: Vec<String>, set mcp_servers: Vec<McpServer> });
