//! Macros for the impl blocks that hand-written types repeat: constructors, conversions into
//! union variants, hand-written JSON Schemas and map decoders, and the tag accessors of unions
//! that `tagged_union!` cannot declare.

/// The `new()` of an object: the listed arguments become the fields of the same name (each
/// through `.into()`, so an argument typed `impl Into<T>` converts and a plain `T` is taken
/// as is), and the fields after them get the given values.
///
/// ```text
/// constructor! {
///     /// A choice `option_id` labelled `name`.
///     PermissionOption(option_id: impl Into<PermissionOptionId>, name: impl Into<String>)
///     { meta: None }
/// }
/// ```
macro_rules! constructor {
    (
        $(#[doc = $doc:expr])*
        $name:ident ($($arg:ident : $argty:ty),* $(,)?)
        { $($(#[$fattr:meta])* $field:ident : $value:expr),* $(,)? }
    ) => {
        impl $name {
            $(#[doc = $doc])*
            #[allow(clippy::useless_conversion)]
            pub fn new($($arg: $argty),*) -> Self {
                Self {
                    $($arg: $arg.into(),)*
                    $($(#[$fattr])* $field: $value,)*
                }
            }
        }
    };
}

/// `From` each payload type into the union variant that wraps it; the variants listed after
/// `boxed` hold their payload in a `Box`. A payload converts with `Into`, so a boxed variant
/// may also be listed with the others; a variant may carry `#[cfg(...)]`.
///
/// ```text
/// from_variants!(AuthMethod { Terminal(AuthMethodTerminal), Agent(AuthMethodAgent) });
/// from_variants!(ContentBlock { Text(TextContent) } boxed { Image(ImageContent) });
/// ```
macro_rules! from_variants {
    (
        $name:ident { $($(#[$cfg:meta])* $variant:ident($payload:ty)),* $(,)? }
        $(boxed { $($bvariant:ident($bpayload:ty)),+ $(,)? })?
    ) => {
        $(
            $(#[$cfg])*
            impl From<$payload> for $name {
                #[allow(clippy::useless_conversion)]
                fn from(value: $payload) -> Self {
                    Self::$variant(value.into())
                }
            }
        )*
        $($(
            impl From<$bpayload> for $name {
                fn from(value: $bpayload) -> Self {
                    Self::$bvariant(Box::new(value))
                }
            }
        )+)?
    };
}

/// A hand-written JSON Schema (with the `schemars` feature), named after the type: the
/// closure-like block builds the schema from the generator. `inline` marks a schema that is
/// always written in place rather than referenced from `$defs`. Docs given first go on the impl.
///
/// ```text
/// schema_impl!(ProtocolVersion, |_| { schemars::json_schema!({ "type": "integer" }) });
/// ```
macro_rules! schema_impl {
    ($(#[doc = $doc:expr])* $name:ident, inline, |$generator:pat_param| $body:block) => {
        schema_impl!(@emit [$(#[doc = $doc])*] $name [fn inline_schema() -> bool { true }] |$generator| $body);
    };
    ($(#[doc = $doc:expr])* $name:ident, |$generator:pat_param| $body:block) => {
        schema_impl!(@emit [$(#[doc = $doc])*] $name [] |$generator| $body);
    };
    (@emit [$($doc:tt)*] $name:ident [$($inline:tt)*] |$generator:pat_param| $body:block) => {
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

/// A `Deserialize` that reads a JSON object entry by entry: `expecting` is what a decoding
/// error says was expected, and the body of `visit_map` builds the value from the map access
/// named in it (whose type parameter, `A`, it may use). Attributes before `visit_map` go on it.
/// The short form `|map| { ... }` (or `|mut map|`) names the map access alone; its type is `A`.
///
/// ```text
/// map_deserialize! {
///     McpError, "an MCP error object (McpError)",
///     visit_map(mut map: A) { ... }
/// }
/// ```
macro_rules! map_deserialize {
    ($name:ident, $expecting:expr, |$map:pat_param| $body:block) => {
        map_deserialize!(@emit $name, $expecting, [] [$map] A $body);
    };
    (
        $name:ident, $expecting:expr,
        $(#[$attr:meta])*
        visit_map($($map:ident)+ : $access:ident) $body:block
    ) => {
        map_deserialize!(@emit $name, $expecting, [$(#[$attr])*] [$($map)+] $access $body);
    };
    (@emit $name:ident, $expecting:expr, [$($attr:tt)*] [$($map:tt)+] $access:ident $body:block) => {
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    $($attr)*
                    fn visit_map<$access: serde::de::MapAccess<'de>>(
                        self,
                        $($map)+: $access,
                    ) -> Result<$name, $access::Error> $body
                }
                deserializer.deserialize_map(V)
            }
        }
    };
}

/// The tag accessors of an open union whose decoder is written by hand (unit variants, tags
/// shared with the enclosing object): `TAG_KEY`, `TAGS`, `tag()` and the `unknown()`
/// constructor of the fallback variant. `what` names a tag in the docs ("stop reason"); docs
/// given before `unknown` are added to those of `unknown()`.
///
/// ```text
/// union_tags! {
///     ElicitationAction("action"), what: "action", open(Other) {
///         Accept(_) = "accept",
///         Decline = "decline",
///     }
/// }
/// ```
macro_rules! union_tags {
    // With `untagged(Variant)`, objects without a tag are that variant: `tag()` is an `Option`.
    (
        $name:ident($tag:literal), what: $what:literal, open($other:ident), untagged($untagged:ident) {
            $($variant:ident $(($wild:tt))? = $value:expr),+ $(,)?
        }
        $(#[doc = $udoc:expr])*
    ) => {
        impl $name {
            #[doc = concat!("The ", $what, " this value is written with; `None` for [`Self::", stringify!($untagged), "`].")]
            pub fn tag(&self) -> Option<&str> {
                match self {
                    $(Self::$variant $(($wild))? => Some($value),)+
                    Self::$untagged(_) => None,
                    Self::$other(unknown) => Some(unknown.tag()),
                }
            }
        }

        union_tags!(@common $name($tag), $what, $other [$($value),+] $(#[doc = $udoc])*);
    };
    (
        $name:ident($tag:literal), what: $what:literal, open($other:ident) {
            $($variant:ident $(($wild:tt))? = $value:expr),+ $(,)?
        }
        $(#[doc = $udoc:expr])*
    ) => {
        impl $name {
            #[doc = concat!("The ", $what, " this value is written with.")]
            pub fn tag(&self) -> &str {
                match self {
                    $(Self::$variant $(($wild))? => $value,)+
                    Self::$other(unknown) => unknown.tag(),
                }
            }
        }

        union_tags!(@common $name($tag), $what, $other [$($value),+] $(#[doc = $udoc])*);
    };
    (@common $name:ident($tag:literal), $what:literal, $other:ident [$($value:expr),+] $(#[doc = $udoc:expr])*) => {
        impl $name {
            /// The name of the JSON field holding the tag.
            pub const TAG_KEY: &'static str = $tag;

            #[doc = concat!("Every ", $what, " this union knows, in declaration order.")]
            pub const TAGS: &'static [&'static str] = &[$($value),+];

            #[doc = concat!("Builds the fallback variant for a value of `", $tag, "` this crate does not know (an unknown ", $what, ").")]
            ///
            /// Fails with [`crate::Error::KnownTag`] when `tag` is one of [`Self::TAGS`].
            $(#[doc = $udoc])*
            pub fn unknown(
                tag: impl Into<String>,
                fields: crate::unknown::Fields,
            ) -> Result<Self, crate::Error> {
                crate::UnknownVariant::checked(Self::TAG_KEY, Self::TAGS, tag.into(), fields)
                    .map(Self::$other)
            }
        }
    };
}
