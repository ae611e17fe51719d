//! Serving a [`Service`] (an [`AgentServer`](crate::agent::AgentServer), or anything else that runs one connection on a
//! message transport) to remote clients on one listener: WebSocket and Streamable HTTP (see
//! [`super::http`]) at one path (`/acp` by default).
//!
//! Before any request is read, [`super::accept`] bounds the TCP connections that have not
//! sent a whole request (the header and body timeouts, and a cap that closes the one that has
//! waited longest). Every request is then checked first: a repeated `Origin` or
//! `Authorization` header gets 400, a browser `Origin` that is not allowed 403, a missing or
//! wrong bearer token 401 (see [`ServerOptions::token`] and [`ServerOptions::principal`]), and
//! only then is a request body read. The token names the [`Principal`] the connection acts
//! for (without tokens: the local principal). A WebSocket upgrade (or HTTP `initialize`)
//! beyond [`ServerOptions::max_connections`] closes the Streamable HTTP connection unused
//! longest to make room, or gets 503 when none is unused (see [`super::http_room`]). An accepted upgrade answers 101 with an
//! `Acp-Connection-Id` header and carries one ACP connection until either side closes the
//! socket. All connections share the server's session store and open sessions, so a client
//! can reconnect and load its session; each sees only the sessions of its principal.
//!
//! Per connection, [`super::limits`] refuses sessions past
//! [`ServerOptions::max_sessions`] (and past [`ServerOptions::max_total_sessions`] across the
//! server) and closes the connection once nothing went either way for
//! [`ServerOptions::idle_timeout`] (a WebSocket with close code 1001 and the reason).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::extract::State;
use axum::extract::ws::{WebSocket, WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use futures_util::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;

use super::accept::{self, Admit, Gate, Tcp, Timeouts};
use super::access::{Access, Refusal};
use super::forwarded::TrustedProxy;
use super::http;
use super::http_conn::HttpConnection;
use super::http_room;
use super::limits;
use super::service::{Service, ServiceHandle};
use super::sessions::SessionTable;
use super::socket::{CLOSE_GOING_AWAY, CloseReason, SocketReader, SocketWriter};
use super::tls::TlsIdentity;
use super::{CONNECTION_ID_HEADER, ServerCodec};
use crate::principal::Principal;
use crate::lock::lock;
use crate::log::{Level, Logger};

/// The default path of the ACP endpoint.
pub const DEFAULT_PATH: &str = "/acp";
/// The name of the principal that [`ServerOptions::token`] serves.
pub const DEFAULT_PRINCIPAL: &str = "default";
/// The default limit on one incoming message: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The default number of connections served at the same time.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// How long a peer may leave written messages unread, by default, before it is
/// disconnected.
pub const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The default number of sessions one connection may have open.
pub const DEFAULT_MAX_SESSIONS: usize = 64;
/// The default number of sessions open across all connections of a server.
pub const DEFAULT_MAX_TOTAL_SESSIONS: usize = 1024;
/// The default number of bytes that may wait for one peer on each queue of its way out (and,
/// over Streamable HTTP, of its messages on their way in): 16 MiB.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 16 * 1024 * 1024;
/// How long, by default, a connection may carry no message either way before it is closed.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// How long, by default, a TCP connection may take to send a whole request head (and may wait
/// between two requests).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long, by default, a request body may take to arrive.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long, by default, a new Streamable HTTP connection may go without opening an event
/// stream or sending a second request before it is closed.
pub const DEFAULT_UNUSED_TIMEOUT: Duration = Duration::from_secs(10);
/// The default number of Streamable HTTP connections one client address may have open.
pub const DEFAULT_MAX_PER_ADDRESS: usize = 64;

/// Options of an [`Endpoint`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ServerOptions {
    path: String,
    access: Access,
    pub(crate) max_message_bytes: usize,
    max_connections: usize,
    pub(crate) stall_timeout: Duration,
    pub(crate) max_sessions: usize,
    max_total_sessions: usize,
    pub(crate) max_queued_bytes: usize,
    pub(crate) idle_timeout: Option<Duration>,
    header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) unused_timeout: Duration,
    pub(crate) max_per_address: usize,
    pub(crate) drain_grace: Duration,
    pub(crate) trusted_proxies: Vec<TrustedProxy>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            path: DEFAULT_PATH.to_owned(),
            access: Access::default(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            stall_timeout: DEFAULT_STALL_TIMEOUT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_total_sessions: DEFAULT_MAX_TOTAL_SESSIONS,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            unused_timeout: DEFAULT_UNUSED_TIMEOUT,
            max_per_address: DEFAULT_MAX_PER_ADDRESS,
            drain_grace: super::drain::DEFAULT_DRAIN_GRACE,
            trusted_proxies: Vec::new(),
        }
    }
}

impl ServerOptions {
    /// The defaults: path `/acp`, no token (every request is the local principal), no
    /// browser origin allowed, 16 MiB messages, 256 connections, 30 s stall timeout, 64
    /// sessions per connection and 1024 in all, 16 MiB queued per peer, 10 min idle timeout,
    /// 10 s header timeout, 30 s body timeout, 10 s for a new HTTP connection to be used, 64
    /// HTTP connections per client address.
    pub fn new() -> Self {
        Self::default()
    }

    /// The path of the endpoint (default `/acp`); a missing leading `/` is added.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// Requires every request to carry `Authorization: Bearer TOKEN` (compared in constant
    /// time; others get 401), and serves them as the principal [`DEFAULT_PRINCIPAL`]: the
    /// same as `.principal(DEFAULT_PRINCIPAL, token)`, replacing the token an earlier call
    /// gave. An empty token matches no request.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        let default = Principal::named(DEFAULT_PRINCIPAL);
        self.access
            .tokens
            .retain(|(_, principal)| *principal != default);
        self.access.tokens.push((token.into(), default));
        self
    }

    /// Accepts requests that carry `Authorization: Bearer TOKEN` and serves them as the
    /// principal `name` (repeatable: one call per token; a principal may have several). Once
    /// any token is given, requests without one of them get 401. Each connection sees only
    /// its principal's sessions (see [`Principal`]); a server without tokens serves every
    /// request as the local principal. An empty token matches no request; a token given for
    /// two principals stands for the last one.
    pub fn principal(mut self, name: impl Into<String>, token: impl Into<String>) -> Self {
        self.access
            .tokens
            .push((token.into(), Principal::named(name)));
        self
    }

    /// Accepts requests whose `Origin` header is `origin` (for example
    /// `http://localhost:5173`). Requests with any other `Origin` get 403; requests without
    /// one (every client that is not a browser page) are not affected.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.access.origins.push(origin.into());
        self
    }

    /// The longest incoming message, in bytes (default 16 MiB). A longer WebSocket message
    /// is refused while it arrives and the socket is closed with code 1009.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes.max(1);
        self
    }

    /// How many connections may be open at once (default 256): WebSocket and Streamable
    /// HTTP connections (a further upgrade or `initialize` closes the Streamable HTTP
    /// connection that has been unused longest since its `initialize`, or gets 503 when none
    /// is unused), and, counted
    /// apart, TCP connections that are waiting: that have not sent a whole request yet, or
    /// wait between two. A TCP connection that arrives while as many are waiting closes the
    /// one that has waited longest. Both are logged.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long a TCP connection may take to send a whole request head, and may wait between
    /// two requests (default 10 s); it is closed then (logged when it had sent no request).
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long a request body may take to arrive once its head has (default 30 s); the
    /// request gets 408 then and its connection is closed.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long a new Streamable HTTP connection may go without opening an event stream or
    /// posting a second message (default 10 s): it is closed then, and logged, so that
    /// `initialize` requests that are never followed up cannot fill the server.
    pub fn unused_timeout(mut self, timeout: Duration) -> Self {
        self.unused_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How many Streamable HTTP connections one client may have open at once (default 64):
    /// one principal when the server has tokens, else one client address (see
    /// [`Self::trusted_proxy`]). A further `initialize` of that client evicts the client's
    /// connection that has been unused longest (one that did nothing after its
    /// `initialize`), logged; only when all of them are in use does it get 503, logged.
    /// The server's connection limit ([`Self::max_connections`]) evicts the same way, across
    /// clients.
    pub fn max_per_address(mut self, connections: usize) -> Self {
        self.max_per_address = connections.max(1);
        self
    }

    /// Trusts the TCP peer `proxy` (an address or a network: a load balancer) to tell the
    /// client's address (repeatable): from it, a PROXY protocol version 1 line (HAProxy's
    /// `send-proxy`) or, without one, the last `X-Forwarded-For` address (HAProxy's `option
    /// forwardfor`) is taken as the client's address, which [`Self::max_per_address`] counts.
    /// From any other peer both are ignored. Without this, every client behind a balancer
    /// counts as the balancer's address.
    pub fn trusted_proxy(mut self, proxy: TrustedProxy) -> Self {
        self.trusted_proxies.push(proxy);
        self
    }

    /// The limit of [`Self::max_connections`].
    pub(crate) fn connection_limit(&self) -> usize {
        self.max_connections
    }

    /// How long a write to a peer may wait (default 30 s): a peer that stops reading is
    /// disconnected after it (logged; a WebSocket is dropped without a close frame, which
    /// could not get through), so what is buffered for it stays bounded.
    /// `Duration::ZERO`: never.
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        // Zero: never (a century is never here).
        self.stall_timeout = if timeout.is_zero() {
            Duration::from_secs(100 * 365 * 24 * 3600)
        } else {
            timeout
        };
        self
    }

    /// How many sessions one connection may have open at once (default 64). A request that
    /// would open one more (`session/new`, or loading, resuming or forking a session the
    /// connection does not have open) is answered with a JSON-RPC error (code
    /// [`SESSION_LIMIT_CODE`](super::SESSION_LIMIT_CODE)) that names the limit, and logged.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// How many sessions may be open across all connections at once (default 1024): a
    /// request that would open one more is answered with a JSON-RPC error (code
    /// [`SESSION_LIMIT_CODE`](super::SESSION_LIMIT_CODE)) that names the limit, and logged. A
    /// session its connection left open (the connection ended without `session/close`) counts
    /// for the idle timeout after that, so reconnecting does not walk around the limit.
    pub fn max_total_sessions(mut self, sessions: usize) -> Self {
        self.max_total_sessions = sessions.max(1);
        self
    }

    /// How many bytes may wait for one peer (default [`DEFAULT_MAX_QUEUED_BYTES`], 16 MiB):
    /// Streamable HTTP messages the peer posted that the service has not read yet, and the
    /// service's output waiting for an event stream to open. (The output an
    /// [`AgentServer`](crate::agent::AgentServer) queues for a peer is bounded by its own
    /// [`ConnectionBuilder::max_queued_bytes`](crate::ConnectionBuilder::max_queued_bytes).)
    /// A peer whose queue is full is slowed (its requests are not read, a post waits) and,
    /// when nothing moves for the stall timeout, disconnected.
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.max_queued_bytes = bytes.max(1);
        self
    }

    /// How long a connection may carry no message either way (default 10 min) before it is
    /// closed and that is logged: a WebSocket with close code 1001 and the reason, a
    /// Streamable HTTP connection by ending its event streams (its id is unknown afterwards:
    /// 404). `Duration::ZERO` turns the timeout off.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = (!timeout.is_zero()).then_some(timeout);
        self
    }

    /// How long running turns get to end when the server stops (default 10 s; see
    /// [`drain`](super::drain)): then they are cancelled.
    pub fn drain_grace(mut self, grace: Duration) -> Self {
        self.drain_grace = grace;
        self
    }

    /// The grace period of [`Self::drain_grace`].
    pub fn get_drain_grace(&self) -> Duration {
        self.drain_grace
    }
}

/// What every request handler shares.
pub(crate) struct Shared<S> {
    pub(crate) service: S,
    pub(crate) options: ServerOptions,
    open: Arc<AtomicUsize>,
    pub(crate) logger: Logger,
    /// The Streamable HTTP connections, by connection id.
    pub(crate) http: Mutex<HashMap<String, Arc<HttpConnection>>>,
    /// The sessions open across all connections.
    pub(crate) sessions: Arc<SessionTable>,
    /// The accepted TCP connections.
    gate: Gate,
    /// Whether the server is stopping (see [`super::drain`]).
    pub(crate) lifecycle: super::drain::Lifecycle,
}

/// A taken connection slot, given back when dropped.
pub(crate) struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl<S> Shared<S> {
    /// How many connections are open now.
    pub(crate) fn open_count(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// A connection slot, unless all are taken.
    pub(crate) fn admit(&self) -> Option<Slot> {
        let max = self.options.max_connections;
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < max).then_some(open + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(&self.open)))
    }
}

impl<S: Send + Sync + 'static> Admit for Shared<S> {
    fn gate(&self) -> &Gate {
        &self.gate
    }

    fn max_waiting(&self) -> usize {
        self.options.max_connections
    }

    fn timeouts(&self) -> Timeouts {
        Timeouts {
            header: self.options.header_timeout,
            // The handler answers 408 at the body timeout; the connection goes a little later.
            body: self.options.body_timeout + Duration::from_secs(2),
        }
    }

    fn logger(&self) -> &Logger {
        &self.logger
    }

    fn trusted_proxies(&self) -> &[TrustedProxy] {
        &self.options.trusted_proxies
    }
}

/// A [`Service`] served to remote clients (see the module docs).
pub struct Endpoint<S> {
    shared: Arc<Shared<S>>,
}

impl<S> Clone for Endpoint<S> {
    /// Another handle to the same server (the same limits and counters).
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<S> std::fmt::Debug for Endpoint<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("options", &self.shared.options)
            .field("open", &self.shared.open.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<S: Service> Endpoint<S> {
    /// Serves `service` (for example an [`AgentServer`](crate::agent::AgentServer)) with `options`; refusals and
    /// failures go to the service's logger ([`Service::logger`]: an agent server's connection
    /// logger).
    pub fn new(service: S, options: ServerOptions) -> Self {
        let logger = service.logger();
        let linger = options.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT);
        let sessions = Arc::new(SessionTable::new(options.max_total_sessions, linger));
        Self {
            shared: Arc::new(Shared {
                service,
                sessions,
                options,
                open: Arc::new(AtomicUsize::new(0)),
                logger,
                http: Mutex::new(HashMap::new()),
                gate: Gate::default(),
                lifecycle: super::drain::Lifecycle::default(),
            }),
        }
    }

    /// How many connections are open now.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::Acquire)
    }

    /// How many TCP connections are waiting now: accepted, without a whole request being
    /// served (see [`ServerOptions::max_connections`]).
    pub fn waiting_connections(&self) -> usize {
        self.shared.gate.waiting()
    }

    /// How many sessions count against [`ServerOptions::max_total_sessions`] now.
    pub fn open_sessions(&self) -> usize {
        self.shared.sessions.count()
    }

    /// Serves connections accepted on `listener` until accepting fails. Bind it with
    /// [`bind`](super::bind), which gives it room for many clients connecting at once.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        self.serve_until(listener, std::future::pending()).await
    }

    /// Serves connections accepted on `listener` until `shutdown` resolves; then it drains
    /// (see [`drain`](super::drain): no new connections, running turns end or are cancelled,
    /// every connection is closed) and stops.
    pub async fn serve_until(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        let router = self.router();
        let shutdown = super::drain::after(Arc::clone(&self.shared), shutdown);
        accept::run(self.shared, router, listener, None, shutdown).await
    }

    /// Serves connections accepted on `listener` over TLS with `identity` (`wss://`,
    /// `https://`; ALPN offers `h2` and `http/1.1`) until `shutdown` resolves.
    pub async fn serve_tls_until(
        self,
        listener: TcpListener,
        identity: TlsIdentity,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        let router = self.router();
        let shutdown = super::drain::after(Arc::clone(&self.shared), shutdown);
        accept::run(
            self.shared,
            router,
            listener,
            Some(identity.acceptor()),
            shutdown,
        )
        .await
    }

    /// Serves one connection that was accepted some other way (a TCP stream, a Unix socket,
    /// an in-memory pipe), from `peer`, until it ends: HTTP/1.1 or HTTP/2 (by its preface),
    /// under the same limits and timeouts as the connections of [`Self::serve`] (it counts as
    /// one of them).
    pub async fn serve_connection<IO>(&self, io: IO, peer: SocketAddr)
    where
        IO: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        accept::serve_one(&*self.shared, io, self.router(), peer).await;
    }

    fn router(&self) -> Router {
        let router = Router::new().route(
            &self.shared.options.path,
            get(endpoint_get::<S>)
                .post(endpoint_post::<S>)
                .delete(endpoint_delete::<S>),
        );
        // An endpoint at the health path itself keeps it.
        let router = if self.shared.options.path == super::drain::HEALTH_PATH {
            router
        } else {
            router.route(super::drain::HEALTH_PATH, get(super::drain::health::<S>))
        };
        router.with_state(Arc::clone(&self.shared))
    }
}

/// `GET` on the endpoint: a WebSocket upgrade.
async fn endpoint_get<S: Service>(
    State(shared): State<Arc<Shared<S>>>,
    Extension(tcp): Extension<Arc<Tcp>>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let served = tcp.served();
    let principal = match shared.options.access.check(&headers) {
        Ok(principal) => principal,
        Err(refusal) => return refuse(&shared, refusal),
    };
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        // Not an upgrade: a Streamable HTTP event stream.
        Err(_) => return http::events(shared, headers, served, &principal).await,
    };
    if shared.lifecycle.is_draining() {
        return super::drain::refuse_draining();
    }
    let Some(slot) = shared
        .admit()
        .or_else(|| http_room::evict_for_socket(&shared))
    else {
        shared.logger.log(
            Level::Warn,
            format!(
                "refused a connection: {} are open already (the limit)",
                shared.options.max_connections
            ),
        );
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "this ACP server has as many connections as it accepts; try again later\n",
        )
            .into_response();
    };
    tcp.upgrade();
    let id = uuid::Uuid::new_v4().to_string();
    let limit = shared.options.max_message_bytes;
    let served = Arc::clone(&shared);
    let connection_id = id.clone();
    let mut response = upgrade
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| async move {
            serve_socket(&served, socket, &connection_id, principal).await;
            drop(slot);
        });
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(CONNECTION_ID_HEADER, value);
    }
    response
}

/// `POST` on the endpoint: a Streamable HTTP message. The access rules are checked before the
/// body is read; the body must arrive within the body timeout (408) and the message limit
/// (413).
async fn endpoint_post<S: Service>(
    State(shared): State<Arc<Shared<S>>>,
    Extension(tcp): Extension<Arc<Tcp>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let principal = match shared.options.access.check(&headers) {
        Ok(principal) => principal,
        Err(refusal) => return refuse(&shared, refusal),
    };
    // A new connection (an `initialize` without a connection id) while stopping.
    if shared.lifecycle.is_draining() && !headers.contains_key(CONNECTION_ID_HEADER) {
        return super::drain::refuse_draining();
    }
    let limit = shared.options.max_message_bytes;
    let receiving = tcp.receiving();
    let body = tokio::time::timeout(shared.options.body_timeout, to_bytes(body, limit)).await;
    drop(receiving);
    let _served = tcp.served();
    let body = match body {
        Ok(Ok(body)) => body,
        Ok(Err(error)) => {
            let too_big = std::error::Error::source(&error)
                .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
            return if too_big {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the body is over the message limit of {limit} bytes\n"),
                )
                    .into_response()
            } else {
                (
                    StatusCode::BAD_REQUEST,
                    format!("reading the body failed: {error}\n"),
                )
                    .into_response()
            };
        }
        Err(_) => {
            shared.logger.log(
                Level::Warn,
                format!(
                    "refused a request from {}: its body took longer than {} s (the body timeout)",
                    tcp.peer,
                    shared.options.body_timeout.as_secs_f64()
                ),
            );
            let mut response = (
                StatusCode::REQUEST_TIMEOUT,
                "the body took too long to arrive\n",
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
    };
    let client = tcp.client(&headers, &shared.options.trusted_proxies);
    http::post(shared, headers, body, client, principal).await
}

/// `DELETE` on the endpoint: ends a Streamable HTTP connection.
async fn endpoint_delete<S: Service>(
    State(shared): State<Arc<Shared<S>>>,
    Extension(tcp): Extension<Arc<Tcp>>,
    headers: HeaderMap,
) -> Response {
    let _served = tcp.served();
    match shared.options.access.check(&headers) {
        Ok(principal) => http::delete(shared, headers, &principal).await,
        Err(refusal) => refuse(&shared, refusal),
    }
}

/// Logs `refusal` and answers with it.
fn refuse<S>(shared: &Shared<S>, refusal: Refusal) -> Response {
    shared.logger.log(Level::Warn, refusal.describe());
    refusal.into_response()
}

/// Runs one connection that acts for `principal` on an accepted WebSocket until it ends.
async fn serve_socket<S: Service>(
    shared: &Shared<S>,
    socket: WebSocket,
    id: &str,
    principal: Principal,
) {
    shared
        .logger
        .log(Level::Debug, format!("WebSocket connection {id} opened"));
    let (sink, stream) = socket.split();
    let close = CloseReason::default();
    let reader = SocketReader::<_, ServerCodec>::new(
        stream,
        shared.options.max_message_bytes,
        shared.logger.clone(),
        Arc::clone(&close),
    );
    let writer =
        SocketWriter::<_, ServerCodec>::new(sink, shared.options.stall_timeout, Arc::clone(&close));
    let (reader, writer, pump, activity) = limits::guard(
        reader,
        writer,
        &shared.options,
        Arc::clone(&shared.sessions),
        shared.logger.clone(),
    );
    let handle = shared.service.start(reader, writer, principal);
    let run = async {
        pump.run().await;
        // The transport failed or the service is done: either way it ends now.
        handle.close();
        handle.closed().await;
    };
    let watchdog = async {
        let Some(timeout) = shared.options.idle_timeout else {
            return std::future::pending().await;
        };
        limits::idle(activity, timeout).await;
        let seconds = timeout.as_secs_f64();
        shared.logger.log(
            Level::Warn,
            format!(
                "WebSocket connection {id}: no message either way for {seconds} s (the idle timeout); closing it"
            ),
        );
        *lock(&close) = Some((
            CLOSE_GOING_AWAY,
            format!("idle for {seconds} s (the server's idle timeout)"),
        ));
        handle.close();
        std::future::pending::<()>().await;
    };
    let stopping = async {
        shared.lifecycle.closing().await;
        *lock(&close) = Some((CLOSE_GOING_AWAY, "the server is shutting down".to_owned()));
        handle.close();
        // `run` ends once the close frame is out.
        std::future::pending::<()>().await;
    };
    tokio::pin!(run);
    tokio::select! {
        () = &mut run => {}
        () = watchdog => {}
        () = stopping => {}
    }
    shared
        .logger
        .log(Level::Debug, format!("WebSocket connection {id} closed"));
}
