//! Frames: ranges for the timeline, one frame in detail, findings, notices.

use acptk_check::Side;
use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

use crate::Store;
use crate::error::{Error, Result};
use crate::frame::Kind;
use crate::notice::Outcome;

/// One frame, as a timeline row (without its bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FrameRow {
    /// Its place in the capture, from 1.
    pub seq: i64,
    /// When it was read (microseconds since the epoch); `None` when the source had no time.
    pub time: Option<i64>,
    /// Who sent it: `client` or `agent`.
    #[serde(serialize_with = "side_name")]
    pub side: Side,
    /// What it is.
    #[serde(serialize_with = "kind_name")]
    pub kind: Kind,
    /// Its method (a response: its request's).
    pub method: Option<String>,
    /// Its JSON-RPC id, as JSON text.
    pub rpc_id: Option<String>,
    /// The ACP session it names.
    pub session: Option<String>,
    /// The `sessionUpdate` tag of a `session/update`.
    pub update: Option<String>,
    /// Bytes as sent.
    pub size: i64,
    /// A response's request.
    pub request_seq: Option<i64>,
    /// A response's time since its request, in microseconds.
    pub latency: Option<i64>,
}

fn side_name<S: serde::Serializer>(side: &Side, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(side.as_str())
}

fn kind_name<S: serde::Serializer>(kind: &Kind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.as_str())
}

/// A finding of the checker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FindingRow {
    /// The frame it is about; `None`: about the input as a whole.
    pub seq: Option<i64>,
    /// The rule's stable id (`notice-without-capability`, ...).
    pub rule: String,
    /// `error`, `warning`, `info` or `note`.
    pub severity: String,
    /// Why, in one line.
    pub message: String,
}

/// A notice the agent sent, and what became of it (the notice lane).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NoticeRow {
    /// Its frame.
    pub seq: i64,
    /// When.
    pub time: Option<i64>,
    /// The ACP session.
    pub session: Option<String>,
    /// Its severity as sent (`None`: malformed).
    pub severity: Option<String>,
    /// Its title (`None`: malformed).
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Whether the client advertised `session.notices` (`None`: before `initialize`).
    pub advertised: Option<bool>,
    /// The protocol version in force.
    pub version: Option<i64>,
    /// What happened to it.
    #[serde(serialize_with = "outcome_name")]
    pub outcome: Outcome,
    /// What the client got instead (the fallback agent message).
    pub delivered_as: Option<String>,
}

fn outcome_name<S: serde::Serializer>(o: &Outcome, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(o.as_str())
}

/// One frame in full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FrameDetail {
    /// The row.
    #[serde(flatten)]
    pub row: FrameRow,
    /// The bytes as sent (without the line break).
    #[serde(skip)]
    pub raw: Vec<u8>,
    /// Its findings.
    pub findings: Vec<FindingRow>,
    /// The notice in it.
    pub notice: Option<NoticeRow>,
    /// A request's response.
    pub response_seq: Option<i64>,
}

impl FrameDetail {
    /// The bytes as text (invalid UTF-8 replaced).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.raw)
    }
}

pub(crate) const ROW: &str =
    "seq, time, side, kind, method, rpc_id, session, update_tag, size, request_seq, latency";

pub(crate) fn frame_row(row: &Row<'_>) -> rusqlite::Result<FrameRow> {
    let side: String = row.get(2)?;
    let kind: String = row.get(3)?;
    Ok(FrameRow {
        seq: row.get(0)?,
        time: row.get(1)?,
        side: if side == "client" {
            Side::Client
        } else {
            Side::Agent
        },
        kind: Kind::from_name(&kind).unwrap_or(Kind::Invalid),
        method: row.get(4)?,
        rpc_id: row.get(5)?,
        session: row.get(6)?,
        update: row.get(7)?,
        size: row.get(8)?,
        request_seq: row.get(9)?,
        latency: row.get(10)?,
    })
}

fn finding_row(row: &Row<'_>) -> rusqlite::Result<FindingRow> {
    Ok(FindingRow {
        seq: row.get(0)?,
        rule: row.get(1)?,
        severity: row.get(2)?,
        message: row.get(3)?,
    })
}

fn notice_row(row: &Row<'_>) -> rusqlite::Result<NoticeRow> {
    let outcome: String = row.get(8)?;
    Ok(NoticeRow {
        seq: row.get(0)?,
        time: row.get(1)?,
        session: row.get(2)?,
        severity: row.get(3)?,
        title: row.get(4)?,
        description: row.get(5)?,
        advertised: row.get(6)?,
        version: row.get(7)?,
        outcome: Outcome::from_name(&outcome).unwrap_or(Outcome::Delivered),
        delivered_as: row.get(9)?,
    })
}

const NOTICE: &str = "n.seq, f.time, n.session, n.severity, n.title, n.description, n.advertised, n.version, n.outcome, n.delivered_as";

impl Store {
    /// Frames `from`, `from + 1`, ... of capture `id`, at most `limit` of them (fewer at the
    /// end). Constant time per page at any capture size.
    pub fn frames(&self, id: i64, from: i64, limit: usize) -> Result<Vec<FrameRow>> {
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT {ROW} FROM frames WHERE capture = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3"
        ))?;
        let rows = statement.query_map(params![id, from, limit as i64], frame_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every frame of capture `id` with its bytes as sent, in order, handed to `each` (for
    /// export).
    pub fn each_frame(
        &self,
        id: i64,
        each: impl FnMut(&FrameRow, &[u8]) -> Result<()>,
    ) -> Result<()> {
        self.each_frame_from(id, i64::MIN, usize::MAX, each)
    }

    /// Frames `from`, `from + 1`, ... of capture `id` with their bytes as sent, at most
    /// `limit` of them, in order, handed to `each` (`acp inspect show --frames`). An index
    /// range, as [`Store::frames`].
    pub fn each_frame_from(
        &self,
        id: i64,
        from: i64,
        limit: usize,
        mut each: impl FnMut(&FrameRow, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT {ROW}, raw FROM frames WHERE capture = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3"
        ))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut rows = statement.query(params![id, from, limit])?;
        while let Some(row) = rows.next()? {
            let frame = frame_row(row)?;
            let raw = row.get_ref(11)?.as_bytes_or_null()?.unwrap_or_default();
            each(&frame, raw)?;
        }
        Ok(())
    }

    /// Frame `seq` of capture `id` in full.
    pub fn frame(&self, id: i64, seq: i64) -> Result<FrameDetail> {
        let found = self
            .conn
            .prepare_cached(&format!(
                "SELECT {ROW}, raw FROM frames WHERE capture = ?1 AND seq = ?2"
            ))?
            .query_row(params![id, seq], |row| {
                let raw: Vec<u8> = row.get(11)?;
                Ok((frame_row(row)?, raw))
            })
            .optional()?;
        let Some((row, raw)) = found else {
            crate::writer::exists(&self.conn, id)?
                .then_some(())
                .ok_or(Error::NoCapture(id))?;
            return Err(Error::Invalid(format!("capture {id} has no frame {seq}")));
        };
        let findings = self.findings_between(id, seq, seq)?;
        let notice = self
            .conn
            .prepare_cached(&format!(
                "SELECT {NOTICE} FROM notices n JOIN frames f ON f.capture = n.capture AND f.seq = n.seq WHERE n.capture = ?1 AND n.seq = ?2"
            ))?
            .query_row(params![id, seq], notice_row)
            .optional()?;
        let response_seq = if row.kind == Kind::Request {
            self.conn
                .prepare_cached(
                    "SELECT seq FROM frames WHERE capture = ?1 AND kind <> 'notification' AND request_seq = ?2 AND method = ?3 LIMIT 1",
                )?
                .query_row(params![id, seq, row.method], |r| r.get(0))
                .optional()?
        } else {
            None
        };
        Ok(FrameDetail {
            row,
            raw,
            findings,
            notice,
            response_seq,
        })
    }

    /// The findings of capture `id`, in frame order (those about the input first).
    pub fn findings(&self, id: i64) -> Result<Vec<FindingRow>> {
        self.capture(id)?;
        self.findings_between(id, i64::MIN, i64::MAX)
    }

    /// The findings about frames `from..=to` of capture `id`.
    pub fn findings_between(&self, id: i64, from: i64, to: i64) -> Result<Vec<FindingRow>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT seq, rule, severity, message FROM findings WHERE capture = ?1 AND (seq IS NULL AND ?2 = -9223372036854775808 OR seq BETWEEN ?2 AND ?3) ORDER BY seq, rowid",
        )?;
        let rows = statement.query_map(params![id, from, to], finding_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The notice lane of capture `id`: every notice the agent sent, in order.
    pub fn notices(&self, id: i64) -> Result<Vec<NoticeRow>> {
        self.capture(id)?;
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT {NOTICE} FROM notices n JOIN frames f ON f.capture = n.capture AND f.seq = n.seq WHERE n.capture = ?1 ORDER BY n.seq"
        ))?;
        let rows = statement.query_map([id], notice_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
