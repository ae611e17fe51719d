//! Declarative macros that say each wire convention once.
//!
//! * [`wire_struct!`]: the derive and serde stanza of an ACP object, plus its `_meta` field.
//! * [`setters!`]: `#[must_use]` builder setters for optional fields.
//! * [`meta_setter!`]: the `meta()` setter of an object's `_meta` field.
//! * [`default_new!`]: the `new()` of an object whose fields are all optional.
//! * [`empty_object!`]: an object with no fields but `_meta` (sent as `{}`), and its `new()`.
//! * [`marker_capability!`]: a capability object with no fields but `_meta` (sent as `{}`).
//! * [`string_newtype!`]: a string identifier (`SessionId`, `ToolCallId`, ...).
//! * [`open_enum!`]: an open string enum that keeps unknown values verbatim.
//! * [`tagged_union!`]: an internally tagged union, closed or open, whose tag list is the
//!   variant list itself.
//! * [`encode_struct!`], [`encode_union!`] and their helpers: the hand-written JSON encoders
//!   of the hot types (see the `encode` module).
//! * [`constructor!`], [`from_variants!`], [`schema_impl!`], [`map_deserialize!`] and
//!   [`union_tags!`]: the impl blocks hand-written types share (`new()`, conversions into
//!   union variants, a JSON Schema, a map decoder, the tag accessors of a hand-decoded union).

#[macro_use]
mod impls;
#[macro_use]
mod structs;
#[macro_use]
mod open_enum;
#[macro_use]
mod tagged_union;
#[macro_use]
mod methods;
#[macro_use]
mod encode;
#[macro_use]
mod version_items;
