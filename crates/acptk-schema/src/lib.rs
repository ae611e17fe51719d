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
#![cfg_attr(docsrs, feature(doc_cfg))]

#[macro_use]
mod macros;

mod de;
mod encode;
mod error;
pub mod jsonrpc;
mod meta;
pub mod method;
mod other_value;
mod patch;
#[cfg(feature = "unstable_proxy_chains")]
mod raw_json;
#[cfg(feature = "schemars")]
pub mod schema;
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
