//! A remote endpoint's life as a load balancer sees it: `GET /health`, and the drain when
//! the server is asked to stop.
//!
//! `GET /health` needs no token and does no work: `200 {"status":"ready"}` while the server
//! takes connections, `503 {"status":"draining"}` once it is stopping (a balancer's health
//! check then sends new clients elsewhere). When the shutdown future given to
//! [`Endpoint::serve_until`](super::Endpoint::serve_until) resolves, the server:
//!
//! 1. answers new connections (WebSocket upgrades, HTTP `initialize`) with 503 and
//!    `/health` with `draining`, while it keeps listening;
//! 2. drains the service ([`Service::drain`]): an agent server lets running turns end for the
//!    grace period ([`ServerOptions::drain_grace`](super::ServerOptions::drain_grace)),
//!    cancels the rest, and gives up its session leases;
//! 3. closes every connection (WebSocket close code 1001, HTTP event streams end), waits a
//!    moment for them to go, and stops listening.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::watch;

use super::server::Shared;
use super::service::Service;
use crate::lock::lock;
use crate::log::Level;

/// The path of the health endpoint.
pub const HEALTH_PATH: &str = "/health";

/// How long, by default, running turns get to end when the server stops.
pub const DEFAULT_DRAIN_GRACE: Duration = Duration::from_secs(10);

/// How long the closed connections get to go before the server stops listening.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Whether the server is stopping, and the signal that closes every connection.
#[derive(Debug)]
pub(crate) struct Lifecycle {
    draining: AtomicBool,
    closing: watch::Sender<bool>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Self {
            draining: AtomicBool::new(false),
            closing: watch::channel(false).0,
        }
    }
}

impl Lifecycle {
    /// Whether the server takes no new connection.
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// Resolves when every connection is to close.
    pub(crate) async fn closing(&self) {
        let mut closing = self.closing.subscribe();
        let _ = closing.wait_for(|closing| *closing).await;
    }
}

/// The answer to a new connection while the server is stopping.
pub(crate) fn refuse_draining() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "this ACP server is shutting down; connect again (behind a load balancer, another instance answers)\n",
    )
        .into_response()
}

/// `GET /health`.
pub(crate) async fn health<S: Service>(State(shared): State<Arc<Shared<S>>>) -> Response {
    let (status, body) = if shared.lifecycle.is_draining() {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "{\"status\":\"draining\"}\n",
        )
    } else {
        (StatusCode::OK, "{\"status\":\"ready\"}\n")
    };
    (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

/// Waits for `shutdown`, then drains and closes everything (see the module documentation);
/// resolves when the server may stop listening.
pub(crate) async fn after<S: Service>(
    shared: Arc<Shared<S>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    shutdown.await;
    shared.lifecycle.draining.store(true, Ordering::Release);
    let grace = shared.options.drain_grace;
    shared.logger.log(
        Level::Debug,
        format!(
            "shutting down: no new connections; running turns get {} s",
            grace.as_secs_f64()
        ),
    );
    shared.service.drain(grace).await;
    shared.lifecycle.closing.send_replace(true);
    let http: Vec<_> = lock(&shared.http).values().cloned().collect();
    for connection in http {
        connection.close();
    }
    let deadline = tokio::time::Instant::now() + CLOSE_WAIT;
    while shared.open_count() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
