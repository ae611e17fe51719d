//! The options of the client end of a remote connection, for both WebSocket and Streamable
//! HTTP.

use std::time::Duration;

use super::{DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_STALL_TIMEOUT};
use crate::log::Logger;

/// The default time allowed to connect (TCP, TLS and the upgrade).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Options of a remote connection.
#[derive(Debug, Clone)]
#[must_use]
pub struct ClientOptions {
    pub(super) token: Option<String>,
    pub(super) roots: Vec<rustls::pki_types::CertificateDer<'static>>,
    pub(super) max_message_bytes: usize,
    pub(super) stall_timeout: Duration,
    pub(super) connect_timeout: Duration,
    pub(super) logger: Logger,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            token: None,
            roots: Vec::new(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            stall_timeout: DEFAULT_STALL_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            logger: Logger::none(),
        }
    }
}

impl ClientOptions {
    /// No token, 16 MiB messages, 30 s stall timeout, 15 s to connect.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends `Authorization: Bearer TOKEN` with the upgrade request (WebSocket) or with
    /// every request (Streamable HTTP).
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Trusts the certificates in `pem` for `wss://` and `https://` instead of the Mozilla
    /// root certificates (for a server with a private or self-signed certificate).
    pub fn trust_pem(mut self, pem: &[u8]) -> std::io::Result<Self> {
        self.roots.extend(super::tls::certificates(pem)?);
        Ok(self)
    }

    /// The longest incoming message, in bytes (default 16 MiB): a WebSocket frame, or an
    /// event of a Streamable HTTP event stream.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes.max(1);
        self
    }

    /// How long a write may wait for the server to read (default 30 s); over Streamable
    /// HTTP, how long one `POST` (or opening an event stream) may take.
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }

    /// How long connecting may take (default 15 s): TCP, TLS and the upgrade, or over
    /// Streamable HTTP the `POST` of `initialize` until its answer and the opening of the
    /// connection's event stream.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Where skipped frames and transport failures are logged (default: nowhere).
    pub fn logger(mut self, logger: Logger) -> Self {
        self.logger = logger;
        self
    }
}
