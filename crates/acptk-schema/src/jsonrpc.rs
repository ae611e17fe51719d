//! The JSON-RPC 2.0 envelope that carries every ACP message, in both protocol versions.
//!
//! ACP sends one JSON-RPC message per line. This module types the envelope only; the `params`
//! and `result` payloads stay raw ([`RawValue`]) until a caller decodes them with the types of
//! the negotiated protocol version, so routing a message never parses its payload twice.
//!
//! ```
//! use acptk_schema::jsonrpc::{Id, Message};
//!
//! let line = r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s"}}"#;
//! let Message::Request(request) = line.parse::<Message>()? else { panic!("a request") };
//! assert_eq!(request.id, Id::Number(1));
//! assert_eq!(request.method, "session/prompt");
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
pub use serde_json::value::RawValue;

/// The only JSON-RPC version string ACP accepts.
pub const VERSION: &str = "2.0";

/// Invalid JSON was received.
pub const PARSE_ERROR: i32 = -32700;
/// The JSON is not a valid request object.
pub const INVALID_REQUEST: i32 = -32600;
/// The method does not exist or is not available.
pub const METHOD_NOT_FOUND: i32 = -32601;
/// The method parameters are invalid.
pub const INVALID_PARAMS: i32 = -32602;
/// Internal error of the receiver.
pub const INTERNAL_ERROR: i32 = -32603;

/// A request id: a number, a string, or `null`.
///
/// `null` is allowed by JSON-RPC for responses to requests whose id could not be read (for
/// example a parse error); ACP peers should not send requests with a `null` id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    /// `null`.
    Null,
    /// An integer id.
    Number(i64),
    /// A string id.
    Str(String),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Null => f.write_str("null"),
            Id::Number(n) => write!(f, "{n}"),
            Id::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::Str(s.to_owned())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Self {
        Id::Str(s)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Null => serializer.serialize_unit(),
            Id::Number(n) => serializer.serialize_i64(*n),
            Id::Str(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = Id;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a request id (an integer, a string or null)")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Id, E> {
                Ok(Id::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Id, E> {
                Ok(Id::Null)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id, E> {
                Ok(Id::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id, E> {
                i64::try_from(v)
                    .map(Id::Number)
                    .map_err(|_| E::custom(format_args!("request id {v} does not fit in 64 bits")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Id, E> {
                Ok(Id::Str(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Id, E> {
                Ok(Id::Str(v))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

/// The error object of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorObject {
    /// The error code; see the constants of this module for the standard ones.
    pub code: i32,
    /// A one-line description of the error.
    pub message: String,
    /// Optional extra data about the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

constructor! {
    /// An error with a code and a message and no data.
    ErrorObject(code: i32, message: impl Into<String>) { data: None }
}

impl ErrorObject {
    /// Sets `data`.
    #[must_use]
    pub fn data(mut self, data: impl Into<Value>) -> Self {
        self.data = Some(data.into());
        self
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error {}: {}", self.code, self.message)
    }
}

/// A request: it has an id and expects exactly one response with the same id.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Request<P = Box<RawValue>> {
    /// The id the response must carry.
    pub id: Id,
    /// The method name.
    pub method: String,
    /// The parameters, if any.
    pub params: Option<P>,
}

impl<P> Request<P> {
    /// A request with the given id, method and parameters.
    pub fn new(id: impl Into<Id>, method: impl Into<String>, params: Option<P>) -> Self {
        Self {
            id: id.into(),
            method: method.into(),
            params,
        }
    }
}

/// A notification: it has no id and gets no response.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Notification<P = Box<RawValue>> {
    /// The method name.
    pub method: String,
    /// The parameters, if any.
    pub params: Option<P>,
}

impl<P> Notification<P> {
    /// A notification with the given method and parameters.
    pub fn new(method: impl Into<String>, params: Option<P>) -> Self {
        Self {
            method: method.into(),
            params,
        }
    }
}

/// A response: the result of the request with the same id, or an error.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Response<R = Box<RawValue>> {
    /// The id of the request this answers (`null` when that id could not be read).
    pub id: Id,
    /// The result, or the error.
    pub result: Result<R, ErrorObject>,
}

impl<R> Response<R> {
    /// A successful response.
    pub fn ok(id: impl Into<Id>, result: R) -> Self {
        Self {
            id: id.into(),
            result: Ok(result),
        }
    }

    /// A failed response.
    pub fn error(id: impl Into<Id>, error: ErrorObject) -> Self {
        Self {
            id: id.into(),
            result: Err(error),
        }
    }
}

/// Any JSON-RPC message, with raw payloads.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response.
    Response(Response),
}

impl Message {
    /// The method name of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&Id> {
        match self {
            Message::Request(r) => Some(&r.id),
            Message::Response(r) => Some(&r.id),
            Message::Notification(_) => None,
        }
    }
}

/// Writes a request (with its `id`) or a notification (without): `jsonrpc`, `id`, `method`,
/// then `params` when there are any.
fn serialize_call<S: Serializer, P: Serialize>(
    serializer: S,
    id: Option<&Id>,
    method: &str,
    params: Option<&P>,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    map.serialize_entry("jsonrpc", VERSION)?;
    if let Some(id) = id {
        map.serialize_entry("id", id)?;
    }
    map.serialize_entry("method", method)?;
    if let Some(params) = params {
        map.serialize_entry("params", params)?;
    }
    map.end()
}

impl<P: Serialize> Serialize for Request<P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_call(
            serializer,
            Some(&self.id),
            &self.method,
            self.params.as_ref(),
        )
    }
}

impl<P: Serialize> Serialize for Notification<P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_call(serializer, None, &self.method, self.params.as_ref())
    }
}

impl<R: Serialize> Serialize for Response<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", VERSION)?;
        map.serialize_entry("id", &self.id)?;
        match &self.result {
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

impl std::str::FromStr for Message {
    type Err = serde_json::Error;

    /// Decodes one message from JSON text (one line of an ACP stream).
    ///
    /// Fails when the text is not JSON, or when it is JSON but not a JSON-RPC 2.0 message
    /// (missing or wrong `jsonrpc`, neither `method` nor `result`/`error`, both `result` and
    /// `error`, ...). [`serde_json::Error::is_data`] tells an invalid envelope (`-32600`) from
    /// text that is not JSON (`-32700`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        serde_json::from_str(text)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(r) => r.serialize(serializer),
            Message::Notification(n) => n.serialize(serializer),
            Message::Response(r) => r.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC 2.0 message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut version: Option<String> = None;
        let mut id: Option<Id> = None;
        let mut method: Option<String> = None;
        let mut params: Option<Box<RawValue>> = None;
        let mut result: Option<Box<RawValue>> = None;
        let mut error: Option<ErrorObject> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "jsonrpc" => version = Some(map.next_value()?),
                "id" => id = Some(map.next_value()?),
                "method" => method = Some(map.next_value()?),
                "params" => params = Some(map.next_value()?),
                "result" => result = Some(map.next_value()?),
                "error" => error = Some(map.next_value()?),
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        match version.as_deref() {
            Some(VERSION) => {}
            Some(other) => {
                return Err(de::Error::custom(format_args!(
                    "expected \"jsonrpc\": \"2.0\", found \"{other}\""
                )));
            }
            None => return Err(de::Error::missing_field("jsonrpc")),
        }
        // `"params": null` is treated as no params.
        let params = params.filter(|raw| raw.get() != "null");
        match (method, id, result, error) {
            (Some(method), Some(id), None, None) => {
                Ok(Message::Request(Request { id, method, params }))
            }
            (Some(method), None, None, None) => {
                Ok(Message::Notification(Notification { method, params }))
            }
            (None, Some(id), Some(result), None) => Ok(Message::Response(Response {
                id,
                result: Ok(result),
            })),
            (None, Some(id), None, Some(error)) => Ok(Message::Response(Response {
                id,
                result: Err(error),
            })),
            (None, _, Some(_), Some(_)) => Err(de::Error::custom(
                "a response must not have both `result` and `error`",
            )),
            (None, None, _, _) => Err(de::Error::custom(
                "expected a request (`method` and `id`), a notification (`method`) or a response (`id` with `result` or `error`)",
            )),
            (None, Some(_), None, None) => {
                Err(de::Error::custom("a response needs `result` or `error`"))
            }
            (Some(_), _, _, _) => Err(de::Error::custom(
                "a request or notification must not have `result` or `error`",
            )),
        }
    }
}
