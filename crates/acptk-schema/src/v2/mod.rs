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
mod sessions;
#[cfg(feature = "unstable_agent_skills")]
mod skills;
mod state;
mod terminal;
mod tool_call;

#[allow(clippy::duplicate_mod)]
#[path = "../shared/auth.rs"]
mod common_auth;
#[cfg(feature = "unstable_auth_status")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/auth_status.rs"]
mod common_auth_status;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/capabilities.rs"]
mod common_capabilities;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/compaction.rs"]
mod common_compaction;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/config.rs"]
mod common_config;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/content.rs"]
mod common_content;
#[cfg(feature = "unstable_session_cursors")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/cursors.rs"]
mod common_cursors;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/elicitation.rs"]
mod common_elicitation;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/elicitation_form.rs"]
mod common_elicitation_form;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/ids.rs"]
mod common_ids;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/initialize.rs"]
mod common_initialize;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/mcp.rs"]
mod common_mcp;
#[cfg(feature = "unstable_mcp_over_acp")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/mcp_over_acp.rs"]
mod common_mcp_over_acp;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/permission.rs"]
mod common_permission;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/plan.rs"]
mod common_plan;
#[cfg(feature = "unstable_prompt_suggestions")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/prompt_suggestions.rs"]
mod common_prompt_suggestions;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/protocol.rs"]
mod common_protocol;
#[cfg(feature = "unstable_llm_providers")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/providers.rs"]
mod common_providers;
#[cfg(feature = "unstable_proxy_chains")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/proxy.rs"]
mod common_proxy;
#[cfg(feature = "unstable_session_archive")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/session_archive.rs"]
mod common_session_archive;
#[cfg(feature = "unstable_session_fork")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/session_fork.rs"]
mod common_session_fork;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/session_message.rs"]
mod common_session_message;
#[cfg(feature = "unstable_session_options")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/session_options.rs"]
mod common_session_options;
#[cfg(feature = "unstable_session_status")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/session_status.rs"]
mod common_session_status;
#[cfg(feature = "unstable_session_set_title")]
#[allow(clippy::duplicate_mod)]
#[path = "../shared/session_title.rs"]
mod common_session_title;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/sessions.rs"]
mod common_sessions;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/state.rs"]
mod common_state;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/subagent.rs"]
mod common_subagent;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/terminal.rs"]
mod common_terminal;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/usage.rs"]
mod common_usage;
#[allow(clippy::duplicate_mod)]
#[path = "../shared/notice.rs"]
mod notice;

pub use auth::*;
pub use capabilities::*;
pub use commands::*;
#[cfg(feature = "unstable_auth_status")]
pub use common_auth_status::*;
pub use common_capabilities::*;
pub use common_compaction::*;
pub use common_config::*;
pub use common_content::*;
#[cfg(feature = "unstable_session_cursors")]
pub use common_cursors::*;
pub use common_elicitation::*;
pub use common_elicitation_form::*;
pub use common_ids::*;
pub use common_initialize::*;
pub use common_mcp::*;
#[cfg(feature = "unstable_mcp_over_acp")]
pub use common_mcp_over_acp::*;
pub use common_permission::*;
pub use common_plan::*;
#[cfg(feature = "unstable_prompt_suggestions")]
pub use common_prompt_suggestions::*;
pub use common_protocol::*;
#[cfg(feature = "unstable_llm_providers")]
pub use common_providers::*;
#[cfg(feature = "unstable_proxy_chains")]
pub use common_proxy::*;
#[cfg(feature = "unstable_session_archive")]
pub use common_session_archive::*;
#[cfg(feature = "unstable_session_fork")]
pub use common_session_fork::*;
pub use common_session_message::*;
#[cfg(feature = "unstable_session_options")]
pub use common_session_options::*;
#[cfg(feature = "unstable_session_status")]
pub use common_session_status::*;
#[cfg(feature = "unstable_session_set_title")]
pub use common_session_title::*;
pub use common_sessions::*;
pub use common_state::*;
pub use common_subagent::*;
pub use common_terminal::*;
pub use common_usage::*;
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
pub use notice::*;
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
#[cfg(feature = "unstable_agent_skills")]
pub use skills::*;
pub use state::*;
pub use terminal::*;
pub use tool_call::*;

/// How v2 types a file system path, such as a working directory or an extra workspace root: an
/// [`AbsolutePath`]. Shared modules name path fields through this alias; v1 declares the same
/// alias as a plain `String`.
pub(crate) type FsPath = AbsolutePath;

/// The root of the generated JSON Schema for this version: any message either side may send.
#[cfg(feature = "schemars")]
pub(crate) fn schema_roots(generator: &mut schemars::SchemaGenerator) -> Vec<serde_json::Value> {
    crate::schema::message_roots::<
        AgentRequest,
        AgentResponse,
        AgentNotification,
        ClientRequest,
        ClientResponse,
        ClientNotification,
        ProtocolNotification,
    >(generator)
}
