//! Session setup in v2: creating (`session/new`), listing (`session/list`) and resuming
//! (`session/resume`, optionally with a replay) sessions, and the idempotency key of
//! `session/prompt`.

#[allow(unused_imports)]
use super::*;

/// Declares one of the agent's answers that make a session active (`session/new`,
/// `session/resume`, `session/fork`) with `session_state_response_of!`: the fields written in
/// the invocation, then the session's config options and slash commands (both lenient, both
/// absent when empty), with their setters; `new: "<doc>"` writes `new(session_id)`.
macro_rules! session_state_response {
    ($($item:tt)*) => {
        session_state_response_of! {
            state {
                /// The session's config options, in display order; absent means none. A malformed
                /// list decodes as empty and malformed entries are dropped.
                #[list("crate::de::lenient_items")]
                pub config_options: Vec<SessionConfigOption>,
                /// Slash commands available in the session; absent means none. A malformed list
                /// decodes as empty and malformed entries are dropped.
                #[list("crate::de::lenient_items")]
                pub available_commands: Vec<AvailableCommand>,
            }
            setters { set config_options: Vec<SessionConfigOption>, set available_commands: Vec<AvailableCommand> }
            empty { config_options: Vec::new(), available_commands: Vec::new(), }
            $($item)*
        }
    };
}

session_state_response! {
    /// The agent's answer to `session/new`: the id of the new session and its initial
    /// state.
    pub struct NewSessionResponse {
        /// The new session's id, used in every later request about it.
        pub session_id: SessionId,
    }
    new: "A response for the new session `session_id`."
}

wire_struct! {
    /// The agent's answer to `session/list`: one page of known sessions.
    pub struct ListSessionsResponse {
        /// The sessions on this page. A malformed list decodes as empty and malformed entries
        /// are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
        pub sessions: Vec<SessionInfo>,
        /// Opaque cursor for the next page; absent on the last page.
        #[opt]
        pub next_cursor: Option<SessionListCursor>,
    }
}

constructor! {
    /// A (last) page holding `sessions`.
    ListSessionsResponse(sessions: impl Into<Vec<SessionInfo>>) { next_cursor: None, meta: None }
}

setters!(ListSessionsResponse { opt next_cursor: SessionListCursor });

// Built with the constructor and setters in `shared/sessions.rs`, the same in both versions.
wire_struct! {
    /// One entry of a session list.
    pub struct SessionInfo {
        /// The session's id.
        pub session_id: SessionId,
        /// The session's working directory.
        pub cwd: AbsolutePath,
        /// Further directories the session may work in; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<AbsolutePath>,
        /// Human-readable title; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// When the session last changed (an RFC 3339 date-time); a malformed value is treated
        /// as absent.
        #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
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
    /// The agent's answer to `session/resume`: the session is active again (any requested
    /// replay has been sent as `session/update` notifications before this answer).
    #[derive(Default)]
    pub struct ResumeSessionResponse {
    }
}

constructor! {
    /// An empty response.
    ResumeSessionResponse()
    { config_options: Vec::new(), available_commands: Vec::new(), meta: None }
}

setup_request! {
    /// `session/new` parameters: the client starts a new conversation with the agent.
    pub struct NewSessionRequest {
        /// Working directory of the session.
        pub cwd: AbsolutePath,
        /// Further directories the session may work in; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<AbsolutePath>,
        /// MCP servers the agent should connect to; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub mcp_servers: Vec<McpServer>,
    }
    /// A request for a session in `cwd`.
    new(cwd: impl Into<AbsolutePath>)
    { additional_directories: Vec::new(), mcp_servers: Vec::new(), }
}

setters!(NewSessionRequest { set additional_directories: Vec<AbsolutePath>, set mcp_servers: Vec<McpServer> });

wire_struct! {
    /// System prompt text supplied by the client for a session.
    pub struct SystemPrompt {
        /// Whether the text is added to or replaces the agent's own system prompt.
        pub mode: SystemPromptMode,
        /// The text (and other content) of the prompt (at least one block).
        #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
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
    /// `session/resume` parameters: the client continues an earlier session, optionally
    /// asking for its history to be replayed.
    pub struct ResumeSessionRequest {
        /// The session to resume.
        pub session_id: SessionId,
        /// Working directory of the session.
        pub cwd: AbsolutePath,
        /// Further directories the session may work in; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub additional_directories: Vec<AbsolutePath>,
        /// MCP servers the agent should connect to; absent or `null` means none.
        #[list("crate::de::null_as_default")]
        pub mcp_servers: Vec<McpServer>,
        /// Where to start replaying the history; absent means no replay.
        #[opt]
        pub replay_from: Option<ReplayFrom>,
    }
    /// A request resuming `session_id` in `cwd`, without replay.
    new(session_id: impl Into<SessionId>, cwd: impl Into<AbsolutePath>)
    { additional_directories: Vec::new(), mcp_servers: Vec::new(), replay_from: None, }
}

setters!(ResumeSessionRequest { set additional_directories: Vec<AbsolutePath>, set mcp_servers: Vec<McpServer>, opt replay_from: ReplayFrom });

tagged_union! {
    /// Where a `session/resume` replay starts, tagged by `type`. Notices are never replayed.
    ///
    /// Open: an unknown starting point is kept verbatim in `Other`.
    pub enum ReplayFrom("type") open(Other) {
        /// Replay the whole history from the beginning.
        Start(ReplayFromStart) = "start",
    }
}

empty_object! {
    /// The payload of a replay from the start (only `_meta`).
    ReplayFromStart, new: "An empty payload."
}

/// A client-chosen key that makes a `session/prompt` safe to retry: the agent inserts the user
/// message at most once per key and answers a retry with the original `messageId`.
///
/// It is a string of 1 to [`IdempotencyKey::MAX_CHARS`] characters (Unicode scalar values);
/// [`IdempotencyKey::new`] checks this, and decoding a key outside that range fails. Send the
/// same key on every attempt of one prompt and a fresh one (for example a UUID) for the next.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The longest accepted key, in characters.
    pub const MAX_CHARS: usize = 255;

    /// Checks that `key` has 1 to [`Self::MAX_CHARS`] characters.
    pub fn new(key: impl Into<String>) -> Result<Self, crate::Error> {
        let key = key.into();
        let chars = key.chars().count();
        if (1..=Self::MAX_CHARS).contains(&chars) {
            Ok(Self(key))
        } else {
            Err(crate::Error::IdempotencyKeyLength { chars })
        }
    }

    /// The key as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Takes the key string out.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl TryFrom<String> for IdempotencyKey {
    type Error = crate::Error;
    fn try_from(key: String) -> Result<Self, Self::Error> {
        Self::new(key)
    }
}

impl TryFrom<&str> for IdempotencyKey {
    type Error = crate::Error;
    fn try_from(key: &str) -> Result<Self, Self::Error> {
        Self::new(key)
    }
}

impl From<IdempotencyKey> for String {
    fn from(key: IdempotencyKey) -> Self {
        key.0
    }
}

impl AsRef<str> for IdempotencyKey {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

schema_impl!(IdempotencyKey, |_| {
    schemars::json_schema!({ "type": "string", "minLength": 1, "maxLength": 255 })
});
