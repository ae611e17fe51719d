//! The PostgreSQL store (cargo feature `postgres`): every session in one database that agent
//! instances on several machines share.
//!
//! Each call takes a connection from a pool (deadpool-postgres over tokio-postgres, statements
//! prepared once per connection) and is one statement, so it is atomic without a transaction
//! of its own: an append takes the session's next sequence number (checking its size limit
//! and its lease) and inserts the entry in one `WITH ... INSERT`, and concurrent appends to
//! one session queue on its row and get consecutive numbers. A lease's expiry is the
//! database's clock, so the instances' clocks need not agree.
//!
//! The connection is plain TCP or a Unix socket (no TLS in this build): keep the database on a
//! private network or the same machine.

mod schema;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::config::Host;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Config, NoTls, Row};

use super::encoding::{MetaRow, decode_entry, encode_rows, meta_values};
use super::refusal::{self, Attempt, RowState, Verdict};
use super::{
    DEFAULT_MAX_SESSION_BYTES, HistoryEntry, SessionMeta, SessionStore, StoreError, StoreFeatures,
    StoreFuture,
};

/// The default number of database connections one store value opens at most.
pub const DEFAULT_POOL_SIZE: usize = 16;

/// How long connecting to the database may take, unless the URL says (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a call waits for a free pooled connection.
const POOL_WAIT: Duration = Duration::from_secs(10);

/// The metadata columns, in [`MetaRow`] order.
const META_COLUMNS: &str = "id, protocol_version, cwd, additional_directories, title, \
    created_at_ms, updated_at_ms, mode, config, archived, owner";

/// Sessions in a PostgreSQL database (see
/// [`SessionStore`](crate::agent::SessionStore) for what a store keeps).
///
/// ```no_run
/// # async fn run() -> Result<(), acptk_runtime::agent::StoreError> {
/// use acptk_runtime::agent::{AgentServer, PostgresStore};
/// # struct Echo;
/// # impl acptk_runtime::agent::Agent for Echo {
/// #     async fn prompt(&self, s: acptk_runtime::agent::Session, p: acptk_runtime::agent::Prompt) -> Result<acptk_runtime::agent::StopReason, acptk_schema::jsonrpc::ErrorObject> { Ok(acptk_runtime::agent::StopReason::EndTurn) }
/// # }
/// let store = PostgresStore::connect("postgres://agent@db.internal/agents").await?;
/// let server = AgentServer::new(Echo).store(store);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    /// The URL without its password, for messages.
    place: String,
    holder: String,
    max_bytes: u64,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("place", &self.place)
            .field("holder", &self.holder)
            .finish_non_exhaustive()
    }
}

/// A tokio-postgres error as a [`StoreError::Database`] of session `id`.
fn failed(id: &str, action: &'static str) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
    let id = id.to_owned();
    move |error| StoreError::database(id, action, error)
}

/// `postgres://USER@HOST:PORT/DATABASE` of `config`, without the password.
fn place(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(host)) => host.clone(),
        #[cfg(unix)]
        Some(Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgres://{}@{host}:{port}/{}",
        config.get_user().unwrap_or_default(),
        config.get_dbname().unwrap_or_default()
    )
}

/// Reads one row of [`META_COLUMNS`].
/// The values of `row`'s columns, in [`META_COLUMNS`] order (`$1` is the id).
fn meta_params(row: &MetaRow) -> [&(dyn ToSql + Sync); 11] {
    meta_values!(row)
}

fn meta_row(row: &Row) -> Result<MetaRow, tokio_postgres::Error> {
    Ok(MetaRow {
        id: row.try_get(0)?,
        protocol_version: row.try_get(1)?,
        cwd: row.try_get(2)?,
        additional_directories: row.try_get(3)?,
        title: row.try_get(4)?,
        created_at_ms: row.try_get(5)?,
        updated_at_ms: row.try_get(6)?,
        mode: row.try_get(7)?,
        config: row.try_get(8)?,
        archived: row.try_get(9)?,
        owner: row.try_get(10)?,
    })
}

impl PostgresStore {
    /// The store in the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
    /// with the connection parameters tokio-postgres reads, for example
    /// `?options=-c%20search_path%3Dagents` for another schema), its schema created or brought
    /// up to date. Fails with [`StoreError::NewerSchema`] for a database of a newer version of
    /// this software, and with [`StoreError::Database`] when it cannot connect.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, DEFAULT_POOL_SIZE).await
    }

    /// Like [`Self::connect`], with at most `pool_size` connections (at least 1).
    pub async fn connect_with(url: &str, pool_size: usize) -> Result<Self, StoreError> {
        let mut config: Config = url
            .parse()
            .map_err(|error| StoreError::database("", "reading the PostgreSQL URL", error))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let place = place(&config);
        let (mut client, connection) = config
            .connect(NoTls)
            .await
            .map_err(failed("", "connecting to the database"))?;
        let driver = tokio::spawn(connection);
        let migrated = schema::migrate(&mut client, &place).await;
        drop(client);
        let _ = driver.await;
        migrated?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|error| StoreError::database("", "creating the connection pool", error))?;
        Ok(Self {
            pool,
            place,
            holder: super::holder::default_holder(),
            max_bytes: DEFAULT_MAX_SESSION_BYTES,
        })
    }

    /// Sets the name this store value holds leases under (default `HOST/PID/RANDOM`); it
    /// must differ between instances that share the database.
    #[must_use]
    pub fn holder(mut self, name: impl Into<String>) -> Self {
        self.holder = name.into();
        self
    }

    /// Sets the size limit of one session's history, in bytes of entry JSON (default
    /// [`DEFAULT_MAX_SESSION_BYTES`]). Recording beyond it fails with [`StoreError::Full`].
    #[must_use]
    pub fn max_session_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes.max(1);
        self
    }

    /// The name this store value holds leases under.
    pub fn holder_name(&self) -> &str {
        &self.holder
    }

    /// The database, as `postgres://USER@HOST:PORT/DATABASE` (no password).
    pub fn place(&self) -> &str {
        &self.place
    }

    async fn client(&self, id: &str) -> Result<deadpool_postgres::Client, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|error| StoreError::database(id, "getting a database connection", error))
    }

    /// Runs `sql` with `params` on a pooled connection (prepared once per connection); the
    /// rows it returns.
    async fn query(
        &self,
        id: &str,
        action: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let client = self.client(id).await?;
        let statement = client
            .prepare_cached(sql)
            .await
            .map_err(failed(id, action))?;
        client
            .query(&statement, params)
            .await
            .map_err(failed(id, action))
    }

    /// The session's row as a refusal is judged (`None`: no such session). A lease is live
    /// while `lease_until >= now()`: the statements take it over only once it is earlier.
    async fn row_state(&self, id: &str) -> Result<Option<RowState>, StoreError> {
        let rows = self
            .query(
                id,
                "reading the session",
                "SELECT history_bytes, lease_holder, lease_until >= now(), \
                 CAST(CEIL(EXTRACT(EPOCH FROM (lease_until - now())) * 1000) AS BIGINT) \
                 FROM acp_sessions WHERE id = $1",
                &[&id],
            )
            .await?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let read = |error| StoreError::database(id, "reading the session", error);
        let bytes: i64 = row.try_get(0).map_err(read)?;
        let holder: Option<String> = row.try_get(1).map_err(read)?;
        let live: Option<bool> = row.try_get(2).map_err(read)?;
        let remaining: Option<i64> = row.try_get(3).map_err(read)?;
        let lease = match (holder, live, remaining) {
            (Some(holder), Some(true), Some(remaining)) => Some((
                holder,
                Duration::from_millis(u64::try_from(remaining).unwrap_or(0)),
            )),
            _ => None,
        };
        Ok(Some(RowState {
            bytes: u64::try_from(bytes).unwrap_or(0),
            lease,
        }))
    }

    /// Runs `statement` (true: it took effect) until it takes effect, or until the row read
    /// after a refusal gives a cause, at most [`refusal::ATTEMPTS`] times.
    async fn until_taken<F, Fut>(
        &self,
        id: &str,
        attempt: Attempt,
        mut statement: F,
    ) -> Result<(), StoreError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool, StoreError>>,
    {
        for _ in 0..refusal::ATTEMPTS {
            if statement().await? {
                return Ok(());
            }
            match refusal::judge(id, self.row_state(id).await?, &self.holder, attempt) {
                Verdict::Refused(error) => return Err(error),
                Verdict::TryAgain => {}
            }
        }
        Err(refusal::changed_too_often(id, attempt))
    }

    async fn list_rows(&self, owner: Option<Option<&str>>) -> Result<Vec<SessionMeta>, StoreError> {
        let rows = match owner {
            Some(owner) => {
                self.query(
                    "",
                    "listing the sessions",
                    &format!(
                        "SELECT {META_COLUMNS} FROM acp_sessions WHERE owner IS NOT DISTINCT FROM $1"
                    ),
                    &[&owner],
                )
                .await?
            }
            None => {
                self.query(
                    "",
                    "listing the sessions",
                    &format!("SELECT {META_COLUMNS} FROM acp_sessions"),
                    &[],
                )
                .await?
            }
        };
        // A row that does not read is left out; opening it reports why.
        Ok(rows
            .iter()
            .filter_map(|row| meta_row(row).ok()?.into_meta().ok())
            .collect())
    }
}

impl SessionStore for PostgresStore {
    fn features(&self) -> StoreFeatures {
        StoreFeatures::new(true)
    }

    fn create<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let row = MetaRow::of(meta);
            let client = self.client(&row.id).await?;
            let statement = client
                .prepare_cached(&format!(
                    "INSERT INTO acp_sessions ({META_COLUMNS}) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
                ))
                .await
                .map_err(failed(&row.id, "creating the session"))?;
            let inserted = client.execute(&statement, &meta_params(&row)).await;
            match inserted {
                Ok(_) => Ok(()),
                Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                    Err(StoreError::Exists(row.id))
                }
                Err(error) => Err(StoreError::database(row.id, "creating the session", error)),
            }
        })
    }

    fn meta<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionMeta>> {
        Box::pin(async move {
            let rows = self
                .query(
                    id,
                    "reading the session",
                    &format!("SELECT {META_COLUMNS} FROM acp_sessions WHERE id = $1"),
                    &[&id],
                )
                .await?;
            let Some(row) = rows.first() else {
                return Ok(None);
            };
            let corrupt = |detail: String| StoreError::CorruptRecord {
                id: id.to_owned(),
                place: format!("{}, session row", self.place),
                detail,
            };
            meta_row(row)
                .map_err(|error| corrupt(error.to_string()))?
                .into_meta()
                .map(Some)
                .map_err(corrupt)
        })
    }

    fn save_meta<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let row = MetaRow::of(meta);
            let client = self.client(&row.id).await?;
            let statement = client
                .prepare_cached(
                    "UPDATE acp_sessions SET protocol_version = $2, cwd = $3, \
                     additional_directories = $4, title = $5, created_at_ms = $6, \
                     updated_at_ms = $7, mode = $8, config = $9, archived = $10, owner = $11 \
                     WHERE id = $1",
                )
                .await
                .map_err(failed(&row.id, "saving the session"))?;
            let changed = client
                .execute(&statement, &meta_params(&row))
                .await
                .map_err(failed(&row.id, "saving the session"))?;
            if changed == 0 {
                return Err(StoreError::Unknown(row.id));
            }
            Ok(())
        })
    }

    fn groups_appends(&self) -> bool {
        true
    }

    fn append<'a>(&'a self, id: &'a str, entry: HistoryEntry) -> StoreFuture<'a, ()> {
        self.append_batch(id, vec![entry])
    }

    fn append_batch<'a>(&'a self, id: &'a str, entries: Vec<HistoryEntry>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if entries.is_empty() {
                return Ok(());
            }
            let (jsons, size) = encode_rows(id, entries)?;
            let db_size = i64::try_from(size).unwrap_or(i64::MAX);
            let count = i64::try_from(jsons.len()).unwrap_or(i64::MAX);
            let limit = i64::try_from(self.max_bytes).unwrap_or(i64::MAX);
            let attempt = Attempt::Append {
                size,
                limit: self.max_bytes,
            };
            self.until_taken(id, attempt, || async {
                let client = self.client(id).await?;
                // One statement, so one transaction (one WAL flush) for the whole batch: the
                // row update takes the batch's sequence numbers and checks the size limit and
                // the lease once; the entries take `last - count + 1 ..= last`, in array order.
                let statement = client
                    .prepare_cached(
                        "WITH taken AS (
                            UPDATE acp_sessions
                            SET next_seq = next_seq + $6, history_bytes = history_bytes + $3
                            WHERE id = $1 AND history_bytes + $3 <= $4
                              AND (lease_holder IS NULL OR lease_holder = $5 OR lease_until < now())
                            RETURNING next_seq
                        )
                        INSERT INTO acp_history (session_id, seq, entry)
                        SELECT $1, taken.next_seq - $6 + batch.ord, batch.entry
                        FROM taken, unnest($2::text[]) WITH ORDINALITY AS batch (entry, ord)",
                    )
                    .await
                    .map_err(failed(id, "appending to the history"))?;
                let inserted = client
                    .execute(
                        &statement,
                        &[&id, &jsons, &db_size, &limit, &self.holder, &count],
                    )
                    .await
                    .map_err(failed(id, "appending to the history"))?;
                Ok(inserted > 0)
            })
            .await
        })
    }

    fn history<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<HistoryEntry>> {
        Box::pin(async move {
            // One statement: the version and the entries of the same moment.
            let rows = self
                .query(
                    id,
                    "reading the history",
                    "SELECT s.protocol_version, h.seq, h.entry \
                     FROM acp_sessions s LEFT JOIN acp_history h ON h.session_id = s.id \
                     WHERE s.id = $1 ORDER BY h.seq",
                    &[&id],
                )
                .await?;
            let Some(first) = rows.first() else {
                return Err(StoreError::Unknown(id.to_owned()));
            };
            let read = |error| StoreError::database(id, "reading the history", error);
            let version: i32 = first.try_get(0).map_err(read)?;
            let version = u16::try_from(version).map_err(|_| StoreError::CorruptRecord {
                id: id.to_owned(),
                place: format!("{}, session row", self.place),
                detail: format!("protocol_version {version} is not a version"),
            })?;
            let version = acptk_schema::v1::ProtocolVersion::new(version);
            let mut history = Vec::with_capacity(rows.len());
            for row in &rows {
                let seq: Option<i64> = row.try_get(1).map_err(read)?;
                let Some(seq) = seq else {
                    // The session has no entries (the left join's empty row).
                    continue;
                };
                let json: String = row.try_get(2).map_err(read)?;
                let entry =
                    decode_entry(version, &json).map_err(|detail| StoreError::CorruptRecord {
                        id: id.to_owned(),
                        place: format!("{}, history entry {seq}", self.place),
                        detail,
                    })?;
                history.push(entry);
            }
            Ok(history)
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<SessionMeta>> {
        Box::pin(self.list_rows(None))
    }

    fn list_owned<'a>(&'a self, owner: Option<&'a str>) -> StoreFuture<'a, Vec<SessionMeta>> {
        Box::pin(self.list_rows(Some(owner)))
    }

    fn delete<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let client = self.client(id).await?;
            let statement = client
                .prepare_cached("DELETE FROM acp_sessions WHERE id = $1")
                .await
                .map_err(failed(id, "deleting the session"))?;
            let deleted = client
                .execute(&statement, &[&id])
                .await
                .map_err(failed(id, "deleting the session"))?;
            Ok(deleted > 0)
        })
    }

    fn lease<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let millis = ttl.as_secs_f64() * 1000.0;
            self.until_taken(id, Attempt::Lease, || async {
                let client = self.client(id).await?;
                let statement = client
                    .prepare_cached(
                        "UPDATE acp_sessions \
                         SET lease_holder = $2, \
                         lease_until = now() + $3::float8 * interval '1 millisecond' \
                         WHERE id = $1 AND (lease_holder IS NULL OR lease_holder = $2 \
                         OR lease_until < now())",
                    )
                    .await
                    .map_err(failed(id, "taking the lease"))?;
                let changed = client
                    .execute(&statement, &[&id, &self.holder, &millis])
                    .await
                    .map_err(failed(id, "taking the lease"))?;
                Ok(changed > 0)
            })
            .await
        })
    }

    fn release<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.query(
                id,
                "releasing the lease",
                "UPDATE acp_sessions SET lease_holder = NULL, lease_until = NULL \
                 WHERE id = $1 AND lease_holder = $2",
                &[&id, &self.holder],
            )
            .await?;
            Ok(())
        })
    }

    fn shutdown(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.query(
                "",
                "releasing the leases",
                "UPDATE acp_sessions SET lease_holder = NULL, lease_until = NULL \
                 WHERE lease_holder = $1",
                &[&self.holder],
            )
            .await?;
            Ok(())
        })
    }
}
