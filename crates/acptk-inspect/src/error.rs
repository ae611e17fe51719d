//! The errors of this crate.

use std::path::PathBuf;

/// What went wrong with a capture database or its contents.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// SQLite failed.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored value is not of the type expected.
    #[error("database value: {0}")]
    Value(#[from] rusqlite::types::FromSqlError),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The database was written by a newer build.
    #[error(
        "{path}: schema version {found}, newer than this build knows ({known}): use a newer `acp`"
    )]
    TooNew {
        /// The database.
        path: PathBuf,
        /// Its schema version.
        found: u32,
        /// The newest version this build knows.
        known: u32,
    },
    /// A database opened read-only is at an older schema version (it is upgraded only when
    /// opened for writing).
    #[error(
        "{path}: schema version {found}, older than this build's {known}; open it once for writing (e.g. `acp inspect list`) to upgrade it"
    )]
    Outdated {
        /// The database.
        path: PathBuf,
        /// Its schema version.
        found: u32,
        /// The version this build reads.
        known: u32,
    },
    /// No capture has this id.
    #[error("no capture {0}")]
    NoCapture(i64),
    /// Input that is not what was expected.
    #[error("{0}")]
    Invalid(String),
}

/// The result of this crate's fallible functions.
pub type Result<T, E = Error> = std::result::Result<T, E>;
