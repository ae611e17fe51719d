//! What both versions share where only the types differ: each file here is compiled once into
//! `v1` and once into `v2` (this module is included into each version with `#[path]`), and
//! its `super::` names resolve to that version's types. The version module re-exports all of it
//! into its flat namespace.

// The version's own types, for the shared files (`use super::*` in each of them).
#[allow(unused_imports)]
use super::*;

// First, so that the version's modules (declared after `shared`) see their macros.
#[macro_use]
mod method_rows;
#[macro_use]
mod session_setup;

mod auth;
#[cfg(feature = "unstable_auth_status")]
mod auth_status;
mod capabilities;
mod compaction;
mod config;
mod content;
#[cfg(feature = "unstable_session_cursors")]
mod cursors;
mod elicitation;
mod elicitation_form;
mod ids;
mod initialize;
mod mcp;
#[cfg(feature = "unstable_mcp_over_acp")]
mod mcp_over_acp;
mod notice;
mod permission;
mod plan;
#[cfg(feature = "unstable_prompt_suggestions")]
mod prompt_suggestions;
mod protocol;
#[cfg(feature = "unstable_llm_providers")]
mod providers;
#[cfg(feature = "unstable_proxy_chains")]
mod proxy;
#[cfg(feature = "unstable_session_archive")]
mod session_archive;
#[cfg(feature = "unstable_session_fork")]
mod session_fork;
mod session_message;
#[cfg(feature = "unstable_session_options")]
mod session_options;
#[cfg(feature = "unstable_session_status")]
mod session_status;
#[cfg(feature = "unstable_session_set_title")]
mod session_title;
mod sessions;
mod state;
mod subagent;
mod terminal;
mod usage;

#[cfg(feature = "unstable_auth_status")]
pub use auth_status::*;
pub use capabilities::*;
pub use compaction::*;
pub use config::*;
pub use content::*;
#[cfg(feature = "unstable_session_cursors")]
pub use cursors::*;
pub use elicitation::*;
pub use elicitation_form::*;
pub use ids::*;
pub use initialize::*;
pub use mcp::*;
#[cfg(feature = "unstable_mcp_over_acp")]
pub use mcp_over_acp::*;
pub use notice::*;
pub use permission::*;
pub use plan::*;
#[cfg(feature = "unstable_prompt_suggestions")]
pub use prompt_suggestions::*;
pub use protocol::*;
#[cfg(feature = "unstable_llm_providers")]
pub use providers::*;
#[cfg(feature = "unstable_proxy_chains")]
pub use proxy::*;
#[cfg(feature = "unstable_session_archive")]
pub use session_archive::*;
#[cfg(feature = "unstable_session_fork")]
pub use session_fork::*;
pub use session_message::*;
#[cfg(feature = "unstable_session_options")]
pub use session_options::*;
#[cfg(feature = "unstable_session_status")]
pub use session_status::*;
#[cfg(feature = "unstable_session_set_title")]
pub use session_title::*;
pub use sessions::*;
pub use state::*;
pub use subagent::*;
pub use terminal::*;
pub use usage::*;

/// The root of the generated JSON Schema for this version: any message either side may send.
#[cfg(feature = "schemars")]
pub(crate) fn schema_roots(generator: &mut schemars::SchemaGenerator) -> Vec<serde_json::Value> {
    crate::schema_parts::message_roots::<
        AgentRequest,
        AgentResponse,
        AgentNotification,
        ClientRequest,
        ClientResponse,
        ClientNotification,
        ProtocolNotification,
    >(generator)
}
