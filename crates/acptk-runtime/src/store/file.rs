//! The file-backed store: sessions survive restarts.
//!
//! Each session has two files in the store directory:
//!
//! * `ID.json`: its metadata, one JSON object, replaced as a whole (written to a temporary
//!   file, then renamed over the old one, so a reader sees the old or the new version).
//! * `ID.jsonl`: its history, JSON Lines. The first line is a header naming the store format,
//!   the session and its protocol version; each further line is one record: `{"update":
//!   {...}}` (a session update exactly as it was sent) or `{"promptKey": {...}}` (an
//!   idempotency key of a v2 prompt). Records are appended with one write each to a file
//!   opened for appending, with no buffer in between, so each one reaches the operating
//!   system whole and at once. A write that fails part-way is cut back off.
//!
//! The metadata of a session with an owner ([`SessionMeta::owner`]) is written in store
//! format 2, everything else in format 1, so the local user's sessions stay readable by
//! older builds while an owned session is refused by them (they would not know whose it is).
//!
//! A file that does not read (a cut or damaged line, a record that is not an update, a notice
//! recorded by a foreign writer) fails that one session with an error naming the file and
//! line; a file of a newer store format fails with an error saying so. Other sessions are not
//! affected. Each history file is bounded ([`FileStore::max_session_bytes`]).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use acptk_schema::v1::ProtocolVersion;
use serde::{Deserialize, Serialize};

use super::encoding::{
    StoredOption, decode_entry, encode_entry, from_millis, millis, options_from, stored_options,
};
use super::{HistoryEntry, SessionMeta, SessionStore, StoreError, StoreFeatures, StoreFuture};
use crate::lock::lock;

/// The format of history files: the one this build writes and the newest it reads.
const HISTORY_FORMAT: u64 = 1;
/// The format of the metadata of a session without an owner, which every build reads.
const META_FORMAT_BASE: u64 = 1;
/// The format of the metadata of an owned session (format 2 adds `owner`), and the newest
/// metadata format this build reads. A build that reads only format 1 refuses such a file
/// ([`StoreError::NewerFormat`]) instead of serving the session without knowing whose it is.
const META_FORMAT: u64 = 2;

/// The default size limit of one session's history file: 64 MiB.
pub const DEFAULT_MAX_SESSION_BYTES: u64 = 64 * 1024 * 1024;

/// How many history files stay open for appending at most; the least recently used one is
/// closed first (it is reopened when its session records again).
const MAX_OPEN_FILES: usize = 64;

/// Sessions kept in files under one directory (see the module documentation for the layout).
///
/// One process at a time: the store keeps history files open and their lengths in memory,
/// and its leases are those of the process (see [`SessionStore::lease`]). Agents that share
/// sessions between processes use a database store (`SqliteStore`, `PostgresStore`).
///
/// Sessions survive a restart of the agent: here the second server, with a new store value
/// on the same directory, stands for the agent started again.
///
/// ```
/// use acptk_runtime::agent::FileStore;
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
/// let sessions = scratch.path().join("sessions"); // created by `open`
///
/// let server = AgentServer::new(Echo).store(FileStore::open(&sessions)?);
/// let client = connect(&server).await?;
/// let session = client.new_session("/work/project", &[]).await?;
/// client.prompt(&session, "hello").await?;
/// client.close().await;
///
/// let restarted = AgentServer::new(Echo).store(FileStore::open(&sessions)?);
/// let client = connect(&restarted).await?;
/// client.load_session(&session, "/work/project", &[]).await?;
/// let replayed = client.session_transcript(&session).unwrap_or_default();
/// assert_eq!(replayed.entries.len(), 2); // the prompt and the answer
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    max_bytes: u64,
    /// History files open for appending, with their current length.
    open: Mutex<OpenFiles>,
    /// Serialises metadata replacements (each goes through the same temporary file name).
    meta_writes: Mutex<()>,
}

#[derive(Debug)]
struct OpenHistory {
    file: File,
    len: u64,
    /// When it was last used ([`OpenFiles::clock`]).
    used: u64,
}

/// The open history files, at most [`MAX_OPEN_FILES`].
#[derive(Debug, Default)]
struct OpenFiles {
    files: HashMap<String, OpenHistory>,
    clock: u64,
}

impl OpenFiles {
    fn insert(&mut self, id: &str, file: File, len: u64) {
        if self.files.len() >= MAX_OPEN_FILES {
            let oldest = self
                .files
                .iter()
                .min_by_key(|(_, open)| open.used)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                self.files.remove(&oldest);
            }
        }
        self.clock += 1;
        self.files.insert(
            id.to_owned(),
            OpenHistory {
                file,
                len,
                used: self.clock,
            },
        );
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut OpenHistory> {
        self.clock += 1;
        let clock = self.clock;
        let open = self.files.get_mut(id)?;
        open.used = clock;
        Some(open)
    }

    fn remove(&mut self, id: &str) {
        self.files.remove(id);
    }
}

impl FileStore {
    /// A store in `dir`, which is created if it does not exist.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)
            .map_err(|error| StoreError::io("", "creating the store directory", &dir, error))?;
        if !dir.is_dir() {
            return Err(StoreError::io(
                "",
                "using the store directory",
                &dir,
                std::io::Error::other("not a directory"),
            ));
        }
        Ok(Self {
            dir,
            max_bytes: DEFAULT_MAX_SESSION_BYTES,
            open: Mutex::new(OpenFiles::default()),
            meta_writes: Mutex::new(()),
        })
    }

    /// Sets the size limit of one session's history file in bytes (default
    /// [`DEFAULT_MAX_SESSION_BYTES`]). Recording beyond it fails with [`StoreError::Full`];
    /// what is recorded stays.
    #[must_use]
    pub fn max_session_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes.max(1);
        self
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The metadata file of session `id`.
    pub fn meta_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// The history file of session `id`.
    pub fn history_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    fn write_meta(&self, meta: &SessionMeta) -> Result<(), StoreError> {
        let text = serde_json::to_vec(&MetaFile::from(meta)).map_err(|error| {
            StoreError::io(&meta.id, "encoding", self.meta_path(&meta.id), error.into())
        })?;
        let _guard = lock(&self.meta_writes);
        let path = self.meta_path(&meta.id);
        let temporary = self.dir.join(format!("{}.json.tmp", meta.id));
        std::fs::write(&temporary, &text)
            .map_err(|error| StoreError::io(&meta.id, "writing", &temporary, error))?;
        std::fs::rename(&temporary, &path).map_err(|error| {
            let _ = std::fs::remove_file(&temporary);
            StoreError::io(&meta.id, "replacing", &path, error)
        })
    }

    fn read_meta(&self, id: &str, path: &Path) -> Result<SessionMeta, StoreError> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| StoreError::io(id, "reading", path, error))?;
        let corrupt = |detail: String| StoreError::Corrupt {
            id: id.to_owned(),
            path: path.to_owned(),
            line: 1,
            detail,
        };
        check_format(id, path, &text, 1, META_FORMAT)?;
        let file: MetaFile =
            serde_json::from_str(&text).map_err(|error| corrupt(error.to_string()))?;
        if file.session_id != id {
            return Err(corrupt(format!(
                "the file belongs to session `{}`",
                file.session_id
            )));
        }
        Ok(file.into_meta())
    }

    /// Runs `write` on the open history file of `id` (opening it first), keeping its length.
    fn with_history<T>(
        &self,
        id: &str,
        write: impl FnOnce(&mut OpenHistory, &Path) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let path = self.history_path(id);
        let mut open = lock(&self.open);
        if open
            .files
            .get(id)
            .is_some_and(|history| unlinked(&history.file))
        {
            // Deleted meanwhile (by another store value on the directory): writing on would
            // lose the entry unseen.
            open.remove(id);
        }
        if !open.files.contains_key(id) {
            let file = OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(|error| match error.kind() {
                    std::io::ErrorKind::NotFound => StoreError::Unknown(id.to_owned()),
                    _ => StoreError::io(id, "opening", &path, error),
                })?;
            let len = file
                .metadata()
                .map_err(|error| StoreError::io(id, "reading the size of", &path, error))?
                .len();
            open.insert(id, file, len);
        }
        let Some(history) = open.get_mut(id) else {
            return Err(StoreError::Unknown(id.to_owned()));
        };
        let result = write(history, &path);
        if result.is_err() {
            // Reopen next time: the handle may be in a bad state.
            open.remove(id);
        }
        result
    }
}

/// Whether `file` was deleted from the directory while open.
#[cfg(unix)]
fn unlinked(file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    file.metadata().is_ok_and(|meta| meta.nlink() == 0)
}

/// Whether `file` was deleted from the directory while open (other platforms refuse to
/// delete an open file).
#[cfg(not(unix))]
fn unlinked(_file: &File) -> bool {
    false
}

/// Ids that can name files: letters, digits, `-` and `_`, at most 128 characters. Other ids
/// are never ours, so the store does not know them.
pub(super) fn file_name_ok(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
}

/// Fails with [`StoreError::NewerFormat`] when `text` (a JSON object) declares a format newer
/// than `newest`, the newest this build reads for that kind of file.
fn check_format(
    id: &str,
    path: &Path,
    text: &str,
    line: usize,
    newest: u64,
) -> Result<(), StoreError> {
    #[derive(Deserialize)]
    struct Format {
        format: u64,
    }
    match serde_json::from_str::<Format>(text) {
        Ok(Format { format }) if format > newest => Err(StoreError::NewerFormat {
            id: id.to_owned(),
            path: path.to_owned(),
            found: format,
            supported: newest,
        }),
        Ok(_) => Ok(()),
        Err(error) => Err(StoreError::Corrupt {
            id: id.to_owned(),
            path: path.to_owned(),
            line,
            detail: format!("expected an object with the store `format`: {error}"),
        }),
    }
}

/// The first line of a history file.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header {
    format: u64,
    session_id: String,
    protocol_version: ProtocolVersion,
}

/// The encoded line (with its newline) for `entry`.
fn encode_line(id: &str, path: &Path, entry: HistoryEntry) -> Result<Vec<u8>, StoreError> {
    let mut line = encode_entry(entry)
        .map_err(|error| StoreError::io(id, "encoding an entry for", path, error.into()))?;
    line.push(b'\n');
    Ok(line)
}

impl FileStore {
    fn create_now(&self, meta: &SessionMeta) -> Result<(), StoreError> {
        if !file_name_ok(&meta.id) {
            return Err(StoreError::io(
                &meta.id,
                "creating",
                self.history_path("…"),
                std::io::Error::other(
                    "a stored session id may hold only letters, digits, `-` and `_`",
                ),
            ));
        }
        let path = self.history_path(&meta.id);
        let mut file = match OpenOptions::new().append(true).create_new(true).open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(StoreError::Exists(meta.id.clone()));
            }
            Err(error) => return Err(StoreError::io(&meta.id, "creating", &path, error)),
        };
        let header = Header {
            format: HISTORY_FORMAT,
            session_id: meta.id.clone(),
            protocol_version: meta.protocol_version,
        };
        let mut line = serde_json::to_vec(&header)
            .map_err(|error| StoreError::io(&meta.id, "encoding", &path, error.into()))?;
        line.push(b'\n');
        let written = file
            .write_all(&line)
            .map_err(|error| StoreError::io(&meta.id, "writing", &path, error))
            .and_then(|()| self.write_meta(meta));
        if let Err(error) = written {
            let _ = std::fs::remove_file(&path);
            return Err(error);
        }
        lock(&self.open).insert(&meta.id, file, line.len() as u64);
        Ok(())
    }

    pub(in crate::store) fn meta_now(&self, id: &str) -> Result<Option<SessionMeta>, StoreError> {
        if !file_name_ok(id) {
            return Ok(None);
        }
        let path = self.meta_path(id);
        if !path.exists() {
            return Ok(None);
        }
        self.read_meta(id, &path).map(Some)
    }

    fn save_meta_now(&self, meta: &SessionMeta) -> Result<(), StoreError> {
        if !file_name_ok(&meta.id) || !self.meta_path(&meta.id).exists() {
            return Err(StoreError::Unknown(meta.id.clone()));
        }
        self.write_meta(meta)
    }

    fn append_now(
        &self,
        id: &str,
        entries: impl IntoIterator<Item = HistoryEntry>,
    ) -> Result<(), StoreError> {
        if !file_name_ok(id) {
            return Err(StoreError::Unknown(id.to_owned()));
        }
        let max = self.max_bytes;
        self.with_history(id, |history, path| {
            // One write of every line, so that a batch is kept whole or cut back whole.
            let mut line = Vec::new();
            for entry in entries {
                let encoded = encode_line(id, path, entry)?;
                if line.is_empty() {
                    line = encoded;
                } else {
                    line.extend_from_slice(&encoded);
                }
            }
            let needed = line.len() as u64;
            if history.len + needed > max {
                return Err(StoreError::Full {
                    id: id.to_owned(),
                    used: history.len,
                    limit: max,
                    unit: "bytes",
                });
            }
            if let Err(error) = history.file.write_all(&line) {
                // Cut a partial line back off, so the file stays readable.
                let _ = history.file.set_len(history.len);
                return Err(StoreError::io(id, "appending to", path, error));
            }
            history.len += needed;
            Ok(())
        })
    }

    pub(in crate::store) fn history_now(&self, id: &str) -> Result<Vec<HistoryEntry>, StoreError> {
        if !file_name_ok(id) {
            return Err(StoreError::Unknown(id.to_owned()));
        }
        let path = self.history_path(id);
        let text = std::fs::read_to_string(&path).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => StoreError::Unknown(id.to_owned()),
            _ => StoreError::io(id, "reading", &path, error),
        })?;
        let corrupt = |line: usize, detail: String| StoreError::Corrupt {
            id: id.to_owned(),
            path: path.clone(),
            line,
            detail,
        };
        if !text.is_empty() && !text.ends_with('\n') {
            let line = text.lines().count();
            return Err(corrupt(
                line,
                "the last line is cut off (no line end)".to_owned(),
            ));
        }
        let mut lines = text.lines().enumerate();
        let Some((_, first)) = lines.next() else {
            return Err(corrupt(1, "the file is empty (no header)".to_owned()));
        };
        check_format(id, &path, first, 1, HISTORY_FORMAT)?;
        let header: Header =
            serde_json::from_str(first).map_err(|error| corrupt(1, error.to_string()))?;
        if header.session_id != id {
            return Err(corrupt(
                1,
                format!("the file belongs to session `{}`", header.session_id),
            ));
        }
        lines
            .map(|(index, line)| {
                decode_entry(header.protocol_version, line)
                    .map_err(|detail| corrupt(index + 1, detail))
            })
            .collect()
    }

    fn list_now(&self) -> Result<Vec<SessionMeta>, StoreError> {
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|error| StoreError::io("", "listing", &self.dir, error))?;
        let mut sessions = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(|name| name.strip_suffix(".json"))
            else {
                continue;
            };
            if !file_name_ok(id) {
                continue;
            }
            if let Ok(meta) = self.read_meta(id, &path) {
                sessions.push(meta);
            }
        }
        Ok(sessions)
    }

    fn delete_now(&self, id: &str) -> Result<bool, StoreError> {
        if !file_name_ok(id) {
            return Ok(false);
        }
        lock(&self.open).remove(id);
        let meta = self.meta_path(id);
        let history = self.history_path(id);
        let mut found = false;
        for path in [&meta, &history] {
            match std::fs::remove_file(path) {
                Ok(()) => found = true,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(StoreError::io(id, "deleting", path, error)),
            }
        }
        Ok(found)
    }
}

/// The metadata file.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MetaFile {
    format: u64,
    session_id: String,
    protocol_version: ProtocolVersion,
    cwd: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    additional_directories: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    created_at_ms: u64,
    updated_at_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    config: Vec<StoredOption>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    archived: bool,
    /// Format 2: the owner's name; absent (format 1) for the local user's sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
}

impl From<&SessionMeta> for MetaFile {
    fn from(meta: &SessionMeta) -> Self {
        Self {
            format: if meta.owner.is_some() {
                META_FORMAT
            } else {
                META_FORMAT_BASE
            },
            session_id: meta.id.clone(),
            protocol_version: meta.protocol_version,
            cwd: meta.cwd.clone(),
            additional_directories: meta.additional_directories.clone(),
            title: meta.title.clone(),
            created_at_ms: millis(meta.created_at),
            updated_at_ms: millis(meta.updated_at),
            mode: meta.mode.clone(),
            config: stored_options(&meta.config),
            archived: meta.archived,
            owner: meta.owner.clone(),
        }
    }
}

impl MetaFile {
    fn into_meta(self) -> SessionMeta {
        SessionMeta {
            id: self.session_id,
            protocol_version: self.protocol_version,
            cwd: self.cwd,
            additional_directories: self.additional_directories,
            title: self.title,
            created_at: from_millis(self.created_at_ms),
            updated_at: from_millis(self.updated_at_ms),
            mode: self.mode,
            config: options_from(self.config),
            archived: self.archived,
            owner: self.owner,
        }
    }
}

impl SessionStore for FileStore {
    fn features(&self) -> StoreFeatures {
        StoreFeatures::new(true)
    }

    fn create<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.create_now(meta) })
    }

    fn meta<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionMeta>> {
        Box::pin(async move { self.meta_now(id) })
    }

    fn save_meta<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.save_meta_now(meta) })
    }

    fn groups_appends(&self) -> bool {
        true
    }

    fn append<'a>(&'a self, id: &'a str, entry: HistoryEntry) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.append_now(id, [entry]) })
    }

    fn append_batch<'a>(&'a self, id: &'a str, entries: Vec<HistoryEntry>) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.append_now(id, entries) })
    }

    fn history<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<HistoryEntry>> {
        Box::pin(async move { self.history_now(id) })
    }

    fn list(&self) -> StoreFuture<'_, Vec<SessionMeta>> {
        Box::pin(async move { self.list_now() })
    }

    fn delete<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move { self.delete_now(id) })
    }
}
