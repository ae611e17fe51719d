//! The SQLite store's schema and its versioned migrations.
//!
//! `acp_store_schema` lists the migrations applied, one row per version. Opening a store
//! applies the missing ones in order, in one write transaction (`BEGIN IMMEDIATE`, so that
//! processes opening the same file at once take turns), and refuses a database whose newest
//! version is newer than this build knows.
//!
//! Version 1:
//! * `acp_sessions`: one row per session: the metadata columns of
//!   [`MetaRow`](super::super::encoding::MetaRow), the history's next sequence number and
//!   size in bytes, and the lease (`lease_holder`, `lease_until_ms`, Unix milliseconds).
//! * `acp_history`: one row per history entry: `(session_id, seq)` and the entry's JSON.

use rusqlite::{Connection, TransactionBehavior};

use super::super::StoreError;
use super::failed;

/// Every migration, oldest first: (version, SQL).
const MIGRATIONS: &[(i64, &str)] = &[(
    1,
    "CREATE TABLE acp_sessions (
        id TEXT PRIMARY KEY NOT NULL,
        protocol_version INTEGER NOT NULL,
        cwd TEXT NOT NULL,
        additional_directories TEXT NOT NULL,
        title TEXT,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        mode TEXT,
        config TEXT NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        owner TEXT,
        next_seq INTEGER NOT NULL DEFAULT 0,
        history_bytes INTEGER NOT NULL DEFAULT 0,
        lease_holder TEXT,
        lease_until_ms INTEGER
    );
    CREATE INDEX acp_sessions_by_owner ON acp_sessions (owner);
    CREATE TABLE acp_history (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;",
)];

/// The newest schema version this build knows.
pub(super) fn newest() -> i64 {
    MIGRATIONS.last().map_or(0, |(version, _)| *version)
}

/// Brings the database up to [`newest`]; `place` names it in errors.
pub(super) fn migrate(connection: &mut Connection, place: &str) -> Result<(), StoreError> {
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(failed("", "starting the schema migration"))?;
    transaction
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS acp_store_schema (
                version INTEGER PRIMARY KEY NOT NULL,
                applied_at_ms INTEGER NOT NULL
            );",
        )
        .map_err(failed("", "creating the schema table"))?;
    let current: i64 = transaction
        .query_row(
            "SELECT COALESCE(MAX(version), 0) FROM acp_store_schema",
            [],
            |row| row.get(0),
        )
        .map_err(failed("", "reading the schema version"))?;
    StoreError::check_schema(place, current, newest())?;
    for (version, sql) in MIGRATIONS.iter().filter(|(version, _)| *version > current) {
        transaction
            .execute_batch(sql)
            .map_err(failed("", "migrating the schema"))?;
        transaction
            .execute(
                "INSERT INTO acp_store_schema (version, applied_at_ms) VALUES (?1, ?2)",
                (version, super::now_ms()),
            )
            .map_err(failed("", "recording the schema version"))?;
    }
    transaction
        .commit()
        .map_err(failed("", "committing the schema migration"))
}
