//! Protocol-level types of ACP v1: request ids and the error object with its codes.

#[allow(unused_imports)]
use super::*;

use std::fmt;

/// The id of a JSON-RPC request: `null`, an integer, or a string.
///
/// The sender picks it; the response and any `$/cancel_request` repeat it unchanged. `null` is
/// allowed by JSON-RPC for a response to a request whose id could not be read; a request should
/// not use it. Integers are signed 64-bit; a fractional or larger number is rejected.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// `null`.
    Null,
    /// An integer id.
    Number(i64),
    /// A string id.
    Str(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Null => f.write_str("null"),
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

impl From<crate::jsonrpc::Id> for RequestId {
    fn from(id: crate::jsonrpc::Id) -> Self {
        match id {
            crate::jsonrpc::Id::Null => Self::Null,
            crate::jsonrpc::Id::Number(n) => Self::Number(n),
            crate::jsonrpc::Id::Str(s) => Self::Str(s),
        }
    }
}

impl From<RequestId> for crate::jsonrpc::Id {
    fn from(id: RequestId) -> Self {
        match id {
            RequestId::Null => Self::Null,
            RequestId::Number(n) => Self::Number(n),
            RequestId::Str(s) => Self::Str(s),
        }
    }
}

impl serde::Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Null => serializer.serialize_unit(),
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
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a request id (null, a 64-bit integer or a string)")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<RequestId, E> {
                Ok(RequestId::Null)
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<RequestId, E> {
                Ok(RequestId::Null)
            }
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

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for RequestId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RequestId".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                { "title": "Null", "type": "null" },
                { "title": "Number", "type": "integer", "format": "int64" },
                { "title": "Str", "type": "string" }
            ]
        })
    }
}

wire_struct! {
    no_meta
    /// The error object of a failed request (the JSON-RPC `error` member).
    ///
    /// ```json
    /// {"code": -32602, "message": "Invalid params", "data": "missing field `sessionId`"}
    /// ```
    pub struct Error {
        /// What kind of error this is.
        pub code: ErrorCode,
        /// A short, human-readable description, ideally one sentence.
        pub message: String,
        /// Any extra information about the error, in a shape that depends on the code. A
        /// `null` is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::null_as_none",
            skip_serializing_if = "Option::is_none",
        )]
        pub data: Option<serde_json::Value>,
    }
}

impl Error {
    /// Builds an error with a code and a message and no data.
    pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            data: None,
        }
    }
}

setters!(Error { opt data: serde_json::Value });

// v1 names only the codes both versions share.
error_code_enum! {}
