//! Per-method latency and the requests over time (the waterfall).

use std::collections::BTreeMap;

use rusqlite::params;
use serde::Serialize;

use crate::Store;
use crate::error::Result;

/// The latency of one method's requests (in microseconds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MethodLatency {
    /// The method.
    pub method: String,
    /// Who sent the requests: `client` or `agent`.
    pub sender: String,
    /// Requests answered.
    pub count: u64,
    /// Of them, answered with an error.
    pub errors: u64,
    /// Median latency.
    pub p50: i64,
    /// 99th percentile (nearest rank).
    pub p99: i64,
    /// The longest.
    pub max: i64,
}

/// How many frames of one shape a capture has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FrameCount {
    /// `client` or `agent`.
    pub side: String,
    /// The kind.
    pub kind: String,
    /// The method (a response: its request's).
    pub method: Option<String>,
    /// Frames.
    pub count: i64,
    /// Their bytes.
    pub bytes: i64,
}

/// One request with its answer, for a waterfall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RequestSpan {
    /// The request's frame.
    pub seq: i64,
    /// The response's frame; `None` when unanswered in the capture.
    pub response_seq: Option<i64>,
    /// Who sent the request.
    pub sender: String,
    /// The method.
    pub method: String,
    /// When it was sent.
    pub start: Option<i64>,
    /// Its latency, when answered.
    pub latency: Option<i64>,
    /// Answered with an error.
    pub error: bool,
}

/// The `q` quantile of sorted values by nearest rank.
fn quantile(sorted: &[i64], q: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Store {
    /// Per-method latency of capture `id`'s answered requests, by method (then sender).
    pub fn latency(&self, id: i64) -> Result<Vec<MethodLatency>> {
        self.capture(id)?;
        let mut statement = self.conn.prepare_cached(
            "SELECT method, side, kind, latency FROM frames WHERE capture = ?1 AND kind <> 'notification' AND kind IN ('response', 'error') AND method IS NOT NULL AND latency IS NOT NULL",
        )?;
        let mut by: BTreeMap<(String, String), (Vec<i64>, u64)> = BTreeMap::new();
        let mut rows = statement.query([id])?;
        while let Some(row) = rows.next()? {
            let method: String = row.get(0)?;
            let responder: String = row.get(1)?;
            let kind: String = row.get(2)?;
            let latency: i64 = row.get(3)?;
            let sender = if responder == "agent" {
                "client"
            } else {
                "agent"
            };
            let entry = by.entry((method, sender.to_owned())).or_default();
            entry.0.push(latency);
            entry.1 += u64::from(kind == "error");
        }
        Ok(by
            .into_iter()
            .map(|((method, sender), (mut values, errors))| {
                values.sort_unstable();
                MethodLatency {
                    method,
                    sender,
                    count: values.len() as u64,
                    errors,
                    p50: quantile(&values, 0.5),
                    p99: quantile(&values, 0.99),
                    max: values.last().copied().unwrap_or(0),
                }
            })
            .collect())
    }

    /// Frames and bytes of capture `id` per sender, kind and method, most frames first.
    pub fn frame_counts(&self, id: i64) -> Result<Vec<FrameCount>> {
        self.capture(id)?;
        let mut statement = self.conn.prepare_cached(
            "SELECT side, kind, method, count(*), sum(size) FROM frames WHERE capture = ?1 GROUP BY side, kind, method ORDER BY count(*) DESC, method",
        )?;
        let rows = statement.query_map([id], |row| {
            Ok(FrameCount {
                side: row.get(0)?,
                kind: row.get(1)?,
                method: row.get(2)?,
                count: row.get(3)?,
                bytes: row.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The requests of capture `id` from frame `from` on (at most `limit`), with their
    /// answers: the rows of a waterfall.
    pub fn requests(&self, id: i64, from: i64, limit: usize) -> Result<Vec<RequestSpan>> {
        self.capture(id)?;
        let mut statement = self.conn.prepare_cached(
            "SELECT q.seq, r.seq, q.side, q.method, q.time, r.latency, r.kind = 'error'
             FROM frames q LEFT JOIN frames r
               ON r.capture = q.capture AND r.kind <> 'notification' AND r.method = q.method AND r.request_seq = q.seq
             WHERE q.capture = ?1 AND q.kind <> 'notification' AND q.kind = 'request' AND q.seq >= ?2
             ORDER BY q.seq LIMIT ?3",
        )?;
        let rows = statement.query_map(params![id, from, limit as i64], |row| {
            Ok(RequestSpan {
                seq: row.get(0)?,
                response_seq: row.get(1)?,
                sender: row.get(2)?,
                method: row.get::<_, Option<String>>(3)?.unwrap_or_default(),
                start: row.get(4)?,
                latency: row.get(5)?,
                error: row.get::<_, Option<bool>>(6)?.unwrap_or(false),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quantiles_by_nearest_rank() {
        let values: Vec<i64> = (1..=100).collect();
        assert_eq!(super::quantile(&values, 0.5), 50);
        assert_eq!(super::quantile(&values, 0.99), 99);
        assert_eq!(super::quantile(&[7], 0.99), 7);
        assert_eq!(super::quantile(&[], 0.5), 0);
    }
}
