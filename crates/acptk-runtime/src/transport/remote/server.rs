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

use super::accept::{self, Gate, Tcp};
use super::access::Refusal;
use super::context::Shared;
use super::http;
use super::http_room;
use super::lifecycle::Lifecycle;
use super::limits;
use super::options::DEFAULT_IDLE_TIMEOUT;
use super::options::ServerOptions;
use super::service::{Service, ServiceHandle};
use super::sessions::SessionTable;
use super::socket::{CLOSE_GOING_AWAY, CloseReason, SocketReader, SocketWriter};
use super::tls::TlsIdentity;
use super::{CONNECTION_ID_HEADER, ServerCodec};
use crate::lock::lock;
use crate::log::Level;
use crate::principal::Principal;

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
                lifecycle: Lifecycle::default(),
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
