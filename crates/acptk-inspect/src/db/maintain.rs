//! Keeping a database in shape: the search index, deleting captures.

use rusqlite::{TransactionBehavior, params};

use crate::Store;
use crate::error::{Error, Result};

/// Frames indexed per transaction (so that a capturing proxy never waits long for the lock).
const INDEX_CHUNK: i64 = 5_000;

impl Store {
    /// Brings the search index up to date (frames are indexed in id order after they are
    /// written); returns how many frames it indexed. Frames not yet indexed are still found by
    /// [`Store::search`], by a slower scan.
    pub fn index(&mut self) -> Result<u64> {
        let mut done = 0u64;
        loop {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let from: i64 = tx.query_row("SELECT indexed FROM fts_state", [], |r| r.get(0))?;
            let mut last = from;
            {
                let mut select = tx.prepare_cached(
                    "SELECT id, raw FROM frames WHERE id > ?1 ORDER BY id LIMIT ?2",
                )?;
                let mut insert =
                    tx.prepare_cached("INSERT INTO frames_fts (rowid, text) VALUES (?1, ?2)")?;
                let mut rows = select.query(params![from, INDEX_CHUNK])?;
                while let Some(row) = rows.next()? {
                    let id: i64 = row.get(0)?;
                    let raw = row.get_ref(1)?.as_bytes_or_null()?.unwrap_or_default();
                    insert.execute(params![id, String::from_utf8_lossy(raw)])?;
                    last = id;
                    done += 1;
                }
            }
            if last == from {
                return Ok(done);
            }
            tx.execute("UPDATE fts_state SET indexed = ?1", [last])?;
            tx.commit()?;
        }
    }

    /// Deletes capture `id` with its frames, findings and notices (and the spool a killed
    /// proxy left, if any).
    pub fn delete(&mut self, id: i64) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if !crate::writer::exists(&tx, id)? {
            return Err(Error::NoCapture(id));
        }
        tx.execute(
            "DELETE FROM frames_fts WHERE rowid IN (SELECT id FROM frames WHERE capture = ?1 AND id <= (SELECT indexed FROM fts_state))",
            [id],
        )?;
        let spool: Option<String> = tx
            .query_row("SELECT path FROM spools WHERE capture = ?1", [id], |r| {
                r.get(0)
            })
            .ok();
        tx.execute("DELETE FROM captures WHERE id = ?1", [id])?;
        tx.commit()?;
        // A killed proxy's spool goes with its capture; a live proxy removes its own.
        if let Some(name) = spool {
            let path = crate::expand::spool_path(self.path(), &name);
            if let Ok(file) = std::fs::File::open(&path)
                && file.try_lock().is_ok()
            {
                let _ = std::fs::remove_file(&path);
            }
        }
        Ok(())
    }
}
