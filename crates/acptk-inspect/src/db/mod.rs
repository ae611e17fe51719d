//! Opening a capture database: where it is, its settings, its migrations.

mod maintain;
pub mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::error::{Error, Result};
pub use schema::SCHEMA_VERSION;

/// How long a writer waits for another one (another proxy capturing into the same database)
/// before it gives up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The database of this user: `$XDG_DATA_HOME/acp/captures.db`, else
/// `~/.local/share/acp/captures.db`; `None` when neither variable is set.
pub fn default_path() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let base = match non_empty("XDG_DATA_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(non_empty("HOME")?).join(".local/share"),
    };
    Some(base.join("acp").join("captures.db"))
}

/// A capture database: one SQLite connection, read-write or read-only.
///
/// Read-write opening creates the file (and its directory) when missing, turns on WAL mode
/// (readers never block the writer, and several proxies can capture at once: each commit
/// waits up to [`BUSY_TIMEOUT`] for the others) and brings the schema up to
/// [`SCHEMA_VERSION`]. Read-only opening changes nothing and refuses a database of another
/// version.
///
/// Import a transcript (as `acp inspect import` does), then read it as `acp inspect` does,
/// through a read-only store:
///
/// ```
/// use acptk_inspect::{Store, import};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let transcript = br#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed","version":"0.200.0"}}}}
/// {"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}
/// {"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable"}}}}
/// "#;
/// let scratch = tempfile::tempdir()?;
/// let path = scratch.path().join("captures.db");
///
/// let mut store = Store::open(&path)?; // created, in WAL mode, schema up to date
/// let imported = import::traces(&mut store, &transcript[..], "session.jsonl")?;
/// assert_eq!(imported.frames, 3);
/// drop(store);
///
/// let store = Store::open_read_only(&path)?;
/// let capture = store.capture(imported.captures[0])?;
/// assert_eq!(capture.client.name.as_deref(), Some("zed"));
/// assert_eq!((capture.errors, capture.notices), (1, 1));
/// let findings = store.findings(capture.id)?;
/// assert_eq!(findings[0].rule, "notice-without-capability");
/// let notices = store.notices(capture.id)?;
/// assert_eq!(notices[0].title.as_deref(), Some("MCP server unavailable"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Store {
    pub(crate) conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating and upgrading as needed) the database at `path` for reading and writing.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.to_owned(),
                source,
            })?;
        }
        let conn = Connection::open(path)?;
        Self::writable(conn, path, SCHEMA_VERSION)
    }

    /// Opens the database at `path` read-only: nothing is written, not even an upgrade.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(Error::Io {
                path: path.to_owned(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such database"),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let found = user_version(&conn)?;
        if found > SCHEMA_VERSION {
            return Err(Error::TooNew {
                path: path.to_owned(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        if found < SCHEMA_VERSION {
            return Err(Error::Outdated {
                path: path.to_owned(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        Ok(Store {
            conn,
            path: path.to_owned(),
        })
    }

    /// A database in memory (for tests and one-off conversions).
    pub fn in_memory() -> Result<Store> {
        Self::writable(
            Connection::open_in_memory()?,
            Path::new(":memory:"),
            SCHEMA_VERSION,
        )
    }

    /// Opens `path` for writing at schema version `version` (at most [`SCHEMA_VERSION`]):
    /// for tests of the migrations, which need a database as an older build left it.
    #[doc(hidden)]
    pub fn open_at_version(path: impl AsRef<Path>, version: u32) -> Result<Store> {
        let path = path.as_ref();
        Self::writable(Connection::open(path)?, path, version.min(SCHEMA_VERSION))
    }

    fn writable(mut conn: Connection, path: &Path, version: u32) -> Result<Store> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // `journal_mode` answers with the mode it is in (`memory` for an in-memory database).
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        // In WAL mode, NORMAL syncs at checkpoints only: a commit is in the WAL, handed to the
        // operating system, when it returns; it survives the process, not a power cut.
        conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")?;
        migrate(&mut conn, path, version)?;
        Ok(Store {
            conn,
            path: path.to_owned(),
        })
    }

    /// Where the database is (`:memory:` for one in memory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the database.
    pub fn schema_version(&self) -> Result<u32> {
        user_version(&self.conn)
    }
}

fn user_version(conn: &Connection) -> Result<u32> {
    Ok(conn.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}

/// Runs the migration steps from the database's version up to `target`, each in a
/// transaction of its own (taken with the write lock, so that two processes opening a new
/// database at once do not both run a step).
fn migrate(conn: &mut Connection, path: &Path, target: u32) -> Result<()> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found = user_version(&tx)?;
        if found > SCHEMA_VERSION {
            return Err(Error::TooNew {
                path: path.to_owned(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        if found >= target {
            return Ok(());
        }
        tx.execute_batch(schema::MIGRATIONS[found as usize])?;
        tx.pragma_update(None, "user_version", found + 1)?;
        tx.commit()?;
    }
}
