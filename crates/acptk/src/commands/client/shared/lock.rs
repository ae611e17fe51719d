//! Locking the models that the client's tasks share.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks a shared model, also after a panic elsewhere (the data is only ever read or
/// appended to, so it stays usable).
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
