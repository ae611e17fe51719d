//! What the client sends to open a session and to prompt it, in one form for both versions:
//! [`SessionSetup`] (with its [`McpServerSpec`]s), [`Prompt`], and the paging types of
//! `session/list`.

use std::time::SystemTime;

use acptk_schema::{v1, v2};

use super::connected_client::ClientConnection;
use crate::mcp_server::McpServerSpec;
use crate::version::ByVersion;

/// How a session came to be open on this connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionOrigin {
    /// `session/new`.
    New,
    /// `session/load` (v1); the history was replayed.
    Loaded,
    /// `session/resume`; `replayed` tells whether the history was replayed (v2 only).
    Resumed {
        /// Whether a replay was asked for and sent.
        replayed: bool,
    },
    /// `session/fork`: a new session whose history is a copy of another's.
    #[cfg(feature = "unstable_session_fork")]
    Forked,
}

/// A client system prompt for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SystemPromptSpec {
    /// `append` or `override` (only modes the agent advertised get this far).
    pub mode: String,
    /// Its text blocks, joined with newlines.
    pub text: String,
}

/// What the client sent when it opened a session.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionSetup {
    /// The session id (new, or the one loaded or resumed).
    pub id: String,
    /// How the session was opened.
    pub origin: SessionOrigin,
    /// The working directory.
    pub cwd: String,
    /// Further workspace roots (only when the agent advertised them).
    pub additional_directories: Vec<String>,
    /// The MCP servers to use (only transports the agent advertised get this far).
    pub mcp_servers: Vec<McpServerSpec>,
    /// The client's system prompt, when the agent advertised that it takes one.
    pub system_prompt: Option<SystemPromptSpec>,
    /// The client, with its typed calls.
    pub client: ClientConnection,
    /// The initial config option values the request asked for (applied by the runtime).
    #[cfg(feature = "unstable_session_options")]
    pub(crate) initial_options: Vec<(String, Option<crate::store::ConfigValue>)>,
}

/// A user prompt, in either version.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Prompt {
    /// The text blocks of the prompt, joined with newlines.
    pub text: String,
    /// The id of the user message the prompt was recorded as.
    pub message_id: String,
    /// The request as received.
    pub request: ByVersion<v1::PromptRequest, v2::PromptRequest>,
}

/// The text of a prompt: its text blocks joined with newlines.
pub(crate) fn prompt_text<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    texts.collect::<Vec<_>>().join("\n")
}

/// A `session/list` request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListRequest {
    /// Only sessions with this working directory.
    pub cwd: Option<String>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// Which sessions by archive state (default: only those not archived).
    #[cfg(feature = "unstable_session_archive")]
    pub archived: ArchiveFilter,
    /// Whose sessions may be listed: the principal of the connection that asked. The page
    /// the runtime builds holds only its sessions; a page the agent builds itself must too.
    pub principal: crate::principal::Principal,
}

/// Which sessions `session/list` shows by archive state.
#[cfg(feature = "unstable_session_archive")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArchiveFilter {
    /// Only sessions that are not archived (the default).
    #[default]
    Exclude,
    /// Every session.
    Include,
    /// Only archived sessions.
    Only,
}

#[cfg(feature = "unstable_session_archive")]
impl ArchiveFilter {
    /// The filter a request names (`exclude` when absent); the error names a filter this
    /// runtime does not know.
    pub(crate) fn parse(name: Option<&str>) -> Result<Self, String> {
        match name {
            None | Some("exclude") => Ok(Self::Exclude),
            Some("include") => Ok(Self::Include),
            Some("only") => Ok(Self::Only),
            Some(other) => Err(format!(
                "the archive filter `{other}` is not supported; use `exclude`, `include` or `only`"
            )),
        }
    }

    /// Whether a session with this archive flag is shown.
    pub(crate) fn shows(self, archived: bool) -> bool {
        match self {
            Self::Exclude => !archived,
            Self::Include => true,
            Self::Only => archived,
        }
    }
}

/// One page of `session/list`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionPage {
    /// The sessions, most recently active first.
    pub sessions: Vec<SessionSummary>,
    /// The cursor of the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// One session in a [`SessionPage`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionSummary {
    /// The session id.
    pub id: String,
    /// Its working directory.
    pub cwd: String,
    /// Its further workspace roots.
    pub additional_directories: Vec<String>,
    /// Its title.
    pub title: Option<String>,
    /// When it last changed.
    pub updated_at: SystemTime,
    /// Whether it is archived (reported with the cargo feature `unstable_session_archive`).
    pub archived: bool,
}
