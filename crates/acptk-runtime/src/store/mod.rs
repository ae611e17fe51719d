//! Where sessions live: the [`SessionStore`] trait and its implementations: [`MemoryStore`]
//! (the library default; sessions last as long as the process), [`FileStore`] (one pair of
//! files per session under a directory; sessions survive restarts), and behind cargo features
//! `SqliteStore` (`sqlite`: one database file that several processes on one machine may
//! share) and `PostgresStore` (`postgres`: one database that agent instances on several
//! machines share).
//!
//! A store keeps, for each session, its [`SessionMeta`] (version, working directory, title,
//! activity time, current mode and option values, owner) and its history: [`HistoryEntry`]
//! values, which hold only `ReplayableUpdate`s. That type has no notice variant, so a notice
//! can never be recorded or replayed.
//!
//! Store methods are asynchronous and return boxed futures ([`StoreFuture`]) so that the
//! trait can be used as `Arc<dyn SessionStore>`. A store whose calls block (files, SQLite)
//! keeps them short or runs them off the async runtime's threads.
//!
//! When several agent processes share one store, a session's turn runs in one of them at a
//! time: the process running it holds the session's *lease* ([`SessionStore::lease`]), a
//! record with an expiry that it renews while the turn runs, so that a crashed process's
//! lease runs out and another may take the session over.

mod config_value;
mod encoding;
mod error;
mod file;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod holder;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod refusal;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

pub use config_value::ConfigValue;
pub use error::StoreError;
pub use file::{DEFAULT_MAX_SESSION_BYTES, FileStore};
pub use memory::{DEFAULT_MAX_ENTRIES, MemoryStore};
#[cfg(feature = "postgres")]
pub use postgres::{DEFAULT_POOL_SIZE, PostgresStore};
#[cfg(feature = "sqlite")]
pub use sqlite::{DEFAULT_BUSY_TIMEOUT, FileImport, SqliteStore};

/// The future a [`SessionStore`] call returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The default time a session's lease runs without being renewed: 30 s. The runtime renews it
/// every third of that while a turn runs, so a process that stops (a crash, a lost network)
/// frees its sessions for other processes after at most this long.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// What a store can do; the agent's advertised capabilities follow from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreFeatures {
    /// The store keeps each session's history, so a session can be reopened with a replay
    /// (v1 `session/load`, v2 `session/resume` with `replayFrom`). Without it the agent does
    /// not advertise `loadSession`, and a v2 replay is empty.
    pub history: bool,
    /// Sessions survive a restart of the process.
    pub durable: bool,
    /// Sessions can be deleted (`session/delete`).
    pub delete: bool,
}

impl StoreFeatures {
    /// A store that keeps history, can delete, and is `durable` or not.
    pub fn new(durable: bool) -> Self {
        Self {
            history: true,
            durable,
            delete: true,
        }
    }

    /// Sets whether the store keeps history.
    #[must_use]
    pub fn history(mut self, history: bool) -> Self {
        self.history = history;
        self
    }

    /// Sets whether the store can delete sessions.
    #[must_use]
    pub fn delete(mut self, delete: bool) -> Self {
        self.delete = delete;
        self
    }
}

/// What a store knows about one session besides its history, its owner included.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SessionMeta {
    /// The session id.
    pub id: String,
    /// The protocol version the session was created with; it is only ever opened with that
    /// version.
    pub protocol_version: ProtocolVersion,
    /// The working directory it was created or last opened with.
    pub cwd: String,
    /// Further workspace roots it was created or last opened with.
    pub additional_directories: Vec<String>,
    /// Its title, if the agent gave one.
    pub title: Option<String>,
    /// When it was created.
    pub created_at: SystemTime,
    /// When it last changed (a prompt, a title, a setting).
    pub updated_at: SystemTime,
    /// The id of its current mode, if it has modes.
    pub mode: Option<String>,
    /// The current values of its config options, by option id.
    pub config: Vec<(String, ConfigValue)>,
    /// Archived: left out of the default session list (`session/archive`, cargo feature
    /// `unstable_session_archive`); the store keeps the flag in any build.
    pub archived: bool,
    /// Who owns the session: the name of the [`Principal`](crate::agent::Principal) whose
    /// connection created it, or `None` for the local user (a stdio connection, or a remote
    /// server that requires no token). A connection sees only the sessions of its own
    /// principal. Set when the session is created and never changed afterwards; every store
    /// must keep it as it was given (a store that predates the field reads it as `None`).
    pub owner: Option<String>,
}

impl SessionMeta {
    /// A session created now.
    pub fn new(
        id: impl Into<String>,
        protocol_version: ProtocolVersion,
        cwd: impl Into<String>,
    ) -> Self {
        let now = SystemTime::now();
        Self {
            id: id.into(),
            protocol_version,
            cwd: cwd.into(),
            additional_directories: Vec::new(),
            title: None,
            created_at: now,
            updated_at: now,
            mode: None,
            config: Vec::new(),
            archived: false,
            owner: None,
        }
    }
}

/// One entry of a session's history.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HistoryEntry {
    /// A v1 update (never a notice: the type has none).
    V1(v1::ReplayableUpdate),
    /// A v2 update (never a notice: the type has none).
    V2(v2::ReplayableUpdate),
    /// A v2 prompt was inserted with this idempotency key; a retry with the same key gets the
    /// same message id back. Not replayed.
    PromptKey {
        /// The client's key.
        key: String,
        /// The id of the inserted user message.
        message_id: String,
    },
}

/// A store of sessions, shared by every connection of an agent server (and, for the database
/// stores, by every agent process that opens the same database).
///
/// Implementations must be safe to call from several tasks at once. Each method concerns one
/// session (except the listing): a failure must leave the other sessions as they were. Every
/// call is asynchronous; implement a method as `Box::pin(async move { ... })`.
pub trait SessionStore: Send + Sync + 'static {
    /// What this store can do.
    fn features(&self) -> StoreFeatures;

    /// Records a new session with an empty history. Fails with [`StoreError::Exists`] when the
    /// id is taken.
    fn create<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()>;

    /// The session's metadata; `None` when the store does not know the id.
    fn meta<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionMeta>>;

    /// Replaces the metadata of a known session.
    fn save_meta<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()>;

    /// Appends one entry to a session's history: all of it or nothing, and once this
    /// resolves the entry is stored (a client may be sent the update next). A store without
    /// history ([`StoreFeatures::history`] false) accepts and drops it. A store shared by
    /// several processes refuses the entry with [`StoreError::Leased`] while another process
    /// holds the session's lease.
    fn append<'a>(&'a self, id: &'a str, entry: HistoryEntry) -> StoreFuture<'a, ()>;

    /// Whether the runtime should group the updates of a turn into batches
    /// ([`Self::append_batch`]) for this store: `true` for a store whose every write has a
    /// fixed cost worth sharing (a transaction, a system call, a disk sync), as the file,
    /// SQLite and PostgreSQL stores do. With the default, `false`, the runtime appends each
    /// update in the call that sends it, before sending it, which is fastest for a store in
    /// memory.
    fn groups_appends(&self) -> bool {
        false
    }

    /// Appends several entries of one session's history, in order, as one write: all of them
    /// or none. The runtime records the updates a turn sends in a burst through this (see
    /// [the agent module](crate::agent#recording)), so that they share one transaction.
    ///
    /// The default appends them one by one with [`Self::append`], which is not all-or-none
    /// (after a failure, the entries before it stay): a store that can write several entries
    /// at once should implement it. Every store of this crate does.
    fn append_batch<'a>(&'a self, id: &'a str, entries: Vec<HistoryEntry>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            for entry in entries {
                self.append(id, entry).await?;
            }
            Ok(())
        })
    }

    /// The session's whole history, oldest first.
    fn history<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<HistoryEntry>>;

    /// The metadata of every session the store can read. A session whose data cannot be read
    /// is left out here and reports its error when it is opened.
    fn list(&self) -> StoreFuture<'_, Vec<SessionMeta>>;

    /// The metadata of every readable session whose [`SessionMeta::owner`] is `owner`. The
    /// default filters [`Self::list`]; a database store asks the database for them alone.
    fn list_owned<'a>(&'a self, owner: Option<&'a str>) -> StoreFuture<'a, Vec<SessionMeta>> {
        Box::pin(async move {
            let mut sessions = self.list().await?;
            sessions.retain(|meta| meta.owner.as_deref() == owner);
            Ok(sessions)
        })
    }

    /// Deletes a session and its history; `false` when the id was unknown.
    fn delete<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;

    /// Takes the lease of session `id` for this store value, or renews it, for `ttl` from
    /// now: the runtime calls it before a turn starts and every third of `ttl` while it runs.
    /// Fails with [`StoreError::Leased`] while another holder's lease has not expired, and
    /// with [`StoreError::Unknown`] for an unknown session.
    ///
    /// The default grants every lease: right for a store that only one process uses (the
    /// runtime already runs one turn at a time per session within a process), which is what
    /// [`MemoryStore`] and [`FileStore`] are.
    fn lease<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        let _ = (id, ttl);
        Box::pin(async { Ok(()) })
    }

    /// Gives up the lease of session `id` if this store value holds it (the turn ended).
    fn release<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        let _ = id;
        Box::pin(async { Ok(()) })
    }

    /// Gives up every lease this store value holds and finishes pending work: called once
    /// when the agent shuts down ([`AgentServer::drain`](crate::agent::AgentServer::drain)).
    /// The default does nothing.
    fn shutdown(&self) -> StoreFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }
}

/// Declares `$name`, the entries of a history of `$version` that are replayed, in order
/// (idempotency keys are not).
macro_rules! replayed {
    ($name:ident, $version:ident, $variant:ident) => {
        /// The entries of a history that are replayed, in order (idempotency keys are not).
        pub(crate) fn $name(
            history: Vec<HistoryEntry>,
        ) -> impl Iterator<Item = $version::ReplayableUpdate> {
            history.into_iter().filter_map(|entry| match entry {
                HistoryEntry::$variant(update) => Some(update),
                _ => None,
            })
        }
    };
}

replayed!(replayed_v1, v1, V1);
replayed!(replayed_v2, v2, V2);
