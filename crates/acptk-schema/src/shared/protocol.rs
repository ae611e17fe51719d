//! Protocol-level messages that do not belong to one feature area: extension methods,
//! request cancellation, and the building blocks of error codes.

#[allow(unused_imports)]
use super::*;

use serde_json::value::RawValue;

/// Declares an opaque extension payload: any JSON value, kept byte for byte.
macro_rules! ext_payload {
    ($(#[doc = $doc:expr])* $name:ident) => {
        $(#[doc = $doc])*
        ///
        /// The value is kept as raw JSON text ([`RawValue`]) and is never interpreted, so a peer
        /// that forwards it writes back exactly the bytes it received. The method name travels
        /// in the JSON-RPC envelope, not here. Use [`Self::parse`] to decode it once its meaning
        /// is known.
        #[derive(Debug, Clone)]
        pub struct $name(Box<RawValue>);

        impl $name {
            /// Wraps raw JSON text.
            pub fn new(raw: Box<RawValue>) -> Self {
                Self(raw)
            }

            /// Encodes `value` as JSON and wraps it.
            pub fn from_serialize<T: serde::Serialize + ?Sized>(
                value: &T,
            ) -> Result<Self, serde_json::Error> {
                serde_json::value::to_raw_value(value).map(Self)
            }

            /// The JSON text, exactly as received.
            pub fn get(&self) -> &str {
                self.0.get()
            }

            /// The raw value.
            pub fn as_raw(&self) -> &RawValue {
                &self.0
            }

            /// Takes the raw value out.
            pub fn into_raw(self) -> Box<RawValue> {
                self.0
            }

            /// Decodes the payload as `T`.
            pub fn parse<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
                serde_json::from_str(self.0.get())
            }
        }

        impl From<Box<RawValue>> for $name {
            fn from(raw: Box<RawValue>) -> Self {
                Self(raw)
            }
        }

        /// Two payloads are equal when their JSON text is identical (no normalisation).
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.0.get() == other.0.get()
            }
        }

        impl Eq for $name {}

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&self.0, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <Box<RawValue> as serde::Deserialize>::deserialize(deserializer).map(Self)
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({})
            }
        }
    };
}

ext_payload! {
    /// The parameters of an extension request: a method outside the ACP specification
    /// (by convention its name starts with `_`) that expects a response.
    ExtRequest
}

ext_payload! {
    /// The result of an extension request (see [`ExtRequest`]).
    ExtResponse
}

ext_payload! {
    /// The parameters of an extension notification: a method outside the ACP specification
    /// (by convention its name starts with `_`) that expects no response.
    ExtNotification
}

wire_struct! {
    /// Asks the peer to cancel one of the requests it received (`$/cancel_request`).
    ///
    /// Either side may send it. The receiver should stop work on the request and answer it with
    /// the "request cancelled" error code (`-32800`) or with whatever result it already has.
    ///
    /// ```json
    /// {"requestId": 7}
    /// ```
    pub struct CancelRequestNotification {
        /// The id of the request to cancel, as the sender of that request wrote it.
        pub request_id: RequestId,
    }
}

constructor! {
    /// Builds a cancellation for the request with id `request_id`.
    CancelRequestNotification(request_id: impl Into<RequestId>) { meta: None }
}

/// Declares a version's `ErrorCode` from the codes it names besides the standard ones both
/// versions share (one row per code: variant, code, standard title); the standard rows come
/// first. Everything else about the type comes from this one table.
macro_rules! error_code_enum {
    // The codes both versions name; a version's own codes follow them.
    (
        $( $(#[doc = $doc:expr])* $variant:ident = $code:literal, $title:literal; )*
    ) => {
        error_code_enum! { @table
            /// `-32700`: the message was not valid JSON.
            ParseError = -32700, "Parse error";
            /// `-32600`: the message was not a valid request object.
            InvalidRequest = -32600, "Invalid request";
            /// `-32601`: the receiver does not implement the method.
            MethodNotFound = -32601, "Method not found";
            /// `-32602`: the parameters were malformed or not supported.
            InvalidParams = -32602, "Invalid params";
            /// `-32603`: the receiver failed unexpectedly.
            InternalError = -32603, "Internal error";
            /// `-32800`: the request was cancelled (see `$/cancel_request`).
            RequestCancelled = -32800, "Request cancelled";
            /// `-32000`: the client must authenticate before the request can run.
            AuthRequired = -32000, "Authentication required";
            /// `-32002`: a resource the request refers to (a file, a session) does not exist.
            ResourceNotFound = -32002, "Resource not found";
            $( $(#[doc = $doc])* $variant = $code, $title; )*
        }
    };
    (
        @table $( $(#[doc = $doc:expr])* $variant:ident = $code:literal, $title:literal; )+
    ) => {
        /// The `code` of an ACP error: a JSON-RPC 2.0 code or an ACP-specific one.
        ///
        /// This is an open integer enum: the codes the protocol defines decode to their variant,
        /// and any other integer decodes to [`ErrorCode::Other`] and is written back unchanged.
        /// Build values with `From<i32>`, which always picks the named variant for a known code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* $variant, )+
            /// A code this crate does not name, kept verbatim. Build it through `From<i32>` so
            /// that a known code never ends up here.
            Other(i32),
        }

        impl ErrorCode {
            /// Every code this enum names, in declaration order.
            pub const KNOWN: &'static [i32] = &[$($code),+];

            /// The integer written on the wire.
            pub const fn code(self) -> i32 {
                match self {
                    $( Self::$variant => $code, )+
                    Self::Other(code) => code,
                }
            }

            /// The value for `code`: a named variant when the code is known, `Other` otherwise.
            pub const fn from_code(code: i32) -> Self {
                match code {
                    $( $code => Self::$variant, )+
                    other => Self::Other(other),
                }
            }

            /// The standard short title of a known code (for example "Invalid params"), usable
            /// as an error message; `None` for `Other`.
            pub const fn title(self) -> Option<&'static str> {
                match self {
                    $( Self::$variant => Some($title), )+
                    Self::Other(_) => None,
                }
            }

            /// Whether the code is one this enum names.
            pub const fn is_known(self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }

        impl From<i32> for ErrorCode {
            fn from(code: i32) -> Self {
                Self::from_code(code)
            }
        }

        impl From<ErrorCode> for i32 {
            fn from(code: ErrorCode) -> Self {
                code.code()
            }
        }

        impl std::fmt::Display for ErrorCode {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.title() {
                    Some(title) => write!(f, "{} ({title})", self.code()),
                    None => write!(f, "{}", self.code()),
                }
            }
        }

        impl serde::Serialize for ErrorCode {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_i32(self.code())
            }
        }

        impl<'de> serde::Deserialize<'de> for ErrorCode {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <i32 as serde::Deserialize>::deserialize(deserializer).map(Self::from_code)
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for ErrorCode {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "ErrorCode".into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "anyOf": [
                        $( {
                            "title": $title,
                            "type": "integer",
                            "format": "int32",
                            "const": $code,
                        }, )+
                        { "title": "Other", "type": "integer", "format": "int32" }
                    ]
                })
            }
        }
    };
}

pub(crate) use error_code_enum;

/// An error with the code's standard title as its message (or "Error" for an unnamed code).
impl From<ErrorCode> for Error {
    fn from(code: ErrorCode) -> Self {
        Self::new(code, code.title().unwrap_or("Error"))
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code.code())
    }
}

impl std::error::Error for Error {}

// Decoding helpers that `crate::de` does not provide yet, used with `deserialize_with` by the
// area files of this version.
