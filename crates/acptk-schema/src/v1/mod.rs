//! ACP version 1.
//!
//! Every type of the v1 wire format, named after the `$defs` of the v1 JSON Schema, in one flat
//! namespace. A v1 turn ends with the response to `session/prompt` and its stop reason.
//!
//! The `SessionUpdate` union is closed in v1: a `session/update` whose `sessionUpdate` tag is not
//! known fails to decode. That is why notices are gated by a client capability in v1:
//! [`SessionUpdate`] has a `Notice` variant, and an agent may send it only when [`ClientCapabilities::advertises_notices`] is true for the client that
//! initialised the connection.

// First, so that the macros it defines (method rows, session-setup requests) reach the
// modules below.
#[allow(clippy::duplicate_mod)]
#[path = "../shared/mod.rs"]
#[macro_use]
mod shared;

// Next, so that its `session_state_response!` reaches `session_ops`.
#[macro_use]
mod sessions;

// The modules every version has; this version's own ones follow.
version_modules!();

mod fs;
mod modes;

mod notice_capability;

pub use fs::*;
pub use modes::*;
pub use notice_capability::NoticeCapabilities;

/// How v1 types a file system path, such as a working directory or an extra workspace root: a
/// plain string, which v1 does not require to be absolute. Shared modules name path fields
/// through this alias; v2 declares the same alias as its `AbsolutePath` newtype.
pub(crate) type FsPath = String;

/// How v1 types the `session/list` paging cursor: a plain string. Shared modules name the
/// cursor through this alias.
pub(crate) type ListCursor = String;
