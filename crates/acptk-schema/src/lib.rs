//! Typed wire format of the Agent Client Protocol (ACP), versions 1 and 2.
//!
//! ACP is the JSON-RPC 2.0 protocol spoken between code editors ("clients") and AI coding agents.
//! This crate holds the data types only: no I/O, no async. Every type serialises to and from the
//! exact JSON the protocol puts on the wire.
//!
//! * [`v1`]: ACP version 1.
//! * `v2`: ACP version 2 (cargo feature `unstable_protocol_v2`).
//! * [`jsonrpc`]: the JSON-RPC 2.0 envelope shared by both versions.
//! * [`method`]: method marker traits; each version has its method tables in `methods`.
//!
//! The centre of the crate is the **session notice**: a fire-and-forget `notice` session update
//! with which an agent shows advisory information ("MCP server unavailable", "model rerouted")
//! that is not part of the conversation. Notices are stable ACP (since 2026-10-09) and part of
//! the default build; the old cargo feature `unstable_session_notices` is empty and no longer
//! needed.
//!
//! # Conventions
//!
//! * Public type names are the `$defs` names of the ACP JSON Schema.
//! * Structs are `#[non_exhaustive]`: build them with `new(required fields)` and chain the
//!   `#[must_use]` setters for optional ones.
//! * Optional fields that the protocol marks as "malformed means absent" decode a value of the wrong
//!   type as `None`. `None` is never written as `null`.
//! * Open enums keep values they do not know verbatim and write them back unchanged.
//! * Tagged unions read the tag first and decode the payload for that tag only; an unknown tag
//!   is an error in a closed union and a kept [`UnknownVariant`] in an open one, and a known tag
//!   with a malformed payload is always an error.
//!
//! # Example
//!
//! ```
//! use acptk_schema::v1::{SessionNotification, SessionUpdate};
//!
//! // The params of a `session/update` notification, as an agent sends them.
//! let params = r#"{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable"}}"#;
//! let notification: SessionNotification = serde_json::from_str(params)?;
//! let SessionUpdate::Notice(notice) = &notification.update else {
//!     panic!("expected a notice, got {:?}", notification.update);
//! };
//! assert_eq!(notice.title.as_str(), "MCP server unavailable");
//! // Written back, it is the same JSON.
//! assert_eq!(serde_json::to_string(&notification)?, params);
//!
//! // A known tag with a malformed payload is an error that says what is missing.
//! let untitled = r#"{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning"}}"#;
//! let error = serde_json::from_str::<SessionNotification>(untitled).unwrap_err();
//! assert!(error.to_string().contains("title"), "{error}");
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! # Which crate do I need?
//!
//! The ACP toolkit is split so that a program builds only what it uses:
//!
//! * **`acptk-schema`** (this crate): the wire types of ACP v1 and v2 (serde, optional JSON
//!   Schema), no I/O and no async: for code that reads or writes ACP messages with its own
//!   transport.
//! * [`acptk-notice-center`](https://docs.rs/acptk-notice-center/0.1.0/acptk_notice_center/): the
//!   client's presentation engine for session notices (toasts, the notice list, timers,
//!   screen-reader announcements, sanitising), a state machine with no I/O: for a client, whatever
//!   its connection code.
//! * [`acptk-runtime`](https://docs.rs/acptk-runtime/0.1.0/acptk_runtime/): the agent and client
//!   sides on tokio: JSON-RPC connections, the agent server with its session stores (memory,
//!   files, SQLite, PostgreSQL), the client, and the transports (stdio, child processes,
//!   WebSocket, Streamable HTTP): to write an agent or embed a client.
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
#![doc(html_root_url = "https://docs.rs/acptk-schema/0.1.0")]

#[macro_use]
mod macros;

mod de;
mod encode;
mod error;
pub mod json;
pub mod jsonrpc;
mod meta;
pub mod method;
mod other_value;
mod patch;
#[cfg(feature = "unstable_proxy_chains")]
mod raw_json;
#[cfg(feature = "schemars")]
pub mod schema;
#[cfg(feature = "schemars")]
mod schema_parts;
pub mod unknown;

pub mod v1;
#[cfg(feature = "unstable_protocol_v2")]
pub mod v2;

pub use error::Error;
pub use meta::Meta;
pub use other_value::OtherValue;
pub use patch::Patch;
#[cfg(feature = "unstable_proxy_chains")]
pub use raw_json::RawJson;
pub use unknown::UnknownVariant;
