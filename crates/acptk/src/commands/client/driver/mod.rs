//! Getting to a session and running turns, with no UI: the agent's process ([`setup`],
//! [`agent_life`]) and what it logs ([`agent_log`], [`peer_log`]), the configuration
//! ([`config`], [`named_agent`], [`mcp_config`]), what the client answers the agent
//! ([`handler`], with the permission [`policy`] and the [`decide`]rs), one turn ([`prompt`],
//! [`oneshot`]) and named sessions ([`named`]: their record and their owner's socket;
//! [`named_session`]; the [`owner`] process). It knows no UI and no printer: it prints to the
//! [`turn_output`] it is handed, which rendering implements. The terminal UI builds on both;
//! `acp sessions` uses the driver too.

pub mod agent_life;
pub mod agent_log;
pub mod config;
pub mod decide;
pub mod handler;
pub mod mcp_config;
pub mod named;
pub mod named_agent;
pub mod named_session;
pub mod oneshot;
pub mod owner;
pub mod peer_log;
pub mod policy;
pub mod prompt;
pub mod setup;
pub mod turn_output;
