//! Incoming messages the connection skips: each is counted ([`Connection::bad_lines`]) and
//! logged, and answered with an error when it had an id.

use std::sync::atomic::Ordering;

use acptk_schema::jsonrpc::{ErrorObject, Id};

use super::Connection;
use crate::log::Level;

/// Counts and logs an incoming message that was skipped; `what` says what it was and why.
pub(super) fn skipped(connection: &Connection, what: String) {
    connection
        .shared
        .stats
        .bad_lines
        .fetch_add(1, Ordering::Relaxed);
    connection
        .logger()
        .log(Level::Warn, format!("skipped {what}"));
}

/// Skips a message and answers it with `error`.
pub(super) async fn bad_message(connection: &Connection, id: Id, error: ErrorObject) {
    skipped(
        connection,
        format!("an incoming message: {}", error.message),
    );
    let _ = connection.respond(id, Err(error)).await;
}
