//! The client end of Streamable HTTP (`http://`, `https://`), on reqwest (HTTP/2 by ALPN over
//! TLS, HTTP/1.1 on cleartext) with a cookie jar of its own; its event streams are read by
//! [`EventReader`](super::sse::EventReader).
//!
//! * The first message must be `initialize`: it is posted without a connection id, and the
//!   `200` answer carries the `Acp-Connection-Id` header and, as its body, the response. The
//!   client then opens the connection's event stream (`GET`, `Accept: text/event-stream`).
//! * Every later message is one `POST` with the connection id (a batch is posted one message
//!   at a time), answered `202`; answers arrive on the event streams.
//! * Sessions: once an answer names a session (`result.sessionId`, or a successful
//!   `session/load` or `session/resume`), the session's own stream is opened, and before a
//!   message about a session is posted (its `params.sessionId`, or the answer to a request
//!   that came on that session's stream) its stream is opened first, so that nothing about
//!   the session is left waiting on the server; such posts carry `Acp-Session-Id`. A server
//!   may refuse a session stream (the Python SDK's does for a session it does not know on
//!   this connection yet, as before `session/load`): the session's messages then arrive on
//!   the connection's stream, and a post about it that is answered `404` is posted again
//!   without the session header.
//! * A post of a request that is refused becomes the JSON-RPC error answer of that request
//!   (its message names the status and the body); `401`, `403`, `404` and `410`, a failed
//!   network exchange, or a refused notification or answer end the connection.
//! * Closing ends the streams and `DELETE`s the connection.
//!
//! The reader reads the event streams itself (no task and queue of their own in between):
//! a message passes through one task fewer on its way to the application, and a reader that
//! does not read stops the streams being read, so memory stays bounded (the server's stall
//! timeout then applies). An event longer than the message limit ends the connection before
//! it is buffered whole.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures_util::stream::{self, SelectAll};
use futures_util::{FutureExt, Stream, StreamExt};

use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;

use super::CONNECTION_ID_HEADER;
use super::client_options::ClientOptions;
use super::error::RemoteError;
use super::http::SESSION_ID_HEADER;
use super::http_wire::{answered, chain, read_body};
use super::peek::{Peek, may_have_id, session_in};
use super::sse::EventReader;
use crate::lock::lock;
use crate::log::{Level, Logger};
use crate::transport::{Frame, MessageReader, MessageWriter};

/// How much of a refusal's body is kept for the error message.
const ERROR_BODY_BYTES: usize = 8 * 1024;
/// How many bytes past the message limit an event stream may hold before an event is
/// complete (field names, line ends, one network chunk).
const EVENT_SLACK_BYTES: usize = 64 * 1024;
/// How many messages that did not come on an event stream (the answer to `initialize`, an
/// answer in the body of a post, the error answer of a refused post) wait for the reader.
const INBOX_CAPACITY: usize = 16;
/// How long the closing `DELETE` may take.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);
/// Requests that attach a session to this connection; their answers need not name it.
const ATTACH_METHODS: [&str; 2] = ["session/load", "session/resume"];
/// Statuses that say the connection as a whole is unusable or gone.
const CONNECTION_FAILURES: [u16; 4] = [401, 403, 404, 410];

/// The first refusal that ended a connection, for
/// [`ClientBuilder::connect_url`](crate::client::ClientBuilder::connect_url) to report
/// instead of a bare "connection closed".
pub(crate) type Refusal = Arc<Mutex<Option<RemoteError>>>;

#[derive(Default)]
struct Routes {
    /// The agent's requests by id, with the session whose stream brought them: their
    /// answers are posted for that session.
    agent_requests: HashMap<String, String>,
    /// Our `session/load` and `session/resume` requests by id, with their session.
    attaching: HashMap<String, String>,
}

/// Whether a session's event stream is open, or the server refused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SessionStream {
    Open,
    Refused,
}

/// An event stream being read: each item is what one network read of it brought.
type EventStream = Pin<Box<dyn Stream<Item = Vec<Frame>> + Send>>;

/// An event stream just opened (with its session), for the reader to read.
type Opened = (reqwest::Response, Option<String>);

/// The state of one HTTP connection, shared by its two halves and its tasks.
struct Shared {
    client: reqwest::Client,
    url: reqwest::Url,
    limit: usize,
    stall: Duration,
    connect_timeout: Duration,
    logger: Logger,
    connection_id: Arc<OnceLock<String>>,
    inbox: mpsc::Sender<Vec<Frame>>,
    /// Event streams opened, to the reader. Unbounded, but it holds at most one entry per
    /// stream opened: the connection's and one per session.
    opened: mpsc::UnboundedSender<Opened>,
    ended: watch::Sender<bool>,
    routes: Mutex<Routes>,
    /// Held while a session stream is being opened, so each is opened once.
    sessions: tokio::sync::Mutex<HashMap<String, SessionStream>>,
    tasks: Mutex<Vec<AbortHandle>>,
    refusal: Refusal,
}

/// The incoming half of a Streamable HTTP connection: what the event streams (and the
/// answer to `initialize`) brought.
pub(crate) struct HttpReader {
    shared: Arc<Shared>,
    inbox: mpsc::Receiver<Vec<Frame>>,
    opened: mpsc::UnboundedReceiver<Opened>,
    /// The event streams open, read in turn.
    streams: SelectAll<EventStream>,
    /// The rest of the batch being read.
    batch: VecDeque<Frame>,
    ended: watch::Receiver<bool>,
    done: bool,
}

impl HttpReader {
    /// Starts reading the streams opened since the last look.
    fn take_opened(&mut self) {
        while let Ok((response, session)) = self.opened.try_recv() {
            self.streams
                .push(events(Arc::clone(&self.shared), response, session));
        }
    }

    /// The connection has ended: what already arrived is still read, then the end.
    fn finish(&mut self) {
        while let Ok(batch) = self.inbox.try_recv() {
            self.batch.extend(batch);
        }
        while let Some(Some(batch)) = self.streams.next().now_or_never() {
            self.batch.extend(batch);
        }
        // The streams are not read any more: their TCP connections close now.
        self.streams = SelectAll::new();
        self.done = true;
    }
}

impl MessageReader for HttpReader {
    async fn read(&mut self) -> io::Result<Frame> {
        loop {
            if let Some(frame) = self.batch.pop_front() {
                return Ok(frame);
            }
            if self.done {
                return Ok(Frame::End);
            }
            if let Ok(batch) = self.inbox.try_recv() {
                self.batch.extend(batch);
                continue;
            }
            self.take_opened();
            let reading = !self.streams.is_empty();
            let woken = tokio::select! {
                biased;
                batch = self.inbox.recv() => batch,
                Some(opened) = self.opened.recv() => {
                    let (response, session) = opened;
                    self.streams.push(events(Arc::clone(&self.shared), response, session));
                    continue;
                }
                Some(batch) = self.streams.next(), if reading => Some(batch),
                _ = self.ended.wait_for(|ended| *ended) => None,
            };
            match woken {
                Some(batch) => self.batch.extend(batch),
                None => self.finish(),
            }
        }
    }
}

/// Reads one event stream (of `session`, or the connection's): each item holds the messages
/// that one network read completed. When the stream ends, the connection's ending ends the
/// connection, a session's ending forgets its stream (it is opened again when needed), and a
/// fault ends the connection.
fn events(
    shared: Arc<Shared>,
    response: reqwest::Response,
    session: Option<String>,
) -> EventStream {
    struct State {
        shared: Arc<Shared>,
        response: reqwest::Response,
        reader: EventReader,
        session: Option<String>,
        /// A fault found after the last batch was taken: the stream ends with it.
        fault: Option<String>,
    }
    let budget = shared.limit.saturating_add(EVENT_SLACK_BYTES);
    let state = State {
        shared,
        response,
        reader: EventReader::default(),
        session,
        fault: None,
    };
    Box::pin(stream::unfold(state, move |mut state| async move {
        let fault = loop {
            if let Some(fault) = state.fault.take() {
                break Some(fault);
            }
            let chunk = match state.response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break None,
                Err(error) => {
                    break Some(format!("reading an event stream failed: {}", chain(&error)));
                }
            };
            state.reader.push(&chunk);
            let mut batch = Vec::new();
            while let Some(message) = state.reader.next_event() {
                state.shared.note(&message, state.session.as_deref());
                batch.push(Frame::bounded(message, state.shared.limit));
            }
            // Bytes of an event not complete yet: past the budget the stream is dropped
            // rather than buffered further.
            if state.reader.pending() > budget {
                state.fault = Some(format!(
                    "the server sent an event over the limit of {} bytes",
                    state.shared.limit
                ));
            }
            if !batch.is_empty() {
                return Some((batch, state));
            }
        };
        state.shared.stream_ended(state.session, fault).await;
        None
    }))
}

/// The outgoing half of a Streamable HTTP connection: one `POST` per message.
pub(crate) struct HttpWriter {
    shared: Arc<Shared>,
    closed: bool,
}

impl MessageWriter for HttpWriter {
    async fn write(&mut self, message: &[u8]) -> io::Result<()> {
        if *self.shared.ended.borrow() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the HTTP connection has ended",
            ));
        }
        if message.trim_ascii_start().first() == Some(&b'[') {
            // No batches over HTTP: each member is posted on its own.
            if let Ok(members) = serde_json::from_slice::<Vec<&RawValue>>(message) {
                for member in members {
                    self.shared.post(member.get().as_bytes()).await?;
                }
                return Ok(());
            }
        }
        self.shared.post(message).await
    }

    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    async fn close(&mut self) -> io::Result<()> {
        self.closed = true;
        self.shared.close().await;
        Ok(())
    }
}

impl Drop for HttpWriter {
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        // Dropped without a close (a failed write ends the connection that way): stop the
        // streams and still tell the server, from a task, when a runtime is there.
        self.shared.abort_tasks();
        self.shared.end();
        if let (Some(id), Ok(runtime)) = (
            self.shared.connection_id.get().cloned(),
            tokio::runtime::Handle::try_current(),
        ) {
            let shared = Arc::clone(&self.shared);
            runtime.spawn(async move { shared.delete(&id).await });
        }
    }
}

/// A Streamable HTTP connection that has not sent anything yet.
pub(crate) struct HttpHalves {
    pub(crate) reader: HttpReader,
    pub(crate) writer: HttpWriter,
    /// Set once `initialize` is answered.
    pub(crate) connection_id: Arc<OnceLock<String>>,
    pub(crate) refusal: Refusal,
}

/// The two halves of a Streamable HTTP connection to `url`. Nothing is sent before the first
/// write (which must be `initialize`).
pub(crate) fn connect(url: &str, options: &ClientOptions) -> Result<HttpHalves, RemoteError> {
    let unreachable = |reason: String| RemoteError::Unreachable {
        url: url.to_owned(),
        status: None,
        reason,
    };
    let parsed = reqwest::Url::parse(url).map_err(|error| unreachable(error.to_string()))?;
    let mut builder = reqwest::Client::builder()
        .use_rustls_tls()
        // One jar per connection: cookies the server sets (load-balancer affinity, for
        // example) are sent back for the life of this connection only.
        .cookie_store(true)
        // Like the WebSocket client: no proxy from the environment.
        .no_proxy()
        .connect_timeout(options.connect_timeout)
        .user_agent(concat!("acptk-runtime/", env!("CARGO_PKG_VERSION")));
    if let Some(token) = &options.token {
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| unreachable("the token is not a valid header value".to_owned()))?;
        value.set_sensitive(true);
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, value);
        builder = builder.default_headers(headers);
    }
    if !options.roots.is_empty() {
        // Exactly the given certificates, as for `wss://`.
        builder = builder.tls_built_in_root_certs(false);
        for root in &options.roots {
            let certificate = reqwest::Certificate::from_der(root.as_ref())
                .map_err(|error| unreachable(format!("cannot trust a certificate: {error}")))?;
            builder = builder.add_root_certificate(certificate);
        }
    }
    let client = builder
        .build()
        .map_err(|error| unreachable(chain(&error)))?;
    let (inbox, inbox_rx) = mpsc::channel(INBOX_CAPACITY);
    let (opened, opened_rx) = mpsc::unbounded_channel();
    let (ended, ended_rx) = watch::channel(false);
    let connection_id = Arc::new(OnceLock::new());
    let refusal = Refusal::default();
    let shared = Arc::new(Shared {
        client,
        url: parsed,
        limit: options.max_message_bytes,
        stall: options.stall_timeout,
        connect_timeout: options.connect_timeout,
        logger: options.logger.clone(),
        connection_id: Arc::clone(&connection_id),
        inbox,
        opened,
        ended,
        routes: Mutex::new(Routes::default()),
        sessions: tokio::sync::Mutex::new(HashMap::new()),
        tasks: Mutex::new(Vec::new()),
        refusal: Arc::clone(&refusal),
    });
    let reader = HttpReader {
        shared: Arc::clone(&shared),
        inbox: inbox_rx,
        opened: opened_rx,
        streams: SelectAll::new(),
        batch: VecDeque::new(),
        ended: ended_rx,
        done: false,
    };
    let writer = HttpWriter {
        shared,
        closed: false,
    };
    Ok(HttpHalves {
        reader,
        writer,
        connection_id,
        refusal,
    })
}

impl Shared {
    fn target(&self) -> &str {
        self.url.as_str()
    }

    /// Ends the incoming side: the reader reads what is queued, then the end.
    fn end(&self) {
        self.ended.send_replace(true);
    }

    /// Keeps the first refusal (with its status) for the caller.
    fn refuse(&self, status: Option<StatusCode>, reason: String) {
        let mut refusal = lock(&self.refusal);
        if refusal.is_none() {
            *refusal = Some(RemoteError::Unreachable {
                url: self.target().to_owned(),
                status: status.map(|status| status.as_u16()),
                reason,
            });
        }
    }

    fn spawn(self: &Arc<Self>, work: impl std::future::Future<Output = ()> + Send + 'static) {
        let handle = tokio::spawn(work).abort_handle();
        let mut tasks = lock(&self.tasks);
        tasks.retain(|task| !task.is_finished());
        tasks.push(handle);
    }

    fn abort_tasks(&self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }

    async fn close(&self) {
        self.abort_tasks();
        if let Some(id) = self.connection_id.get() {
            self.delete(id).await;
        }
        self.end();
    }

    /// `DELETE`s the connection, briefly, ignoring the outcome.
    async fn delete(&self, id: &str) {
        let request = self
            .client
            .delete(self.url.clone())
            .header(CONNECTION_ID_HEADER, id)
            .timeout(CLOSE_TIMEOUT)
            .send();
        if let Err(error) = request.await {
            self.logger.log(
                Level::Debug,
                format!("HTTP: closing the connection failed: {}", chain(&error)),
            );
        }
    }

    /// Hands one incoming message to the reader; `false` once the reader is gone.
    async fn deliver(&self, message: Vec<u8>) -> bool {
        self.inbox
            .send(vec![Frame::bounded(message, self.limit)])
            .await
            .is_ok()
    }

    /// Posts `initialize`, keeps the connection id and opens the connection's stream.
    async fn initialize(self: &Arc<Self>, message: &[u8], is_initialize: bool) -> io::Result<()> {
        let work = async {
            if !is_initialize {
                return Err((
                    None,
                    "the first message over Streamable HTTP must be `initialize`".to_owned(),
                ));
            }
            let response = self
                .client
                .post(self.url.clone())
                .header(header::CONTENT_TYPE, "application/json")
                .body(message.to_vec())
                .send()
                .await
                .map_err(|error| (None, chain(&error)))?;
            let status = response.status();
            self.logger.log(
                Level::Debug,
                format!("HTTP: `initialize` answered over {:?}", response.version()),
            );
            let id = response
                .headers()
                .get(CONNECTION_ID_HEADER)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            let limit = if status.is_success() {
                self.limit
            } else {
                ERROR_BODY_BYTES
            };
            let body = read_body(response, limit)
                .await
                .map_err(|reason| (Some(status), reason))?;
            if !status.is_success() {
                return Err((Some(status), answered(status, &body)));
            }
            let Some(id) = id else {
                return Err((
                    Some(status),
                    "the answer to `initialize` has no Acp-Connection-Id header".to_owned(),
                ));
            };
            let _ = self.connection_id.set(id);
            let stream = self.open_stream(None).await?;
            let _ = self.opened.send((stream, None));
            Ok(body)
        };
        let outcome = match tokio::time::timeout(self.connect_timeout, work).await {
            Ok(outcome) => outcome,
            Err(_) => Err((
                None,
                format!(
                    "no answer to `initialize` within {} s",
                    self.connect_timeout.as_secs_f64()
                ),
            )),
        };
        match outcome {
            Ok(body) => {
                self.deliver(body).await;
                Ok(())
            }
            Err((status, reason)) => {
                self.refuse(status, reason.clone());
                self.end();
                Err(io::Error::new(io::ErrorKind::ConnectionRefused, reason))
            }
        }
    }

    /// Opens the connection's event stream (`session` `None`) or a session's.
    async fn open_stream(
        &self,
        session: Option<&str>,
    ) -> Result<reqwest::Response, (Option<StatusCode>, String)> {
        let Some(id) = self.connection_id.get() else {
            return Err((None, "no connection yet".to_owned()));
        };
        let mut request = self
            .client
            .get(self.url.clone())
            .header(header::ACCEPT, "text/event-stream")
            .header(CONNECTION_ID_HEADER, id.as_str());
        if let Some(session) = session {
            request = request.header(SESSION_ID_HEADER, session);
        }
        let what = match session {
            None => "the connection's event stream".to_owned(),
            Some(session) => format!("the event stream of session {session}"),
        };
        let response = match tokio::time::timeout(self.stall, request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => return Err((None, format!("opening {what}: {}", chain(&error)))),
            Err(_) => {
                return Err((
                    None,
                    format!(
                        "opening {what}: no answer within {} s",
                        self.stall.as_secs_f64()
                    ),
                ));
            }
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = read_body(response, ERROR_BODY_BYTES)
            .await
            .unwrap_or_default();
        Err((
            Some(status),
            format!("opening {what}: {}", answered(status, &body)),
        ))
    }

    /// Makes sure the event stream of `session` is open; `false` when the server refuses it
    /// (it is asked again only when `retry` is set, after an answer that established the
    /// session).
    async fn open_session(self: &Arc<Self>, session: &str, retry: bool) -> bool {
        let mut sessions = self.sessions.lock().await;
        match sessions.get(session) {
            Some(SessionStream::Open) => return true,
            Some(SessionStream::Refused) if !retry => return false,
            _ => {}
        }
        match self.open_stream(Some(session)).await {
            Ok(stream) => {
                sessions.insert(session.to_owned(), SessionStream::Open);
                let _ = self.opened.send((stream, Some(session.to_owned())));
                true
            }
            Err((_, reason)) => {
                self.logger.log(
                    Level::Debug,
                    format!("HTTP: {reason}; its messages come on the connection's stream"),
                );
                sessions.insert(session.to_owned(), SessionStream::Refused);
                false
            }
        }
    }

    /// An event stream ended, with `fault` when it broke: the connection's ends the
    /// connection, a session's is forgotten (and opened again when needed), and a fault ends
    /// the connection.
    async fn stream_ended(&self, session: Option<String>, fault: Option<String>) {
        match session {
            None => {
                if let Some(fault) = fault {
                    self.logger
                        .log(Level::Warn, format!("HTTP: {fault}; closing"));
                    self.refuse(None, fault);
                }
                self.end();
            }
            Some(session) => {
                self.sessions.lock().await.remove(&session);
                if let Some(fault) = fault {
                    self.logger.log(
                        Level::Warn,
                        format!("HTTP: session {session}: {fault}; closing"),
                    );
                    self.refuse(None, fault);
                    self.end();
                }
            }
        }
    }

    /// Notes what an incoming message (from the stream of `stream`'s session, or the
    /// connection's) means for routing: an agent request's session, a session to attach.
    fn note(self: &Arc<Self>, message: &[u8], stream: Option<&str>) {
        // Notifications (most of what a turn streams) need no note.
        if !may_have_id(message) {
            return;
        }
        let mut establish = Vec::new();
        if let Ok(peek) = serde_json::from_slice::<Peek>(message) {
            let id = peek.id_key();
            if peek.method.is_some() {
                let session = stream
                    .map(str::to_owned)
                    .or_else(|| session_in(peek.params));
                if let (Some(id), Some(session)) = (id, session) {
                    lock(&self.routes).agent_requests.insert(id, session);
                }
            } else if let Some(id) = id {
                let attached = lock(&self.routes).attaching.remove(&id);
                if peek.result.is_some() {
                    establish.extend(attached);
                    establish.extend(session_in(peek.result));
                }
            }
        }
        for session in establish {
            // In the background: the answer is read on while the stream opens.
            let shared = Arc::clone(self);
            self.spawn(async move {
                shared.open_session(&session, true).await;
            });
        }
    }

    /// Posts one message.
    async fn post(self: &Arc<Self>, message: &[u8]) -> io::Result<()> {
        let peek = serde_json::from_slice::<Peek>(message).ok();
        let method = peek
            .as_ref()
            .and_then(|peek| peek.method.as_deref().map(str::to_owned));
        let Some(connection) = self.connection_id.get().cloned() else {
            return self
                .initialize(message, method.as_deref() == Some("initialize"))
                .await;
        };
        let id = peek.as_ref().and_then(Peek::id_key);
        let session = match (&method, &id) {
            (Some(_), _) => peek.as_ref().and_then(|peek| session_in(peek.params)),
            (None, Some(id)) => lock(&self.routes).agent_requests.remove(id),
            (None, None) => None,
        };
        let mut open = true;
        if let Some(session) = &session {
            open = self.open_session(session, false).await;
            if let (Some(method), Some(id)) = (&method, &id)
                && ATTACH_METHODS.contains(&method.as_str())
            {
                lock(&self.routes)
                    .attaching
                    .insert(id.clone(), session.clone());
            }
        }
        let mut answer = self
            .send_post(&connection, session.as_deref(), message)
            .await;
        if !open && matches!(answer, Ok((StatusCode::NOT_FOUND, _))) {
            // The server does not know the session on this connection yet (it refused its
            // stream too): post the message at connection scope.
            answer = self.send_post(&connection, None, message).await;
        }
        let what = match (&method, &id) {
            (Some(method), _) => format!("POST {method}"),
            (None, Some(id)) => format!("POST of the answer to request {id}"),
            (None, None) => "POST".to_owned(),
        };
        let (status, reason) = match answer {
            Ok((status, body)) if status.is_success() => {
                if status == StatusCode::OK && !body.trim_ascii().is_empty() {
                    // A server may answer at once in the body.
                    self.deliver(body).await;
                }
                return Ok(());
            }
            Ok((status, body)) => (Some(status), format!("{what}: {}", answered(status, &body))),
            Err(reason) => (None, format!("{what}: {reason}")),
        };
        if let Some(id) = &id {
            lock(&self.routes).attaching.remove(id);
        }
        let fatal = status.is_none_or(|status| CONNECTION_FAILURES.contains(&status.as_u16()));
        let request_id = peek
            .as_ref()
            .filter(|peek| peek.method.is_some())
            .and_then(|peek| peek.id);
        if let Some(request_id) = request_id {
            // Only this request fails, with an answer that says why.
            let failure = serde_json::json!({
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {
                    "code": -32603,
                    "message": format!("{reason} ({})", self.target()),
                    "data": {"status": status.map(|status| status.as_u16())},
                },
            });
            self.logger.log(Level::Warn, format!("HTTP: {reason}"));
            let delivered = match serde_json::to_vec(&failure) {
                Ok(failure) => self.deliver(failure).await,
                Err(_) => false,
            };
            if fatal || !delivered {
                self.refuse(status, reason);
                self.end();
            }
            return Ok(());
        }
        self.refuse(status, reason.clone());
        self.end();
        Err(io::Error::new(io::ErrorKind::ConnectionAborted, reason))
    }

    /// One `POST` of `message`; the status and the body (cut short when it is a refusal).
    async fn send_post(
        &self,
        connection: &str,
        session: Option<&str>,
        message: &[u8],
    ) -> Result<(StatusCode, Vec<u8>), String> {
        let mut request = self
            .client
            .post(self.url.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .header(CONNECTION_ID_HEADER, connection)
            .timeout(self.stall)
            .body(message.to_vec());
        if let Some(session) = session {
            request = request.header(SESSION_ID_HEADER, session);
        }
        let response = request.send().await.map_err(|error| chain(&error))?;
        let status = response.status();
        let limit = if status.is_success() {
            self.limit
        } else {
            ERROR_BODY_BYTES
        };
        Ok((status, read_body(response, limit).await?))
    }
}
