//! Client-side presentation engine for ACP session notices.
//!
//! An agent sends a `notice` session update to tell the user something that is not part of the
//! conversation ("MCP server unavailable", "model rerouted"). ACP leaves the presentation to
//! the client. This crate is that presentation logic, as a pure state machine that any Rust
//! client can feed with what arrives:
//!
//! * every notice lands in its session's bounded list (200 entries by default); toasts are a
//!   view of that list, at most 3 at once, with overflow waiting or going to the list only,
//!   and a flood guard for bursts;
//! * per-severity presets ([`Policy`]): `info` hides itself after 8 s, `warning` stays until
//!   dismissed, `error` stays, stands out and is announced assertively, an unknown severity
//!   gets a neutral look and the default timing; plus a duration multiplier (up to 10x) and
//!   "never auto-hide";
//! * timers that only run while a toast is visible, not hovered, not focused and the window
//!   has focus;
//! * coalescing of identical notices into one entry with a count;
//! * do-not-disturb, muting a title per session, dismissing one or all, clearing a session,
//!   all local: the engine has no way to talk back to the agent;
//! * a screen-reader [`Announcement`] for each new entry, severity word first;
//! * [`sanitize`]: agent text made safe for terminals, logs and web views;
//! * renderers: [`render::plain`] and, with the `ratatui` feature, `render::tui`.
//!
//! There are no threads, no I/O and no clock: each call takes `now` as a
//! [`Duration`](std::time::Duration) since an epoch the host chooses, so tests drive it with a
//! fake clock and results are reproducible.
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use acptk_notice_center::{render::plain, IncomingNotice, NoticeCenter, Politeness, Severity};
//!
//! let mut center = NoticeCenter::default();
//! let secs = Duration::from_secs;
//!
//! // A notice arrives for session "s1" (from an acptk_schema v1 or v2 `Notice`, use
//! // `IncomingNotice::from(&notice)`).
//! let notice = IncomingNotice::new(Severity::Info, "Model rerouted")
//!     .with_description("Using a fallback model.");
//! let receipt = center.push("s1", notice, secs(0));
//! let announcement = receipt.announcement.unwrap();
//! assert_eq!(announcement.text, "Info: Model rerouted. Using a fallback model.");
//! assert_eq!(announcement.politeness, Politeness::Polite);
//!
//! // The same notice again is counted, not shown or announced twice.
//! let again = center.push("s1", IncomingNotice::new(Severity::Info, "Model rerouted")
//!     .with_description("Using a fallback model."), secs(2));
//! assert!(again.coalesced && again.announcement.is_none());
//!
//! let lines: Vec<String> = center.toasts().map(|t| plain::line(t.entry())).collect();
//! assert_eq!(lines, ["Info x2: Model rerouted - Using a fallback model."]);
//!
//! // Info hides itself 8 s after the last repeat; the entry stays in the list.
//! assert_eq!(center.next_deadline(), Some(secs(10)));
//! center.tick(secs(10));
//! assert_eq!(center.toasts().count(), 0);
//! assert_eq!(center.entries("s1").count(), 1);
//! ```
//!
//! # Features
//!
//! * `v2` (default): conversions from `acptk_schema::v2` types.
//! * `ratatui`: the `render::tui` widgets.
//!
//! # Which crate do I need?
//!
//! The ACP toolkit is split so that a program builds only what it uses:
//!
//! * [`acptk-schema`](acptk_schema): the wire types of ACP v1 and v2 (serde, optional JSON
//!   Schema), no I/O and no async: for code that reads or writes ACP messages with its own
//!   transport.
//! * **`acptk-notice-center`** (this crate): the client's presentation engine for session notices
//!   (toasts, the notice list, timers, screen-reader announcements, sanitising), a state machine
//!   with no I/O: for a client, whatever its connection code.
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
#![doc(html_root_url = "https://docs.rs/acptk-notice-center/0.1.0")]

mod announce;
mod center;
mod entry;
mod error;
mod flood;
mod incoming;
mod policy;
pub mod render;
pub mod sanitize;
mod schema;
mod session;
mod severity;
mod stats;
mod toasts;

pub use announce::Announcement;
pub use center::{NoticeCenter, Receipt};
pub use entry::{Entry, EntryId, ListOnlyReason, ToastState};
pub use error::Error;
pub use incoming::{IncomingNotice, SessionKey};
pub use policy::{
    DEFAULT_AUTO_HIDE, FloodGuard, MAX_DURATION_MULTIPLIER, MIN_DURATION_MULTIPLIER, Overflow,
    Policy, PolicyBuilder, SeverityPreset,
};
pub use severity::{Politeness, Prominence, Severity, UnknownSeverity};
pub use stats::Stats;
pub use toasts::Toast;
