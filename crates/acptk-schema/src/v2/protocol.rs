//! Protocol-level types of ACP v2: request ids, the error object with its codes, and the typed
//! error data of the errors v2 defines.

#[allow(unused_imports)]
use super::*;

request_id! {
    /// The id of a JSON-RPC request: an integer or a string (ACP v2 does not allow `null`).
    ///
    /// The sender picks it; the response and any `$/cancel_request` repeat it unchanged.
    /// Integers are signed 64-bit; a fractional or larger number is rejected.
    expecting: "a request id (a 64-bit integer or a string)",
}

rpc_error_object! {
    /// Extra information about the error, in a shape that depends on the code. A `null` is
    /// treated as absent, and so is data that claims a known shape but does not fit it.
    #[opt("crate::de::lenient_object")]
    data: ErrorData,
}

error_code_enum! {
    /// `-32022`: the agent does not speak the protocol version the client asked for; the data
    /// is an [`UnsupportedProtocolVersionErrorData`] listing the versions it does speak.
    UnsupportedProtocolVersion = -32022, "Unsupported protocol version";
}

/// The `data` of an error, typed where ACP v2 defines its shape.
///
/// The shapes carry no tag, so the keys decide: an object with both `requested` and
/// `supported` is [`ErrorData::UnsupportedProtocolVersion`], an object with `sessionId` is
/// [`ErrorData::SessionNotFound`], and anything else is kept verbatim as [`ErrorData::Other`].
/// An object that has the keys of a known shape but does not fit it is an error (inside
/// [`Error`] it is then treated as absent), never silently `Other`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorData {
    /// The data of an "unsupported protocol version" error (`-32022`).
    UnsupportedProtocolVersion(UnsupportedProtocolVersionErrorData),
    /// The data of a "resource not found" error (`-32002`) about a session.
    SessionNotFound(SessionNotFoundErrorData),
    /// Any other JSON value, kept as received.
    Other(serde_json::Value),
}

from_variants!(ErrorData { UnsupportedProtocolVersion(UnsupportedProtocolVersionErrorData), SessionNotFound(SessionNotFoundErrorData) });

impl From<serde_json::Value> for ErrorData {
    /// Wraps any JSON value as [`ErrorData::Other`] without looking at its shape.
    fn from(value: serde_json::Value) -> Self {
        Self::Other(value)
    }
}

impl serde::Serialize for ErrorData {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::UnsupportedProtocolVersion(data) => serde::Serialize::serialize(data, serializer),
            Self::SessionNotFound(data) => serde::Serialize::serialize(data, serializer),
            Self::Other(value) => serde::Serialize::serialize(value, serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for ErrorData {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
        let (has_versions, has_session) = match &value {
            serde_json::Value::Object(map) => (
                map.contains_key("requested") && map.contains_key("supported"),
                map.contains_key("sessionId"),
            ),
            _ => (false, false),
        };
        if has_versions {
            <UnsupportedProtocolVersionErrorData as serde::Deserialize>::deserialize(value)
                .map(Self::UnsupportedProtocolVersion)
                .map_err(D::Error::custom)
        } else if has_session {
            <SessionNotFoundErrorData as serde::Deserialize>::deserialize(value)
                .map(Self::SessionNotFound)
                .map_err(D::Error::custom)
        } else {
            Ok(Self::Other(value))
        }
    }
}

schema_impl!(ErrorData, |generator| {
    let versions = generator.subschema_for::<UnsupportedProtocolVersionErrorData>();
    let session = generator.subschema_for::<SessionNotFoundErrorData>();
    schemars::json_schema!({
        "anyOf": [
            { "title": "UnsupportedProtocolVersion", "allOf": [versions] },
            { "title": "SessionNotFound", "allOf": [session] },
            { "title": "Other" }
        ]
    })
});

wire_struct! {
    /// The data of an "unsupported protocol version" error (`-32022`): the agent cannot speak
    /// the version the client requested, and lists the ones it can.
    ///
    /// ```json
    /// {"requested": 3, "supported": [1, 2]}
    /// ```
    pub struct UnsupportedProtocolVersionErrorData {
        /// The protocol version the client asked for.
        pub requested: ProtocolVersion,
        /// Every protocol version the agent supports; the client may retry with one of them.
        pub supported: Vec<ProtocolVersion>,
    }
}

impl UnsupportedProtocolVersionErrorData {
    /// Builds the data from the requested version and the supported ones.
    pub fn new(
        requested: impl Into<ProtocolVersion>,
        supported: impl Into<Vec<ProtocolVersion>>,
    ) -> Self {
        Self {
            requested: requested.into(),
            supported: supported.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// The data of a "resource not found" error (`-32002`) caused by an unknown session id.
    ///
    /// ```json
    /// {"sessionId": "sess_abc123"}
    /// ```
    pub struct SessionNotFoundErrorData {
        /// The session id that the receiver does not know.
        pub session_id: SessionId,
    }
}

constructor! {
    /// Builds the data for the unknown session `session_id`.
    SessionNotFoundErrorData(session_id: impl Into<SessionId>) { meta: None }
}
