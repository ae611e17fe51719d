//! The limits of one remote connection that need to look at its messages: sessions per
//! connection and idle time. [`guard`] puts itself between the transport and the
//! [`Service`](super::Service):
//!
//! * What the client sends is read through [`GuardedReader`]. A request that would open a
//!   session (`session/new`, and `session/load`, `session/resume` or `session/fork` of a
//!   session this connection has not opened) while [`ServerOptions::max_sessions`]
//!   sessions are open or being opened is not passed on: it is answered with a JSON-RPC
//!   error that names the limit, and logged. A batch loses only its refused requests.
//! * What the service writes goes through a channel to [`OutputPump`], which writes it to
//!   the transport (and the refusals between), and counts the sessions that the service's
//!   answers opened (`session/close` gives one back).
//! * Every message either way marks the connection active; [`idle`] resolves once none went
//!   either way for the idle timeout.
//!
//! Messages are only parsed when they may matter: incoming ones that mention `session/`,
//! outgoing ones while a session request is waiting for its answer.

use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::http_conn::id_key;
use super::server::ServerOptions;
use crate::connection::lock;
use crate::log::{Level, Logger};
use crate::transport::{ChannelWriter, Frame, MessageReader, MessageWriter};

/// The JSON-RPC error code of a refused session: a server error of the implementation range.
pub const SESSION_LIMIT_CODE: i64 = -32000;

/// How many messages the service may have written that the transport has not taken yet.
const OUTPUT_CAPACITY: usize = 64;

/// The methods that open a session.
const OPENING: [&str; 4] = [
    "session/new",
    "session/load",
    "session/resume",
    "session/fork",
];

#[derive(Default)]
struct Sessions {
    /// The sessions opened on this connection.
    open: HashSet<String>,
    /// Requests that may open a session, by id key, with the session they name (load,
    /// resume) or none (new, fork: the answer names it).
    pending: HashMap<String, Option<String>>,
}

/// What the reading and the writing half share.
struct Shared {
    max_sessions: usize,
    sessions: Mutex<Sessions>,
    last: Mutex<Instant>,
    logger: Logger,
}

impl Shared {
    fn touch(&self) {
        *lock(&self.last) = Instant::now();
    }

    /// Whether `request` (a JSON-RPC object) may pass; records the ones that may open a
    /// session.
    fn admit(&self, request: &Value) -> bool {
        let Some(method) = request.get("method").and_then(Value::as_str) else {
            return true;
        };
        let id = request.get("id").and_then(id_key);
        let named = request
            .get("params")
            .and_then(|params| params.get("sessionId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut sessions = lock(&self.sessions);
        if method == "session/close" {
            if let Some(named) = &named {
                sessions.open.remove(named);
            }
            return true;
        }
        if !OPENING.contains(&method) {
            return true;
        }
        let Some(id) = id else { return true };
        // Loading or resuming a session this connection has open already opens nothing.
        let reopens = method != "session/fork"
            && named
                .as_ref()
                .is_some_and(|named| sessions.open.contains(named));
        if reopens {
            return true;
        }
        if sessions.open.len() + sessions.pending.len() >= self.max_sessions {
            return false;
        }
        let named = if method == "session/fork" {
            None
        } else {
            named
        };
        sessions.pending.insert(id, named);
        true
    }

    /// Counts the session an answer of the service opened.
    fn observe(&self, message: &[u8]) {
        if lock(&self.sessions).pending.is_empty() {
            return;
        }
        let Ok(value) = serde_json::from_slice::<Value>(message) else {
            return;
        };
        let answers: Vec<&Value> = match &value {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        let mut sessions = lock(&self.sessions);
        for answer in answers {
            if answer.get("method").is_some() {
                continue;
            }
            let Some(id) = answer.get("id").and_then(id_key) else {
                continue;
            };
            let Some(named) = sessions.pending.remove(&id) else {
                continue;
            };
            let Some(result) = answer.get("result") else {
                continue;
            };
            let opened = named.or_else(|| {
                result
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            if let Some(opened) = opened {
                sessions.open.insert(opened);
            }
        }
    }

    /// The error answering a refused request.
    fn refusal(&self, request: &Value) -> Value {
        let method = request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.logger.log(
            Level::Warn,
            format!(
                "refused `{method}`: this connection has {} sessions open, the limit",
                self.max_sessions
            ),
        );
        json!({
            "jsonrpc": "2.0",
            "id": request.get("id").cloned().unwrap_or(Value::Null),
            "error": {
                "code": SESSION_LIMIT_CODE,
                "message": format!(
                    "this connection has {} sessions open, the most this server allows per connection; close one or open another connection",
                    self.max_sessions
                ),
                "data": {"limit": "sessions per connection", "max": self.max_sessions},
            }
        })
    }
}

/// Whether `message` may mention a session-opening method (a cheap test before parsing).
fn mentions_session(message: &[u8]) -> bool {
    const NEEDLE: &[u8] = b"session/";
    message.windows(NEEDLE.len()).any(|window| window == NEEDLE)
}

/// The client's messages, with refused session requests taken out.
pub(crate) struct GuardedReader<R> {
    inner: R,
    filter: Filter,
}

/// What passes on of the client's messages, and where refusals go.
struct Filter {
    shared: Arc<Shared>,
    refusals: mpsc::Sender<Vec<u8>>,
}

impl Filter {
    /// `message` as it may pass on (`None`: nothing of it passes), the refusals sent.
    async fn filter(&self, message: Vec<u8>) -> Option<Vec<u8>> {
        if !mentions_session(&message) {
            return Some(message);
        }
        let Ok(value) = serde_json::from_slice::<Value>(&message) else {
            return Some(message);
        };
        match value {
            Value::Array(items) => {
                let mut refused = Vec::new();
                let mut kept = Vec::with_capacity(items.len());
                for item in items {
                    if self.shared.admit(&item) {
                        kept.push(item);
                    } else {
                        refused.push(self.shared.refusal(&item));
                    }
                }
                if refused.is_empty() {
                    return Some(message);
                }
                // The refusals of one batch go back as one batch.
                self.send(Value::Array(refused)).await;
                if kept.is_empty() {
                    None
                } else {
                    serde_json::to_vec(&Value::Array(kept)).ok()
                }
            }
            one => {
                if self.shared.admit(&one) {
                    Some(message)
                } else {
                    let refusal = self.shared.refusal(&one);
                    self.send(refusal).await;
                    None
                }
            }
        }
    }

    async fn send(&self, answer: Value) {
        if let Ok(bytes) = serde_json::to_vec(&answer) {
            // Waits while the client does not read its answers: bounded.
            let _ = self.refusals.send(bytes).await;
        }
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
    output: mpsc::Receiver<Vec<u8>>,
    refusals: mpsc::Receiver<Vec<u8>>,
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
            if self.write_burst(first).await.is_err() {
                // The transport failed: the service sees its writes fail and ends.
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
        while let Ok(message) = self.output.try_recv() {
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

/// Puts the session limit and the activity tracking between `reader`/`writer` and a
/// service: the service reads the returned reader and writes the returned writer, and the
/// returned pump must run for its output to reach `writer`.
pub(crate) fn guard<R: MessageReader, W: MessageWriter>(
    reader: R,
    writer: W,
    options: &ServerOptions,
    logger: Logger,
) -> (GuardedReader<R>, ChannelWriter, OutputPump<W>, Activity) {
    let shared = Arc::new(Shared {
        max_sessions: options.max_sessions,
        sessions: Mutex::new(Sessions::default()),
        last: Mutex::new(Instant::now()),
        logger,
    });
    let (output_tx, output) = mpsc::channel(OUTPUT_CAPACITY);
    let (refusals_tx, refusals) = mpsc::channel(OUTPUT_CAPACITY);
    (
        GuardedReader {
            inner: reader,
            filter: Filter {
                shared: Arc::clone(&shared),
                refusals: refusals_tx,
            },
        },
        ChannelWriter::new(output_tx),
        OutputPump {
            writer,
            output,
            refusals,
            shared: Arc::clone(&shared),
        },
        Activity(shared),
    )
}
