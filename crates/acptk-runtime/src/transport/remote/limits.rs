//! The limits of one remote connection that need to look at its messages: sessions per
//! connection and across the listener, and idle time. [`guard`] puts itself between the
//! transport and the [`Service`](super::Service):
//!
//! * What the client sends is read through [`GuardedReader`], which reads every message with
//!   the same JSON-RPC parser as the connection behind it, so a method name is matched as
//!   the connection will read it (`"session\/new"` is `session/new`). A request that would
//!   open a session (`session/new`, and `session/load`, `session/resume` or `session/fork` of
//!   a session this connection has not opened) while [`ServerOptions::max_sessions`] sessions
//!   are open or being opened on the connection, or while the listener has
//!   [`ServerOptions::max_total_sessions`] open (see [`super::sessions`]), is not passed on:
//!   it is answered with a JSON-RPC error that names the limit, and logged. So is a request
//!   whose id is already used by a request of the client that was not answered yet (the
//!   answers could not be told apart). A batch loses only its refused requests.
//! * What the service writes goes through a queue bounded in bytes to [`OutputPump`], which
//!   writes it to the transport (and the refusals between), and reads the service's answers
//!   to the client's requests: a result to a request that opens a session counts the
//!   session, a result to `session/close` or `session/delete` gives it back. Nothing else
//!   frees a session (see [`super::sessions`] for what "open" means).
//! * Every message either way marks the connection active; [`idle`] resolves once none went
//!   either way for the idle timeout.

use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acptk_schema::jsonrpc::{ErrorObject, Id, Message, RawValue, Response};

use super::options::ServerOptions;
use super::peek::session_in;
use super::sessions::{Admission, SessionTable};
use crate::lock::lock;
use crate::log::{Level, Logger};
use crate::transport::queue::{QueueReceiver, QueueSender, queue};
use crate::transport::{ChannelWriter, Frame, MessageReader, MessageWriter};

/// The JSON-RPC error code of a refused session: a server error of the implementation range.
pub const SESSION_LIMIT_CODE: i64 = -32000;

/// How many messages may wait between the service and the transport.
const OUTPUT_CAPACITY: usize = 64;
/// How many bytes may wait on each hop inside a remote connection (between the service and
/// the transport, between the connection and an HTTP event stream): a message larger than
/// this waits until the hop is empty and goes alone.
pub(crate) const HOP_BYTES: usize = 1024 * 1024;
/// The most requests of one client that may wait for their answers at once; more are
/// refused.
const MAX_IN_FLIGHT: usize = 4096;

/// The methods that open a session.
const OPENING: [&str; 4] = [
    "session/new",
    "session/load",
    "session/resume",
    "session/fork",
];
/// The methods whose result closes the session they name.
const CLOSING: [&str; 2] = ["session/close", "session/delete"];

/// How the service starts a notification (the JSON-RPC encoder of the runtime writes the
/// keys in this order): a message that starts so is no answer, and is not read further.
const NOTIFICATION_START: &[u8] = br#"{"jsonrpc":"2.0","method":""#;

/// What the answer to a request of the client means for the session count.
#[derive(Debug)]
enum Waiting {
    /// It may open a session: the one it names (load, resume), or the one its result names
    /// (new, fork). `reserved`: it holds a reservation in the listener's table.
    Opening {
        named: Option<String>,
        reserved: bool,
    },
    /// A result closes the session it names.
    Closing(String),
    /// Nothing.
    Other,
}

#[derive(Default)]
struct Sessions {
    /// The sessions opened on this connection.
    open: HashSet<String>,
    /// The client's requests not answered yet, by id.
    in_flight: HashMap<Id, Waiting>,
    /// How many of them may open a session.
    opening: usize,
}

/// What the reading and the writing half share.
struct Shared {
    max_sessions: usize,
    table: Arc<SessionTable>,
    sessions: Mutex<Sessions>,
    last: Mutex<Instant>,
    logger: Logger,
}

/// Why a request was refused.
enum Refusal {
    /// The connection's session limit.
    Connection,
    /// The listener's session limit.
    Listener,
    /// Its id is in use by a request not answered yet.
    IdInUse,
    /// Too many requests wait for their answers.
    InFlight,
}

impl Shared {
    fn touch(&self) {
        *lock(&self.last) = Instant::now();
    }

    /// Whether `message` (read as the connection reads it) may pass; records the requests
    /// that do.
    fn admit(&self, message: &Message) -> Result<(), Refusal> {
        let Message::Request(request) = message else {
            return Ok(());
        };
        let method = request.method.as_str();
        let mut sessions = lock(&self.sessions);
        if sessions.in_flight.contains_key(&request.id) {
            return Err(Refusal::IdInUse);
        }
        if sessions.in_flight.len() >= MAX_IN_FLIGHT {
            return Err(Refusal::InFlight);
        }
        let named = || session_in(request.params.as_deref());
        let waiting = if CLOSING.contains(&method) {
            named().map_or(Waiting::Other, Waiting::Closing)
        } else if OPENING.contains(&method) {
            let fork = method == "session/fork";
            let named = if fork { None } else { named() };
            // Loading or resuming a session this connection has open already opens nothing.
            if named.as_ref().is_some_and(|id| sessions.open.contains(id)) {
                Waiting::Other
            } else {
                if sessions.open.len() + sessions.opening >= self.max_sessions {
                    return Err(Refusal::Connection);
                }
                let reserved = match self.table.admit(named.as_deref()) {
                    Admission::Full => return Err(Refusal::Listener),
                    Admission::Reserved => true,
                    Admission::Counted => false,
                };
                sessions.opening += 1;
                Waiting::Opening { named, reserved }
            }
        } else {
            Waiting::Other
        };
        sessions.in_flight.insert(request.id.clone(), waiting);
        Ok(())
    }

    /// Reads what the service wrote for the answers to the client's requests.
    fn observe(&self, message: &[u8]) {
        if message.starts_with(NOTIFICATION_START) || lock(&self.sessions).in_flight.is_empty() {
            return;
        }
        let first = message.iter().find(|b| !b.is_ascii_whitespace());
        let messages: Vec<Message> = if first == Some(&b'[') {
            serde_json::from_slice::<Vec<Box<RawValue>>>(message)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|item| item.get().parse().ok())
                        .collect()
                })
                .unwrap_or_default()
        } else {
            serde_json::from_slice(message).into_iter().collect()
        };
        for message in messages {
            if let Message::Response(response) = message {
                self.answered(&response);
            }
        }
    }

    /// The service answered a request of the client.
    fn answered(&self, response: &Response) {
        let mut sessions = lock(&self.sessions);
        let Some(waiting) = sessions.in_flight.remove(&response.id) else {
            return;
        };
        let result = response.result.as_ref().ok();
        match waiting {
            Waiting::Opening { named, reserved } => {
                sessions.opening = sessions.opening.saturating_sub(1);
                let opened = result.and_then(|result| named.or_else(|| session_in(Some(result))));
                match opened {
                    Some(id) if !sessions.open.contains(&id) => {
                        self.table.open(&id, reserved);
                        sessions.open.insert(id);
                    }
                    _ if reserved => self.table.unreserve(),
                    _ => {}
                }
            }
            Waiting::Closing(id) if result.is_some() => {
                if sessions.open.remove(&id) {
                    self.table.close(&id);
                } else {
                    self.table.forget(&id);
                }
            }
            Waiting::Closing(_) | Waiting::Other => {}
        }
    }

    /// The answer refusing `request`.
    fn refusal(&self, id: &Id, method: &str, why: &Refusal) -> Vec<u8> {
        let error = match why {
            Refusal::Connection => {
                let max = self.max_sessions;
                self.logger.log(
                    Level::Warn,
                    format!(
                        "refused `{method}`: this connection has {max} sessions open, the limit"
                    ),
                );
                ErrorObject::new(
                    SESSION_LIMIT_CODE as i32,
                    format!(
                        "this connection has {max} sessions open, the most this server allows per connection; close one or open another connection"
                    ),
                )
                .data(serde_json::json!({"limit": "sessions per connection", "max": max}))
            }
            Refusal::Listener => {
                let max = self.table.max();
                self.logger.log(
                    Level::Warn,
                    format!("refused `{method}`: the server has {max} sessions open, the limit"),
                );
                ErrorObject::new(
                    SESSION_LIMIT_CODE as i32,
                    format!(
                        "this server has {max} sessions open, the most it allows across all connections; close one, or try again later"
                    ),
                )
                .data(serde_json::json!({"limit": "sessions per server", "max": max}))
            }
            Refusal::IdInUse => crate::rpc::invalid_request(format!(
                "request id {id} is already in use by a request that was not answered yet"
            )),
            Refusal::InFlight => crate::rpc::internal(format!(
                "{MAX_IN_FLIGHT} requests of this connection wait for their answers already; send it again once some are answered"
            )),
        };
        serde_json::to_vec(&Response::<Box<RawValue>>::error(id.clone(), error)).unwrap_or_default()
    }
}

impl Drop for Shared {
    /// The connection ended: its sessions linger in the listener's count, its reservations
    /// are given back.
    fn drop(&mut self) {
        let sessions = lock(&self.sessions);
        for id in &sessions.open {
            self.table.leave(id);
        }
        for waiting in sessions.in_flight.values() {
            if let Waiting::Opening { reserved: true, .. } = waiting {
                self.table.unreserve();
            }
        }
    }
}

/// The client's messages, with refused session requests taken out.
pub(crate) struct GuardedReader<R> {
    inner: R,
    filter: Filter,
}

/// What passes on of the client's messages, and where refusals go.
struct Filter {
    shared: Arc<Shared>,
    refusals: QueueSender,
}

impl Filter {
    /// `message` as it may pass on (`None`: nothing of it passes), the refusals sent.
    /// Text the connection cannot read as a message passes as it is: the connection answers
    /// it with the error it deserves.
    async fn filter(&self, message: Vec<u8>) -> Option<Vec<u8>> {
        let first = message.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'[') {
            let refusal = match serde_json::from_slice::<Message>(&message) {
                Ok(one) => self.check(&one),
                Err(_) => None,
            };
            return match refusal {
                None => Some(message),
                Some(refusal) => {
                    self.send(refusal).await;
                    None
                }
            };
        }
        let Ok(items) = serde_json::from_slice::<Vec<Box<RawValue>>>(&message) else {
            return Some(message);
        };
        let mut refused = Vec::new();
        let mut kept = Vec::with_capacity(items.len());
        for item in items {
            let refusal = match item.get().parse::<Message>() {
                Ok(one) => self.check(&one),
                Err(_) => None,
            };
            match refusal {
                Some(refusal) => refused.push(refusal),
                None => kept.push(item),
            }
        }
        if refused.is_empty() {
            return Some(message);
        }
        // The refusals of one batch go back as one batch.
        let mut array = b"[".to_vec();
        for (n, refusal) in refused.iter().enumerate() {
            if n > 0 {
                array.push(b',');
            }
            array.extend_from_slice(refusal);
        }
        array.push(b']');
        self.send(array).await;
        if kept.is_empty() {
            None
        } else {
            serde_json::to_vec(&kept).ok()
        }
    }

    /// The answer refusing `message`, or `None` when it may pass.
    fn check(&self, message: &Message) -> Option<Vec<u8>> {
        let why = self.shared.admit(message).err()?;
        let Message::Request(request) = message else {
            return None;
        };
        Some(self.shared.refusal(&request.id, &request.method, &why))
    }

    async fn send(&self, answer: Vec<u8>) {
        // Waits while the client does not read its answers: bounded.
        let _ = self.refusals.send(answer).await;
    }
}

impl<R: MessageReader> MessageReader for GuardedReader<R> {
    async fn read(&mut self) -> io::Result<Frame> {
        loop {
            let frame = self.inner.read().await?;
            self.filter.shared.touch();
            match frame {
                Frame::Message(message) => {
                    if let Some(message) = self.filter.filter(message).await {
                        return Ok(Frame::Message(message));
                    }
                }
                other => return Ok(other),
            }
        }
    }
}

/// Writes what the service and the refusals send to the transport, until the service closes
/// its writer (or writing fails); then closes the transport's writer.
pub(crate) struct OutputPump<W> {
    writer: W,
    output: QueueReceiver,
    refusals: QueueReceiver,
    shared: Arc<Shared>,
}

impl<W: MessageWriter> OutputPump<W> {
    /// Runs until the service's output ends or the transport fails.
    pub(crate) async fn run(mut self) {
        let mut refusals_open = true;
        loop {
            let first = tokio::select! {
                biased;
                refusal = self.refusals.recv(), if refusals_open => match refusal {
                    Some(refusal) => refusal,
                    None => {
                        refusals_open = false;
                        continue;
                    }
                },
                message = self.output.recv() => match message {
                    Some(message) => {
                        self.shared.observe(&message);
                        message
                    }
                    None => break,
                },
            };
            if let Err(error) = self.write_burst(first).await {
                // The transport failed: the service sees its writes fail and ends.
                self.shared.logger.log(
                    Level::Warn,
                    format!("writing to the client failed: {error}"),
                );
                let _ = self.writer.close().await;
                return;
            }
        }
        let _ = self.writer.flush().await;
        let _ = self.writer.close().await;
    }

    /// Writes `first` and whatever else is ready, then flushes once.
    async fn write_burst(&mut self, first: Vec<u8>) -> io::Result<()> {
        self.shared.touch();
        self.writer.write(&first).await?;
        while let Some(message) = self.output.try_recv() {
            self.shared.observe(&message);
            self.writer.write(&message).await?;
        }
        self.writer.flush().await?;
        self.shared.touch();
        Ok(())
    }
}

/// The activity of one connection, for the idle timeout.
#[derive(Clone)]
pub(crate) struct Activity(Arc<Shared>);

/// Resolves once no message went either way on the connection for `timeout`.
pub(crate) async fn idle(activity: Activity, timeout: Duration) {
    loop {
        let since = lock(&activity.0.last).elapsed();
        if since >= timeout {
            return;
        }
        tokio::time::sleep(timeout - since).await;
    }
}

/// Puts the session limits and the activity tracking between `reader`/`writer` and a
/// service: the service reads the returned reader and writes the returned writer, and the
/// returned pump must run for its output to reach `writer`. `table` counts the sessions of
/// the whole listener.
pub(crate) fn guard<R: MessageReader, W: MessageWriter>(
    reader: R,
    writer: W,
    options: &ServerOptions,
    table: Arc<SessionTable>,
    logger: Logger,
) -> (GuardedReader<R>, ChannelWriter, OutputPump<W>, Activity) {
    let shared = Arc::new(Shared {
        max_sessions: options.max_sessions,
        table,
        sessions: Mutex::new(Sessions::default()),
        last: Mutex::new(Instant::now()),
        logger,
    });
    let (output_tx, output) = queue(OUTPUT_CAPACITY, HOP_BYTES);
    let (refusals_tx, refusals) = queue(OUTPUT_CAPACITY, HOP_BYTES);
    (
        GuardedReader {
            inner: reader,
            filter: Filter {
                shared: Arc::clone(&shared),
                refusals: refusals_tx,
            },
        },
        ChannelWriter::from_queue(output_tx),
        OutputPump {
            writer,
            output,
            refusals,
            shared: Arc::clone(&shared),
        },
        Activity(shared),
    )
}
