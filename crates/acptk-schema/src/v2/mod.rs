//! ACP version 2 (cargo feature `unstable_protocol_v2`).
//!
//! Every type of the v2 wire format, named after the `$defs` of the v2 JSON Schema, in one flat
//! namespace. These are distinct types from those of [`crate::v1`], even where the JSON is
//! identical; there is deliberately no conversion layer between the versions. In v2 a prompt is
//! answered with a message id and the end of a turn is an idle `state_update`.
//!
//! Many v2 unions are open: an unknown tag decodes to an `Other` variant that keeps the whole
//! object and writes it back unchanged. [`SessionUpdate`] is one of them, so an update this crate does not
//! know (one behind an unstable feature that is off, or from a later protocol revision) is kept
//! as [`SessionUpdate::Other`]. Its `notice` variant needs no capability: v2 has none for it.

// First, so that the macros it defines (method rows, session-setup requests) reach the
// modules below.
#[allow(clippy::duplicate_mod)]
#[path = "../shared/mod.rs"]
#[macro_use]
mod shared;

// Next, so that its `session_state_response!` reaches `session_ops`.
#[macro_use]
mod sessions;

mod auth;
mod capabilities;
mod commands;
mod compaction;
mod config;
mod content;
mod diff;
mod elicitation;
mod ids;
mod initialize;
mod mcp;
pub mod methods;
mod permission;
mod plan;
mod prompt;
mod protocol;
#[cfg(any(
    feature = "unstable_session_fork",
    feature = "unstable_session_options",
    feature = "unstable_session_status"
))]
mod session_ops;
mod session_update;
#[cfg(feature = "unstable_agent_skills")]
mod skills;
mod state;
mod terminal;
mod tool_call;

pub use auth::*;
pub use capabilities::*;
pub use commands::*;
pub use compaction::*;
pub use config::*;
pub use content::*;
pub use diff::*;
pub use elicitation::*;
pub use ids::*;
pub use initialize::*;
pub use mcp::*;
pub use methods::{
    AgentNotification, AgentRequest, AgentResponse, ClientNotification, ClientRequest,
    ClientResponse, ProtocolNotification,
};
#[cfg(feature = "unstable_proxy_chains")]
pub use methods::{ProxyNotification, ProxyRequest, ProxyResponse};
pub use permission::*;
pub use plan::*;
pub use prompt::*;
pub use protocol::*;
#[cfg(any(
    feature = "unstable_session_fork",
    feature = "unstable_session_options",
    feature = "unstable_session_status"
))]
pub use session_ops::*;
pub use session_update::*;
pub use sessions::*;
pub use shared::*;
#[cfg(feature = "unstable_agent_skills")]
pub use skills::*;
pub use state::*;
pub use terminal::*;
pub use tool_call::*;

/// How v2 types a file system path, such as a working directory or an extra workspace root: an
/// [`AbsolutePath`]. Shared modules name path fields through this alias; v1 declares the same
/// alias as a plain `String`.
pub(crate) type FsPath = AbsolutePath;

/// How v2 types the `session/list` paging cursor: its [`SessionListCursor`] newtype. Shared
/// modules name the cursor through this alias.
pub(crate) type ListCursor = SessionListCursor;
