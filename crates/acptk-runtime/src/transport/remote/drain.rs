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
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::context::Shared;
use super::service::Service;
use crate::lock::lock;
use crate::log::Level;

/// The path of the health endpoint.
pub const HEALTH_PATH: &str = "/health";

/// How long, by default, running turns get to end when the server stops (defined with the
/// other defaults in `options.rs`).
pub use super::options::DEFAULT_DRAIN_GRACE;

/// How long the closed connections get to go before the server stops listening.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

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
    shared.lifecycle.start_draining();
    let grace = shared.options.drain_grace;
    shared.logger.log(
        Level::Debug,
        format!(
            "shutting down: no new connections; running turns get {} s",
            grace.as_secs_f64()
        ),
    );
    shared.service.drain(grace).await;
    shared.lifecycle.close_all();
    let http: Vec<_> = lock(&shared.http).values().cloned().collect();
    for connection in http {
        connection.close();
    }
    let deadline = tokio::time::Instant::now() + CLOSE_WAIT;
    while shared.open_count() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
