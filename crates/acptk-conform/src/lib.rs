//! A conformance runner for Agent Client Protocol (ACP) agents: the engine of
//! `acp conform agent`.
//!
//! * [`requirement`]: the registry ([`requirement::ALL`]): each requirement has a stable id
//!   (`init.version.newer`), a [`Level`], the protocol versions it applies to and the sentence
//!   of the specification or RFD it rests on, with where to read it.
//! * [`peer`]: the raw peer: the agent in a process group of its own, written to line by line
//!   (malformed JSON and odd ids included) and read with a timeout, every frame recorded in the
//!   transcript format of `acp check`.
//! * [`suite`]: the runs made against an agent, in v1 and v2, and the [`Outcome`] of each
//!   requirement: *passed*, *failed* with the transcript lines as evidence, *not exercised*
//!   (the agent never did what the requirement is about: a notice, a permission request), or
//!   *not applicable*. Every run is also checked with `acp check`'s rules
//!   ([`acptk_check::check_bytes`]), and its findings are reported beside the requirements.
//! * [`client_suite`]: the other way round, the engine of `acp conform client`: an agent that
//!   a client under test launches, which plays scenarios (notices of every kind, a permission
//!   request, odd input) and judges the client's answers on the wire against
//!   [`requirement::CLIENT`].
//! * [`report`]: the report as text, JSON or JUnit XML.
//!
//! ```no_run
//! use acptk_conform::suite::{Options, run_agent_suite};
//! use acptk_runtime::transport::AgentCommand;
//!
//! # async fn example() -> Result<(), acptk_conform::ConformError> {
//! let agent = AgentCommand::new("acp").arg("agent");
//! let report = run_agent_suite(&agent, &Options::new()).await?;
//! print!("{}", acptk_conform::report::text(&report));
//! assert!(!report.failed());
//! # Ok(())
//! # }
//! ```
//!
//! # Which crate do I need?
//!
//! The ACP toolkit is split so that a program builds only what it uses:
//!
//! * [`acptk-schema`](https://docs.rs/acptk-schema/0.1.0/acptk_schema/): the wire types of ACP
//!   v1 and v2, no I/O.
//! * [`acptk-notice-center`](https://docs.rs/acptk-notice-center/0.1.0/acptk_notice_center/):
//!   the client's presentation engine for session notices, a state machine with no I/O.
//! * [`acptk-runtime`](https://docs.rs/acptk-runtime/0.1.0/acptk_runtime/): the agent and client
//!   sides on tokio, with their transports: to write an agent or embed a client.
//! * [`acptk-check`](https://docs.rs/acptk-check/0.1.0/acptk_check/): the traffic checker: rules
//!   and findings over transcripts and live traffic: to test what an agent or a client sends.
//! * [`acptk-inspect`](https://docs.rs/acptk-inspect/0.1.0/acptk_inspect/): captures of ACP
//!   traffic in SQLite: to record and study sessions.
//! * **`acptk-conform`** (this crate): the conformance runner: requirements with their sources,
//!   run against an agent command: to learn whether an agent keeps the protocol.
//! * [`acptk`](https://docs.rs/acptk/0.1.0/acptk/): the `acp` command-line tool
//!   (`cargo install acptk`).
#![doc(html_root_url = "https://docs.rs/acptk-conform/0.1.0")]

pub mod client_suite;
mod error;
mod outcome;
pub mod peer;
pub mod report;
pub mod requirement;
pub mod suite;

pub use error::ConformError;
pub use outcome::{Evidence, Outcome, Verdict};
pub use requirement::{Level, Requirement};
