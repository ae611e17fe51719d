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

/// The tag constants and accessors of an open union whose serde impls are written by hand:
/// `TAG_KEY`, `TAGS`, `tag()` and `unknown(tag, fields)`, which builds its `Other` variant.
/// Lines after `unknown:` add to the doc of `unknown`.
///
/// ```text
/// open_union_tags!(SessionConfigOptionValue("type") { Id = "id", Boolean = "boolean" });
/// ```
// Only v2 has such unions among the version files so far.
#[allow(unused_macros)]
macro_rules! open_union_tags {
    (
        $name:ident($key:literal) { $($variant:ident = $value:expr),+ $(,)? }
        $(unknown: $(#[doc = $unknown_doc:expr])+)?
    ) => {
        impl $name {
            /// The name of the JSON field holding the tag.
            pub const TAG_KEY: &'static str = $key;

            /// Every tag this union knows, in declaration order.
            pub const TAGS: &'static [&'static str] = &[$($value),+];

            /// The tag this value is written with.
            pub fn tag(&self) -> &str {
                match self {
                    $(Self::$variant(_) => $value,)+
                    Self::Other(unknown) => unknown.tag(),
                }
            }

            /// Builds the fallback variant for a tag this crate does not know. Fails with
            /// [`crate::Error::KnownTag`] when `tag` is one of [`Self::TAGS`].
            $($(#[doc = $unknown_doc])+)?
            pub fn unknown(
                tag: impl Into<String>,
                fields: crate::unknown::Fields,
            ) -> Result<Self, crate::Error> {
                crate::UnknownVariant::checked(Self::TAG_KEY, Self::TAGS, tag.into(), fields)
                    .map(Self::Other)
            }
        }
    };
}
