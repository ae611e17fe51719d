//! Moving a file store into a SQLite store: every readable session is copied (metadata and
//! history, in one transaction each), then the file store's files are moved, unchanged, into
//! a directory beside them, so the import happens once and the originals stay for whoever
//! wants them back.
//!
//! It can be interrupted and run again: a session the database already has is not copied
//! twice, and files already moved are not looked for. Two processes may run it at once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rusqlite::{ToSql, TransactionBehavior};

use super::super::StoreError;
use super::super::encoding::{MetaRow, encode_rows};
use super::super::file::{FileStore, file_name_ok};
use super::{META_COLUMNS, SqliteStore, failed, meta_params};

/// What [`SqliteStore::import_files`] found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileImport {
    /// The sessions copied into the database, by id.
    pub imported: Vec<String>,
    /// The sessions the database had already (from an earlier, interrupted import): not
    /// copied again.
    pub present: Vec<String>,
    /// The sessions whose files do not read, with the reason: not copied, their files moved
    /// aside with the others.
    pub unreadable: Vec<(String, String)>,
    /// How many files were moved aside.
    pub moved_files: usize,
}

impl FileImport {
    /// Whether there was nothing to import.
    pub fn is_empty(&self) -> bool {
        self.imported.is_empty()
            && self.present.is_empty()
            && self.unreadable.is_empty()
            && self.moved_files == 0
    }
}

/// The file store's files in `dir` (`ID.json`, `ID.jsonl`, a left-over `ID.json.tmp`), by
/// session id. Nothing else in the directory is touched.
fn store_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, StoreError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|error| StoreError::io("", "listing the file store", dir, error))?;
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        let id = [".json.tmp", ".jsonl", ".json"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix));
        if let Some(id) = id.filter(|id| file_name_ok(id)) {
            files.push((id.to_owned(), path.clone()));
        }
    }
    files.sort();
    Ok(files)
}

impl SqliteStore {
    /// Imports the sessions of the [`FileStore`] in `dir` into this database, then moves the
    /// file store's files (unchanged) into `aside` (created if needed). Files that are not
    /// the file store's are left where they are. Blocks while it runs: call it before
    /// serving.
    ///
    /// A session the database already has keeps its database version (its files are moved
    /// aside all the same); one whose files do not read is reported in
    /// [`FileImport::unreadable`] and its files are moved aside too, so nothing is lost and
    /// nothing is tried again at the next start.
    pub fn import_files(&self, dir: &Path, aside: &Path) -> Result<FileImport, StoreError> {
        let mut report = FileImport::default();
        let files = store_files(dir)?;
        if files.is_empty() {
            return Ok(report);
        }
        let source = FileStore::open(dir)?;
        let ids: BTreeSet<&str> = files.iter().map(|(id, _)| id.as_str()).collect();
        let mut connection = self.shared.take()?;
        for id in ids {
            let read = source.meta_now(id).and_then(|meta| {
                let meta = meta.ok_or_else(|| StoreError::Unknown(id.to_owned()))?;
                Ok((meta, source.history_now(id)?))
            });
            let (meta, history) = match read {
                Ok(read) => read,
                Err(error) => {
                    report.unreadable.push((id.to_owned(), error.to_string()));
                    continue;
                }
            };
            let row = MetaRow::of(&meta);
            let (entries, bytes) = encode_rows(id, history)?;
            let next_seq = i64::try_from(entries.len()).unwrap_or(i64::MAX);
            let history_bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
            let mut values = meta_params(&row).to_vec();
            values.extend([&next_seq as &dyn ToSql, &history_bytes]);
            let transaction = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(failed(id, "importing the session"))?;
            let inserted = transaction
                .execute(
                    &format!(
                        "INSERT OR IGNORE INTO acp_sessions ({META_COLUMNS}, next_seq, history_bytes) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                    ),
                    values.as_slice(),
                )
                .map_err(failed(id, "importing the session"))?;
            if inserted == 0 {
                report.present.push(id.to_owned());
                continue;
            }
            for (seq, json) in entries.iter().enumerate() {
                transaction
                    .execute(
                        "INSERT INTO acp_history (session_id, seq, entry) VALUES (?1, ?2, ?3)",
                        (id, i64::try_from(seq + 1).unwrap_or(i64::MAX), json),
                    )
                    .map_err(failed(id, "importing the history"))?;
            }
            transaction
                .commit()
                .map_err(failed(id, "importing the session"))?;
            report.imported.push(id.to_owned());
        }
        self.shared.give(connection);
        std::fs::create_dir_all(aside)
            .map_err(|error| StoreError::io("", "creating", aside, error))?;
        for (id, path) in files {
            let Some(name) = path.file_name() else {
                continue;
            };
            match std::fs::rename(&path, aside.join(name)) {
                Ok(()) => report.moved_files += 1,
                // Moved by another process importing at the same time.
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(StoreError::io(id, "moving aside", &path, error)),
            }
        }
        Ok(report)
    }
}
