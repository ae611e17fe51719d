//! Protocol analysis of Agent Client Protocol (ACP) traffic: the engine of `acp check` and
//! `acp proxy`.
//!
//! * [`transcript`]: the transcript format (newline-delimited `{"from": ..., "message": ...}`
//!   objects, or bare JSON-RPC lines), with run headers.
//! * [`Checker`]: one connection's protocol state (negotiated version, client capabilities,
//!   requests in flight, replay windows) fed one message at a time; it decodes each message
//!   with the typed schema of the negotiated version and returns [`Finding`]s under stable
//!   [`Rule`] ids.
//! * [`check()`]: a whole transcript, with a [`report::Summary`]; [`report`] prints findings as
//!   compiler-style text or JSON lines.
//! * [`replay`]: when a notice counts as replayed (exactly: the one decision both the checker
//!   and the proxy use).
//! * [`input`]: the other trace formats `acp check` reads (ACP conductor traces, Zed ACP log
//!   copies, acpx JSON output), told apart automatically.
//! * [`repair`] and [`fallback`]: what the proxy does to the agent's notices; the `proxy`
//!   module (feature `proxy`, on by default): the async forwarding core, with its write-ahead
//!   record.
//!
//! ```
//! use acptk_check::{CheckOptions, Rule, check_bytes};
//!
//! let transcript = br#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}}
//! {"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}
//! {"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable"}}}}
//! "#;
//! let (findings, summary) = check_bytes(transcript, &CheckOptions::new());
//! assert_eq!(findings[0].rule, Rule::NoticeWithoutCapability);
//! assert_eq!(findings[0].line, 3);
//! assert!(summary.has_errors());
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
//! * [`acptk-runtime`](acptk_runtime): the agent and client sides on tokio: JSON-RPC connections,
//!   the agent server with its session stores (memory, files, SQLite, PostgreSQL), the client, and
//!   the transports (stdio, child processes, WebSocket, Streamable HTTP): to write an agent or
//!   embed a client.
//! * **`acptk-check`** (this crate): the traffic checker: rules and findings over transcripts and
//!   live traffic, the notice repairs and forwarding core of `acp proxy`: to test what an agent or
//!   a client sends.
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
#![doc(html_root_url = "https://docs.rs/acptk-check/0.1.0")]

mod check;
mod decode;
mod engine;
pub mod fallback;
mod finding;
pub mod input;
mod input_format;
pub mod lines;
mod peek;
#[cfg(feature = "proxy")]
pub mod proxy;
pub mod repair;
pub mod replay;
pub mod report;
mod state;
pub mod transcript;

pub use check::{CheckOptions, check, check_bytes, visit};
pub use decode::{NoticeView, Version};
pub use engine::{Checker, NoticeEvent, Observation};
pub use finding::{Finding, Rule, Severity};
pub use transcript::Side;
