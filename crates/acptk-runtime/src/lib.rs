//! Async runtime for the Agent Client Protocol (ACP), versions 1 and 2, built on tokio.
//!
//! * [`connection`]: newline-delimited JSON-RPC 2.0 over any `AsyncRead`/`AsyncWrite` pair,
//!   with id correlation, cancellation, bounded queues and bad-line survival.
//! * [`agent`]: implement [`agent::Agent`] (only `prompt` is required) and serve it with
//!   [`agent::AgentServer`]. The runtime negotiates the version, advertises exactly what the
//!   agent and its [`agent::SessionStore`] support, answers the session methods from the store
//!   (new, load, resume, list, close, delete, modes, config options), keeps session history
//!   (which cannot hold a notice) in memory or in files and replays it, runs turns by each
//!   version's rules, gates every request to the client on its capabilities, and delivers
//!   notices by the rules of the client's version with one call, [`agent::Session::notice`].
//! * [`client`]: connect with [`client::ClientBuilder`]; notices land in an
//!   [`acptk_notice_center::NoticeCenter`], everything else in a [`client::Transcript`].
//! * [`transport`]: standard input/output, and agents launched as child processes.
//! * [`diff`]: line diffs of two texts as hunks (a tool call's `git_patch`, a client's drawing
//!   of a file diff).
//!
//! # An agent and a client over an in-memory pipe
//!
//! ```
//! use acptk_runtime::client::ClientBuilder;
//! use acptk_runtime::prelude::*;
//!
//! struct Echo;
//!
//! impl Agent for Echo {
//!     async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
//!         session.notice(&Notice::info("Echo mode")).await?;
//!         session.send_text(format!("You said: {}", prompt.text)).await?;
//!         Ok(StopReason::EndTurn)
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), acptk_runtime::Error> {
//! let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
//! let server = AgentServer::new(Echo);
//! let (agent_read, agent_write) = tokio::io::split(agent_io);
//! server.start(agent_read, agent_write);
//!
//! let (client_read, client_write) = tokio::io::split(client_io);
//! let client = ClientBuilder::new().connect(client_read, client_write).await?;
//! let session = client.new_session("/tmp", &[]).await?;
//! client.prompt(&session, "hello").await?;
//!
//! let transcript = client.session_transcript(&session).unwrap_or_default();
//! let texts: Vec<&str> = transcript.entries.iter().filter_map(|entry| match entry {
//!     acptk_runtime::client::transcript::Entry::Message(message) => Some(message.text.as_str()),
//!     _ => None,
//! }).collect();
//! assert_eq!(texts, ["hello", "You said: hello"]);
//! // The notice went to the notice center, not to the transcript.
//! assert_eq!(client.with_notice_center(|center| center.entry_count(&session)), 1);
//! # Ok(())
//! # }
//! ```
//!
//! # Which crate do I need?
//!
//! The ACP toolkit is split so that a program builds only what it uses:
//!
//! * [`acptk-schema`](acptk_schema): the wire types of ACP v1 and v2 (serde, optional JSON
//!   Schema), no I/O and no async: for code that reads or writes ACP messages with its own
//!   transport.
//! * [`acptk-notice-center`](acptk_notice_center): the client's presentation engine for session
//!   notices (toasts, the notice list, timers, screen-reader announcements, sanitising), a state
//!   machine with no I/O: for a client, whatever its connection code.
//! * **`acptk-runtime`** (this crate): the agent and client sides on tokio: JSON-RPC connections,
//!   the agent server with its session stores (memory, files, SQLite, PostgreSQL), the client, and
//!   the transports (stdio, child processes, WebSocket, Streamable HTTP): to write an agent or
//!   embed a client.
//! * [`acptk-check`](https://docs.rs/acptk-check/0.1.0/acptk_check/): the traffic checker: rules
//!   and findings over transcripts and live traffic, the notice repairs and forwarding core of
//!   `acp proxy`: to test what an agent or a client sends.
//! * [`acptk-inspect`](https://docs.rs/acptk-inspect/0.1.0/acptk_inspect/): captures of ACP
//!   traffic in SQLite: capture, import, export, queries, a read-only MCP server and a web
//!   inspector: to record and study sessions.
//! * [`acptk-conform`](https://docs.rs/acptk-conform/0.1.0/acptk_conform/): the conformance
//!   runner of `acp conform agent`: a registry of requirements with their sources, run against
//!   an agent command in v1 and v2: to learn whether an agent keeps the protocol.
//! * [`acptk`](https://docs.rs/acptk/0.1.0/acptk/): the `acp` command-line tool
//!   (`cargo install acptk`): checker, proxy, inspector, test agent and terminal client; its
//!   library serves the binary and its tests, not other programs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(html_root_url = "https://docs.rs/acptk-runtime/0.1.0")]

pub mod agent;
pub mod client;
mod client_feature;
pub mod connection;
pub mod diff;
mod draft_payloads;
mod error;
mod lock;
pub mod log;
mod mcp_server;
mod notice;
mod principal;
pub mod rpc;
mod stop_reason;
pub mod store;
pub mod transport;
mod version;

pub use connection::{Connection, ConnectionBuilder};
pub use error::Error;
pub use notice::{FallbackPolicy, Notice, NoticeDelivery, NoticeSeverity, NoticeTitle};
pub use version::{ByVersion, SUPPORTED_VERSIONS};

/// The wire types of both protocol versions (`acptk_schema::v1`, `acptk_schema::v2`), for what
/// the runtime's own types do not cover: an agent needs no dependency of its own on
/// `acptk-schema`.
pub use acptk_schema;

/// The JSON-RPC error object that handlers return. Every [`Error`] converts into one (`?`
/// works on every runtime call inside a handler); see the conversion for what each becomes.
pub use acptk_schema::jsonrpc::ErrorObject;

/// What an agent needs, in one import: `use acptk_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::agent::{
        Agent, AgentFeatures, AgentInfo, AgentServer, FileStore, MemoryStore, Modes,
        PermissionOutcome, PermissionRequest, Prompt, Session, SessionConfig, SessionSetup,
        StopReason,
    };
    pub use crate::{Error, ErrorObject, Notice, NoticeSeverity};
}

/// The negotiated protocol version type (shared by both versions' wire types).
pub use acptk_schema::v1::ProtocolVersion;
