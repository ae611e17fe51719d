//! The timeline's rows: frames with streamed chunks folded into clusters.
//!
//! A cluster is a run of consecutive `session/update` notifications from one sender, for one
//! ACP session, with one `sessionUpdate` tag that streams a message in pieces (a tag ending in
//! `_chunk`: `agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk`). Every other
//! frame is a cluster of one. Reading is incremental: [`Store::clusters`] continues from where
//! an earlier call stopped, so a live capture is folded once, as it grows.

use rusqlite::params;
use serde::Serialize;

use crate::Store;
use crate::error::Result;

/// One row of the timeline: frames `seq..seq + count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Cluster {
    /// Its first frame.
    pub seq: i64,
    /// How many frames it folds (1: a frame alone).
    pub count: i64,
}

/// The folding state of one capture: its rows so far, and what the last row may still absorb.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Clusters {
    /// The rows, in order.
    pub rows: Vec<Cluster>,
    /// The last frame folded.
    pub upto: i64,
    open: Option<(String, Option<String>, Option<String>)>,
}

impl Store {
    /// Folds capture `id`'s frames after `state.upto` into `state` (start from
    /// [`Clusters::default`]). One pass over the new frames' index columns.
    pub fn clusters(&self, id: i64, state: &mut Clusters) -> Result<()> {
        let mut statement = self.conn.prepare_cached(
            "SELECT seq, side, session, update_tag FROM frames WHERE capture = ?1 AND seq > ?2 ORDER BY seq",
        )?;
        let mut rows = statement.query(params![id, state.upto])?;
        while let Some(row) = rows.next()? {
            let seq: i64 = row.get(0)?;
            let tag: Option<String> = row.get(3)?;
            let key = match tag {
                Some(tag) if tag.ends_with("_chunk") => Some((row.get(1)?, row.get(2)?, Some(tag))),
                _ => None,
            };
            match (state.rows.last_mut(), &key) {
                (Some(last), Some(key))
                    if state.open.as_ref() == Some(key) && last.seq + last.count == seq =>
                {
                    last.count += 1;
                }
                _ => state.rows.push(Cluster { seq, count: 1 }),
            }
            state.open = key;
            state.upto = seq;
        }
        Ok(())
    }
}
