//! [`StoreError`]: why a store could not do what was asked.

use std::path::PathBuf;
use std::time::Duration;

use acptk_schema::v1::ProtocolVersion;

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
    /// A stored record (a database row) does not read as what it should be.
    #[error("session `{id}` cannot be read: {place}: {detail}")]
    CorruptRecord {
        /// The session.
        id: String,
        /// Where the record is (the store and the row, for example
        /// `sqlite:///var/lib/acp/sessions.db, history entry 12`).
        place: String,
        /// What is wrong there.
        detail: String,
    },
    /// The database's schema was written by a newer version of this software.
    #[error(
        "the session store {place} has schema version {found}, written by a newer version; this build knows versions up to {supported}"
    )]
    NewerSchema {
        /// The store (its URL or file).
        place: String,
        /// The schema version the database declares.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },
    /// A database call failed (the server is unreachable, a constraint, a full disk, ...).
    #[error("session `{id}`: {action} failed: {source}")]
    Database {
        /// The session (empty for the store as a whole).
        id: String,
        /// What was being done (`appending to the history`, `connecting`, ...).
        action: &'static str,
        /// The driver's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Another instance holds the session's lease: a turn of the session runs there (see
    /// [`SessionStore::lease`](super::SessionStore::lease)). Nothing was changed.
    #[error(
        "session `{id}` has a turn running on another agent instance (`{holder}`); its lease expires in {} s unless that instance renews it; try again once the turn has ended",
        remaining.as_secs().max(1)
    )]
    Leased {
        /// The session.
        id: String,
        /// The instance holding the lease (see the stores' `holder` option).
        holder: String,
        /// How long the lease still runs if it is not renewed.
        remaining: Duration,
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
    /// [`StoreError::NewerSchema`] when the database at `place` declares a schema version
    /// (`found`) newer than the newest this build knows (`supported`).
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn check_schema(place: &str, found: i64, supported: i64) -> Result<(), StoreError> {
        if found > supported {
            return Err(StoreError::NewerSchema {
                place: place.to_owned(),
                found,
                supported,
            });
        }
        Ok(())
    }

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

    /// A database error of session `id` (empty for the store as a whole).
    pub fn database(
        id: impl Into<String>,
        action: &'static str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        StoreError::Database {
            id: id.into(),
            action,
            source: source.into(),
        }
    }
}
