//! What every request handler of a remote endpoint shares: the service, the options, the open
//! connections and sessions, and whether the endpoint is stopping.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::accept::{Admit, Gate, Timeouts};
use super::forwarded::TrustedProxy;
use super::http_conn::HttpConnection;
use super::lifecycle::Lifecycle;
use super::options::ServerOptions;
use super::sessions::SessionTable;
use super::slot::Slot;
use crate::log::Logger;

/// What every request handler shares.
pub(crate) struct Shared<S> {
    pub(crate) service: S,
    pub(crate) options: ServerOptions,
    pub(super) open: Arc<AtomicUsize>,
    pub(crate) logger: Logger,
    /// The Streamable HTTP connections, by connection id.
    pub(crate) http: Mutex<HashMap<String, Arc<HttpConnection>>>,
    /// The sessions open across all connections.
    pub(crate) sessions: Arc<SessionTable>,
    /// The accepted TCP connections.
    pub(super) gate: Gate,
    /// Whether the server is stopping (see [`super::drain`]).
    pub(crate) lifecycle: Lifecycle,
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
