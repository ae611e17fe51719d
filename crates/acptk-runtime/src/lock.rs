//! Locking a standard mutex whatever happened to a previous holder.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, taking the data over when a thread panicked while holding it: the runtime's
/// mutexes guard plain bookkeeping that stays consistent between statements, so a poisoned
/// lock is no reason to fail every later call.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
