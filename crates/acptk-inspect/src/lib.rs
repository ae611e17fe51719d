//! Captures of Agent Client Protocol traffic in SQLite, behind `acp proxy --capture` and
//! `acp inspect`.
//!
//! * [`Store`]: one database file (by default [`default_path`]), WAL mode, versioned schema
//!   (see [`schema`](crate::db::schema) for every table and column).
//! * [`Capture`]: the proxy's capture hook ([`acptk_check::proxy::Tap`]): frames, findings and
//!   notices written to the capture's spool before each batch is forwarded, and moved into
//!   the database by a thread of its own ([`Store::recover`] moves what a killed proxy left).
//! * [`import`] and [`export`]: every trace format `acp check` reads, plus acp-devtools'
//!   export JSON; exports in our transcript format or acp-devtools' JSON, redacted by default
//!   ([`redact`]); [`message`] is a frame's message as every command shows it.
//! * [`query`]: what the CLI, the MCP server and the web inspector read: captures, frame
//!   ranges, frame detail, findings, the notice lane, session info, latency, diff, search and
//!   live updates.
//! * [`mcp`]: the read-only MCP server of `acp inspect mcp`.
//! * `web` (feature `web`): the web inspector of `acp inspect ui`.

mod capture;
pub mod db;
mod error;
mod expand;
pub mod export;
mod frame;
pub mod import;
pub mod mcp;
pub mod message;
mod notice;
pub mod query;
pub mod redact;
mod spool;
#[cfg(feature = "web")]
pub mod web;
mod writer;

pub use capture::{Capture, Origin};
pub use db::{Store, default_path};
pub use error::{Error, Result};
pub use frame::Kind;
pub use notice::Outcome;
