//! Full-text search across captures (SQLite FTS5).
//!
//! The text is searched as a phrase: its words, in order, each matched whole and without
//! regard to case (FTS5's `unicode61` tokenizer: punctuation separates words, so
//! `session/update` finds the words `session` `update`). Frames not yet in the index (a
//! capture still running, or a database opened read-only before its last capture ended) are
//! searched by a scan for the text itself, case-insensitively for ASCII letters.

use rusqlite::params;
use serde::Serialize;

use crate::Store;
use crate::error::{Error, Result};
use crate::query::FrameRow;

/// What to search.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Only in this capture.
    pub capture: Option<i64>,
    /// At most this many hits (newest first).
    pub limit: usize,
    /// Snippets are cut from the frames' redacted text.
    pub redact: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            capture: None,
            limit: 50,
            redact: false,
        }
    }
}

impl SearchOptions {
    /// All captures, 50 hits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only in capture `id`.
    #[must_use]
    pub fn capture(mut self, id: i64) -> Self {
        self.capture = Some(id);
        self
    }

    /// At most `limit` hits.
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Cuts snippets from the frames' redacted text (see [`crate::redact`]).
    #[must_use]
    pub fn redacted(mut self) -> Self {
        self.redact = true;
        self
    }
}

/// One frame that matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Hit {
    /// Its capture.
    pub capture: i64,
    /// The frame.
    #[serde(flatten)]
    pub frame: FrameRow,
    /// The text around the match (at most about 160 characters).
    pub snippet: String,
}

/// The hits of a search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Searched {
    /// The hits, newest frame first.
    pub hits: Vec<Hit>,
    /// More frames matched than the limit.
    pub truncated: bool,
}

impl Store {
    /// Searches the frames for `text` (see the module docs).
    pub fn search(&self, text: &str, options: &SearchOptions) -> Result<Searched> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::Invalid("nothing to search for".to_owned()));
        }
        let phrase = format!("\"{}\"", text.replace('"', "\"\""));
        let want = options.limit.saturating_add(1) as i64;
        let capture = options.capture.unwrap_or(-1);
        let columns = "f.capture, f.seq, f.time, f.side, f.kind, f.method, f.rpc_id, f.session, f.update_tag, f.size, f.request_seq, f.latency, f.raw";
        let mut hits = Vec::new();
        let each = |row: &rusqlite::Row<'_>| -> Result<Hit> {
            let capture: i64 = row.get(0)?;
            let frame = frame_at(row)?;
            let raw = row.get_ref(12)?.as_bytes_or_null()?.unwrap_or_default();
            let raw = if options.redact {
                crate::redact::frame(raw)
            } else {
                std::borrow::Cow::Borrowed(raw)
            };
            Ok(Hit {
                capture,
                frame,
                snippet: snippet(&String::from_utf8_lossy(&raw), text),
            })
        };
        // The unindexed tail first: it holds the newest frames.
        {
            let mut statement = self.conn.prepare_cached(&format!(
                "SELECT {columns} FROM frames f WHERE f.id > (SELECT indexed FROM fts_state) AND (?2 < 0 OR f.capture = ?2) AND instr(lower(CAST(f.raw AS TEXT)), lower(?1)) > 0 ORDER BY f.id DESC LIMIT ?3"
            ))?;
            let mut rows = statement.query(params![text, capture, want])?;
            while let Some(row) = rows.next()? {
                hits.push(each(row)?);
            }
        }
        let left = want - hits.len() as i64;
        if left > 0 {
            let mut statement = self.conn.prepare_cached(&format!(
                "SELECT {columns} FROM frames_fts JOIN frames f ON f.id = frames_fts.rowid WHERE frames_fts MATCH ?1 AND (?2 < 0 OR f.capture = ?2) ORDER BY frames_fts.rowid DESC LIMIT ?3"
            ))?;
            let mut rows = statement.query(params![phrase, capture, left])?;
            while let Some(row) = rows.next()? {
                hits.push(each(row)?);
            }
        }
        let truncated = hits.len() > options.limit;
        hits.truncate(options.limit);
        Ok(Searched { hits, truncated })
    }
}

fn frame_at(row: &rusqlite::Row<'_>) -> rusqlite::Result<FrameRow> {
    // The frame columns follow the capture's id.
    let side: String = row.get(3)?;
    let kind: String = row.get(4)?;
    Ok(FrameRow {
        seq: row.get(1)?,
        time: row.get(2)?,
        side: if side == "client" {
            acptk_check::Side::Client
        } else {
            acptk_check::Side::Agent
        },
        kind: crate::frame::Kind::from_name(&kind).unwrap_or(crate::frame::Kind::Invalid),
        method: row.get(5)?,
        rpc_id: row.get(6)?,
        session: row.get(7)?,
        update: row.get(8)?,
        size: row.get(9)?,
        request_seq: row.get(10)?,
        latency: row.get(11)?,
    })
}

/// About 160 characters of `text` around the first place `needle` (or its first word) is
/// found, case-insensitively.
pub(crate) fn snippet(text: &str, needle: &str) -> String {
    const SIDE: usize = 70;
    let lower = text.to_lowercase();
    let word = needle.split_whitespace().next().unwrap_or(needle);
    let at = lower
        .find(&needle.to_lowercase())
        .or_else(|| lower.find(&word.to_lowercase()))
        .filter(|at| text.is_char_boundary(*at))
        .unwrap_or(0);
    let mut start = at.saturating_sub(SIDE);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + needle.len() + SIDE).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let mut out = String::new();
    if start > 0 {
        out.push_str("...");
    }
    out.push_str(&text[start..end]);
    if end < text.len() {
        out.push_str("...");
    }
    out
}
