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
//!
//! # Which crate do I need?
//!
//! The ACP toolkit is split so that a program builds only what it uses:
//!
//! * [`acptk-schema`](https://docs.rs/acptk-schema/0.1.0/acptk_schema/): the wire types of ACP v1
//!   and v2 (serde, optional JSON Schema), no I/O and no async: for code that reads or writes ACP
//!   messages with its own transport.
//! * [`acptk-notice-center`](https://docs.rs/acptk-notice-center/0.1.0/acptk_notice_center/): the
//!   client's presentation engine for session notices (toasts, the notice list, timers,
//!   screen-reader announcements, sanitising), a state machine with no I/O: for a client, whatever
//!   its connection code.
//! * [`acptk-runtime`](https://docs.rs/acptk-runtime/0.1.0/acptk_runtime/): the agent and client
//!   sides on tokio: JSON-RPC connections, the agent server with its session stores (memory,
//!   files, SQLite, PostgreSQL), the client, and the transports (stdio, child processes,
//!   WebSocket, Streamable HTTP): to write an agent or embed a client.
//! * [`acptk-check`](acptk_check): the traffic checker: rules and findings over transcripts and
//!   live traffic, the notice repairs and forwarding core of `acp proxy`: to test what an agent or
//!   a client sends.
//! * **`acptk-inspect`** (this crate): captures of ACP traffic in SQLite: capture, import, export,
//!   queries, a read-only MCP server and a web inspector: to record and study sessions.
//! * [`acptk-conform`](https://docs.rs/acptk-conform/0.1.0/acptk_conform/): the conformance
//!   runner of `acp conform agent`: a registry of requirements with their sources, run against
//!   an agent command in v1 and v2: to learn whether an agent keeps the protocol.
//! * [`acptk`](https://docs.rs/acptk/0.1.0/acptk/): the `acp` command-line tool
//!   (`cargo install acptk`): checker, proxy, inspector, test agent and terminal client; its
//!   library serves the binary and its tests, not other programs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(html_root_url = "https://docs.rs/acptk-inspect/0.1.0")]

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
