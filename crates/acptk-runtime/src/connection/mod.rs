//! A JSON-RPC 2.0 connection over any message transport (newline-delimited JSON over a byte
//! stream by default): the layer below the agent and client sides, usable on its own with a raw
//! [`Handler`].
//!
//! * Requests go both ways at once; each outgoing request gets a fresh integer id and its
//!   answer is matched by id.
//! * Incoming requests run concurrently, at most [`ConnectionBuilder::max_in_flight`] at a
//!   time and holding at most [`ConnectionBuilder::max_in_flight_bytes`] of params together;
//!   a request beyond either limit is answered at once with `-32603` ("too many requests in
//!   flight"). The connection never stops reading for it: the handlers in flight may be waiting
//!   for answers from the peer.
//!   Incoming notifications are handled one after the other, in arrival order, and before any
//!   later message is looked at: when an answer to a request of ours arrives, every
//!   notification the peer sent before it has been handled.
//! * Incoming batches (a JSON array of messages, section 6 of the JSON-RPC 2.0 specification)
//!   are taken apart: every item is handled as if it had come alone, and the answers to its
//!   requests, with an error for each item that is not a valid message, go back as one array
//!   once all of them are answered. Notifications in a batch get no answer (a batch of only
//!   notifications gets nothing); an empty array gets one `-32600` with id `null`. A batch never
//!   stops the connection. Outgoing messages are never batched.
//! * `$/cancel_request` cancels the named in-flight request: its handler is dropped and the
//!   request is answered with `-32800` ("request cancelled").
//! * A message that is too long, not JSON or not a JSON-RPC message is logged, answered when an
//!   answer is due (`-32700` with id `null` for unparsable text, `-32600` for an object that is
//!   not a valid message, with its id when readable) and skipped. Of a message over the limit
//!   only the first bytes are kept: when they show a response, the request it answers fails
//!   at once with [`Error::ResponseTooLong`]; a request is refused with its own id.
//!   With [`ConnectionBuilder::skip_unparsable`] (the client side of a connection to an
//!   agent), a line that is not JSON at all is skipped without an answer: agents write login
//!   prompts and progress to their standard output, and an error answer there is read as
//!   input by some of them.
//! * Outgoing messages go through a queue bounded in messages and in bytes
//!   ([`ConnectionBuilder::max_queued_bytes`]): when the peer reads slowly, senders wait, and
//!   while the queue is full the connection reads nothing more from the peer (backpressure: a
//!   peer that does not read its answers cannot make us hold more). With
//!   [`ConnectionBuilder::stall_timeout`], a peer that takes nothing for that long is
//!   disconnected (logged).
//! * At the end of the input, pending outgoing requests fail with
//!   [`Error::ConnectionClosed`] (no answer can come), the requests the peer sent before are
//!   given [`ConnectionBuilder::drain_timeout`] to finish and send their answers (a peer that
//!   writes its requests and closes its end still gets them), and then the connection closes:
//!   handlers still running are dropped and queued output is flushed.

mod batch;
mod head;
mod incoming;
mod outgoing;
mod skipped;

pub(crate) use outgoing::{decode_result_with, to_raw};

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use acptk_schema::jsonrpc::{ErrorObject, Id, RawValue};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{oneshot, watch};

use crate::error::Error;
use crate::log::Logger;
use crate::transport::queue::{QueueSender, queue};
use crate::transport::{LineReader, LineWriter, MessageReader, MessageWriter};

/// A boxed, sendable future, as handlers return them.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The default limit on the length of one incoming line: 16 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// The default capacity of the outgoing message queue, in messages.
pub const DEFAULT_OUTGOING_QUEUE: usize = 256;
/// The default capacity of the outgoing message queue, in bytes: 16 MiB.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 16 * 1024 * 1024;
/// The default number of incoming requests handled at the same time.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// The default size of the incoming requests handled at the same time, together: 16 MiB.
pub const DEFAULT_MAX_IN_FLIGHT_BYTES: usize = 16 * 1024 * 1024;

/// How long requests may take to finish after the peer's input ended, by default.
pub const DEFAULT_DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What a request handler answers.
#[non_exhaustive]
pub struct Reply {
    /// The `result` (raw JSON), or the error to answer with.
    pub result: Result<Box<RawValue>, ErrorObject>,
    /// Work to start after the response has been queued (for example the rest of a v2 prompt
    /// turn, or notices that must follow the answer). Not run when the request was cancelled.
    /// It counts as part of the request: it keeps the request's in-flight slot, and the end of
    /// the peer's input waits for it (up to the drain timeout). Spawn work that runs on.
    pub then: Option<BoxFuture<()>>,
}

impl Reply {
    /// A reply with a result or an error and nothing to run afterwards.
    pub fn new(result: Result<Box<RawValue>, ErrorObject>) -> Self {
        Self { result, then: None }
    }

    /// A successful reply, encoding `value` as the result.
    pub fn ok<T: serde::Serialize>(value: &T) -> Self {
        Self::new(
            serde_json::value::to_raw_value(value).map_err(|error| {
                crate::rpc::internal(format!("cannot encode the result: {error}"))
            }),
        )
    }

    /// A successful reply to a request for method `M`, encoding `value` with the method
    /// table's encoder (compiled once in `acptk_schema`, where [`Self::ok`] compiles the
    /// encoder of `T` again in the crate that calls it).
    pub fn result<M: acptk_schema::method::RequestMethod>(value: &M::Result) -> Self {
        Self::new(
            M::encode_result(value).map_err(|error| {
                crate::rpc::internal(format!("cannot encode the result: {error}"))
            }),
        )
    }

    /// A failed reply.
    pub fn error(error: ErrorObject) -> Self {
        Self::new(Err(error))
    }

    /// Adds work to start once the response is queued (see [`Reply::then`](Self#structfield.then)).
    #[must_use]
    pub fn then(mut self, work: impl Future<Output = ()> + Send + 'static) -> Self {
        self.then = Some(Box::pin(work));
        self
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("result", &self.result)
            .field("then", &self.then.is_some())
            .finish()
    }
}

/// The receiving side of a connection: what to do with incoming requests and notifications.
///
/// `$/cancel_request` and responses are handled by the connection itself and never reach the
/// handler. Futures are `'static`: clone what they need (an `Arc`) out of `self`.
pub trait Handler: Send + Sync + 'static {
    /// Handles a request; the connection sends the answer (unless the request is cancelled
    /// first).
    fn request(
        &self,
        connection: Connection,
        id: Id,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<Reply>;

    /// Handles a notification. The connection waits for the returned future before it reads
    /// the next message, so keep it short.
    fn notification(
        &self,
        connection: Connection,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<()>;
}

/// Options of a connection.
#[derive(Debug, Clone)]
#[must_use]
pub struct ConnectionBuilder {
    max_line_bytes: usize,
    outgoing_queue: usize,
    max_queued_bytes: usize,
    stall_timeout: Option<std::time::Duration>,
    max_in_flight: usize,
    max_in_flight_bytes: usize,
    drain_timeout: std::time::Duration,
    logger: Logger,
    skip_unparsable: bool,
}

impl Default for ConnectionBuilder {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            outgoing_queue: DEFAULT_OUTGOING_QUEUE,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            stall_timeout: None,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_in_flight_bytes: DEFAULT_MAX_IN_FLIGHT_BYTES,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            logger: Logger::none(),
            skip_unparsable: false,
        }
    }
}

impl ConnectionBuilder {
    /// The default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// The longest incoming message accepted, in bytes (default 16 MiB): a line on byte
    /// streams, a frame or a request body on other transports. Longer lines are discarded
    /// while they are read, never held in memory.
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes.max(1);
        self
    }

    /// The capacity of the outgoing queue, in messages (default 256).
    pub fn outgoing_queue(mut self, messages: usize) -> Self {
        self.outgoing_queue = messages.max(1);
        self
    }

    /// The capacity of the outgoing queue, in bytes (default [`DEFAULT_MAX_QUEUED_BYTES`],
    /// 16 MiB). Senders wait while the queue is full, and the connection stops reading the
    /// peer's messages until there is room again. A message larger than this waits until the
    /// queue is empty and then goes alone, so what waits for the peer stays under this bound
    /// or one message, whichever is larger.
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.max_queued_bytes = bytes.max(1);
        self
    }

    /// How long one write to the peer may take (default: no limit). A peer that takes
    /// nothing for that long is disconnected: the connection logs why and closes, dropping
    /// what is still queued for it. `Duration::ZERO` means no limit.
    pub fn stall_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.stall_timeout = (!timeout.is_zero()).then_some(timeout);
        self
    }

    /// How many incoming requests may be handled at the same time (default 64); requests
    /// beyond it are refused with `-32603`.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// How many bytes the incoming requests being handled may hold together, counting each
    /// by the size of its method and params (default [`DEFAULT_MAX_IN_FLIGHT_BYTES`], 16
    /// MiB); a request beyond it is refused with `-32603` until some are answered (one larger
    /// than the whole limit only while none is in flight). What a peer can make the
    /// connection hold for it stays bounded in bytes both ways.
    pub fn max_in_flight_bytes(mut self, bytes: usize) -> Self {
        self.max_in_flight_bytes = bytes.max(1);
        self
    }

    /// How long the requests already received may take to finish once the peer's input has
    /// ended (default [`DEFAULT_DRAIN_TIMEOUT`]); their handlers are dropped after that.
    pub fn drain_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// Where to log skipped lines and other peer mistakes (default: nowhere).
    pub fn logger(mut self, logger: Logger) -> Self {
        self.logger = logger;
        self
    }

    /// Whether a line that is not JSON at all is skipped without an answer (default: no, it
    /// is answered `-32700` as JSON-RPC asks). Skipped lines are counted
    /// ([`Connection::bad_lines`]) and logged at [`Level::Warn`](crate::log::Level::Warn) as
    /// `skipped a line that is not JSON: TEXT` (the first 2,000 characters: enough for a
    /// login URL the agent prints). Clients turn it on for their connection to an agent
    /// ([`ClientBuilder`](crate::client::ClientBuilder) does): an agent's stray output is
    /// not a request to answer.
    pub fn skip_unparsable(mut self, skip: bool) -> Self {
        self.skip_unparsable = skip;
        self
    }

    /// The logger set on this builder.
    pub fn get_logger(&self) -> &Logger {
        &self.logger
    }

    /// Starts the connection on a byte stream, `reader`/`writer`, carrying newline-delimited
    /// JSON, with `handler` for incoming messages.
    ///
    /// Spawns the reading and writing tasks on the current tokio runtime and returns at once.
    /// Use [`Connection::closed`] to wait for the end of the connection.
    pub fn start<R, W, H>(self, reader: R, writer: W, handler: H) -> Connection
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
        H: Handler,
    {
        let reader = LineReader::new(reader, self.max_line_bytes);
        self.start_transport(reader, LineWriter::new(writer), handler)
    }

    /// Starts the connection on any message transport (see [`crate::transport::message`]).
    ///
    /// Messages longer than [`Self::max_line_bytes`] are treated as too long whatever the
    /// transport let through. Spawns the reading and writing tasks on the current tokio
    /// runtime and returns at once.
    pub fn start_transport<R, W, H>(self, reader: R, writer: W, handler: H) -> Connection
    where
        R: MessageReader,
        W: MessageWriter,
        H: Handler,
    {
        let (tx, rx) = queue(self.outgoing_queue, self.max_queued_bytes);
        let (state, _) = watch::channel(State::Open);
        let shared = Arc::new(Shared {
            outgoing: tx,
            pending: Mutex::new(Pending {
                open: true,
                requests: HashMap::new(),
            }),
            in_flight: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            next_token: AtomicU64::new(0),
            state,
            logger: self.logger.clone(),
            stats: Counters::default(),
        });
        let connection = Connection { shared };
        let writer_task = tokio::spawn(outgoing::write_loop(
            writer,
            rx,
            connection.clone(),
            self.stall_timeout,
        ));
        tokio::spawn(incoming::read_loop(
            reader,
            self,
            Arc::new(handler),
            connection.clone(),
            writer_task,
        ));
        connection
    }
}

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    /// The peer's input ended: the requests it sent are finishing and their answers are
    /// still written.
    Draining,
    /// Writing what is queued, then shutting the writer down.
    Closing,
    Closed,
}

impl State {
    /// The writer stops (after the queue) and nothing new is queued.
    fn closing(self) -> bool {
        matches!(self, State::Closing | State::Closed)
    }
}

type Hook = Box<dyn FnOnce() + Send>;

struct PendingRequest {
    method: String,
    answer: oneshot::Sender<Result<Box<RawValue>, Error>>,
    /// Runs in the reading task as soon as the answer arrives (or the connection closes),
    /// before any later message is handled.
    on_answer: Option<Hook>,
}

struct Pending {
    open: bool,
    requests: HashMap<Id, PendingRequest>,
}

/// Counters of what the connection skipped, for tests and diagnostics.
#[derive(Debug, Default)]
struct Counters {
    bad_lines: AtomicU64,
}

struct Shared {
    outgoing: QueueSender,
    pending: Mutex<Pending>,
    /// Incoming requests in flight: a token telling this request from a later one with the
    /// same id, and the sender that cancels it.
    in_flight: Mutex<HashMap<Id, (u64, oneshot::Sender<()>)>>,
    next_token: AtomicU64,
    next_id: AtomicI64,
    state: watch::Sender<State>,
    logger: Logger,
    stats: Counters,
}

/// A handle to a running connection: sends requests and notifications to the peer. Cheap to
/// clone; every clone talks over the same connection.
#[derive(Clone)]
pub struct Connection {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Connection {
    /// Whether the connection has stopped reading (the peer hung up or the transport failed).
    /// Answers to requests that arrived before may still be on their way out.
    pub fn is_closed(&self) -> bool {
        *self.shared.state.borrow() != State::Open
    }

    /// Waits until the connection has ended: input closed, pending requests failed and
    /// queued output written.
    pub async fn closed(&self) {
        let mut state = self.shared.state.subscribe();
        // `wait_for` only fails when the sender is gone, which cannot happen while `self` holds it.
        let _ = state.wait_for(|state| *state == State::Closed).await;
    }

    /// Hangs up: stops reading, fails pending outgoing requests with
    /// [`Error::ConnectionClosed`], writes what is already queued and shuts the writer down
    /// (the peer sees end of input). Idempotent; [`Connection::closed`] resolves afterwards.
    pub fn close(&self) {
        self.begin_close();
    }

    /// How many incoming lines were skipped as too long, not JSON or not a valid message.
    pub fn bad_lines(&self) -> u64 {
        self.shared.stats.bad_lines.load(Ordering::Relaxed)
    }

    /// The logger of this connection.
    pub fn logger(&self) -> &Logger {
        &self.shared.logger
    }
}

#[cfg(feature = "remote")]
impl crate::transport::remote::ServiceHandle for Connection {
    fn close(&self) {
        Connection::close(self);
    }

    fn closed(&self) -> impl Future<Output = ()> + Send {
        Connection::closed(self)
    }
}
