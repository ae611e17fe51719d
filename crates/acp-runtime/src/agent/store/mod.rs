//! Where sessions live: the [`SessionStore`] trait and its two implementations,
//! [`MemoryStore`] (the library default; sessions last as long as the process) and
//! [`FileStore`] (one pair of files per session under a directory; sessions survive restarts).
//!
//! A store keeps, for each session, its [`SessionMeta`] (version, working directory, title,
//! activity time, current mode and option values, owner) and its history: [`HistoryEntry`] values,
//! which hold only `ReplayableUpdate`s. That type has no notice variant, so a notice can never
//! be recorded or replayed.
//!
//! Store methods are synchronous and short (an append is one write to an open file); the
//! runtime calls them from its tasks.

mod file;
mod memory;

use std::path::PathBuf;
use std::time::SystemTime;

use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};

pub use file::{DEFAULT_MAX_SESSION_BYTES, FileStore};
pub use memory::{DEFAULT_MAX_ENTRIES, MemoryStore};

use super::config::ConfigValue;

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

/// A store of sessions, shared by every connection of an agent server.
///
/// Implementations must be safe to call from several tasks at once. Each method concerns one
/// session (except [`SessionStore::list`]): a failure must leave the other sessions as they
/// were.
pub trait SessionStore: Send + Sync + 'static {
    /// What this store can do.
    fn features(&self) -> StoreFeatures;

    /// Records a new session with an empty history. Fails with [`StoreError::Exists`] when the
    /// id is taken.
    fn create(&self, meta: &SessionMeta) -> Result<(), StoreError>;

    /// The session's metadata; `None` when the store does not know the id.
    fn meta(&self, id: &str) -> Result<Option<SessionMeta>, StoreError>;

    /// Replaces the metadata of a known session.
    fn save_meta(&self, meta: &SessionMeta) -> Result<(), StoreError>;

    /// Appends one entry to a session's history: all of it or nothing. A store without
    /// history ([`StoreFeatures::history`] false) accepts and drops it.
    fn append(&self, id: &str, entry: HistoryEntry) -> Result<(), StoreError>;

    /// The session's whole history, oldest first.
    fn history(&self, id: &str) -> Result<Vec<HistoryEntry>, StoreError>;

    /// The metadata of every session the store can read. A session whose data cannot be read
    /// is left out here and reports its error when it is opened.
    fn list(&self) -> Result<Vec<SessionMeta>, StoreError>;

    /// Deletes a session and its history; `false` when the id was unknown.
    fn delete(&self, id: &str) -> Result<bool, StoreError>;
}

/// Why a store could not do what was asked. Every variant names the session it concerns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store does not know the session.
    #[error("session `{0}` is not in the session store")]
    Unknown(String),
    /// A session with this id already exists.
    #[error("session `{0}` already exists in the session store")]
    Exists(String),
    /// A stored file does not read as what it should be.
    #[error("session `{id}` cannot be read: {} line {line}: {detail}", path.display())]
    Corrupt {
        /// The session.
        id: String,
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// What is wrong there.
        detail: String,
    },
    /// A stored file was written by a newer version of this software.
    #[error(
        "session `{id}` cannot be read: {} was written in store format {found} by a newer version; this build reads format {supported} and older",
        path.display()
    )]
    NewerFormat {
        /// The session.
        id: String,
        /// The file.
        path: PathBuf,
        /// The format the file declares.
        found: u64,
        /// The newest format this build reads.
        supported: u64,
    },
    /// The session reached its size limit; the entry was not recorded.
    #[error(
        "session `{id}` is full: it holds {used} {unit} and the limit is {limit} {unit}; nothing more can be recorded in it"
    )]
    Full {
        /// The session.
        id: String,
        /// What it holds now.
        used: u64,
        /// The limit.
        limit: u64,
        /// `bytes` or `entries`.
        unit: &'static str,
    },
    /// Reading or writing a file failed (a full disk, a missing permission, ...).
    #[error("session `{id}`: {action} {} failed: {source}", path.display())]
    Io {
        /// The session (empty for the store directory itself).
        id: String,
        /// What was being done (`creating`, `appending to`, ...).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The session is stored for another protocol version than the connection speaks.
    #[error("session `{id}` was created with protocol version {stored}, not {requested}")]
    WrongVersion {
        /// The session.
        id: String,
        /// Its version.
        stored: ProtocolVersion,
        /// The connection's version.
        requested: ProtocolVersion,
    },
}

impl StoreError {
    /// An I/O error of session `id`.
    pub fn io(
        id: impl Into<String>,
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        StoreError::Io {
            id: id.into(),
            action,
            path: path.into(),
            source,
        }
    }
}

/// The entries of a history that are replayed, in order (idempotency keys are not).
pub(crate) fn replayed_v1(
    history: Vec<HistoryEntry>,
) -> impl Iterator<Item = v1::ReplayableUpdate> {
    history.into_iter().filter_map(|entry| match entry {
        HistoryEntry::V1(update) => Some(update),
        _ => None,
    })
}

/// The entries of a history that are replayed, in order (idempotency keys are not).
pub(crate) fn replayed_v2(
    history: Vec<HistoryEntry>,
) -> impl Iterator<Item = v2::ReplayableUpdate> {
    history.into_iter().filter_map(|entry| match entry {
        HistoryEntry::V2(update) => Some(update),
        _ => None,
    })
}
