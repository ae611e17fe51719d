//! Accepting TCP connections, before anything is authenticated: the accept loop, TLS, and
//! the rules that keep clients that send nothing, or send slowly, from using the server up.
//!
//! A TCP connection is **waiting** while it has no whole request being served: from the
//! accept until its first request has arrived (the head, and for a `POST` the body), and
//! again between requests. [`ServerOptions::max_connections`](super::ServerOptions::max_connections)
//! bounds the waiting connections as it bounds the ACP connections (WebSocket and Streamable
//! HTTP), each on its own count, so that clients that send nothing cannot keep others from
//! being served, nor use up the process's file descriptors:
//!
//! * A connection that arrives while as many are waiting closes the one that has waited
//!   longest to make room (logged).
//! * A connection that waits longer than the header timeout (for its first request, or
//!   between two) is closed (logged when it had sent no request); so is one whose request
//!   body takes longer than the body timeout (the request gets 408).
//!
//! A served request (a WebSocket upgrade, an event stream, a post being handled) is not
//! waiting; a connection upgraded to a WebSocket is an ACP connection from then on.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use axum::{Extension, Router};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use super::forwarded::{self, TrustedProxy};
use crate::lock::lock;
use crate::log::{Level, Logger};

/// How long a client may take for the TLS handshake (it counts as waiting meanwhile).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// One accepted TCP connection, as the request handlers see it (an extension of each of its
/// requests).
#[derive(Debug)]
pub(crate) struct Tcp {
    id: u64,
    /// Where it comes from.
    pub(crate) peer: SocketAddr,
    /// The client's address a trusted balancer's PROXY line named.
    proxied: OnceLock<SocketAddr>,
    state: Mutex<TcpState>,
    /// Set to close the connection.
    close: watch::Sender<Option<&'static str>>,
}

#[derive(Debug)]
struct TcpState {
    /// Requests being served.
    busy: usize,
    /// Request bodies being read.
    receiving: usize,
    /// Since when it waits (or since when it reads a body).
    since: Instant,
    /// Requests served so far.
    served: u64,
    /// Upgraded to a WebSocket: an ACP connection now.
    upgraded: bool,
    /// Told to close: no longer counted.
    closing: bool,
}

impl TcpState {
    fn waiting(&self) -> bool {
        self.busy == 0 && !self.upgraded && !self.closing
    }
}

/// Marks a request as served (not waiting) until dropped.
#[derive(Debug)]
pub(crate) struct Served(Arc<Tcp>);

/// Marks a request body as being read until dropped.
#[derive(Debug)]
pub(crate) struct Receiving(Arc<Tcp>);

impl Tcp {
    /// The client's address for a request with `headers`: the one a trusted balancer named
    /// (its PROXY line, else its `X-Forwarded-For`) when the peer is one of `trusted`, else
    /// the peer's (see [`forwarded`]).
    pub(crate) fn client(&self, headers: &HeaderMap, trusted: &[TrustedProxy]) -> IpAddr {
        if !forwarded::is_trusted(trusted, self.peer.ip()) {
            return self.peer.ip();
        }
        if let Some(proxied) = self.proxied.get() {
            return proxied.ip();
        }
        forwarded::forwarded_for(headers).unwrap_or(self.peer.ip())
    }

    /// A request of this connection is being served until the returned guard drops.
    pub(crate) fn served(self: &Arc<Self>) -> Served {
        let mut state = lock(&self.state);
        state.busy += 1;
        state.served += 1;
        Served(Arc::clone(self))
    }

    /// A request body of this connection is being read until the returned guard drops (the
    /// body timeout runs from now).
    pub(crate) fn receiving(self: &Arc<Self>) -> Receiving {
        let mut state = lock(&self.state);
        state.receiving += 1;
        state.since = Instant::now();
        Receiving(Arc::clone(self))
    }

    /// The connection is being upgraded to a WebSocket.
    pub(crate) fn upgrade(&self) {
        lock(&self.state).upgraded = true;
    }

    /// Tells the connection to close, for `why` (logged by its task).
    fn close(&self, why: &'static str) {
        lock(&self.state).closing = true;
        self.close.send_replace(Some(why));
    }

    /// Takes back a close that came too late: a request of this connection began to be
    /// served after it was chosen as the one waiting longest (its keep-alive request was on
    /// its way). Says whether it did; the connection then counts as waiting again once idle.
    fn keep_if_busy(&self) -> bool {
        let mut state = lock(&self.state);
        if state.busy == 0 {
            return false;
        }
        state.closing = false;
        self.close.send_replace(None);
        true
    }

    /// When the connection has waited (or read a body) too long, by `timeouts`; `None` while
    /// a request is served.
    fn deadline(&self, timeouts: &Timeouts) -> Option<Instant> {
        let state = lock(&self.state);
        if state.busy > 0 || state.upgraded {
            None
        } else if state.receiving > 0 {
            Some(state.since + timeouts.body)
        } else {
            Some(state.since + timeouts.header)
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let mut state = lock(&self.0.state);
        state.busy = state.busy.saturating_sub(1);
        if state.busy == 0 {
            state.since = Instant::now();
        }
    }
}

impl Drop for Receiving {
    fn drop(&mut self) {
        let mut state = lock(&self.0.state);
        state.receiving = state.receiving.saturating_sub(1);
        state.since = Instant::now();
    }
}

/// The two timeouts of a waiting connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    /// For a request head (and between requests).
    pub(crate) header: Duration,
    /// For a request body.
    pub(crate) body: Duration,
}

/// The accepted TCP connections of one server.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    connections: Mutex<HashMap<u64, Arc<Tcp>>>,
    next: AtomicU64,
}

impl Gate {
    /// How many connections are waiting.
    pub(crate) fn waiting(&self) -> usize {
        lock(&self.connections)
            .values()
            .filter(|tcp| lock(&tcp.state).waiting())
            .count()
    }

    /// Registers a connection accepted from `peer`, first making room for it when `max`
    /// are waiting, by closing the one that has waited longest (logged); also says whether
    /// it did.
    fn admit(&self, peer: SocketAddr, max: usize, logger: &Logger) -> (Arc<Tcp>, bool) {
        let mut connections = lock(&self.connections);
        let mut evicted = false;
        let waiting: Vec<&Arc<Tcp>> = connections
            .values()
            .filter(|tcp| lock(&tcp.state).waiting())
            .collect();
        if waiting.len() >= max {
            let oldest = waiting.into_iter().min_by_key(|tcp| lock(&tcp.state).since);
            if let Some(oldest) = oldest {
                logger.log(
                    Level::Warn,
                    format!(
                        "closed the connection from {} that waited longest without a whole request: {max} connections are waiting (the limit)",
                        oldest.peer
                    ),
                );
                oldest.close("the server has as many waiting connections as it allows");
                evicted = true;
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let tcp = Arc::new(Tcp {
            id,
            peer,
            proxied: OnceLock::new(),
            state: Mutex::new(TcpState {
                busy: 0,
                receiving: 0,
                since: Instant::now(),
                served: 0,
                upgraded: false,
                closing: false,
            }),
            close: watch::Sender::new(None),
        });
        connections.insert(id, Arc::clone(&tcp));
        (tcp, evicted)
    }

    fn remove(&self, id: u64) {
        lock(&self.connections).remove(&id);
    }
}

/// What the accept loop needs of the server.
pub(crate) trait Admit: Send + Sync + 'static {
    /// The gate of the server's TCP connections.
    fn gate(&self) -> &Gate;
    /// How many connections may wait at once.
    fn max_waiting(&self) -> usize;
    /// The timeouts of waiting connections.
    fn timeouts(&self) -> Timeouts;
    /// Where refusals go.
    fn logger(&self) -> &Logger;
    /// The balancers whose PROXY lines are read.
    fn trusted_proxies(&self) -> &[TrustedProxy];
}

/// Accepts connections on `listener` (over TLS with `tls`) and serves `router` on each,
/// until `shutdown` resolves; connections being served then run on until they end.
pub(crate) async fn run<A: Admit>(
    server: Arc<A>,
    router: Router,
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return Ok(()),
        };
        let (mut tcp, peer) = match accepted {
            Ok(pair) => pair,
            Err(error) => {
                // Out of descriptors and the like: wait a little rather than spin.
                server.logger().log(
                    Level::Warn,
                    format!("accepting a connection failed: {error}"),
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let (record, evicted) = server
            .gate()
            .admit(peer, server.max_waiting(), server.logger());
        if evicted {
            // Let the closed connection's task give its descriptor back before the next
            // accept (a flood must not use them all up).
            tokio::task::yield_now().await;
        }
        let server = Arc::clone(&server);
        let router = router.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            if forwarded::is_trusted(server.trusted_proxies(), peer.ip()) {
                let timeout = server.timeouts().header;
                match forwarded::read_proxy_line(&mut tcp, timeout).await {
                    Ok(Some(client)) => {
                        let _ = record.proxied.set(client);
                    }
                    Ok(None) => {}
                    Err(error) => {
                        server.logger().log(
                            Level::Warn,
                            format!("closed the connection from the balancer {peer}: {error}"),
                        );
                        server.gate().remove(record.id);
                        return;
                    }
                }
            }
            match tls {
                None => serve(&*server, tcp, router, &record).await,
                Some(acceptor) => {
                    let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp));
                    let mut closing = record.close.subscribe();
                    let tls = tokio::select! {
                        tls = handshake => tls,
                        _ = closing.wait_for(Option::is_some) => Ok(Err(io::Error::other("closed"))),
                    };
                    match tls {
                        Ok(Ok(tls)) => serve(&*server, tls, router, &record).await,
                        Ok(Err(error)) => server.logger().log(
                            Level::Debug,
                            format!("TLS handshake with {peer} failed: {error}"),
                        ),
                        Err(_) => server.logger().log(
                            Level::Warn,
                            format!(
                                "closed the connection from {peer}: no TLS handshake within {} s",
                                HANDSHAKE_TIMEOUT.as_secs()
                            ),
                        ),
                    }
                }
            }
            server.gate().remove(record.id);
        });
    }
}

/// Serves `router` on one connection from `peer`, counted among the server's connections.
pub(crate) async fn serve_one<A: Admit + ?Sized, IO>(
    server: &A,
    io: IO,
    router: Router,
    peer: SocketAddr,
) where
    IO: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (record, _) = server
        .gate()
        .admit(peer, server.max_waiting(), server.logger());
    serve(server, io, router, &record).await;
    server.gate().remove(record.id);
}

/// Serves `router` on one connection until it ends, is told to close, or waits too long.
async fn serve<A: Admit + ?Sized, IO>(server: &A, io: IO, router: Router, tcp: &Arc<Tcp>)
where
    IO: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let timeouts = server.timeouts();
    let service = TowerToHyperService::new(router.layer(Extension(Arc::clone(tcp))));
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(timeouts.header);
    builder.http2().timer(TokioTimer::new());
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(io), service);
    tokio::pin!(connection);
    let mut closing = tcp.close.subscribe();
    let why = loop {
        let deadline = tcp.deadline(&timeouts);
        let expired = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline.into()).await,
                // Served: look again in a while.
                None => tokio::time::sleep(timeouts.header).await,
            }
        };
        tokio::select! {
            _ = &mut connection => return,
            why = closing.wait_for(Option::is_some) => {
                let why = why.ok().and_then(|why| *why);
                if tcp.keep_if_busy() {
                    continue;
                }
                break why;
            }
            () = expired => {
                if tcp.deadline(&timeouts).is_some_and(|deadline| deadline <= Instant::now()) {
                    break None;
                }
            }
        }
    };
    let peer = tcp.peer;
    let (served, receiving) = {
        let state = lock(&tcp.state);
        (state.served, state.receiving)
    };
    match why {
        Some(why) => server
            .logger()
            .log(Level::Debug, format!("closed the connection from {peer}: {why}")),
        None if receiving > 0 => server.logger().log(
            Level::Warn,
            format!(
                "closed the connection from {peer}: a request body took longer than {} s (the body timeout)",
                timeouts.body.as_secs_f64()
            ),
        ),
        // An idle connection between requests: nothing to report.
        None if served > 0 => server.logger().log(
            Level::Debug,
            format!("closed the idle connection from {peer}"),
        ),
        None => server.logger().log(
            Level::Warn,
            format!(
                "closed the connection from {peer}: no whole request within {} s (the header timeout)",
                timeouts.header.as_secs_f64()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate_with(count: usize) -> (Gate, Vec<Arc<Tcp>>) {
        let gate = Gate::default();
        let logger = Logger::none();
        let peer: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let tcps = (0..count)
            .map(|_| gate.admit(peer, usize::MAX, &logger).0)
            .collect();
        (gate, tcps)
    }

    /// The connection chosen to make room is the idle one that waited longest; if a request
    /// of it began before its task saw the close, it is kept (and counts as waiting again
    /// when idle).
    #[test]
    fn a_close_that_comes_after_a_request_began_is_taken_back() {
        let (gate, tcps) = gate_with(2);
        let logger = Logger::none();
        let peer: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let (_third, evicted) = gate.admit(peer, 2, &logger);
        assert!(evicted);
        let chosen = tcps
            .iter()
            .find(|tcp| tcp.close.borrow().is_some())
            .expect("one was told to close");
        assert!(!chosen.keep_if_busy(), "idle: the close stands");
        let served = chosen.served();
        assert!(
            chosen.keep_if_busy(),
            "a request began: the close is taken back"
        );
        assert!(chosen.close.borrow().is_none());
        drop(served);
        assert!(
            lock(&chosen.state).waiting(),
            "idle again: it may be chosen again"
        );
    }
}
