//! The client end of a remote connection: a WebSocket to a `ws://` or `wss://` URL, or
//! Streamable HTTP to an `http://` or `https://` URL (`http_client.rs`); TLS by
//! rustls with the Mozilla root certificates.

use std::io;
use std::sync::{Arc, OnceLock};

use futures_util::StreamExt;
use futures_util::stream::{SplitSink, SplitStream};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderValue, header};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::client_options::ClientOptions;
use super::error::RemoteError;
use super::http_client::{self, HttpReader, HttpWriter, Refusal};
use super::socket::{CloseReason, SocketReader, SocketWriter};
use super::{CONNECTION_ID_HEADER, ClientCodec};
use crate::transport::{Frame, MessageReader, MessageWriter};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The incoming half of a remote connection.
pub struct RemoteReader {
    inner: ReaderKind,
    connection_id: Arc<OnceLock<String>>,
    refusal: Refusal,
}

enum ReaderKind {
    Socket(SocketReader<SplitStream<Socket>, ClientCodec>),
    Http(HttpReader),
}

impl std::fmt::Debug for RemoteReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteReader")
            .field("connection_id", &self.connection_id.get())
            .finish_non_exhaustive()
    }
}

impl RemoteReader {
    /// The `Acp-Connection-Id` the server gave the connection, when it sent one (over
    /// Streamable HTTP, once `initialize` has been answered).
    pub fn connection_id(&self) -> Option<&str> {
        self.connection_id.get().map(String::as_str)
    }

    /// Where the transport keeps the refusal that ended it, if one did.
    pub(crate) fn refusal(&self) -> Refusal {
        Arc::clone(&self.refusal)
    }
}

impl MessageReader for RemoteReader {
    async fn read(&mut self) -> io::Result<Frame> {
        match &mut self.inner {
            ReaderKind::Socket(socket) => socket.read().await,
            ReaderKind::Http(http) => http.read().await,
        }
    }
}

/// The outgoing half of a remote connection.
pub struct RemoteWriter {
    inner: WriterKind,
}

enum WriterKind {
    Socket(SocketWriter<SplitSink<Socket, Message>, ClientCodec>),
    Http(HttpWriter),
}

impl std::fmt::Debug for RemoteWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteWriter").finish_non_exhaustive()
    }
}

impl MessageWriter for RemoteWriter {
    async fn write(&mut self, message: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            WriterKind::Socket(socket) => socket.write(message).await,
            WriterKind::Http(http) => http.write(message).await,
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            WriterKind::Socket(socket) => socket.flush().await,
            WriterKind::Http(http) => http.flush().await,
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        match &mut self.inner {
            WriterKind::Socket(socket) => socket.close().await,
            WriterKind::Http(http) => http.close().await,
        }
    }
}

/// Connects to the ACP endpoint at `url` (`ws://`, `wss://`, `http://` or `https://`) and
/// returns the two halves of the transport; the caller runs `initialize` on them (see
/// [`ClientBuilder::connect_url`](crate::client::ClientBuilder::connect_url)).
///
/// Over WebSocket, fails with [`RemoteError::Unreachable`] when the server cannot be reached,
/// refuses the upgrade (with its HTTP status) or does not answer within the connect timeout.
/// Over Streamable HTTP the server is first contacted by the `POST` of `initialize` (the
/// first write), so such failures come from that write; `connect_url` reports them as
/// [`Error::Remote`](crate::Error::Remote) too.
pub async fn connect(
    url: &str,
    options: &ClientOptions,
) -> Result<(RemoteReader, RemoteWriter), RemoteError> {
    let unreachable = |status: Option<u16>, reason: String| RemoteError::Unreachable {
        url: url.to_owned(),
        status,
        reason,
    };
    let scheme = url
        .split_once("://")
        .map(|(scheme, _)| scheme.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("ws" | "wss") => {}
        Some("http" | "https") => {
            let halves = http_client::connect(url, options)?;
            let reader = RemoteReader {
                inner: ReaderKind::Http(halves.reader),
                connection_id: halves.connection_id,
                refusal: halves.refusal,
            };
            let writer = RemoteWriter {
                inner: WriterKind::Http(halves.writer),
            };
            return Ok((reader, writer));
        }
        _ => {
            return Err(unreachable(
                None,
                "expected a ws://, wss://, http:// or https:// URL".to_owned(),
            ));
        }
    }
    let mut request = url
        .into_client_request()
        .map_err(|error| unreachable(None, error.to_string()))?;
    if let Some(token) = &options.token {
        let value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| unreachable(None, "the token is not a valid header value".to_owned()))?;
        request.headers_mut().insert(header::AUTHORIZATION, value);
    }
    let config = WebSocketConfig::default()
        .max_message_size(Some(options.max_message_bytes))
        .max_frame_size(Some(options.max_message_bytes));
    let connector = if options.roots.is_empty() {
        None
    } else {
        let tls = super::tls::client_config(&options.roots)
            .map_err(|reason| unreachable(None, reason))?;
        Some(tokio_tungstenite::Connector::Rustls(tls))
    };
    let connecting =
        tokio_tungstenite::connect_async_tls_with_config(request, Some(config), true, connector);
    let (socket, response) = match tokio::time::timeout(options.connect_timeout, connecting).await {
        Err(_) => {
            return Err(unreachable(
                None,
                format!(
                    "no answer within {} s",
                    options.connect_timeout.as_secs_f64()
                ),
            ));
        }
        Ok(Err(tungstenite::Error::Http(response))) => {
            let status = response.status();
            let body = response
                .body()
                .as_deref()
                .map(|body| String::from_utf8_lossy(body).trim().to_owned())
                .filter(|body| !body.is_empty());
            let mut reason = format!("the server answered {status}");
            if let Some(body) = body {
                reason = format!("{reason}: {body}");
            }
            return Err(unreachable(Some(status.as_u16()), reason));
        }
        Ok(Err(error)) => return Err(unreachable(None, error.to_string())),
        Ok(Ok(pair)) => pair,
    };
    let connection_id = Arc::new(OnceLock::new());
    if let Some(id) = response
        .headers()
        .get(CONNECTION_ID_HEADER)
        .and_then(|value| value.to_str().ok())
    {
        let _ = connection_id.set(id.to_owned());
    }
    let (sink, stream) = socket.split();
    let close = CloseReason::default();
    let reader = RemoteReader {
        inner: ReaderKind::Socket(SocketReader::new(
            stream,
            options.max_message_bytes,
            options.logger.clone(),
            Arc::clone(&close),
        )),
        connection_id,
        refusal: Refusal::default(),
    };
    let writer = RemoteWriter {
        inner: WriterKind::Socket(SocketWriter::new(sink, options.stall_timeout, close)),
    };
    Ok((reader, writer))
}
