//! The PostgreSQL store's schema and its versioned migrations, in the connection's current
//! schema (the first of its `search_path`; `public` by default).
//!
//! `acp_store_schema` lists the migrations applied, one row per version. Connecting applies
//! the missing ones in order, in one transaction that holds an advisory lock, so that
//! instances starting at the same moment take turns; a database whose newest version is
//! newer than this build knows is refused.
//!
//! Version 1:
//! * `acp_sessions`: one row per session: the metadata columns of
//!   [`MetaRow`](super::super::encoding::MetaRow), the history's next sequence number and
//!   size in bytes, and the lease (`lease_holder`, `lease_until`, by the database's clock).
//! * `acp_history`: one row per history entry: `(session_id, seq)` and the entry's JSON;
//!   deleted with its session.

use tokio_postgres::Client;

use super::super::StoreError;
use super::failed;

/// Every migration, oldest first: (version, SQL).
const MIGRATIONS: &[(i64, &str)] = &[(
    1,
    "CREATE TABLE acp_sessions (
        id TEXT PRIMARY KEY,
        protocol_version INTEGER NOT NULL,
        cwd TEXT NOT NULL,
        additional_directories TEXT NOT NULL,
        title TEXT,
        created_at_ms BIGINT NOT NULL,
        updated_at_ms BIGINT NOT NULL,
        mode TEXT,
        config TEXT NOT NULL,
        archived BOOLEAN NOT NULL DEFAULT FALSE,
        owner TEXT,
        next_seq BIGINT NOT NULL DEFAULT 0,
        history_bytes BIGINT NOT NULL DEFAULT 0,
        lease_holder TEXT,
        lease_until TIMESTAMPTZ
    );
    CREATE INDEX acp_sessions_by_owner ON acp_sessions (owner);
    CREATE TABLE acp_history (
        session_id TEXT NOT NULL REFERENCES acp_sessions (id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );",
)];

/// The first key of the advisory lock that migrations hold (the second is the schema's).
const LOCK_KEY: i32 = 0x0AC9_5E55;

/// The newest schema version this build knows.
pub(super) fn newest() -> i64 {
    MIGRATIONS.last().map_or(0, |(version, _)| *version)
}

/// Brings the database up to [`newest`]; `place` names it in errors.
pub(super) async fn migrate(client: &mut Client, place: &str) -> Result<(), StoreError> {
    let transaction = client
        .transaction()
        .await
        .map_err(failed("", "starting the schema migration"))?;
    transaction
        .execute(
            "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))",
            &[&LOCK_KEY],
        )
        .await
        .map_err(failed("", "locking the schema for the migration"))?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS acp_store_schema (
                version BIGINT PRIMARY KEY,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            );",
        )
        .await
        .map_err(failed("", "creating the schema table"))?;
    let current: i64 = transaction
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM acp_store_schema",
            &[],
        )
        .await
        .and_then(|row| row.try_get(0))
        .map_err(failed("", "reading the schema version"))?;
    StoreError::check_schema(place, current, newest())?;
    for (version, sql) in MIGRATIONS.iter().filter(|(version, _)| *version > current) {
        transaction
            .batch_execute(sql)
            .await
            .map_err(failed("", "migrating the schema"))?;
        transaction
            .execute(
                "INSERT INTO acp_store_schema (version) VALUES ($1)",
                &[version],
            )
            .await
            .map_err(failed("", "recording the schema version"))?;
    }
    transaction
        .commit()
        .await
        .map_err(failed("", "committing the schema migration"))
}
