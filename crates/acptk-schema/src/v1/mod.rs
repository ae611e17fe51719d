//! ACP version 1.
//!
//! Every type of the v1 wire format, named after the `$defs` of the v1 JSON Schema, in one flat
//! namespace. A v1 turn ends with the response to `session/prompt` and its stop reason.
//!
//! The `SessionUpdate` union is closed in v1: a `session/update` whose `sessionUpdate` tag is not
//! known fails to decode. That is why notices are gated by a client capability in v1:
//! [`SessionUpdate`] has a `Notice` variant, and an agent may send it only when [`ClientCapabilities::advertises_notices`] is true for the client that
//! initialised the connection.

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
mod elicitation;
mod fs;
mod ids;
mod initialize;
mod mcp;
pub mod methods;
mod modes;
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
mod state;
mod terminal;
mod tool_call;

mod notice_capability;

pub use auth::*;
pub use capabilities::*;
pub use commands::*;
pub use compaction::*;
pub use config::*;
pub use content::*;
pub use elicitation::*;
pub use fs::*;
pub use ids::*;
pub use initialize::*;
pub use mcp::*;
pub use methods::{
    AgentNotification, AgentRequest, AgentResponse, ClientNotification, ClientRequest,
    ClientResponse, ProtocolNotification,
};
#[cfg(feature = "unstable_proxy_chains")]
pub use methods::{ProxyNotification, ProxyRequest, ProxyResponse};
pub use modes::*;
pub use notice_capability::NoticeCapabilities;
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
pub use state::*;
pub use terminal::*;
pub use tool_call::*;

/// How v1 types a file system path, such as a working directory or an extra workspace root: a
/// plain string, which v1 does not require to be absolute. Shared modules name path fields
/// through this alias; v2 declares the same alias as its `AbsolutePath` newtype.
pub(crate) type FsPath = String;

/// How v1 types the `session/list` paging cursor: a plain string. Shared modules name the
/// cursor through this alias.
pub(crate) type ListCursor = String;
