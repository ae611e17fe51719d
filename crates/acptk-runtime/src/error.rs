//! The error type of the runtime.

use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::v1::ProtocolVersion;

/// Everything that can go wrong when using a connection, on either side.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The connection is closed (the peer hung up, or the transport failed): no request can be
    /// sent and pending requests fail with this error.
    #[error("the connection is closed")]
    ConnectionClosed,
    /// The peer answered a request with a JSON-RPC error (or, in v2, ended a turn with one).
    /// Shown as [`rpc::describe`] writes it: message, code and what `data` adds, with no
    /// prefix, so that the caller can say once what failed.
    #[error("{}", rpc::describe(.0))]
    Rpc(ErrorObject),
    /// Reading from or writing to the transport failed.
    #[error("transport error: {0}")]
    Io(#[from] std::io::Error),
    /// A value could not be encoded as JSON.
    #[error("could not encode a message: {0}")]
    Encode(serde_json::Error),
    /// The peer's answer did not decode as the expected type.
    #[error("the peer sent an invalid payload: {0}")]
    Decode(#[from] acptk_schema::Error),
    /// The agent answered `initialize` with a protocol version this client cannot speak.
    #[error(
        "the agent chose protocol version {answered}, but this client speaks versions {supported}"
    )]
    UnsupportedVersion {
        /// The version the agent answered with.
        answered: ProtocolVersion,
        /// The versions this side supports, for the message (for example `1 and 2`).
        supported: String,
    },
    /// The agent was to use a feature of the client that the client did not advertise (a
    /// notice as a raw v1 update without `session.notices`, a file read without
    /// `fs.readTextFile`, a terminal without `terminal`, ...), or that the connection's
    /// protocol version does not have. Nothing was sent.
    /// [`Session::notice`](crate::agent::Session::notice) falls back to an agent message
    /// instead.
    #[error("{}", .feature.refusal(*.version))]
    NotAdvertised {
        /// The feature.
        feature: crate::client_feature::ClientFeature,
        /// The connection's protocol version.
        version: ProtocolVersion,
    },
    /// The session was closed on this connection (`session/close`) or deleted: nothing more
    /// is sent for it.
    #[error("session `{0}` is closed on this connection; nothing was sent")]
    SessionClosed(String),
    /// The session store could not record or read something.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The turn was cancelled (`session/cancel`) while the agent waited for the client.
    #[error("the turn was cancelled")]
    Cancelled,
    /// A typed update of one protocol version was sent on a connection that speaks another.
    #[error(
        "this session speaks protocol version {actual}, but an update for version {expected} was given"
    )]
    WrongVersion {
        /// The version the update was written for.
        expected: ProtocolVersion,
        /// The version the connection negotiated.
        actual: ProtocolVersion,
    },
    /// A session id that this side does not know.
    #[error("unknown session `{0}`")]
    UnknownSession(String),
    /// A notice with an empty title (ACP requires at least one character).
    #[error("a notice title must not be empty")]
    EmptyNoticeTitle,
    /// The peer's answer to a request was longer than this connection's line limit
    /// ([`ConnectionBuilder::max_line_bytes`](crate::ConnectionBuilder::max_line_bytes)), so
    /// it was skipped unread.
    #[error(
        "the peer's answer to `{method}` has {bytes} bytes, over this connection's limit of {limit} bytes"
    )]
    ResponseTooLong {
        /// The method of the request.
        method: String,
        /// The length of the answer's line.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A remote agent could not be reached at a URL (feature `remote`): see
    /// [`RemoteError`](crate::transport::remote::RemoteError).
    #[cfg(feature = "remote")]
    #[error(transparent)]
    Remote(#[from] crate::transport::remote::RemoteError),
    /// The connection has not finished `initialize` yet, or something else happened out of
    /// order; the message says what.
    #[error("{0}")]
    Protocol(String),
}

impl Error {
    /// The JSON-RPC error object, when the peer answered with one.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            Error::Rpc(error) => Some(error),
            _ => None,
        }
    }

    /// Whether this is the error of a cancelled turn ([`Error::Cancelled`]): after
    /// `session/cancel` every call of the turn fails with it, so that `?` ends the handler.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Error::Cancelled)
    }
}

/// Every runtime error can end a handler with `?`: the conversion keeps what the error means.
///
/// | error | JSON-RPC error |
/// |---|---|
/// | [`Error::Cancelled`] | `-32800` ([`rpc::turn_cancelled`]); a prompt handler that returns it ends its turn `cancelled`, never with an error |
/// | [`Error::SessionClosed`], [`Error::UnknownSession`], a store's unknown session | `-32002` with `data.sessionId` |
/// | [`Error::NotAdvertised`] | `-32603` whose message names the capability the client did not advertise, and `data.capability` |
/// | [`Error::Rpc`] | the peer's error object as it came |
/// | a session stored for the other protocol version | `-32602` |
/// | anything else | `-32603` with the error's message |
///
/// ```
/// use acptk_runtime::{Error, ErrorObject};
/// let error: ErrorObject = Error::UnknownSession("sess_1".into()).into();
/// assert_eq!(error.code, -32002);
/// let error: ErrorObject = Error::Cancelled.into();
/// assert_eq!(error.code, -32800);
/// ```
impl From<Error> for ErrorObject {
    fn from(error: Error) -> Self {
        match error {
            Error::Cancelled => rpc::turn_cancelled(),
            Error::Rpc(error) => error,
            Error::UnknownSession(id) => rpc::session_not_found(&id),
            Error::SessionClosed(id) => {
                let mut object = rpc::session_not_found(&id);
                object.message = format!("session `{id}` is closed on this connection");
                object
            }
            Error::Store(error) => rpc::store_error(&error),
            Error::NotAdvertised { feature, version } => {
                let mut object = ErrorObject::new(
                    acptk_schema::jsonrpc::INTERNAL_ERROR,
                    feature.refusal(version),
                );
                if let Some(capability) = feature.capability(version) {
                    object = object.data(serde_json::json!({ "capability": capability }));
                }
                object
            }
            other => rpc::internal(other),
        }
    }
}

/// JSON-RPC error objects used by the runtime, in one place.
pub mod rpc {
    use acptk_schema::jsonrpc::{
        ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
    };

    /// The code ACP uses for a request cancelled with `$/cancel_request`.
    pub const REQUEST_CANCELLED: i32 = -32800;

    /// The code ACP uses for a resource (a file, a session) that does not exist.
    pub const RESOURCE_NOT_FOUND: i32 = -32002;

    /// The code ACP uses when a method needs authentication first.
    pub const AUTH_REQUIRED: i32 = -32000;

    /// The code this runtime answers a prompt with when the session's turn runs in another
    /// agent process that shares the session store (it holds the session's lease): the
    /// prompt changed nothing and may be sent again once that turn has ended, or once the
    /// lease expired after that process stopped. In the JSON-RPC range for implementations.
    pub const SESSION_BUSY_ELSEWHERE: i32 = -32010;

    /// `-32010`: session `id` has a turn running on the agent instance `holder`, whose lease
    /// runs out in `retry_after` unless renewed; `data` carries `{"sessionId", "holder",
    /// "retryAfterMs"}`.
    pub fn session_busy_elsewhere(
        id: &str,
        holder: &str,
        retry_after: std::time::Duration,
    ) -> ErrorObject {
        let seconds = retry_after.as_secs().max(1);
        ErrorObject::new(
            SESSION_BUSY_ELSEWHERE,
            format!(
                "session `{id}` has a turn running on another agent instance (`{holder}`): \
                 this prompt was not started; send it again once that turn has ended (if that \
                 instance stopped, its lease on the session expires within {seconds} s)"
            ),
        )
        .data(serde_json::json!({
            "sessionId": id,
            "holder": holder,
            "retryAfterMs": u64::try_from(retry_after.as_millis()).unwrap_or(u64::MAX),
        }))
    }

    /// The code this runtime answers a prompt with while the agent process is shutting down
    /// ([`AgentServer::drain`](crate::agent::AgentServer::drain)): the prompt changed nothing;
    /// send it again on a new connection (behind a load balancer, to another instance).
    pub const SHUTTING_DOWN: i32 = -32011;

    /// `-32011`: the agent is shutting down and starts no new turn.
    pub fn shutting_down() -> ErrorObject {
        ErrorObject::new(
            SHUTTING_DOWN,
            "this agent instance is shutting down: the prompt was not started; reconnect and \
             send it again (behind a load balancer, another instance takes it)",
        )
    }

    /// `-32002`: the session `id` does not exist; `data` carries `{"sessionId": id}`.
    pub fn session_not_found(id: &str) -> ErrorObject {
        ErrorObject::new(RESOURCE_NOT_FOUND, format!("session `{id}` not found"))
            .data(serde_json::json!({ "sessionId": id }))
    }

    /// `-32000`: the method needs authentication first.
    pub fn auth_required(detail: impl std::fmt::Display) -> ErrorObject {
        ErrorObject::new(AUTH_REQUIRED, format!("authentication required: {detail}"))
    }

    /// `-32601`: no handler for `method`.
    pub fn method_not_found(method: &str) -> ErrorObject {
        ErrorObject::new(METHOD_NOT_FOUND, format!("method not found: `{method}`"))
    }

    /// `-32602`: the params did not decode; `detail` says where and why.
    pub fn invalid_params(detail: impl std::fmt::Display) -> ErrorObject {
        ErrorObject::new(INVALID_PARAMS, format!("invalid params: {detail}"))
    }

    /// `-32600`: not a valid JSON-RPC message.
    pub fn invalid_request(detail: impl std::fmt::Display) -> ErrorObject {
        ErrorObject::new(INVALID_REQUEST, format!("invalid request: {detail}"))
    }

    /// `-32700`: the text is not JSON.
    pub fn parse_error(detail: impl std::fmt::Display) -> ErrorObject {
        ErrorObject::new(PARSE_ERROR, format!("parse error: {detail}"))
    }

    /// `-32603`: the handler failed.
    pub fn internal(detail: impl std::fmt::Display) -> ErrorObject {
        ErrorObject::new(INTERNAL_ERROR, format!("internal error: {detail}"))
    }

    /// `-32800`: the request was cancelled by the peer.
    pub fn request_cancelled() -> ErrorObject {
        ErrorObject::new(REQUEST_CANCELLED, "request cancelled")
    }

    /// `-32800` for a call of a turn that `session/cancel` cancelled (what
    /// [`Error::Cancelled`](crate::Error::Cancelled) becomes); `data.cancelled` is `"turn"`, so
    /// that the runtime tells it from any other `-32800`.
    pub fn turn_cancelled() -> ErrorObject {
        ErrorObject::new(REQUEST_CANCELLED, "the turn was cancelled")
            .data(serde_json::json!({ "cancelled": "turn" }))
    }

    /// Whether `error` is [`turn_cancelled`]'s.
    pub fn is_turn_cancelled(error: &ErrorObject) -> bool {
        error.code == REQUEST_CANCELLED
            && error
                .data
                .as_ref()
                .and_then(|data| data.get("cancelled"))
                .is_some_and(|value| value == "turn")
    }

    /// The JSON-RPC error for a store failure: `-32002` for a session the store does not
    /// know, `-32602` for one of another protocol version, `-32010` for one whose turn runs in
    /// another process, `-32603` with the store's message otherwise.
    pub fn store_error(error: &crate::store::StoreError) -> ErrorObject {
        use crate::store::StoreError;
        match error {
            StoreError::Unknown(id) => session_not_found(id),
            StoreError::Leased {
                id,
                holder,
                remaining,
            } => session_busy_elsewhere(id, holder, *remaining),
            StoreError::WrongVersion { .. } => invalid_params(error),
            other => internal(other),
        }
    }

    /// The longest `data` detail [`describe`] shows, in characters.
    const DETAIL_CHARS: usize = 300;

    /// One line for an error object: `MESSAGE (code CODE)`, followed by `: DETAIL` when `data`
    /// adds something: its `message` field when it is an object with a string `message`, the
    /// string itself when it is a string, otherwise the compact JSON (cut after 300 characters).
    /// A detail equal to the message is not repeated.
    ///
    /// ```
    /// use acptk_runtime::rpc::describe;
    /// use acptk_schema::jsonrpc::ErrorObject;
    ///
    /// let error = ErrorObject::new(-32603, "Internal error")
    ///     .data(serde_json::json!({"message": "stream disconnected before completion"}));
    /// assert_eq!(describe(&error), "Internal error (code -32603): stream disconnected before completion");
    /// assert_eq!(describe(&ErrorObject::new(-32000, "Authentication required")), "Authentication required (code -32000)");
    /// ```
    pub fn describe(error: &ErrorObject) -> String {
        let head = format!("{} (code {})", error.message.trim(), error.code);
        match detail(error) {
            Some(detail) if detail != error.message.trim() => format!("{head}: {detail}"),
            _ => head,
        }
    }

    /// What `data` adds to an error, as one line (see [`describe`]).
    pub fn detail(error: &ErrorObject) -> Option<String> {
        let text = match error.data.as_ref()? {
            serde_json::Value::Null => return None,
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Object(object) => match object.get("message") {
                Some(serde_json::Value::String(message)) => message.clone(),
                _ => serde_json::Value::Object(object.clone()).to_string(),
            },
            other => other.to_string(),
        };
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            return None;
        }
        Some(match line.char_indices().nth(DETAIL_CHARS) {
            Some((cut, _)) => format!("{}...", &line[..cut]),
            None => line,
        })
    }
}
