//! One Streamable HTTP connection: the channels into and out of the ACP connection, and the
//! routing of what the agent sends to the event streams the client has open.
//!
//! Routing: a message for a session (a request or notification whose `params.sessionId`
//! names it, or the answer to a request posted for it) goes to that session's stream when
//! one is open, else to the connection's stream; with no stream open it waits in a bounded
//! queue (the client opens its stream right after `initialize`). Sending into a stream waits
//! while the client reads slowly, up to the stall timeout; then the connection is closed.
//!
//! A stream's queue carries server-sent-event text, not messages: the writer frames the
//! messages of a burst for each stream as they are written and hands each stream one chunk
//! at the flush (or whenever a chunk reaches [`CHUNK_BYTES`]), so a burst costs one queue
//! entry and one wake-up of the stream's task, not one per message.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use super::limits::HOP_BYTES;
use super::peek::{Outgoing, outgoing_route};
use super::slot::Slot;
use super::sse::{CHUNK_BYTES, EventReader, frame};
use crate::lock::lock;
use crate::log::{Level, Logger};
use crate::principal::Principal;
use crate::transport::MessageWriter;
use crate::transport::queue::{Closed, QueueReceiver, QueueSender, queue};

/// How many posts of one connection may wait for room in its inbound queue at once.
const MAX_WAITING_POSTS: usize = 8;

/// How many chunks of framed messages may wait in one event stream's channel (and at most
/// [`HOP_BYTES`](super::limits::HOP_BYTES) bytes, or one chunk).
pub(crate) const STREAM_CAPACITY: usize = 64;

#[derive(Default)]
struct Routes {
    connection: Option<QueueSender>,
    sessions: HashMap<String, QueueSender>,
    /// Messages no open stream could take yet, with their session.
    waiting: VecDeque<(Option<String>, Vec<u8>)>,
    waiting_bytes: usize,
    /// The session of each request the client posted for one, by id.
    requests: HashMap<String, String>,
    /// The `initialize` whose answer the POST that created the connection waits for.
    initialize: Option<(String, oneshot::Sender<Vec<u8>>)>,
    ended: bool,
}

impl Routes {
    /// The open stream for a message of `session`: the session's own stream, else the
    /// connection's; `None` when neither is open.
    fn stream_for(&self, session: Option<&str>) -> Option<QueueSender> {
        session
            .and_then(|id| self.sessions.get(id))
            .filter(|s| !s.is_closed())
            .or(self.connection.as_ref().filter(|s| !s.is_closed()))
            .cloned()
    }
}

/// Whom a Streamable HTTP connection counts for against the per-client limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Client {
    /// A principal a token names.
    Principal(Principal),
    /// A client address (the server has no tokens).
    Address(IpAddr),
}

impl Client {
    /// The client of a request of `principal` from `address`.
    pub(crate) fn of(principal: &Principal, address: IpAddr) -> Self {
        if principal.is_local() {
            Self::Address(address)
        } else {
            Self::Principal(principal.clone())
        }
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Principal(principal) => {
                write!(f, "principal `{}`", principal.name().unwrap_or_default())
            }
            Self::Address(address) => write!(f, "address {address}"),
        }
    }
}

/// One Streamable HTTP connection.
pub(crate) struct HttpConnection {
    /// Into the ACP connection (bodies of POST requests).
    pub(crate) inbound: QueueSender,
    /// Ends the served connection (on `DELETE`, a stalled stream, the idle timeout).
    closer: Box<dyn Fn() + Send + Sync>,
    routes: Mutex<Routes>,
    stall: Duration,
    /// How many bytes may wait for a stream to be opened before the connection is closed.
    max_unrouted: usize,
    /// The client's address.
    pub(crate) peer: IpAddr,
    /// The client sent a second request naming it (see [`super::http_room`]).
    used: AtomicBool,
    /// When its `initialize` was answered.
    initialized: OnceLock<Instant>,
    /// The connection slot it takes, until it ends or is evicted.
    slot: Mutex<Option<Slot>>,
    /// Room for the posts waiting for room in `inbound`.
    posting: Arc<Semaphore>,
    logger: Logger,
    /// Who the connection acts for: requests naming it must come from the same principal.
    principal: Principal,
}

/// Why an event stream could not be opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum StreamRefusal {
    /// One is open already for this scope: 409.
    Conflict,
    /// The connection has ended: 404.
    Ended,
}

impl HttpConnection {
    /// A connection of the client at `peer`, fed through `inbound`, ended by `closer`; a
    /// stream that takes nothing for `stall`, or more than `max_unrouted` bytes waiting for a
    /// stream, ends it.
    pub(crate) fn new(
        inbound: QueueSender,
        closer: impl Fn() + Send + Sync + 'static,
        stall: Duration,
        max_unrouted: usize,
        peer: IpAddr,
        logger: Logger,
    ) -> Self {
        Self {
            inbound,
            closer: Box::new(closer),
            routes: Mutex::new(Routes::default()),
            stall,
            max_unrouted,
            peer,
            used: AtomicBool::new(false),
            initialized: OnceLock::new(),
            slot: Mutex::new(None),
            posting: Arc::new(Semaphore::new(MAX_WAITING_POSTS)),
            logger,
            principal: Principal::local(),
        }
    }

    /// A place among the posts waiting for room in the inbound queue, unless all are taken.
    pub(crate) fn wait_to_post(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.posting).try_acquire_owned().ok()
    }

    /// Whom it counts for against the per-client limit.
    pub(crate) fn client(&self) -> Client {
        Client::of(&self.principal, self.peer)
    }

    /// Its `initialize` was answered: it is unused from now until the client uses it.
    pub(crate) fn mark_initialized(&self) {
        let _ = self.initialized.set(Instant::now());
    }

    /// Since when it is unused (see [`super::http_room`]): `None` once used, or while its
    /// `initialize` is being answered.
    pub(crate) fn unused_since(&self) -> Option<Instant> {
        if self.is_used() {
            return None;
        }
        self.initialized.get().copied()
    }

    /// It takes `slot` until it ends or is evicted.
    pub(crate) fn hold(&self, slot: Slot) {
        *lock(&self.slot) = Some(slot);
    }

    /// Gives up its connection slot (it ended, or is evicted).
    pub(crate) fn release(&self) -> Option<Slot> {
        lock(&self.slot).take()
    }

    /// The client sent a request naming it after `initialize`.
    pub(crate) fn mark_used(&self) {
        self.used.store(true, Ordering::Relaxed);
    }

    /// Whether the client did either since `initialize`.
    pub(crate) fn is_used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }

    /// The connection acts for `principal` (the local one unless set).
    pub(crate) fn acting_for(mut self, principal: Principal) -> Self {
        self.principal = principal;
        self
    }

    /// Whether a request of `principal` may use this connection.
    pub(crate) fn serves(&self, principal: &Principal) -> bool {
        self.principal == *principal
    }

    /// Ends the served connection; its output ends, and with it the event streams.
    pub(crate) fn close(&self) {
        (self.closer)();
    }

    /// Waits for the answer to the `initialize` request with `id`.
    pub(crate) fn expect_initialize(&self, id: String) -> oneshot::Receiver<Vec<u8>> {
        let (tx, rx) = oneshot::channel();
        lock(&self.routes).initialize = Some((id, tx));
        rx
    }

    /// Remembers that the answer to the request `id` belongs to `session`.
    pub(crate) fn request_for_session(&self, id: String, session: String) {
        lock(&self.routes).requests.insert(id, session);
    }

    /// Opens the connection's stream (`session` `None`) or a session's stream, handing it
    /// what waited for it.
    pub(crate) fn open_stream(
        &self,
        session: Option<String>,
    ) -> Result<QueueReceiver, StreamRefusal> {
        let (tx, rx) = queue(STREAM_CAPACITY, HOP_BYTES);
        self.mark_used();
        let mut routes = lock(&self.routes);
        if routes.ended {
            return Err(StreamRefusal::Ended);
        }
        let taken = match &session {
            None => routes.connection.as_ref(),
            Some(id) => routes.sessions.get(id),
        }
        .is_some_and(|stream| !stream.is_closed());
        if taken {
            return Err(StreamRefusal::Conflict);
        }
        match &session {
            None => routes.connection = Some(tx.clone()),
            Some(id) => {
                routes.sessions.insert(id.clone(), tx.clone());
            }
        }
        // Hand over what waited for this stream, as far as its channel takes it now; the
        // rest is handed over as the pump runs.
        let mut kept = VecDeque::new();
        let mut full = false;
        while let Some((for_session, message)) = routes.waiting.pop_front() {
            let mine = match (&session, &for_session) {
                (None, _) => true,
                (Some(id), Some(other)) => id == other,
                (Some(_), None) => false,
            };
            if mine && !full {
                if tx.try_send(framed(&message)).is_ok() {
                    routes.waiting_bytes -= message.len();
                } else {
                    // The rest waits, in order, for the stream to take it.
                    full = true;
                    kept.push_back((for_session, message));
                }
            } else {
                kept.push_back((for_session, message));
            }
        }
        routes.waiting = kept;
        Ok(rx)
    }

    /// Where `message` goes: the answer to the pending `initialize` or a queue of messages
    /// waiting for a stream (both done here), or a stream (with the message's session).
    fn route(&self, message: &[u8]) -> Route {
        let outgoing = outgoing_route(message);
        let mut routes = lock(&self.routes);
        if let Outgoing::Answer(Some(id)) = &outgoing
            && let Some((expected, _)) = &routes.initialize
            && id == expected
        {
            if let Some((_, answer)) = routes.initialize.take() {
                let _ = answer.send(message.to_vec());
            }
            return Route::Done;
        }
        let session = match outgoing {
            Outgoing::Answer(id) => id.and_then(|id| routes.requests.remove(&id)),
            Outgoing::Message(session) => session,
        };
        let target = routes.stream_for(session.as_deref());
        match target {
            Some(stream) => Route::Stream(stream, session),
            None => {
                routes.waiting_bytes += message.len();
                routes.waiting.push_back((session, message.to_vec()));
                if routes.waiting_bytes > self.max_unrouted {
                    Route::Overflow
                } else {
                    Route::Done
                }
            }
        }
    }

    /// Puts the messages of a chunk back to wait, in their order, ahead of what waits
    /// already (their stream closed under them).
    fn requeue(&self, session: Option<String>, chunk: &[u8]) {
        let mut reader = EventReader::default();
        reader.push(chunk);
        let messages: Vec<Vec<u8>> = std::iter::from_fn(|| reader.next_event()).collect();
        let mut routes = lock(&self.routes);
        for message in messages.into_iter().rev() {
            routes.waiting_bytes += message.len();
            routes.waiting.push_front((session.clone(), message));
        }
    }

    /// Hands waiting messages to streams that are open now.
    fn drain_waiting(&self) {
        let mut routes = lock(&self.routes);
        let mut kept = VecDeque::new();
        let mut full: Vec<QueueSender> = Vec::new();
        while let Some((session, message)) = routes.waiting.pop_front() {
            let target = routes.stream_for(session.as_deref());
            match target {
                Some(stream) if !full.iter().any(|other| other.same_queue(&stream)) => {
                    if stream.try_send(framed(&message)).is_ok() {
                        routes.waiting_bytes -= message.len();
                    } else {
                        // What follows for this stream waits, in order, for it to take this.
                        full.push(stream);
                        kept.push_back((session, message));
                    }
                }
                _ => kept.push_back((session, message)),
            }
        }
        routes.waiting = kept;
    }

    /// Ends every stream: the client sees its event streams end.
    fn end(&self) {
        let mut routes = lock(&self.routes);
        routes.ended = true;
        routes.connection = None;
        routes.sessions.clear();
        routes.waiting.clear();
        routes.waiting_bytes = 0;
        routes.initialize = None;
    }

    /// Ends the connection for a reason already logged.
    fn fail(&self) -> io::Error {
        self.close();
        self.end();
        io::Error::new(io::ErrorKind::BrokenPipe, "the HTTP connection was closed")
    }

    /// Hands `chunk` to its stream (waiting while the client reads slowly, up to the stall
    /// timeout); a stream that closed meanwhile gives its messages back to wait for another.
    /// `false` once the client read nothing for the stall timeout.
    async fn send_chunk(&self, pending: Pending) -> bool {
        let Pending {
            stream,
            session,
            chunk,
        } = pending;
        match tokio::time::timeout(self.stall, stream.send(chunk)).await {
            Ok(Ok(())) => true,
            Ok(Err(Closed(chunk))) => {
                self.requeue(session, &chunk);
                true
            }
            Err(_) => {
                self.logger.log(
                    Level::Warn,
                    format!(
                        "HTTP connection: the client read nothing for {} s; closing it",
                        self.stall.as_secs_f64()
                    ),
                );
                false
            }
        }
    }
}

/// One message framed as a chunk of its own.
fn framed(message: &[u8]) -> Vec<u8> {
    let mut chunk = Vec::with_capacity(message.len() + 8);
    frame(&mut chunk, message);
    chunk
}

/// Messages of the current burst framed for one stream, not handed to it yet.
struct Pending {
    stream: QueueSender,
    session: Option<String>,
    chunk: Vec<u8>,
}

/// What the agent writes on a Streamable HTTP connection, routed to the event streams in the
/// writing task itself (no queue and task of its own in between): each write frames its
/// message into its stream's chunk, and each flush hands every chunk to its stream. Closing
/// it ends the streams: the client sees them end.
pub(crate) struct StreamWriter {
    connection: Arc<HttpConnection>,
    /// One entry per stream written to since the last flush (rarely more than one).
    pending: Vec<Pending>,
}

impl StreamWriter {
    /// The writer of `connection`.
    pub(crate) fn new(connection: Arc<HttpConnection>) -> Self {
        Self {
            connection,
            pending: Vec::new(),
        }
    }

    /// Hands every pending chunk to its stream, then what waited for a stream.
    async fn send_pending(&mut self) -> io::Result<()> {
        for pending in std::mem::take(&mut self.pending) {
            if !self.connection.send_chunk(pending).await {
                return Err(self.connection.fail());
            }
        }
        self.connection.drain_waiting();
        Ok(())
    }
}

impl MessageWriter for StreamWriter {
    async fn write(&mut self, message: &[u8]) -> io::Result<()> {
        let (stream, session) = match self.connection.route(message) {
            Route::Done => return Ok(()),
            Route::Overflow => {
                self.connection.logger.log(
                    Level::Warn,
                    "HTTP connection: the client opened no event stream and too much output waits; closing it",
                );
                return Err(self.connection.fail());
            }
            Route::Stream(stream, session) => (stream, session),
        };
        let index = match self
            .pending
            .iter()
            .position(|pending| pending.stream.same_queue(&stream))
        {
            Some(index) => index,
            None => {
                self.pending.push(Pending {
                    stream,
                    session,
                    chunk: Vec::with_capacity(message.len() + 8),
                });
                self.pending.len() - 1
            }
        };
        frame(&mut self.pending[index].chunk, message);
        if self.pending[index].chunk.len() >= CHUNK_BYTES {
            // A long burst goes out in chunks as it is written: what is framed and not
            // handed over stays under one chunk per stream.
            self.send_pending().await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.send_pending().await
    }

    async fn close(&mut self) -> io::Result<()> {
        // The connection flushes before it closes: what is still pending here is what a
        // failed write left behind.
        self.pending.clear();
        self.connection.end();
        Ok(())
    }
}

enum Route {
    /// Answered `initialize`, or waits for a stream.
    Done,
    /// Too much waits for a stream the client never opened.
    Overflow,
    Stream(QueueSender, Option<String>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connection() -> Arc<HttpConnection> {
        let (inbound, _) = queue(4, 1024);
        Arc::new(HttpConnection::new(
            inbound,
            || {},
            Duration::from_secs(5),
            4 << 20,
            IpAddr::from([127, 0, 0, 1]),
            Logger::none(),
        ))
    }

    fn update(session: &str, n: usize) -> Vec<u8> {
        format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{{"n":{n}}}}}}}"#
        )
        .into_bytes()
    }

    /// The messages in the chunks queued now.
    fn messages(receiver: &mut QueueReceiver) -> (usize, Vec<Vec<u8>>) {
        let mut chunks = 0;
        let mut reader = EventReader::default();
        while let Some(chunk) = receiver.try_recv() {
            chunks += 1;
            reader.push(&chunk);
        }
        (chunks, std::iter::from_fn(|| reader.next_event()).collect())
    }

    #[tokio::test]
    async fn a_burst_reaches_its_stream_as_one_chunk_at_the_flush() {
        let connection = connection();
        let mut stream = connection.open_stream(Some("s1".into())).expect("opened");
        let mut writer = StreamWriter::new(Arc::clone(&connection));
        for n in 0..3 {
            writer.write(&update("s1", n)).await.expect("written");
        }
        assert_eq!(
            messages(&mut stream),
            (0, vec![]),
            "nothing before the flush"
        );
        writer.flush().await.expect("flushed");
        let expected: Vec<_> = (0..3).map(|n| update("s1", n)).collect();
        assert_eq!(messages(&mut stream), (1, expected));
    }

    #[tokio::test]
    async fn a_long_burst_goes_out_in_chunks_as_it_is_written() {
        let connection = connection();
        let mut stream = connection.open_stream(None).expect("opened");
        let mut writer = StreamWriter::new(Arc::clone(&connection));
        let big = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":"{}"}}"#,
            "a".repeat(10_000)
        );
        let mut written = 0;
        while messages(&mut stream).0 == 0 {
            writer.write(big.as_bytes()).await.expect("written");
            written += 1;
            assert!(
                written <= CHUNK_BYTES / 10_000 + 1,
                "no chunk after {written}"
            );
        }
        assert_eq!(written, CHUNK_BYTES / 10_000 + 1);
    }

    #[tokio::test]
    async fn a_chunk_whose_stream_closed_waits_in_order_for_the_next_stream() {
        let connection = connection();
        let stream = connection.open_stream(Some("s1".into())).expect("opened");
        let mut writer = StreamWriter::new(Arc::clone(&connection));
        writer.write(&update("s1", 0)).await.expect("written");
        writer.write(&update("s1", 1)).await.expect("written");
        drop(stream);
        writer.flush().await.expect("flushed: the messages wait");
        writer.write(&update("s1", 2)).await.expect("written");
        writer.flush().await.expect("flushed");
        let mut fallback = connection.open_stream(None).expect("opened");
        let expected: Vec<_> = (0..3).map(|n| update("s1", n)).collect();
        assert_eq!(messages(&mut fallback).1, expected);
    }

    #[tokio::test]
    async fn streams_get_their_own_messages_from_one_burst() {
        let connection = connection();
        let mut own = connection.open_stream(Some("s1".into())).expect("opened");
        let mut other = connection.open_stream(None).expect("opened");
        let mut writer = StreamWriter::new(Arc::clone(&connection));
        for n in 0..4 {
            let session = if n % 2 == 0 { "s1" } else { "s2" };
            writer.write(&update(session, n)).await.expect("written");
        }
        writer.flush().await.expect("flushed");
        assert_eq!(
            messages(&mut own),
            (1, vec![update("s1", 0), update("s1", 2)])
        );
        assert_eq!(
            messages(&mut other),
            (1, vec![update("s2", 1), update("s2", 3)])
        );
    }

    #[tokio::test]
    async fn what_waits_for_a_stream_reaches_it_in_order_when_it_fills() {
        let connection = connection();
        let mut writer = StreamWriter::new(Arc::clone(&connection));
        // Two of these do not fit in a stream's queue (1 MiB) together.
        let big = |n: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"x","params":{{"n":{n},"pad":"{}"}}}}"#,
                "a".repeat(600_000)
            )
            .into_bytes()
        };
        for message in [big(0), big(1), update("s1", 2)] {
            writer.write(&message).await.expect("written: it waits");
        }
        writer.flush().await.expect("flushed");
        let mut stream = connection.open_stream(None).expect("opened");
        assert_eq!(
            messages(&mut stream).1,
            vec![big(0)],
            "the small one waits its turn"
        );
        writer.flush().await.expect("flushed: what waits moves on");
        assert_eq!(messages(&mut stream).1, vec![big(1), update("s1", 2)]);
    }
}
