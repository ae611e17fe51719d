//! Reading the SQLite session database of `acp agent` (`STATE_DIR/sessions.sqlite3`) from a
//! test, read-only, while the agent may be writing it. Include it with
//! `#[path = "support/sessions_db.rs"] mod sessions_db;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

/// The database of state directory `dir`, read-only; `None` while it does not exist.
fn open(dir: &Path) -> Option<Connection> {
    let connection = Connection::open_with_flags(
        dir.join("sessions.sqlite3"),
        OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .ok()?;
    connection
        .busy_timeout(std::time::Duration::from_secs(5))
        .ok()?;
    Some(connection)
}

/// How many sessions the database of `dir` holds (0 without one).
pub fn sessions(dir: &Path) -> usize {
    open(dir)
        .and_then(|db| {
            db.query_row("SELECT COUNT(*) FROM acp_sessions", [], |row| {
                row.get::<_, i64>(0)
            })
            .ok()
        })
        .map_or(0, |count| usize::try_from(count).unwrap_or(0))
}

/// The most history entries of one session in the database of `dir` (0 without one).
pub fn most_entries(dir: &Path) -> usize {
    open(dir)
        .and_then(|db| {
            db.query_row(
                "SELECT COALESCE(MAX(next_seq), 0) FROM acp_sessions",
                [],
                |row| row.get::<_, i64>(0),
            )
            .ok()
        })
        .map_or(0, |count| usize::try_from(count).unwrap_or(0))
}

/// The owner stored for session `id` in the database of `dir` (`None`: the local user).
pub fn owner(dir: &Path, id: &str) -> Option<String> {
    open(dir)?
        .query_row(
            "SELECT owner FROM acp_sessions WHERE id = ?1",
            [id],
            |row| row.get(0),
        )
        .ok()?
}
