//! Whether a remote endpoint is stopping, and the signal that closes its connections (the
//! drain itself is in `drain.rs`).

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

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

    /// From now on the server takes no new connection.
    pub(crate) fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Tells every connection to close.
    pub(crate) fn close_all(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves when every connection is to close.
    pub(crate) async fn closing(&self) {
        let mut closing = self.closing.subscribe();
        let _ = closing.wait_for(|closing| *closing).await;
    }
}
