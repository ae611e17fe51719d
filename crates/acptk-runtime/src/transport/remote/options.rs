//! The options of a remote endpoint ([`ServerOptions`]) and their defaults.

use std::time::Duration;

use super::access::Access;
use super::forwarded::TrustedProxy;
use crate::principal::Principal;

/// The default path of the ACP endpoint.
pub const DEFAULT_PATH: &str = "/acp";
/// The name of the principal that [`ServerOptions::token`] serves.
pub const DEFAULT_PRINCIPAL: &str = "default";
/// How long, by default, running turns get to end when the server stops.
pub const DEFAULT_DRAIN_GRACE: Duration = Duration::from_secs(10);
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

/// Options of an [`Endpoint`](super::Endpoint).
#[derive(Debug, Clone)]
#[must_use]
pub struct ServerOptions {
    pub(super) path: String,
    pub(super) access: Access,
    pub(crate) max_message_bytes: usize,
    pub(super) max_connections: usize,
    pub(crate) stall_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(super) max_total_sessions: usize,
    pub(crate) max_queued_bytes: usize,
    pub(crate) idle_timeout: Option<Duration>,
    pub(super) header_timeout: Duration,
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
            drain_grace: DEFAULT_DRAIN_GRACE,
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
