//! The error the remote transport raises when it connects: the server could not be reached,
//! or refused the connection. The crate's [`Error`](crate::Error) converts from it
//! ([`Error::Remote`](crate::Error::Remote)).

/// A remote agent could not be reached at a URL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteError {
    /// The address did not answer, the TLS or WebSocket handshake failed, or the server
    /// refused the request (`status`, for example 401 without the right bearer token).
    #[error("cannot connect to {url}: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// The HTTP status the server refused with, when it answered.
        status: Option<u16>,
        /// What went wrong.
        reason: String,
    },
}

impl RemoteError {
    /// The HTTP status the server refused the connection with, when it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            RemoteError::Unreachable { status, .. } => *status,
        }
    }
}
