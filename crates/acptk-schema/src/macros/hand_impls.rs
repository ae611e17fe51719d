//! The frames of hand-written `Deserialize` and `JsonSchema` impls: the parts every such impl
//! spells the same way, so that each impl says only what its type does differently.

/// Implements `schemars::JsonSchema` (with the `schemars` feature) for a type whose schema is
/// written by hand: the schema is named after the type, and `|generator| { ... }` builds it.
/// `inline` before the closure makes the schema inlined where it is used instead of a `$defs`
/// entry.
///
/// ```text
/// hand_schema!(ErrorData, |generator| {
///     schemars::json_schema!({ "anyOf": [...] })
/// });
/// ```
macro_rules! hand_schema {
    ($(#[doc = $doc:expr])* $name:ident, |$generator:tt| $body:block) => {
        hand_schema!(@impl [$(#[doc = $doc])*] $name [] $generator $body);
    };
    ($(#[doc = $doc:expr])* $name:ident, inline, |$generator:tt| $body:block) => {
        hand_schema!(@impl [$(#[doc = $doc])*] $name [
            fn inline_schema() -> bool {
                true
            }
        ] $generator $body);
    };
    (@impl [$($doc:tt)*] $name:ident [$($inline:tt)*] $generator:tt $body:block) => {
        $($doc)*
        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            $($inline)*
            fn json_schema($generator: &mut schemars::SchemaGenerator) -> schemars::Schema $body
        }
    };
}

/// Implements `serde::Deserialize` for a type decoded from a JSON object by hand:
/// `expecting` is what a decoding error says was expected, and `|map| { ... }` (or
/// `|mut map|`) turns the object's `MapAccess<'de>` (type `A`) into the value.
///
/// ```text
/// map_deserialize!(DiffChange, "a diff change object tagged by `operation`", |mut map| {
///     ...
/// });
/// ```
macro_rules! map_deserialize {
    ($name:ident, $expecting:expr, |$map:pat_param| $body:block) => {
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        $map: A,
                    ) -> Result<$name, A::Error> $body
                }
                deserializer.deserialize_map(V)
            }
        }
    };
}

/// `From<Payload> for Enum` for each variant that wraps a payload of its own type:
/// `variant_from!(McpServer { Http(McpServerHttp), Sse(McpServerSse) });`. The payload is
/// converted with `Into`, so a boxed variant is built from its unboxed payload; a variant may
/// carry `#[cfg(...)]`.
macro_rules! variant_from {
    ($name:ident { $($(#[$cfg:meta])* $variant:ident($payload:ty)),* $(,)? }) => {
        $(
            $(#[$cfg])*
            impl From<$payload> for $name {
                fn from(value: $payload) -> Self {
                    Self::$variant(value.into())
                }
            }
        )*
    };
}
