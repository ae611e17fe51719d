//! One Streamable HTTP connection: the channels into and out of the ACP connection, and the
//! routing of what the agent sends to the event streams the client has open.
//!
//! Routing: a message for a session (a request or notification whose `params.sessionId`
//! names it, or the answer to a request posted for it) goes to that session's stream when
//! one is open, else to the connection's stream; with no stream open it waits in a bounded
//! queue (the client opens its stream right after `initialize`). Sending into a stream waits
//! while the client reads slowly, up to the stall timeout; then the connection is closed.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use super::limits::HOP_BYTES;
use super::peek::{Outgoing, outgoing_route};
use crate::agent::Principal;
use crate::connection::lock;
use crate::log::{Level, Logger};
use crate::transport::MessageWriter;
use crate::transport::queue::{Closed, QueueReceiver, QueueSender, TrySendError, queue};

/// How many posts of one connection may wait for room in its inbound queue at once.
const MAX_WAITING_POSTS: usize = 8;

/// How many messages may wait in one event stream's channel (and at most
/// [`HOP_BYTES`](super::limits::HOP_BYTES) bytes, or one message).
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
    /// The client opened an event stream or posted a second message.
    used: AtomicBool,
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
            posting: Arc::new(Semaphore::new(MAX_WAITING_POSTS)),
            logger,
            principal: Principal::local(),
        }
    }

    /// A place among the posts waiting for room in the inbound queue, unless all are taken.
    pub(crate) fn wait_to_post(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.posting).try_acquire_owned().ok()
    }

    /// The client posted a message after `initialize`, or opened a stream.
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
        while let Some((for_session, message)) = routes.waiting.pop_front() {
            let mine = match (&session, &for_session) {
                (None, _) => true,
                (Some(id), Some(other)) => id == other,
                (Some(_), None) => false,
            };
            if mine {
                let len = message.len();
                match tx.try_send(message) {
                    Ok(()) => routes.waiting_bytes -= len,
                    Err(TrySendError::Full(message) | TrySendError::Closed(message)) => {
                        kept.push_back((for_session, message));
                    }
                }
            } else {
                kept.push_back((for_session, message));
            }
        }
        routes.waiting = kept;
        Ok(rx)
    }

    /// Where `message` goes: the answer to the pending `initialize`, or a stream (with its
    /// session, for re-queueing).
    fn route(&self, message: Vec<u8>) -> Route {
        let outgoing = outgoing_route(&message);
        let mut routes = lock(&self.routes);
        if let Outgoing::Answer(Some(id)) = &outgoing
            && let Some((expected, _)) = &routes.initialize
            && id == expected
        {
            if let Some((_, answer)) = routes.initialize.take() {
                let _ = answer.send(message);
            }
            return Route::Done;
        }
        let session = match outgoing {
            Outgoing::Answer(id) => id.and_then(|id| routes.requests.remove(&id)),
            Outgoing::Message(session) => session,
        };
        let target = session
            .as_ref()
            .and_then(|id| routes.sessions.get(id))
            .filter(|s| !s.is_closed())
            .or(routes.connection.as_ref().filter(|s| !s.is_closed()))
            .cloned();
        match target {
            Some(stream) => Route::Stream(stream, session, message),
            None => {
                routes.waiting_bytes += message.len();
                routes.waiting.push_back((session, message));
                if routes.waiting_bytes > self.max_unrouted {
                    Route::Overflow
                } else {
                    Route::Done
                }
            }
        }
    }

    /// Puts a message back to wait (its stream closed under it).
    fn requeue(&self, session: Option<String>, message: Vec<u8>) {
        let mut routes = lock(&self.routes);
        routes.waiting_bytes += message.len();
        routes.waiting.push_front((session, message));
    }

    /// Hands waiting messages to streams that are open now.
    fn drain_waiting(&self) {
        let mut routes = lock(&self.routes);
        let mut kept = VecDeque::new();
        while let Some((session, message)) = routes.waiting.pop_front() {
            let target = session
                .as_ref()
                .and_then(|id| routes.sessions.get(id))
                .filter(|s| !s.is_closed())
                .or(routes.connection.as_ref().filter(|s| !s.is_closed()))
                .cloned();
            let len = message.len();
            match target {
                Some(stream) => match stream.try_send(message) {
                    Ok(()) => routes.waiting_bytes -= len,
                    Err(TrySendError::Full(message) | TrySendError::Closed(message)) => {
                        kept.push_back((session, message));
                    }
                },
                None => kept.push_back((session, message)),
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

    /// Hands one message the agent wrote to its stream (waiting while the client reads
    /// slowly, up to the stall timeout) or queues it for a stream not open yet. `false` once
    /// the connection is closed for it: the client read nothing for the stall timeout, or
    /// too much waits for a stream the client never opened.
    async fn deliver(&self, message: Vec<u8>) -> bool {
        let delivered = match self.route(message) {
            Route::Done => true,
            Route::Overflow => {
                self.logger.log(
                    Level::Warn,
                    "HTTP connection: the client opened no event stream and too much output waits; closing it",
                );
                false
            }
            Route::Stream(stream, session, message) => {
                match tokio::time::timeout(self.stall, stream.send(message)).await {
                    Ok(Ok(())) => true,
                    Ok(Err(Closed(message))) => {
                        self.requeue(session, message);
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
        };
        if !delivered {
            self.close();
            self.end();
            return false;
        }
        self.drain_waiting();
        true
    }
}

/// What the agent writes on a Streamable HTTP connection, routed to the event streams in the
/// writing task itself (no queue and task of its own in between). Closing it ends the
/// streams: the client sees them end.
pub(crate) struct StreamWriter(pub(crate) Arc<HttpConnection>);

impl MessageWriter for StreamWriter {
    async fn write(&mut self, message: &[u8]) -> io::Result<()> {
        if self.0.deliver(message.to_vec()).await {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the HTTP connection was closed",
            ))
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    async fn close(&mut self) -> io::Result<()> {
        self.0.end();
        Ok(())
    }
}

enum Route {
    Done,
    Overflow,
    Stream(QueueSender, Option<String>, Vec<u8>),
}
