//! The SQLite store (cargo feature `sqlite`): every session in one database file, which
//! several processes on one machine may open at once.
//!
//! The file is in WAL mode (readers never wait for the writer) with `synchronous=NORMAL`: a
//! committed entry survives the process being killed at any point, as the file store's
//! entries do (a power cut may lose the last commits, which a full sync per entry would
//! prevent at about a hundred times the cost). A process that finds the database locked by
//! another one's write waits up to the busy timeout (5 s by default).
//!
//! Each call runs on tokio's blocking threads (`spawn_blocking`) on a connection of a small
//! pool, so a slow disk never stalls the async runtime; outside a tokio runtime it runs in
//! place. An append is one `IMMEDIATE` transaction: it takes the session's next sequence
//! number (checking its size limit and lease on the way) and inserts the entry.

mod import;
mod schema;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OptionalExtension, ToSql, TransactionBehavior};

pub use import::FileImport;

use super::encoding::{MetaRow, decode_entry, encode_rows, meta_values, millis};
use super::refusal::{self, Attempt, RowState, Verdict};
use super::{
    DEFAULT_MAX_SESSION_BYTES, HistoryEntry, SessionMeta, SessionStore, StoreError, StoreFeatures,
    StoreFuture,
};
use crate::lock::lock;

/// How long a call waits, by default, for another process's write to the database to end.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many idle connections a store keeps open.
const IDLE_CONNECTIONS: usize = 4;

/// The metadata columns, in [`MetaRow`] order.
const META_COLUMNS: &str = "id, protocol_version, cwd, additional_directories, title, \
    created_at_ms, updated_at_ms, mode, config, archived, owner";

/// Sessions in one SQLite database file (see
/// [`SessionStore`](crate::agent::SessionStore) for what a store keeps).
///
/// Two store values on one file stand for two agent processes on one machine: a session
/// created through one is listed and loaded through the other.
///
/// ```
/// use acptk_runtime::agent::SqliteStore;
/// use acptk_runtime::client::{Client, ClientBuilder};
/// use acptk_runtime::prelude::*;
///
/// struct Echo;
///
/// impl Agent for Echo {
///     async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
///         session.send_text(format!("You said: {}", prompt.text)).await?;
///         Ok(StopReason::EndTurn)
///     }
/// }
///
/// /// A new connection to `server`, over an in-memory pipe.
/// async fn connect(server: &AgentServer<Echo>) -> Result<Client, acptk_runtime::Error> {
///     let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
///     let (agent_read, agent_write) = tokio::io::split(agent_io);
///     server.start(agent_read, agent_write);
///     let (client_read, client_write) = tokio::io::split(client_io);
///     ClientBuilder::new().connect(client_read, client_write).await
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let scratch = tempfile::tempdir()?;
/// let database = scratch.path().join("agent/sessions.sqlite3"); // created by `open`
///
/// let first = AgentServer::new(Echo).store(SqliteStore::open(&database)?);
/// let second = AgentServer::new(Echo).store(SqliteStore::open(&database)?);
///
/// let client = connect(&first).await?;
/// let session = client.new_session("/work/project", &[]).await?;
/// client.prompt(&session, "hello").await?;
///
/// let other = connect(&second).await?;
/// let page = other.list_sessions(None, None).await?;
/// assert_eq!(page.sessions[0].id, session);
/// other.load_session(&session, "/work/project", &[]).await?;
/// let replayed = other.session_transcript(&session).unwrap_or_default();
/// assert_eq!(replayed.entries.len(), 2); // the prompt and the answer
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SqliteStore {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    path: PathBuf,
    /// `sqlite://PATH`, for messages.
    place: String,
    holder: String,
    max_bytes: u64,
    busy_timeout: Duration,
    idle: Mutex<Vec<Connection>>,
}

/// A rusqlite error as a [`StoreError::Database`] of session `id`.
fn failed(id: &str, action: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    let id = id.to_owned();
    move |error| StoreError::database(id, action, error)
}

/// Milliseconds since the Unix epoch, now (the lease clock: every process on one machine
/// reads the same).
fn now_ms() -> i64 {
    i64::try_from(millis(std::time::SystemTime::now())).unwrap_or(i64::MAX)
}

impl SqliteStore {
    /// The store in the database file `path`, created (with its directory) if it does not
    /// exist, its schema brought up to date. Fails with [`StoreError::NewerSchema`] for a
    /// database of a newer version of this software. Blocks while it opens the file.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let path = path.into();
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|error| {
                StoreError::io("", "creating the directory of the database", dir, error)
            })?;
        }
        let shared = Shared {
            place: format!("sqlite://{}", path.display()),
            path,
            holder: super::holder::default_holder(),
            max_bytes: DEFAULT_MAX_SESSION_BYTES,
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            idle: Mutex::new(Vec::new()),
        };
        let mut connection = shared.connect()?;
        wal(&connection, shared.busy_timeout)?;
        schema::migrate(&mut connection, &shared.place)?;
        lock(&shared.idle).push(connection);
        Ok(Self {
            shared: Arc::new(shared),
        })
    }

    /// Sets the name this store value holds leases under (default `HOST/PID/RANDOM`); it
    /// must differ between processes that share the database.
    #[must_use]
    pub fn holder(self, name: impl Into<String>) -> Self {
        self.with(|shared| shared.holder = name.into())
    }

    /// Sets the size limit of one session's history, in bytes of entry JSON (default
    /// [`DEFAULT_MAX_SESSION_BYTES`]). Recording beyond it fails with [`StoreError::Full`].
    #[must_use]
    pub fn max_session_bytes(self, bytes: u64) -> Self {
        self.with(|shared| shared.max_bytes = bytes.max(1))
    }

    /// Sets how long a call waits for another process's write (default
    /// [`DEFAULT_BUSY_TIMEOUT`]).
    #[must_use]
    pub fn busy_timeout(self, timeout: Duration) -> Self {
        self.with(|shared| {
            shared.busy_timeout = timeout;
            lock(&shared.idle).clear();
        })
    }

    fn with(self, change: impl FnOnce(&mut Shared)) -> Self {
        let mut shared = Arc::try_unwrap(self.shared).unwrap_or_else(|shared| Shared {
            path: shared.path.clone(),
            place: shared.place.clone(),
            holder: shared.holder.clone(),
            max_bytes: shared.max_bytes,
            busy_timeout: shared.busy_timeout,
            idle: Mutex::new(Vec::new()),
        });
        change(&mut shared);
        Self {
            shared: Arc::new(shared),
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// The name this store value holds leases under.
    pub fn holder_name(&self) -> &str {
        &self.shared.holder
    }

    /// Runs `call` on a pooled connection, off the async runtime's threads.
    async fn run<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Shared, &mut Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let shared = Arc::clone(&self.shared);
        let job = move || {
            let mut connection = shared.take()?;
            let result = call(&shared, &mut connection);
            shared.give(connection);
            result
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => runtime
                .spawn_blocking(job)
                .await
                .map_err(|error| StoreError::database("", "running a SQLite call", error))?,
            Err(_) => job(),
        }
    }
}

/// Switches the database to WAL mode. Two processes opening a new database at once both
/// ask for it, and SQLite answers the second "busy" at once, without its busy handler: ask
/// again until the busy timeout has passed.
fn wal(connection: &Connection, busy_timeout: Duration) -> Result<(), StoreError> {
    let deadline = std::time::Instant::now() + busy_timeout;
    loop {
        match connection.pragma_update(None, "journal_mode", "WAL") {
            Ok(()) => return Ok(()),
            Err(error)
                if matches!(
                    error.sqlite_error_code(),
                    Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(error) => return Err(failed("", "switching the database to WAL mode")(error)),
        }
    }
}

impl Shared {
    /// A new connection with the store's settings.
    fn connect(&self) -> Result<Connection, StoreError> {
        let connection =
            Connection::open(&self.path).map_err(failed("", "opening the database"))?;
        connection
            .busy_timeout(self.busy_timeout)
            .map_err(failed("", "setting the busy timeout"))?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(failed("", "setting synchronous=NORMAL"))?;
        Ok(connection)
    }

    fn take(&self) -> Result<Connection, StoreError> {
        match lock(&self.idle).pop() {
            Some(connection) => Ok(connection),
            None => self.connect(),
        }
    }

    fn give(&self, connection: Connection) {
        let mut idle = lock(&self.idle);
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(connection);
        }
    }

    /// Where entry `seq` of session `id` is, for messages.
    fn entry_place(&self, seq: i64) -> String {
        format!("{}, history entry {seq}", self.place)
    }

    /// The session's row as a refusal at `now` (milliseconds since the epoch) is judged
    /// (`None`: no such session). A lease is live while `lease_until_ms >= now`: the
    /// statements take it over only once it is earlier.
    fn row_state(
        connection: &Connection,
        id: &str,
        now: i64,
    ) -> Result<Option<RowState>, StoreError> {
        let row = connection
            .prepare_cached(
                "SELECT history_bytes, lease_holder, lease_until_ms FROM acp_sessions WHERE id = ?1",
            )
            .and_then(|mut statement| {
                statement
                    .query_row([id], |row| {
                        Ok((
                            row.get::<_, i64>(0)?,
                            row.get::<_, Option<String>>(1)?,
                            row.get::<_, Option<i64>>(2)?,
                        ))
                    })
                    .optional()
            })
            .map_err(failed(id, "reading the session"))?;
        Ok(row.map(|(bytes, holder, until)| RowState {
            bytes: u64::try_from(bytes).unwrap_or(0),
            lease: match (holder, until) {
                (Some(holder), Some(until)) if until >= now => Some((
                    holder,
                    Duration::from_millis(u64::try_from(until - now).unwrap_or(0)),
                )),
                _ => None,
            },
        }))
    }

    /// Runs `statement` at a time `now` (true: it took effect) until it takes effect, or
    /// until the row read after a refusal, at the same `now`, gives a cause; at most
    /// [`refusal::ATTEMPTS`] times (another process may change the row in between).
    fn until_taken(
        &self,
        connection: &mut Connection,
        id: &str,
        attempt: Attempt,
        mut statement: impl FnMut(&mut Connection, i64) -> Result<bool, StoreError>,
    ) -> Result<(), StoreError> {
        for _ in 0..refusal::ATTEMPTS {
            let now = now_ms();
            if statement(connection, now)? {
                return Ok(());
            }
            let row = Self::row_state(connection, id, now)?;
            match refusal::judge(id, row, &self.holder, attempt) {
                Verdict::Refused(error) => return Err(error),
                Verdict::TryAgain => {}
            }
        }
        Err(refusal::changed_too_often(id, attempt))
    }
}

/// The values of `row`'s columns, in [`META_COLUMNS`] order (`?1` is the id).
fn meta_params(row: &MetaRow) -> [&dyn ToSql; 11] {
    meta_values!(row)
}

/// Reads one row of [`META_COLUMNS`].
fn meta_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<MetaRow> {
    Ok(MetaRow {
        id: row.get(0)?,
        protocol_version: row.get(1)?,
        cwd: row.get(2)?,
        additional_directories: row.get(3)?,
        title: row.get(4)?,
        created_at_ms: row.get(5)?,
        updated_at_ms: row.get(6)?,
        mode: row.get(7)?,
        config: row.get(8)?,
        archived: row.get(9)?,
        owner: row.get(10)?,
    })
}

/// The metadata of every readable session, optionally of one owner only.
fn list_rows(
    connection: &Connection,
    owner: Option<Option<&str>>,
) -> Result<Vec<SessionMeta>, StoreError> {
    let sql = match owner {
        Some(_) => format!("SELECT {META_COLUMNS} FROM acp_sessions WHERE owner IS ?1"),
        None => format!("SELECT {META_COLUMNS} FROM acp_sessions"),
    };
    let mut statement = connection
        .prepare_cached(&sql)
        .map_err(failed("", "listing the sessions"))?;
    let rows = match owner {
        Some(owner) => statement.query_map([owner], meta_row),
        None => statement.query_map([], meta_row),
    }
    .map_err(failed("", "listing the sessions"))?;
    let mut sessions = Vec::new();
    for row in rows {
        let row = row.map_err(failed("", "listing the sessions"))?;
        // A row that does not read is left out; opening it reports why.
        if let Ok(meta) = row.into_meta() {
            sessions.push(meta);
        }
    }
    Ok(sessions)
}

impl SessionStore for SqliteStore {
    fn features(&self) -> StoreFeatures {
        StoreFeatures::new(true)
    }

    fn create<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        let row = MetaRow::of(meta);
        Box::pin(self.run(move |_, connection| {
            let inserted = connection.execute(
                &format!(
                    "INSERT INTO acp_sessions ({META_COLUMNS}) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                ),
                &meta_params(&row)[..],
            );
            match inserted {
                Ok(_) => Ok(()),
                Err(error) if error.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) => {
                    Err(StoreError::Exists(row.id))
                }
                Err(error) => Err(StoreError::database(row.id, "creating the session", error)),
            }
        }))
    }

    fn meta<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionMeta>> {
        let id = id.to_owned();
        Box::pin(self.run(move |shared, connection| {
            let row = connection
                .prepare_cached(&format!(
                    "SELECT {META_COLUMNS} FROM acp_sessions WHERE id = ?1"
                ))
                .and_then(|mut statement| statement.query_row([&id], meta_row).optional())
                .map_err(failed(&id, "reading the session"))?;
            row.map(|row| {
                row.into_meta().map_err(|detail| StoreError::CorruptRecord {
                    id: id.clone(),
                    place: format!("{}, session row", shared.place),
                    detail,
                })
            })
            .transpose()
        }))
    }

    fn save_meta<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        let row = MetaRow::of(meta);
        Box::pin(self.run(move |_, connection| {
            let changed = connection
                .prepare_cached(
                    "UPDATE acp_sessions SET protocol_version = ?2, cwd = ?3, \
                     additional_directories = ?4, title = ?5, created_at_ms = ?6, \
                     updated_at_ms = ?7, mode = ?8, config = ?9, archived = ?10, owner = ?11 \
                     WHERE id = ?1",
                )
                .and_then(|mut statement| statement.execute(&meta_params(&row)[..]))
                .map_err(failed(&row.id, "saving the session"))?;
            if changed == 0 {
                return Err(StoreError::Unknown(row.id));
            }
            Ok(())
        }))
    }

    fn groups_appends(&self) -> bool {
        true
    }

    fn append<'a>(&'a self, id: &'a str, entry: HistoryEntry) -> StoreFuture<'a, ()> {
        self.append_batch(id, vec![entry])
    }

    fn append_batch<'a>(&'a self, id: &'a str, entries: Vec<HistoryEntry>) -> StoreFuture<'a, ()> {
        let id = id.to_owned();
        Box::pin(self.run(move |shared, connection| {
            if entries.is_empty() {
                return Ok(());
            }
            let (jsons, size) = encode_rows(&id, entries)?;
            let count = i64::try_from(jsons.len()).unwrap_or(i64::MAX);
            let attempt = Attempt::Append {
                size,
                limit: shared.max_bytes,
            };
            shared.until_taken(connection, &id, attempt, |connection, now| {
                let transaction = connection
                    .transaction_with_behavior(TransactionBehavior::Immediate)
                    .map_err(failed(&id, "appending to the history"))?;
                // One row update takes the sequence numbers of the whole batch (and checks
                // the size limit and the lease once); the entries take
                // `last - count + 1 ..= last`.
                let last: Option<i64> = transaction
                    .prepare_cached(
                        "UPDATE acp_sessions SET next_seq = next_seq + ?6, \
                         history_bytes = history_bytes + ?2 \
                         WHERE id = ?1 AND history_bytes + ?2 <= ?3 \
                         AND (lease_holder IS NULL OR lease_holder = ?4 OR lease_until_ms < ?5) \
                         RETURNING next_seq",
                    )
                    .and_then(|mut statement| {
                        statement
                            .query_row(
                                (
                                    &id,
                                    i64::try_from(size).unwrap_or(i64::MAX),
                                    i64::try_from(shared.max_bytes).unwrap_or(i64::MAX),
                                    &shared.holder,
                                    now,
                                    count,
                                ),
                                |row| row.get(0),
                            )
                            .optional()
                    })
                    .map_err(failed(&id, "appending to the history"))?;
                let Some(last) = last else {
                    return Ok(false);
                };
                {
                    let mut insert = transaction
                        .prepare_cached(
                            "INSERT INTO acp_history (session_id, seq, entry) VALUES (?1, ?2, ?3)",
                        )
                        .map_err(failed(&id, "appending to the history"))?;
                    for (seq, json) in (last - count + 1..).zip(&jsons) {
                        insert
                            .execute((&id, seq, json))
                            .map_err(failed(&id, "appending to the history"))?;
                    }
                }
                transaction
                    .commit()
                    .map_err(failed(&id, "appending to the history"))?;
                Ok(true)
            })
        }))
    }

    fn history<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<HistoryEntry>> {
        let id = id.to_owned();
        Box::pin(self.run(move |shared, connection| {
            // One read transaction: the version and the entries of the same moment.
            let transaction = connection
                .transaction_with_behavior(TransactionBehavior::Deferred)
                .map_err(failed(&id, "reading the history"))?;
            let version: Option<i32> = transaction
                .prepare_cached("SELECT protocol_version FROM acp_sessions WHERE id = ?1")
                .and_then(|mut statement| statement.query_row([&id], |row| row.get(0)).optional())
                .map_err(failed(&id, "reading the history"))?;
            let Some(version) = version else {
                return Err(StoreError::Unknown(id));
            };
            let version = u16::try_from(version).map_err(|_| StoreError::CorruptRecord {
                id: id.clone(),
                place: format!("{}, session row", shared.place),
                detail: format!("protocol_version {version} is not a version"),
            })?;
            let version = acptk_schema::v1::ProtocolVersion::new(version);
            let mut statement = transaction
                .prepare_cached(
                    "SELECT seq, entry FROM acp_history WHERE session_id = ?1 ORDER BY seq",
                )
                .map_err(failed(&id, "reading the history"))?;
            let rows = statement
                .query_map([&id], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(failed(&id, "reading the history"))?;
            let mut history = Vec::new();
            for row in rows {
                let (seq, json) = row.map_err(failed(&id, "reading the history"))?;
                let entry =
                    decode_entry(version, &json).map_err(|detail| StoreError::CorruptRecord {
                        id: id.clone(),
                        place: shared.entry_place(seq),
                        detail,
                    })?;
                history.push(entry);
            }
            Ok(history)
        }))
    }

    fn list(&self) -> StoreFuture<'_, Vec<SessionMeta>> {
        Box::pin(self.run(|_, connection| list_rows(connection, None)))
    }

    fn list_owned<'a>(&'a self, owner: Option<&'a str>) -> StoreFuture<'a, Vec<SessionMeta>> {
        let owner = owner.map(str::to_owned);
        Box::pin(self.run(move |_, connection| list_rows(connection, Some(owner.as_deref()))))
    }

    fn delete<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let id = id.to_owned();
        Box::pin(self.run(move |_, connection| {
            let transaction = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(failed(&id, "deleting the session"))?;
            transaction
                .execute("DELETE FROM acp_history WHERE session_id = ?1", [&id])
                .map_err(failed(&id, "deleting the history"))?;
            let deleted = transaction
                .execute("DELETE FROM acp_sessions WHERE id = ?1", [&id])
                .map_err(failed(&id, "deleting the session"))?;
            transaction
                .commit()
                .map_err(failed(&id, "deleting the session"))?;
            Ok(deleted > 0)
        }))
    }

    fn lease<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        let id = id.to_owned();
        Box::pin(self.run(move |shared, connection| {
            let ttl = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
            shared.until_taken(connection, &id, Attempt::Lease, |connection, now| {
                let changed = connection
                    .prepare_cached(
                        "UPDATE acp_sessions SET lease_holder = ?2, lease_until_ms = ?3 \
                         WHERE id = ?1 AND (lease_holder IS NULL OR lease_holder = ?2 \
                         OR lease_until_ms < ?4)",
                    )
                    .and_then(|mut statement| {
                        statement.execute((&id, &shared.holder, now.saturating_add(ttl), now))
                    })
                    .map_err(failed(&id, "taking the lease"))?;
                Ok(changed > 0)
            })
        }))
    }

    fn release<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        let id = id.to_owned();
        Box::pin(self.run(move |shared, connection| {
            connection
                .prepare_cached(
                    "UPDATE acp_sessions SET lease_holder = NULL, lease_until_ms = NULL \
                     WHERE id = ?1 AND lease_holder = ?2",
                )
                .and_then(|mut statement| statement.execute((&id, &shared.holder)))
                .map_err(failed(&id, "releasing the lease"))?;
            Ok(())
        }))
    }

    fn shutdown(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.run(|shared, connection| {
            connection
                .execute(
                    "UPDATE acp_sessions SET lease_holder = NULL, lease_until_ms = NULL \
                     WHERE lease_holder = ?1",
                    [&shared.holder],
                )
                .map_err(failed("", "releasing the leases"))?;
            Ok(())
        }))
    }
}
