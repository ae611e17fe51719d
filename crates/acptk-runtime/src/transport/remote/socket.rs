//! One JSON-RPC message per WebSocket text frame, for both ends: the server's sockets (axum)
//! and the client's (tokio-tungstenite) differ only in their message types, which
//! [`Codec`] maps.
//!
//! * Reading: a text frame is one message; binary frames, pings and pongs are skipped; a
//!   close frame, the end of the stream or a read error is the end of the input. A frame over
//!   the size limit is refused by the WebSocket layer itself (it never buffers more), and the
//!   socket is then closed with code 1009 ("message too big"); a protocol violation (a
//!   reserved bit, an unmasked client frame, a fragmented control frame, ...) with 1002, and
//!   a text frame that is not UTF-8 with 1007, as RFC 6455 (section 7.4.1) says. The server
//!   closes with 1001 ("going away") when it ends a connection itself (the idle timeout), and
//!   with 1000 otherwise.
//! * Writing: every write and flush must complete within the stall timeout. A peer that stops
//!   reading fills the socket's bounded write buffer, then the connection's bounded queue;
//!   past the timeout it is disconnected, so memory stays bounded.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{Sink, SinkExt, Stream, StreamExt};

use crate::lock::lock;
use crate::log::{Level, Logger};
use crate::transport::{Frame, MessageReader, MessageWriter};

/// The WebSocket close code for a message over the size limit.
pub(crate) const CLOSE_TOO_BIG: u16 = 1009;
/// The WebSocket close code for a protocol violation.
pub(crate) const CLOSE_PROTOCOL_ERROR: u16 = 1002;
/// The WebSocket close code for data that does not fit the message type (text that is not
/// UTF-8).
pub(crate) const CLOSE_INVALID_DATA: u16 = 1007;
/// The WebSocket close code for a normal end.
pub(crate) const CLOSE_NORMAL: u16 = 1000;
/// The WebSocket close code for a server that ends the connection (here: it was idle).
pub(crate) const CLOSE_GOING_AWAY: u16 = 1001;

/// What one incoming WebSocket message means for ACP.
pub(crate) enum Incoming {
    /// A text frame: one JSON-RPC message.
    Text(Vec<u8>),
    /// A binary frame, ping or pong: skipped.
    Skip(&'static str),
    /// A close frame.
    Close,
}

/// The message type of one WebSocket library.
pub(crate) trait Codec: Send + 'static {
    /// A message.
    type Message: Send;
    /// A read or write error.
    type Error: std::fmt::Display + Send;
    /// What an incoming message means.
    fn classify(message: Self::Message) -> Incoming;
    /// A text frame.
    fn text(text: String) -> Self::Message;
    /// A close frame with `code` and `reason`.
    fn close(code: u16, reason: &str) -> Self::Message;
    /// What a read error says the peer did wrong, if it says so.
    fn violation(error: &Self::Error) -> Option<Violation>;
}

/// What a peer did wrong, as a read error of the WebSocket layer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Violation {
    /// A message or frame over the size limit: 1009.
    TooBig,
    /// A protocol violation: 1002.
    Protocol,
    /// A text frame that is not UTF-8: 1007.
    NotUtf8,
}

/// How the socket should be closed, decided by the reading half.
pub(crate) type CloseReason = Arc<Mutex<Option<(u16, String)>>>;

/// The incoming half of a WebSocket.
pub(crate) struct SocketReader<S, C> {
    stream: S,
    logger: Logger,
    close: CloseReason,
    ended: bool,
    limit: usize,
    _codec: std::marker::PhantomData<fn() -> C>,
}

impl<S, C> SocketReader<S, C> {
    /// Reads `stream`; messages over `limit` bytes become [`Frame::TooLong`] (the WebSocket
    /// layer should refuse them before).
    pub(crate) fn new(stream: S, limit: usize, logger: Logger, close: CloseReason) -> Self {
        Self {
            stream,
            logger,
            close,
            ended: false,
            limit,
            _codec: std::marker::PhantomData,
        }
    }
}

impl<S, C> MessageReader for SocketReader<S, C>
where
    C: Codec,
    S: Stream<Item = Result<C::Message, C::Error>> + Send + Unpin + 'static,
{
    async fn read(&mut self) -> io::Result<Frame> {
        while !self.ended {
            match self.stream.next().await {
                Some(Ok(message)) => match C::classify(message) {
                    Incoming::Text(text) => return Ok(Frame::bounded(text, self.limit)),
                    Incoming::Skip(what) => {
                        self.logger
                            .log(Level::Debug, format!("WebSocket: skipped a {what} frame"));
                    }
                    Incoming::Close => self.ended = true,
                },
                Some(Err(error)) => {
                    self.ended = true;
                    let (code, reason) = match C::violation(&error) {
                        Some(Violation::TooBig) => {
                            (CLOSE_TOO_BIG, format!("message over {} bytes", self.limit))
                        }
                        Some(Violation::Protocol) => {
                            (CLOSE_PROTOCOL_ERROR, "protocol error".to_owned())
                        }
                        Some(Violation::NotUtf8) => (
                            CLOSE_INVALID_DATA,
                            "a text frame that is not UTF-8".to_owned(),
                        ),
                        None => {
                            self.logger
                                .log(Level::Warn, format!("WebSocket: reading failed: {error}"));
                            continue;
                        }
                    };
                    self.logger.log(
                        Level::Warn,
                        format!("WebSocket: {error}; closing with {code} ({reason})"),
                    );
                    *lock(&self.close) = Some((code, reason));
                }
                None => self.ended = true,
            }
        }
        Ok(Frame::End)
    }
}

/// The outgoing half of a WebSocket.
pub(crate) struct SocketWriter<K, C> {
    sink: K,
    stall: Duration,
    close: CloseReason,
    /// A write timed out: the peer gets no close frame, the socket is dropped.
    stalled: bool,
    _codec: std::marker::PhantomData<fn() -> C>,
}

impl<K, C> SocketWriter<K, C> {
    /// Writes into `sink`; a write or flush that takes longer than `stall` fails.
    pub(crate) fn new(sink: K, stall: Duration, close: CloseReason) -> Self {
        Self {
            sink,
            stall,
            close,
            stalled: false,
            _codec: std::marker::PhantomData,
        }
    }
}

/// Runs one write of the socket, bounded by `stall`.
async fn within<E: std::fmt::Display>(
    stall: Duration,
    stalled: &mut bool,
    work: impl std::future::Future<Output = Result<(), E>>,
) -> io::Result<()> {
    match tokio::time::timeout(stall, work).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(io::Error::new(io::ErrorKind::BrokenPipe, error.to_string())),
        Err(_) => {
            *stalled = true;
            Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the peer read nothing for {} s; disconnecting it",
                    stall.as_secs_f64()
                ),
            ))
        }
    }
}

impl<K, C> MessageWriter for SocketWriter<K, C>
where
    C: Codec,
    K: Sink<C::Message, Error = C::Error> + Send + Unpin + 'static,
{
    async fn write(&mut self, message: &[u8]) -> io::Result<()> {
        let text = String::from_utf8(message.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a message is not UTF-8"))?;
        within(self.stall, &mut self.stalled, self.sink.feed(C::text(text))).await
    }

    async fn flush(&mut self) -> io::Result<()> {
        within(self.stall, &mut self.stalled, self.sink.flush()).await
    }

    async fn close(&mut self) -> io::Result<()> {
        if self.stalled {
            return Ok(());
        }
        let (code, reason) = lock(&self.close)
            .take()
            .unwrap_or((CLOSE_NORMAL, String::from("the connection ended")));
        let short = self.stall.min(Duration::from_secs(2));
        let _ = within(
            short,
            &mut self.stalled,
            self.sink.send(C::close(code, &reason)),
        )
        .await;
        let _ = tokio::time::timeout(short, self.sink.close()).await;
        Ok(())
    }
}
