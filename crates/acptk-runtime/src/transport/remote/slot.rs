//! A remote endpoint's connection slots: one taken per open connection, up to
//! `ServerOptions::max_connections`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A taken connection slot, given back when dropped.
pub(crate) struct Slot(pub(super) Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
