//! Serving an [`AgentServer`] to remote clients on one listener: WebSocket and Streamable
//! HTTP (see [`super::http`]) at one path (`/acp` by default).
//!
//! Every request is checked first: a browser `Origin` that is not allowed gets 403, a
//! missing or wrong bearer token 401 (see [`ServerOptions::token`]). A WebSocket upgrade
//! beyond [`ServerOptions::max_connections`] gets 503. An accepted upgrade answers 101 with
//! an `Acp-Connection-Id` header and carries one ACP connection until either side closes
//! the socket. All connections share the server's session store and open sessions, so a
//! client can reconnect and load its session.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{WebSocket, WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::StreamExt;
use tokio::net::TcpListener;

use super::access::Access;
use super::http;
use super::http_conn::HttpConnection;
use super::socket::{CloseReason, SocketReader, SocketWriter};
use super::tls::{self, TlsIdentity};
use super::{CONNECTION_ID_HEADER, ServerCodec};
use crate::agent::{Agent, AgentServer};
use crate::log::{Level, Logger};

/// The default path of the ACP endpoint.
pub const DEFAULT_PATH: &str = "/acp";
/// The default limit on one incoming message: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The default number of connections served at the same time.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// How long a peer may leave written messages unread, by default, before it is
/// disconnected.
pub const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Options of a [`RemoteServer`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ServerOptions {
    path: String,
    access: Access,
    pub(crate) max_message_bytes: usize,
    max_connections: usize,
    pub(crate) stall_timeout: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            path: DEFAULT_PATH.to_owned(),
            access: Access::default(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            stall_timeout: DEFAULT_STALL_TIMEOUT,
        }
    }
}

impl ServerOptions {
    /// The defaults: path `/acp`, no token, no browser origin allowed, 16 MiB messages, 256
    /// connections, 30 s stall timeout.
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
    /// time); others get 401.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.access.token = Some(token.into());
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

    /// How many connections may be open at once (default 256); further upgrades get 503.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long a write to a peer may wait (default 30 s): a peer that stops reading is
    /// disconnected after it, so what is buffered for it stays bounded.
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }
}

/// What every request handler shares.
pub(crate) struct Shared<A> {
    pub(crate) agent: AgentServer<A>,
    pub(crate) options: ServerOptions,
    open: Arc<AtomicUsize>,
    pub(crate) logger: Logger,
    /// The Streamable HTTP connections, by connection id.
    pub(crate) http: Mutex<HashMap<String, Arc<HttpConnection>>>,
}

/// A taken connection slot, given back when dropped.
pub(crate) struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl<A> Shared<A> {
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

/// An [`AgentServer`] served to remote clients (see the module docs).
pub struct RemoteServer<A> {
    shared: Arc<Shared<A>>,
}

impl<A> Clone for RemoteServer<A> {
    /// Another handle to the same server (the same limits and counters).
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<A> std::fmt::Debug for RemoteServer<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteServer")
            .field("options", &self.shared.options)
            .field("open", &self.shared.open.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<A: Agent> RemoteServer<A> {
    /// Serves `agent` with `options`; refusals and failures go to the agent's connection
    /// logger.
    pub fn new(agent: AgentServer<A>, options: ServerOptions) -> Self {
        let logger = agent.connection_builder().get_logger().clone();
        Self {
            shared: Arc::new(Shared {
                agent,
                options,
                open: Arc::new(AtomicUsize::new(0)),
                logger,
                http: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// How many connections are open now.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::Acquire)
    }

    /// Serves connections accepted on `listener` until accepting fails.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        self.serve_until(listener, std::future::pending()).await
    }

    /// Serves connections accepted on `listener` until `shutdown` resolves; then it stops
    /// accepting (open WebSocket connections run on until they end).
    pub async fn serve_until(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        axum::serve(listener, self.router())
            .with_graceful_shutdown(shutdown)
            .await
    }

    /// Serves connections accepted on `listener` over TLS with `identity` (`wss://`,
    /// `https://`; ALPN offers `h2` and `http/1.1`) until `shutdown` resolves.
    pub async fn serve_tls_until(
        self,
        listener: TcpListener,
        identity: TlsIdentity,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        let logger = self.shared.logger.clone();
        tls::serve(self.router(), listener, identity, shutdown, logger).await
    }

    fn router(&self) -> Router {
        Router::new()
            .route(
                &self.shared.options.path,
                get(endpoint_get::<A>)
                    .post(endpoint_post::<A>)
                    .delete(endpoint_delete::<A>),
            )
            .layer(DefaultBodyLimit::max(self.shared.options.max_message_bytes))
            .with_state(Arc::clone(&self.shared))
    }
}

/// `GET` on the endpoint: a WebSocket upgrade.
async fn endpoint_get<A: Agent>(
    State(shared): State<Arc<Shared<A>>>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    if let Err(refusal) = shared.options.access.check(&headers) {
        shared.logger.log(Level::Warn, refusal.describe());
        return refusal.into_response();
    }
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        // Not an upgrade: a Streamable HTTP event stream.
        Err(_) => return http::events(shared, headers).await,
    };
    let Some(slot) = shared.admit() else {
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
    let id = uuid::Uuid::new_v4().to_string();
    let limit = shared.options.max_message_bytes;
    let served = Arc::clone(&shared);
    let connection_id = id.clone();
    let mut response = upgrade
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| async move {
            serve_socket(&served, socket, &connection_id).await;
            drop(slot);
        });
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(CONNECTION_ID_HEADER, value);
    }
    response
}

/// `POST` on the endpoint: a Streamable HTTP message.
async fn endpoint_post<A: Agent>(
    State(shared): State<Arc<Shared<A>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(refusal) = shared.options.access.check(&headers) {
        shared.logger.log(Level::Warn, refusal.describe());
        return refusal.into_response();
    }
    http::post(shared, headers, body).await
}

/// `DELETE` on the endpoint: ends a Streamable HTTP connection.
async fn endpoint_delete<A: Agent>(
    State(shared): State<Arc<Shared<A>>>,
    headers: HeaderMap,
) -> Response {
    if let Err(refusal) = shared.options.access.check(&headers) {
        shared.logger.log(Level::Warn, refusal.describe());
        return refusal.into_response();
    }
    http::delete(shared, headers).await
}

/// Runs one ACP connection on an accepted WebSocket until it ends.
async fn serve_socket<A: Agent>(shared: &Shared<A>, socket: WebSocket, id: &str) {
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
    let writer = SocketWriter::<_, ServerCodec>::new(sink, shared.options.stall_timeout, close);
    let _ = shared.agent.serve_transport(reader, writer).await;
    shared
        .logger
        .log(Level::Debug, format!("WebSocket connection {id} closed"));
}
