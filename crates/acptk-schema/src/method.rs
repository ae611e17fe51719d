//! Method tables: one marker type per ACP method, and decoding by method name.
//!
//! Each protocol version has one table per direction (`v1::methods`, `v2::methods`). A marker
//! type names a method and ties it to its parameter and result types:
//!
//! ```
//! use acptk_schema::method::RequestMethod;
//! use acptk_schema::v1::methods::SessionPrompt;
//!
//! assert_eq!(SessionPrompt::METHOD, "session/prompt");
//! let _params: <SessionPrompt as RequestMethod>::Params;
//! ```
//!
//! The routing enums (`ClientRequest`, `AgentResponse`, ... in each version) are generated from
//! the same tables. Their `decode` looks the method name up once and decodes the raw params as
//! that method's type; it never tries one shape after another.

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use crate::Error;

mod json_path;

/// A request method: a name, the type of its params and the type of its result.
pub trait RequestMethod {
    /// The JSON-RPC method name.
    const METHOD: &'static str;
    /// The `params` of the request.
    type Params: Serialize + DeserializeOwned;
    /// The `result` of a successful response.
    type Result: Serialize + DeserializeOwned;

    /// Decodes the JSON text of `params`.
    ///
    /// Every method of this crate's tables overrides the provided bodies of this trait with
    /// the same code, compiled here once: a generic call such as `serde_json::from_str::<T>`
    /// is compiled again in each crate that makes it, and an optimised build does not merge
    /// the copies. A runtime that decodes and encodes through these functions carries each
    /// wire type's code once. The defaults serve methods declared elsewhere.
    fn decode_params(text: &str) -> Result<Self::Params, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Encodes `params` as raw JSON (see [`Self::decode_params`] for why this is a method).
    fn encode_params(params: &Self::Params) -> Result<Box<RawValue>, serde_json::Error> {
        serde_json::value::to_raw_value(params)
    }

    /// Decodes the JSON text of a `result` (see [`Self::decode_params`]).
    fn decode_result(text: &str) -> Result<Self::Result, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Encodes `result` as raw JSON (see [`Self::decode_params`]).
    fn encode_result(result: &Self::Result) -> Result<Box<RawValue>, serde_json::Error> {
        serde_json::value::to_raw_value(result)
    }
}

/// A notification method: a name and the type of its params.
pub trait NotificationMethod {
    /// The JSON-RPC method name.
    const METHOD: &'static str;
    /// The `params` of the notification.
    type Params: Serialize + DeserializeOwned;

    /// Decodes the JSON text of `params` (overridden by this crate's tables for the reason
    /// given at [`RequestMethod::decode_params`]).
    fn decode_params(text: &str) -> Result<Self::Params, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The whole notification, `{"jsonrpc":"2.0","method":...,"params":...}`, as JSON bytes
    /// (without framing).
    fn encode_notification(params: &Self::Params) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(&crate::jsonrpc::Notification::new(
            Self::METHOD,
            Some(params),
        ))
    }
}

/// A call of an extension method (a name starting with `_`), kept raw.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Extension {
    /// The method name, with its leading `_`.
    pub method: String,
    /// The params (or result) exactly as received; `null` when there were none.
    pub payload: Box<RawValue>,
}

constructor! {
    /// An extension call with a raw JSON payload.
    Extension(method: impl Into<String>, payload: Box<RawValue>) {}
}

impl PartialEq for Extension {
    fn eq(&self, other: &Self) -> bool {
        self.method == other.method && self.payload.get() == other.payload.get()
    }
}

impl Serialize for Extension {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.payload.serialize(serializer)
    }
}

/// Whether `method` is an extension method name (starts with `_`).
pub fn is_extension(method: &str) -> bool {
    method.starts_with('_')
}

/// The raw JSON used when a message has no `params`: an empty object, so that methods whose
/// params are all optional decode, and the others fail naming the missing field.
pub(crate) fn params_or_empty(params: Option<&RawValue>) -> &str {
    params.map_or("{}", RawValue::get)
}

/// Decodes the `result` of a response for `method` as `T`. A `null` result that `T` does not
/// accept as such is read as an empty object, so that the results made of optional fields only
/// decode from `null`; a type that accepts `null` itself (an opaque JSON value) keeps it.
pub(crate) fn decode_result<T: DeserializeOwned>(
    method: &str,
    result: &RawValue,
) -> Result<T, Error> {
    match result.get() {
        "null" => match serde_json::from_str::<T>("null") {
            Ok(value) => Ok(value),
            Err(_) => decode_payload(method, "{}"),
        },
        text => decode_payload(method, text),
    }
}

/// Decodes `raw` as `T`; on failure, names where it broke from the position serde_json
/// reports (see [`json_path`]), without decoding `T` a second time.
pub(crate) fn decode_payload<T: DeserializeOwned>(method: &str, raw: &str) -> Result<T, Error> {
    serde_json::from_str(raw).map_err(|error| Error::InvalidParams {
        method: method.to_owned(),
        path: json_path::path_at(raw, error.line(), error.column()),
        message: error.to_string(),
    })
}

/// Copies a raw payload for an [`Extension`].
pub(crate) fn raw_or_null(raw: Option<&RawValue>) -> Box<RawValue> {
    match raw {
        Some(raw) => raw.to_owned(),
        None => RawValue::NULL.to_owned(),
    }
}
