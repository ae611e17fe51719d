//! Every session store passes the same suite (`store_suite`): the in-memory store, the file
//! store, and with their cargo features the SQLite and PostgreSQL stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod store_suite;

use std::sync::Arc;

use acptk_runtime::agent::{FileStore, MemoryStore, SessionStore};
use store_suite::Fixture;

/// Runs every case of the suite against the fixture `$open` makes (an expression of type
/// `Option<impl Fixture>`, `None` to skip) in a module named `$store`.
macro_rules! suite {
    ($store:ident, $open:expr) => {
        mod $store {
            #[allow(unused_imports)]
            use super::*;

            macro_rules! case {
                ($case:ident) => {
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $case() {
                        let Some(fixture) = $open else { return };
                        store_suite::$case(&fixture).await;
                    }
                };
            }

            case!(metadata_round_trips);
            case!(history_keeps_order_and_kinds);
            case!(replay_leaves_notices_out);
            case!(list_in_pages);
            case!(close_then_reopen);
            case!(delete_removes_everything);
            #[cfg(feature = "unstable_session_fork")]
            case!(fork_copies_history);
            #[cfg(feature = "unstable_session_archive")]
            case!(archive_is_stored);
            case!(titles_are_stored);
            case!(corrupt_entry_fails_only_its_session);
            case!(failing_write_loses_nothing);
            case!(batches_keep_order_and_stay_whole);
            case!(a_failed_batch_stores_none_of_it);
            case!(concurrent_appends_from_two_connections);
            case!(leases_keep_one_turn_at_a_time);
            case!(a_turn_elsewhere_refuses_the_prompt);
            case!(a_lease_running_out_is_taken_over_cleanly);
        }
    };
}

/// The in-memory store: one value, nothing to damage from outside.
struct Memory(Arc<dyn SessionStore>);

impl Fixture for Memory {
    fn store(&self) -> Arc<dyn SessionStore> {
        Arc::clone(&self.0)
    }

    fn second(&self) -> Option<Arc<dyn SessionStore>> {
        None
    }

    async fn damage(&self, _id: &str, _entry: usize) -> bool {
        false
    }

    async fn break_writes(&self, _id: &str) -> Option<Arc<dyn SessionStore>> {
        None
    }
}

suite!(memory, Some(Memory(Arc::new(MemoryStore::new()))));

/// The file store in a scratch directory; a second value on the same directory is what a
/// restarted process opens.
struct Files {
    dir: tempfile::TempDir,
    store: Arc<FileStore>,
}

impl Files {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(FileStore::open(dir.path()).unwrap());
        Self { dir, store }
    }
}

impl Fixture for Files {
    fn store(&self) -> Arc<dyn SessionStore> {
        Arc::clone(&self.store) as Arc<dyn SessionStore>
    }

    fn second(&self) -> Option<Arc<dyn SessionStore>> {
        Some(Arc::new(FileStore::open(self.dir.path()).unwrap()))
    }

    fn process_local(&self) -> bool {
        true
    }

    async fn damage(&self, id: &str, entry: usize) -> bool {
        // Line 1 is the header; entry n is line n + 2.
        let path = self.store.history_path(id);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[entry + 1] = "{\"update\": {\"sessionUpdate\": \"agent_message_chunk\"";
        std::fs::write(&path, format!("{}\n", lines.join("\n"))).unwrap();
        true
    }

    async fn break_writes(&self, id: &str) -> Option<Arc<dyn SessionStore>> {
        // The history file replaced by a directory (as by a broken disk: every write fails),
        // seen by a fresh store value that has no file open yet.
        let path = self.store.history_path(id);
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        Some(Arc::new(FileStore::open(self.dir.path()).unwrap()))
    }
}

suite!(file, Some(Files::new()));

/// The SQLite store in a scratch directory; a second value on the same file is a second
/// process. Damage and failures are made with a connection of the test's own.
#[cfg(feature = "sqlite")]
struct Sqlite {
    dir: tempfile::TempDir,
    store: Arc<acptk_runtime::agent::SqliteStore>,
}

#[cfg(feature = "sqlite")]
impl Sqlite {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(acptk_runtime::agent::SqliteStore::open(Self::file(&dir)).unwrap());
        Self { dir, store }
    }

    fn file(dir: &tempfile::TempDir) -> std::path::PathBuf {
        dir.path().join("sessions.sqlite3")
    }

    fn sql(&self, sql: &str, params: impl rusqlite::Params) {
        let connection = rusqlite::Connection::open(Self::file(&self.dir)).unwrap();
        connection.execute(sql, params).unwrap();
    }
}

#[cfg(feature = "sqlite")]
impl Fixture for Sqlite {
    fn store(&self) -> Arc<dyn SessionStore> {
        Arc::clone(&self.store) as Arc<dyn SessionStore>
    }

    fn second(&self) -> Option<Arc<dyn SessionStore>> {
        Some(Arc::new(
            acptk_runtime::agent::SqliteStore::open(Self::file(&self.dir)).unwrap(),
        ))
    }

    async fn damage(&self, id: &str, entry: usize) -> bool {
        self.sql(
            "UPDATE acp_history SET entry = '{\"update\": {' WHERE session_id = ?1 AND seq = ?2",
            (id, entry as i64 + 1),
        );
        true
    }

    async fn break_writes(&self, id: &str) -> Option<Arc<dyn SessionStore>> {
        self.sql(
            &format!(
                "CREATE TRIGGER broken BEFORE INSERT ON acp_history WHEN NEW.session_id = '{id}' \
                 AND NEW.entry LIKE '%lost%' BEGIN SELECT RAISE(ABORT, 'the disk is broken (injected)'); END"
            ),
            (),
        );
        Some(self.store())
    }
}

#[cfg(feature = "sqlite")]
suite!(sqlite, Some(Sqlite::new()));

/// The PostgreSQL store of `ACP_TEST_POSTGRES_URL` (see `scripts/test-postgres.sh`), in a
/// schema of its own that is dropped afterwards; a second value is a second instance.
#[cfg(feature = "postgres")]
struct Postgres {
    admin: tokio_postgres::Client,
    schema: String,
    store: Arc<acptk_runtime::agent::PostgresStore>,
    second: Arc<acptk_runtime::agent::PostgresStore>,
}

#[cfg(feature = "postgres")]
impl Postgres {
    /// `None` (the test is skipped) without `ACP_TEST_POSTGRES_URL`, unless a cluster is
    /// required (`ACP_CLUSTER_REQUIRED=1` or `ACP_INTEROP_REQUIRED=1`, as in CI).
    async fn new() -> Option<Self> {
        let url = common::cluster::postgres_url()?;
        let (admin, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        let schema = format!("acp_test_{}", uuid_like());
        admin
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .unwrap();
        let separator = if url.contains('?') { '&' } else { '?' };
        let url = format!("{url}{separator}options=-c%20search_path%3D{schema}");
        let store = acptk_runtime::agent::PostgresStore::connect(&url)
            .await
            .unwrap();
        let second = acptk_runtime::agent::PostgresStore::connect(&url)
            .await
            .unwrap();
        Some(Self {
            admin,
            schema,
            store: Arc::new(store),
            second: Arc::new(second),
        })
    }
}

#[cfg(feature = "postgres")]
fn uuid_like() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{}_{nanos}", std::process::id())
}

#[cfg(feature = "postgres")]
impl Drop for Postgres {
    fn drop(&mut self) {
        let url = common::cluster::postgres_url().unwrap_or_default();
        let schema = self.schema.clone();
        // A runtime of its own: the test's may be ending.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                if let Ok((client, connection)) =
                    tokio_postgres::connect(&url, tokio_postgres::NoTls).await
                {
                    tokio::spawn(connection);
                    let _ = client
                        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
                        .await;
                }
            });
        })
        .join();
    }
}

#[cfg(feature = "postgres")]
impl Fixture for Postgres {
    fn store(&self) -> Arc<dyn SessionStore> {
        Arc::clone(&self.store) as Arc<dyn SessionStore>
    }

    fn second(&self) -> Option<Arc<dyn SessionStore>> {
        Some(Arc::clone(&self.second) as Arc<dyn SessionStore>)
    }

    async fn damage(&self, id: &str, entry: usize) -> bool {
        self.admin
            .execute(
                &format!(
                    "UPDATE {}.acp_history SET entry = '{{\"update\": {{' \
                     WHERE session_id = $1 AND seq = $2",
                    self.schema
                ),
                &[&id, &(entry as i64 + 1)],
            )
            .await
            .unwrap();
        true
    }

    async fn break_writes(&self, id: &str) -> Option<Arc<dyn SessionStore>> {
        let schema = &self.schema;
        self.admin
            .batch_execute(&format!(
                "CREATE FUNCTION {schema}.broken() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN RAISE EXCEPTION 'the disk is broken (injected)'; END $$;
                 CREATE TRIGGER broken BEFORE INSERT ON {schema}.acp_history
                 FOR EACH ROW WHEN (NEW.session_id = '{id}' AND NEW.entry LIKE '%lost%') EXECUTE FUNCTION {schema}.broken();"
            ))
            .await
            .unwrap();
        Some(self.store())
    }
}

#[cfg(feature = "postgres")]
suite!(postgres, Postgres::new().await);
