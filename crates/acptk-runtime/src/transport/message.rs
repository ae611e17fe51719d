//! Message transports: what a connection reads JSON-RPC messages from and writes them to.
//!
//! A connection does not care how messages travel. Newline-delimited JSON over a byte stream
//! (stdio, pipes, sockets) is one framing ([`LineReader`](super::LineReader),
//! [`LineWriter`](super::LineWriter)); a WebSocket carries one message per text frame; an HTTP
//! transport hands messages over through channels ([`ChannelReader`], [`ChannelWriter`]). Any
//! pair of a [`MessageReader`] and a [`MessageWriter`] can carry a connection
//! ([`ConnectionBuilder::start_transport`](crate::ConnectionBuilder::start_transport)).
//!
//! One message is the UTF-8 JSON text of one JSON-RPC message or batch, without framing.

use std::future::Future;
use std::io;

use tokio::sync::mpsc;

#[cfg(feature = "remote")]
use super::queue::{QueueReceiver, QueueSender};

/// What one read from a [`MessageReader`] produced.
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Frame {
    /// One message (a JSON-RPC message or batch), without framing.
    Message(Vec<u8>),
    /// A message longer than the transport accepts; it was discarded except for its first
    /// bytes, which usually say what it was and its id.
    TooLong {
        /// How many bytes the message had.
        len: usize,
        /// Its first bytes (at most [`HEAD_BYTES`]).
        head: Vec<u8>,
    },
    /// The peer will send nothing more.
    End,
}

/// How many leading bytes of an over-long message are kept.
pub const HEAD_BYTES: usize = 512;

impl Frame {
    /// The frame for a message of `message.len()` bytes under a limit of `limit` bytes: the
    /// message itself, or [`Frame::TooLong`] with its head.
    pub fn bounded(mut message: Vec<u8>, limit: usize) -> Frame {
        if message.len() <= limit {
            return Frame::Message(message);
        }
        let len = message.len();
        message.truncate(HEAD_BYTES);
        message.shrink_to_fit();
        Frame::TooLong { len, head: message }
    }
}

/// The incoming half of a transport.
pub trait MessageReader: Send + 'static {
    /// The next message; [`Frame::End`] once the peer is done (and on every call after).
    fn read(&mut self) -> impl Future<Output = io::Result<Frame>> + Send;
}

/// The outgoing half of a transport.
///
/// The connection writes every queued message with [`Self::write`] and then calls
/// [`Self::flush`] once, so a transport may gather a burst into few writes.
pub trait MessageWriter: Send + 'static {
    /// Sends (or buffers) one message, given without framing.
    fn write(&mut self, message: &[u8]) -> impl Future<Output = io::Result<()>> + Send;
    /// Hands everything buffered to the transport.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;
    /// Ends the outgoing direction: the peer sees the end of the conversation. Called once,
    /// after a final flush.
    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send;
}

/// Incoming messages from a channel: whoever holds the sender feeds the connection (an HTTP
/// server does this with the bodies of POST requests). Dropping every sender ends the input.
#[derive(Debug)]
pub struct ChannelReader {
    messages: Source,
    limit: usize,
}

/// Where a [`ChannelReader`] takes its messages from.
#[derive(Debug)]
enum Source {
    Channel(mpsc::Receiver<Vec<u8>>),
    #[cfg(feature = "remote")]
    Queue(QueueReceiver),
}

impl ChannelReader {
    /// Reads from `messages`; a message over `limit` bytes becomes [`Frame::TooLong`].
    pub fn new(messages: mpsc::Receiver<Vec<u8>>, limit: usize) -> Self {
        Self {
            messages: Source::Channel(messages),
            limit,
        }
    }

    /// Reads from a queue bounded in bytes.
    #[cfg(feature = "remote")]
    pub(crate) fn from_queue(messages: QueueReceiver, limit: usize) -> Self {
        Self {
            messages: Source::Queue(messages),
            limit,
        }
    }
}

impl MessageReader for ChannelReader {
    async fn read(&mut self) -> io::Result<Frame> {
        let message = match &mut self.messages {
            Source::Channel(channel) => channel.recv().await,
            #[cfg(feature = "remote")]
            Source::Queue(queue) => queue.recv().await,
        };
        Ok(match message {
            Some(message) => Frame::bounded(message, self.limit),
            None => Frame::End,
        })
    }
}

/// Outgoing messages into a channel: whoever holds the receiver delivers them (an HTTP server
/// routes them to event streams). Closing drops the sender, so the receiver sees the end.
#[derive(Debug)]
pub struct ChannelWriter {
    messages: Option<Sink>,
}

/// Where a [`ChannelWriter`] puts its messages.
#[derive(Debug)]
enum Sink {
    Channel(mpsc::Sender<Vec<u8>>),
    #[cfg(feature = "remote")]
    Queue(QueueSender),
}

impl ChannelWriter {
    /// Writes into `messages`; waits while the channel is full.
    pub fn new(messages: mpsc::Sender<Vec<u8>>) -> Self {
        Self {
            messages: Some(Sink::Channel(messages)),
        }
    }

    /// Writes into a queue bounded in bytes; waits while it is full.
    #[cfg(feature = "remote")]
    pub(crate) fn from_queue(messages: QueueSender) -> Self {
        Self {
            messages: Some(Sink::Queue(messages)),
        }
    }
}

impl MessageWriter for ChannelWriter {
    async fn write(&mut self, message: &[u8]) -> io::Result<()> {
        let gone = || io::Error::new(io::ErrorKind::BrokenPipe, "the receiver is gone");
        match &self.messages {
            None => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the channel was closed",
            )),
            Some(Sink::Channel(channel)) => {
                channel.send(message.to_vec()).await.map_err(|_| gone())
            }
            #[cfg(feature = "remote")]
            Some(Sink::Queue(queue)) => queue.send(message.to_vec()).await.map_err(|_| gone()),
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    async fn close(&mut self) -> io::Result<()> {
        self.messages = None;
        Ok(())
    }
}
