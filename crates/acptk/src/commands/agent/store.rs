//! Where `acp agent` keeps its sessions: `--store sqlite://PATH` or `--store postgres://...`,
//! else a SQLite database in the state directory (`--state-dir`, or the default one), into
//! which the per-session files of earlier versions found there are moved once (the files are
//! kept, unchanged, in `sessions.v1-files/` beside it); `--ephemeral` keeps them in memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use acptk_runtime::agent::{MemoryStore, PostgresStore, SessionStore, SqliteStore};

/// The database file in a state directory.
pub const DATABASE_FILE: &str = "sessions.sqlite3";

/// Where the files of an earlier version's file store are kept after the move.
pub const KEPT_FILES_DIR: &str = "sessions.v1-files";

/// A `--store` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// `sqlite://PATH`: a SQLite database file (created when missing); several agent
    /// processes on one machine may share it.
    Sqlite(PathBuf),
    /// `postgres://...` or `postgresql://...`: a PostgreSQL database that agent instances on
    /// several machines share (the URL as given, password included).
    Postgres(String),
}

/// Reads a `--store` value: `sqlite://PATH` (`sqlite:///abs/path` or `sqlite://relative`)
/// or `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (also `postgresql://`).
pub fn parse_store(text: &str) -> Result<StoreUrl, String> {
    let text = text.trim();
    if let Some(path) = text.strip_prefix("sqlite://") {
        if path.is_empty() {
            return Err(
                "`sqlite://` needs a file path, for example sqlite:///var/lib/acp/sessions.sqlite3"
                    .to_owned(),
            );
        }
        return Ok(StoreUrl::Sqlite(PathBuf::from(path)));
    }
    if text.starts_with("postgres://") || text.starts_with("postgresql://") {
        return Ok(StoreUrl::Postgres(text.to_owned()));
    }
    let shown = text.split('@').next_back().unwrap_or(text);
    Err(format!(
        "`{shown}` is not a store URL: use sqlite://PATH or postgres://USER@HOST/DATABASE"
    ))
}

/// What `acp agent` was asked for.
pub struct StoreArgs<'a> {
    /// `--ephemeral`.
    pub ephemeral: bool,
    /// `--store`.
    pub store: Option<&'a StoreUrl>,
    /// The state directory (`--state-dir`, or the default one); `None` when there is none.
    pub state_dir: Option<PathBuf>,
}

/// Opens the store `args` ask for, saying on standard error what a first start moved.
pub async fn open(
    args: StoreArgs<'_>,
) -> Result<Arc<dyn SessionStore>, Box<dyn std::error::Error + Send + Sync>> {
    if args.ephemeral {
        return Ok(Arc::new(MemoryStore::without_history()));
    }
    match args.store {
        Some(StoreUrl::Sqlite(path)) => Ok(Arc::new(SqliteStore::open(path)?)),
        Some(StoreUrl::Postgres(url)) => Ok(Arc::new(PostgresStore::connect(url).await?)),
        None => {
            let Some(dir) = args.state_dir else {
                return Err("no state directory: set $XDG_STATE_HOME or $HOME, or pass \
                            --state-dir DIR, --store URL or --ephemeral"
                    .into());
            };
            Ok(Arc::new(open_state_dir(&dir)?))
        }
    }
}

/// The SQLite database of state directory `dir`, with the file store found there moved in.
fn open_state_dir(dir: &Path) -> Result<SqliteStore, Box<dyn std::error::Error + Send + Sync>> {
    std::fs::create_dir_all(dir)
        .map_err(|error| format!("cannot use the state directory {}: {error}", dir.display()))?;
    if !dir.is_dir() {
        return Err(format!(
            "cannot use the state directory {}: it is not a directory",
            dir.display()
        )
        .into());
    }
    let database = dir.join(DATABASE_FILE);
    let store = SqliteStore::open(&database)?;
    let kept = dir.join(KEPT_FILES_DIR);
    let moved = store.import_files(dir, &kept)?;
    if !moved.is_empty() {
        let imported = moved.imported.len() + moved.present.len();
        eprintln!(
            "acp agent: moved {imported} sessions of {} into {}; the files are kept, unchanged, in {}",
            dir.display(),
            database.display(),
            kept.display()
        );
        for (id, reason) in &moved.unreadable {
            eprintln!(
                "acp agent: session {id} could not be read and was not moved (its files are in {}): {reason}",
                kept.display()
            );
        }
    }
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_urls() {
        assert_eq!(
            parse_store("sqlite:///var/lib/acp/s.db"),
            Ok(StoreUrl::Sqlite(PathBuf::from("/var/lib/acp/s.db")))
        );
        assert_eq!(
            parse_store("sqlite://s.db"),
            Ok(StoreUrl::Sqlite(PathBuf::from("s.db")))
        );
        assert_eq!(
            parse_store("postgresql://a:b@h/d"),
            Ok(StoreUrl::Postgres("postgresql://a:b@h/d".to_owned()))
        );
        assert!(parse_store("sqlite://").is_err());
        let error = parse_store("mysql://user:secret@host/db").unwrap_err();
        assert!(!error.contains("secret"), "{error}");
        assert!(error.contains("sqlite://PATH"), "{error}");
    }
}
