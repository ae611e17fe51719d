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
//! * [`repair`] and [`fallback`]: what the proxy does to the agent's notices; [`proxy`]
//!   (feature `proxy`): the async forwarding core, with its write-ahead record.
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

mod check;
mod decode;
mod engine;
pub mod fallback;
mod finding;
pub mod input;
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
