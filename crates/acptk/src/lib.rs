//! The commands of the `acp` binary, as a library so that their pure parts (the terminal
//! client's state and views, the plain-text printer) can be tested from `tests/`, and so that
//! the command line itself ([`cli`]) can be turned into completions, man pages and the
//! guide's reference ([`reference`](mod@reference)).
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
//! * [`acptk-check`](acptk_check): the traffic checker: rules and findings over transcripts and
//!   live traffic, the notice repairs and forwarding core of `acp proxy`: to test what an agent or
//!   a client sends.
//! * [`acptk-inspect`](acptk_inspect): captures of ACP traffic in SQLite: capture, import, export,
//!   queries, a read-only MCP server and a web inspector: to record and study sessions.
//! * [`acptk-conform`](https://docs.rs/acptk-conform/0.1.0/acptk_conform/): the conformance
//!   runner of `acp conform agent`: a registry of requirements with their sources, run against
//!   an agent command in v1 and v2: to learn whether an agent keeps the protocol.
//! * **`acptk`** (this crate): the `acp` command-line tool (`cargo install acptk`): checker,
//!   proxy, inspector, test agent and terminal client; its library serves the binary and its
//!   tests, not other programs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(html_root_url = "https://docs.rs/acptk/0.1.0")]

pub mod cli;
pub mod commands;
pub mod reference;

/// The Rust samples of the README and of the user guide (`docs/src`), compiled as doc-tests
/// of this crate, which depends on every crate of the toolkit: a sample that no longer builds
/// fails `cargo test -p acptk --doc`. Samples marked `no_run` (agents serving stdio,
/// clients launching an agent) are compiled only. `tests/docs.rs` checks that every page with
/// a Rust sample is listed here.
#[cfg(doctest)]
mod documentation {
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/src/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../../../docs/src/writing-an-agent.md")]
    struct WritingAnAgent;
    #[doc = include_str!("../../../docs/src/embedding-a-client.md")]
    struct EmbeddingAClient;
    #[doc = include_str!("../../../docs/src/remote.md")]
    struct Remote;
    #[doc = include_str!("../../../docs/src/cluster.md")]
    struct Cluster;
    #[doc = include_str!("../../../docs/src/notices.md")]
    struct Notices;
}
