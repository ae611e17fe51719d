//! The error type of the runtime.

use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::v1::ProtocolVersion;

use crate::rpc;

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
