//! Macros for ACP objects and identifiers.

/// Declares an ACP object: camelCase fields, `#[non_exhaustive]`, the usual derives, JSON
/// Schema (with the `schemars` feature) and a trailing `_meta` field with its setter.
///
/// The body must end with a trailing comma. Write `no_meta` before the attributes for the
/// few types that have no `_meta`, `patch_meta` for the patch updates whose `_meta` is a
/// [`crate::Patch`], and `encoded` (before `patch_meta`, if both) for the hot types whose
/// `Serialize` impl `encode_struct!` writes. `own_schema` leaves out the derived JSON
/// Schema, for the types that implement `schemars::JsonSchema` by hand.
///
/// A field may carry one of these shorthands for the serde stanza of a field that may be
/// omitted (decoded with `default` and, where one is given, that function of `crate::de`,
/// left out when empty):
///
/// * `#[opt("crate::de::lenient_object")]`: an `Option`, left out when `None`;
/// * `#[opt]` (no decoder): an `Option` decoded as it is, left out when `None`;
/// * `#[patch("crate::de::lenient_patch")]`: a [`crate::Patch`], left out when unchanged;
/// * `#[list("crate::de::null_as_default")]`: a `Vec`, left out when empty.
///
/// A field that only an unstable feature has carries `#[unstable("unstable_...")]`: the field
/// is built with that cargo feature only, and its schema is marked `x-unstable` with its name.
macro_rules! wire_struct {
    // Each mode keyword names the `_meta` flavour, the derives and the derived schema.
    (encoded patch_meta $($rest:tt)*) => {
        wire_struct! { @start [patch_meta [serde::Deserialize] [JsonSchema]] $($rest)* }
    };
    (encoded $($rest:tt)*) => {
        wire_struct! { @start [meta [serde::Deserialize] [JsonSchema]] $($rest)* }
    };
    (patch_meta $($rest:tt)*) => {
        wire_struct! { @start [patch_meta [serde::Serialize, serde::Deserialize] [JsonSchema]] $($rest)* }
    };
    (own_schema $($rest:tt)*) => {
        wire_struct! { @start [meta [serde::Serialize, serde::Deserialize] []] $($rest)* }
    };
    (no_meta $($rest:tt)*) => {
        wire_struct! { @start [no_meta [serde::Serialize, serde::Deserialize] [JsonSchema]] $($rest)* }
    };
    (
        @start [$($mode:tt)*]
        $(#[$attr:meta])*
        $vis:vis struct $name:ident { $($body:tt)* }
    ) => {
        wire_struct! { @fields [$($mode)* $(#[$attr])* $vis struct $name] [] $($body)* }
    };
    // The fields, one attribute or one field a step, with the shorthands spelt out.
    (@fields [$mode:ident $($head:tt)*] [$($done:tt)*]) => {
        wire_struct! { @$mode $($head)* { $($done)* } }
    };
    // The three shorthands differ only in the emptiness test.
    (@fields $head:tt $done:tt #[opt($de:tt)] $($rest:tt)*) => {
        wire_struct! { @omitted $head $done $de "Option::is_none" $($rest)* }
    };
    (@fields $head:tt $done:tt #[patch($de:tt)] $($rest:tt)*) => {
        wire_struct! { @omitted $head $done $de "crate::Patch::is_unchanged" $($rest)* }
    };
    (@fields $head:tt $done:tt #[list($de:tt)] $($rest:tt)*) => {
        wire_struct! { @omitted $head $done $de "Vec::is_empty" $($rest)* }
    };
    (@omitted $head:tt [$($done:tt)*] $de:tt $skip:tt $($rest:tt)*) => {
        wire_struct! {
            @fields $head
            [$($done)* #[serde(default, deserialize_with = $de, skip_serializing_if = $skip)]]
            $($rest)*
        }
    };
    // A bare `#[opt]`: an `Option` decoded as it is, left out when `None`.
    (@fields $head:tt [$($done:tt)*] #[opt] $($rest:tt)*) => {
        wire_struct! {
            @fields $head
            [$($done)* #[serde(default, skip_serializing_if = "Option::is_none")]]
            $($rest)*
        }
    };
    (@fields $head:tt [$($done:tt)*] #[unstable($feature:tt)] $($rest:tt)*) => {
        wire_struct! {
            @fields $head
            [$($done)*
                #[cfg(feature = $feature)]
                #[cfg_attr(feature = "schemars", schemars(extend("x-unstable" = $feature)))]]
            $($rest)*
        }
    };
    (@fields $head:tt [$($done:tt)*] #[$($attr:tt)*] $($rest:tt)*) => {
        wire_struct! { @fields $head [$($done)* #[$($attr)*]] $($rest)* }
    };
    (@fields $head:tt [$($done:tt)*] $fvis:vis $field:ident : $ty:ty, $($rest:tt)*) => {
        wire_struct! { @fields $head [$($done)* $fvis $field: $ty,] $($rest)* }
    };
    // The `_meta` field of each mode: its doc, type, decoder, emptiness test and wrapper.
    (@meta $($rest:tt)*) => {
        wire_struct! {
            @emit [
                " Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`]."
                Option<crate::Meta>, "crate::de::meta", "Option::is_none", Some
            ]
            $($rest)*
        }
    };
    (@patch_meta $($rest:tt)*) => {
        wire_struct! {
            @emit [
                " Extension metadata (`_meta`): unchanged when absent, cleared by `null`."
                crate::Patch<crate::Meta>, "crate::de::patch_meta", "crate::Patch::is_unchanged",
                crate::Patch::Set
            ]
            $($rest)*
        }
    };
    (@no_meta $($rest:tt)*) => {
        wire_struct! { @emit [] $($rest)* }
    };
    (
        @emit [$($meta_doc:literal $meta_ty:ty, $meta_de:tt, $meta_skip:tt, $meta_set:path)?]
        [$($derive:path),+] [$($schema:ident)?]
        $(#[$attr:meta])*
        $vis:vis struct $name:ident { $($body:tt)* }
    ) => {
        #[derive(Debug, Clone, PartialEq, $($derive),+)]
        $(#[cfg_attr(feature = "schemars", derive(schemars::$schema))])?
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        $(#[$attr])*
        $vis struct $name {
            $($body)*
            $(
                #[doc = $meta_doc]
                #[serde(
                    rename = "_meta",
                    default,
                    deserialize_with = $meta_de,
                    skip_serializing_if = $meta_skip
                )]
                pub meta: $meta_ty,
            )?
        }

        $(meta_setter!($name, $meta_set);)?
    };
    ($(#[$attr:meta])* $vis:vis struct $name:ident $body:tt) => {
        wire_struct! {
            @start [meta [serde::Serialize, serde::Deserialize] [JsonSchema]]
            $(#[$attr])* $vis struct $name $body
        }
    };
}

/// The `meta()` setter of an object's `_meta` field. `wrap` (`Some` when not given) turns the
/// metadata into the field's value (`crate::Patch::Set` for a patch's `_meta`).
macro_rules! meta_setter {
    ($name:ident) => {
        meta_setter!($name, Some);
    };
    ($name:ident, $wrap:path) => {
        impl $name {
            /// Sets the `_meta` extension object.
            #[must_use]
            pub fn meta(mut self, meta: crate::Meta) -> Self {
                self.meta = $wrap(meta);
                self
            }
        }
    };
}

/// Builder setters. `opt name: T` sets an `Option<T>` field from `impl Into<T>`;
/// `boxed name: T` sets an `Option<Box<T>>` field (a rare, large sub-object kept behind a
/// pointer) from `impl Into<T>`; `set name: T` replaces a plain field (a list, a flag) from
/// `impl Into<T>`; `patch name: T` sets a [`crate::Patch<T>`] field to `Set`.
macro_rules! setters {
    ($name:ident { $($kind:ident $field:ident : $ty:ty),* $(,)? }) => {
        impl $name {
            $( setters!(@one $kind $field $ty); )*
        }
    };
    (@one opt $field:ident $ty:ty) => {
        #[doc = concat!("Sets `", stringify!($field), "` (absent until set).")]
        #[must_use]
        pub fn $field(mut self, value: impl Into<$ty>) -> Self {
            self.$field = Some(value.into());
            self
        }
    };
    (@one boxed $field:ident $ty:ty) => {
        #[doc = concat!("Sets `", stringify!($field), "` (absent until set).")]
        #[must_use]
        pub fn $field(mut self, value: impl Into<$ty>) -> Self {
            self.$field = Some(Box::new(value.into()));
            self
        }
    };
    (@one patch $field:ident $ty:ty) => {
        #[doc = concat!("Sets `", stringify!($field), "` (unchanged until set; assign `Patch::Clear` to clear it).")]
        #[must_use]
        pub fn $field(mut self, value: impl Into<$ty>) -> Self {
            self.$field = crate::Patch::Set(value.into());
            self
        }
    };
    (@one set $field:ident $ty:ty) => {
        #[doc = concat!("Replaces `", stringify!($field), "`.")]
        #[must_use]
        pub fn $field(mut self, value: impl Into<$ty>) -> Self {
            self.$field = value.into();
            self
        }
    };
}

/// Declares ACP objects that carry the same payload in different roles (an answer and a
/// notification, a request and a notification): one set of fields, one `new()` (with its docs,
/// arguments and the values of the other fields, as in [`constructor!`]) and one set of
/// [`setters!`], declared once for each name with its own docs (and attributes, such as
/// `#[derive(Default)]`).
///
/// ```text
/// twin_structs! {
///     {
///         /// The method of the wrapped message.
///         pub method: String,
///     }
///     /// An envelope for a `method` message.
///     new(method: impl Into<String>) { meta: None }
///     setters {}
///     /// `proxy/successor` request parameters.
///     ProxySuccessorRequest;
///     /// `proxy/successor` notification parameters.
///     ProxySuccessorNotification;
/// }
/// ```
macro_rules! twin_structs {
    // One name at a time, with what they share bundled.
    (@each $shared:tt) => {};
    (
        @each [$fields:tt [$($new_doc:tt)*] $args:tt $values:tt $setters:tt]
        $(#[$attr:meta])* $name:ident;
        $($rest:tt)*
    ) => {
        wire_struct! {
            $(#[$attr])*
            pub struct $name $fields
        }

        constructor! {
            $($new_doc)*
            $name $args $values
        }

        setters!($name $setters);

        twin_structs! { @each [$fields [$($new_doc)*] $args $values $setters] $($rest)* }
    };
    (
        $fields:tt
        $(#[doc = $new_doc:expr])*
        new $args:tt $values:tt
        setters $setters:tt
        $($names:tt)+
    ) => {
        twin_structs! { @each [$fields [$(#[doc = $new_doc])*] $args $values $setters] $($names)+ }
    };
}

/// Declares an ACP object whose only field is the session it is about (`sessionId`, with the
/// docs given in braces), and its `new(session_id)` with the doc given after `new:`.
///
/// ```text
/// session_object! {
///     /// `session/delete` parameters: deletes a session.
///     DeleteSessionRequest {
///         /// The session to delete.
///     }
///     new: "A request to delete `session_id`."
/// }
/// ```
macro_rules! session_object {
    (
        $(#[doc = $doc:expr])*
        $name:ident { $(#[doc = $field_doc:expr])* }
        new: $new_doc:literal
    ) => {
        wire_struct! {
            $(#[doc = $doc])*
            pub struct $name {
                $(#[doc = $field_doc])*
                pub session_id: SessionId,
            }
        }

        constructor! {
            #[doc = concat!(" ", $new_doc)]
            $name(session_id: impl Into<SessionId>) { meta: None }
        }
    };
}

/// Declares a string identifier newtype with conversions, `Display` and a JSON Schema of its
/// own name (a plain string).
macro_rules! string_newtype {
    ($(#[doc = $doc:expr])* $name:ident) => {
        $(#[doc = $doc])*
        #[derive(
            Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// Wraps a string.
            pub fn new(value: impl Into<String>) -> Self {
                Self(value.into())
            }

            /// The identifier as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                Self(value)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self(value.to_owned())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl $crate::encode::Encode for $name {
            fn encode(&self, out: &mut String) -> $crate::encode::Result {
                $crate::encode::write_str(out, &self.0);
                Ok(())
            }
        }

        schema_impl!($name, |_| {
            schemars::json_schema!({ "type": "string" })
        });
    };
}

/// Declares an ACP object that has no fields besides `_meta` (sent as `{}`), and its `new()`
/// with the doc given after `new:`.
///
/// ```text
/// empty_object! {
///     /// The agent's answer to `session/delete`.
///     DeleteSessionResponse, new: "An empty response."
/// }
/// ```
macro_rules! empty_object {
    ($(#[doc = $doc:expr])* $name:ident, new: $new_doc:literal) => {
        wire_struct! {
            $(#[doc = $doc])*
            #[derive(Default)]
            pub struct $name {
            }
        }

        impl $name {
            #[doc = concat!(" ", $new_doc)]
            pub fn new() -> Self {
                Self { meta: None }
            }
        }
    };
}

/// The `new()` of an object whose every field is optional: the object with none of them set
/// (its `Default`), documented with the given sentence.
macro_rules! default_new {
    ($name:ident, $doc:literal) => {
        impl $name {
            #[doc = concat!(" ", $doc)]
            pub fn new() -> Self {
                <Self as Default>::default()
            }
        }
    };
}

/// Declares a capability object that has no fields besides `_meta`: sending it (normally as
/// `{}`) advertises a feature, and omitting it (or sending `null`) does not.
macro_rules! marker_capability {
    ($(#[doc = $doc:expr])* $name:ident) => {
        empty_object! { $(#[doc = $doc])* $name, new: "The capability object (`{}`)." }
    };
}

/// Declares a version's `RequestId`: an integer or a string and, with `null: Null`, also
/// `null` (v1). It brings `Display`, the conversions from integers and strings and to and from
/// [`crate::jsonrpc::Id`] (from it only when `null` is allowed), serde and the JSON Schema;
/// `expecting` is what a decoding error says was expected.
macro_rules! request_id {
    (
        $(#[doc = $doc:expr])*
        $(null: $null:ident,)?
        expecting: $expecting:literal $(,)?
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RequestId {
            $(
                /// `null`.
                $null,
            )?
            /// An integer id.
            Number(i64),
            /// A string id.
            Str(String),
        }

        impl std::fmt::Display for RequestId {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(Self::$null => f.write_str("null"),)?
                    Self::Number(n) => write!(f, "{n}"),
                    Self::Str(s) => write!(f, "{s:?}"),
                }
            }
        }

        impl From<i64> for RequestId {
            fn from(n: i64) -> Self {
                Self::Number(n)
            }
        }

        impl From<&str> for RequestId {
            fn from(s: &str) -> Self {
                Self::Str(s.to_owned())
            }
        }

        impl From<String> for RequestId {
            fn from(s: String) -> Self {
                Self::Str(s)
            }
        }

        $(
            impl From<crate::jsonrpc::Id> for RequestId {
                fn from(id: crate::jsonrpc::Id) -> Self {
                    match id {
                        crate::jsonrpc::Id::Null => Self::$null,
                        crate::jsonrpc::Id::Number(n) => Self::Number(n),
                        crate::jsonrpc::Id::Str(s) => Self::Str(s),
                    }
                }
            }
        )?

        impl From<RequestId> for crate::jsonrpc::Id {
            fn from(id: RequestId) -> Self {
                match id {
                    $(RequestId::$null => Self::Null,)?
                    RequestId::Number(n) => Self::Number(n),
                    RequestId::Str(s) => Self::Str(s),
                }
            }
        }

        impl serde::Serialize for RequestId {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Self::$null => serializer.serialize_unit(),)?
                    Self::Number(n) => serializer.serialize_i64(*n),
                    Self::Str(s) => serializer.serialize_str(s),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for RequestId {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = RequestId;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    $(
                        fn visit_unit<E: serde::de::Error>(self) -> Result<RequestId, E> {
                            Ok(RequestId::$null)
                        }
                        fn visit_none<E: serde::de::Error>(self) -> Result<RequestId, E> {
                            Ok(RequestId::$null)
                        }
                    )?
                    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RequestId, E> {
                        Ok(RequestId::Number(v))
                    }
                    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RequestId, E> {
                        i64::try_from(v).map(RequestId::Number).map_err(|_| {
                            E::invalid_value(
                                serde::de::Unexpected::Unsigned(v),
                                &"a 64-bit signed integer",
                            )
                        })
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RequestId, E> {
                        Ok(RequestId::Str(v.to_owned()))
                    }
                    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<RequestId, E> {
                        Ok(RequestId::Str(v))
                    }
                }
                deserializer.deserialize_any(V)
            }
        }

        schema_impl!(RequestId, |_| {
            let mut any_of = Vec::new();
            $(any_of.push(serde_json::json!({ "title": stringify!($null), "type": "null" }));)?
            any_of.push(serde_json::json!({ "title": "Number", "type": "integer", "format": "int64" }));
            any_of.push(serde_json::json!({ "title": "Str", "type": "string" }));
            schemars::json_schema!({ "anyOf": any_of })
        });
    };
}
