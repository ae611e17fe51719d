//! The web inspector of `acp inspect ui`: an HTTP server on a loopback port that serves a page
//! (plain HTML, CSS and JavaScript modules, embedded in the binary) and a JSON API over the
//! [query API](crate::query), plus a feed of server-sent events for live captures.
//!
//! Nothing is reachable without the token printed in the URL. A browser's first visit with
//! `?token=...` sets a cookie (`HttpOnly`, `SameSite=Strict`) and redirects to the same page
//! without it; every later request carries the cookie. Scripts send the token in a header,
//! `Authorization: Bearer TOKEN`, on any route (`curl -H "Authorization: Bearer $TOKEN"
//! http://127.0.0.1:PORT/api/captures`); a request with `?token=` that is not a browser's page
//! load (`curl "$URL"`) is answered directly, without the cookie and the redirect. A request
//! without the token gets 401 with `WWW-Authenticate: Bearer`. A request whose `Host` is not the
//! address served (a DNS-rebinding page, answered 421), or whose `Origin` is another site
//! (or whose `Sec-Fetch-Site` is `cross-site`, answered 403), is refused whatever its token.
//! Every answer carries a content security policy that allows the page's own files only.

mod api;
mod assets;
mod guard;
mod live;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::get;

use crate::Store;
use crate::error::{Error, Result};
use crate::query::Clusters;

/// A running inspector's shared state.
struct Shared {
    store: Mutex<Store>,
    /// The timeline's folded rows, per capture (id, start).
    clusters: Mutex<HashMap<(i64, i64), Clusters>>,
    token: String,
    hosts: Vec<String>,
    cookie: String,
    live: tokio::sync::watch::Receiver<u64>,
}

/// An inspector bound to its port, not yet serving.
#[derive(Debug)]
pub struct Inspector {
    listener: tokio::net::TcpListener,
    addr: SocketAddr,
    token: String,
    db: std::path::PathBuf,
}

impl Inspector {
    /// Binds `addr` (port 0: any free port) for the database at `db` (opened, created or
    /// upgraded when serving starts) with a new random token. An unspecified address
    /// (`0.0.0.0`, `::`) is refused: requests are accepted only for the address served (see
    /// the module docs), so it must be one a browser can name.
    pub async fn bind(db: &Path, addr: SocketAddr) -> Result<Inspector> {
        if addr.ip().is_unspecified() {
            return Err(Error::Invalid(format!(
                "{}: name the address to serve on (the inspector answers only requests for it), not an unspecified one",
                addr.ip()
            )));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| Error::Io {
                path: format!("{addr}").into(),
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| Error::Io {
            path: format!("{addr}").into(),
            source,
        })?;
        Ok(Inspector {
            listener,
            addr,
            token: guard::new_token()?,
            db: db.to_owned(),
        })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL to open: the page with its token.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }

    /// Serves until `stop` completes.
    pub async fn serve(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        let store = Store::open(&self.db)?;
        let watcher = Store::open(&self.db)?;
        let (live, stop_live) = live::watch(watcher);
        let shared = Arc::new(Shared {
            store: Mutex::new(store),
            clusters: Mutex::new(HashMap::new()),
            token: self.token,
            hosts: guard::hosts(self.addr),
            cookie: format!("acptk_inspect_{}", self.addr.port()),
            live,
        });
        let app = Router::new()
            .route("/", get(assets::index))
            .route("/assets/{name}", get(assets::asset))
            .route("/api/captures", get(api::captures))
            .route("/api/captures/{id}", get(api::capture))
            .route("/api/captures/{id}/rows", get(api::rows))
            .route("/api/captures/{id}/locate", get(api::locate))
            .route("/api/captures/{id}/frames", get(api::frames))
            .route("/api/captures/{id}/frames/{seq}", get(api::frame))
            .route("/api/captures/{id}/findings", get(api::findings))
            .route("/api/captures/{id}/notices", get(api::notices))
            .route("/api/captures/{id}/info", get(api::info))
            .route("/api/captures/{id}/latency", get(api::latency))
            .route("/api/diff", get(api::diff))
            .route("/api/search", get(api::search))
            .route("/api/events", get(live::events))
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&shared),
                guard::check,
            ))
            .with_state(shared);
        // On the way out, the poller stops, which ends every page's event stream (a graceful
        // shutdown waits for the open connections).
        let stopping = async move {
            stop.await;
            stop_live.send_replace(true);
        };
        axum::serve(self.listener, app)
            .with_graceful_shutdown(stopping)
            .await
            .map_err(|source| Error::Io {
                path: format!("{}", self.addr).into(),
                source,
            })
    }
}
