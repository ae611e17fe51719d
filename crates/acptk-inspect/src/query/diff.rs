//! The diff of two captures: versions and capabilities that differ, and the frames aligned by
//! method and order.
//!
//! Each capture's frames are first folded into runs: consecutive frames with the same sender,
//! kind, method and session update tag (a stream of chunks is one run with a count). The runs
//! of the two captures are then aligned in order: equal keys pair up; where they differ, the
//! alignment looks a little way ahead in both for the nearest match and reports what it skips
//! as only in one capture.

use serde::Serialize;
use serde_json::Value;

use crate::Store;
use crate::error::Result;

/// How far ahead the alignment looks for a matching run.
const LOOK_AHEAD: usize = 64;

/// A value that differs between the two captures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// What: `protocol_version`, `agent.name`, or a capability path such as
    /// `client_capabilities.session.notices`.
    pub path: String,
    /// In the first capture (`None`: absent).
    pub a: Option<Value>,
    /// In the second.
    pub b: Option<Value>,
}

/// Consecutive frames of one shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Run {
    /// The first frame's `seq`.
    pub seq: i64,
    /// How many frames.
    pub count: i64,
    /// `client` or `agent`.
    pub side: String,
    /// The kind.
    pub kind: String,
    /// The method.
    pub method: Option<String>,
    /// The session update tag.
    pub update: Option<String>,
}

impl Run {
    fn key(&self) -> (&str, &str, Option<&str>, Option<&str>) {
        (
            &self.side,
            &self.kind,
            self.method.as_deref(),
            self.update.as_deref(),
        )
    }
}

/// One row of the aligned frames: a run in both captures, or in one of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Aligned {
    /// The run in the first capture.
    pub a: Option<Run>,
    /// The run in the second.
    pub b: Option<Run>,
}

/// How often each (sender, kind, method) occurs in each capture, where the counts differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MethodCount {
    /// `client` or `agent`.
    pub side: String,
    /// The kind.
    pub kind: String,
    /// The method.
    pub method: Option<String>,
    /// Frames in the first capture.
    pub a: i64,
    /// Frames in the second.
    pub b: i64,
}

/// The diff of two captures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Diff {
    /// The first capture.
    pub a: i64,
    /// The second.
    pub b: i64,
    /// Versions and peers that differ.
    pub versions: Vec<Change>,
    /// Capabilities that differ (both sides'), by path.
    pub capabilities: Vec<Change>,
    /// Frame counts that differ.
    pub methods: Vec<MethodCount>,
    /// The aligned runs, up to the limit asked for.
    pub aligned: Vec<Aligned>,
    /// More aligned rows exist than were returned.
    pub truncated: bool,
    /// The first aligned row whose runs differ (or exist in one capture only), if any.
    pub first_difference: Option<usize>,
}

impl Store {
    /// The diff of captures `a` and `b`, with at most `limit` aligned rows.
    pub fn diff(&self, a: i64, b: i64, limit: usize) -> Result<Diff> {
        let (info_a, info_b) = (self.session_info(a)?, self.session_info(b)?);
        let (sum_a, sum_b) = (self.capture(a)?, self.capture(b)?);
        let mut versions = Vec::new();
        let pairs: [(&str, Option<Value>, Option<Value>); 6] = [
            (
                "protocol_version",
                sum_a.protocol_version.map(Value::from),
                sum_b.protocol_version.map(Value::from),
            ),
            (
                "proposed_version",
                sum_a.proposed_version.map(Value::from),
                sum_b.proposed_version.map(Value::from),
            ),
            (
                "client.name",
                sum_a.client.name.map(Value::from),
                sum_b.client.name.map(Value::from),
            ),
            (
                "client.version",
                sum_a.client.version.map(Value::from),
                sum_b.client.version.map(Value::from),
            ),
            (
                "agent.name",
                sum_a.agent.name.map(Value::from),
                sum_b.agent.name.map(Value::from),
            ),
            (
                "agent.version",
                sum_a.agent.version.map(Value::from),
                sum_b.agent.version.map(Value::from),
            ),
        ];
        for (path, x, y) in pairs {
            if x != y {
                versions.push(Change {
                    path: path.to_owned(),
                    a: x,
                    b: y,
                });
            }
        }
        let mut capabilities = Vec::new();
        compare(
            "client_capabilities",
            info_a.client_capabilities.as_ref(),
            info_b.client_capabilities.as_ref(),
            &mut capabilities,
        );
        compare(
            "agent_capabilities",
            info_a.agent_capabilities.as_ref(),
            info_b.agent_capabilities.as_ref(),
            &mut capabilities,
        );
        let (runs_a, runs_b) = (self.runs(a)?, self.runs(b)?);
        let methods = counts(&runs_a, &runs_b);
        let (aligned, truncated) = align(runs_a, runs_b, limit);
        let first_difference = aligned.iter().position(|row| match (&row.a, &row.b) {
            (Some(x), Some(y)) => x.count != y.count,
            _ => true,
        });
        Ok(Diff {
            a,
            b,
            versions,
            capabilities,
            methods,
            aligned,
            truncated,
            first_difference,
        })
    }

    /// Capture `id`'s frames folded into runs.
    fn runs(&self, id: i64) -> Result<Vec<Run>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT seq, side, kind, method, update_tag FROM frames WHERE capture = ?1 ORDER BY seq",
        )?;
        let mut rows = statement.query([id])?;
        let mut runs: Vec<Run> = Vec::new();
        while let Some(row) = rows.next()? {
            let run = Run {
                seq: row.get(0)?,
                count: 1,
                side: row.get(1)?,
                kind: row.get(2)?,
                method: row.get(3)?,
                update: row.get(4)?,
            };
            match runs.last_mut() {
                // Requests and responses each stand alone; notifications of one shape fold.
                Some(last) if last.kind == "notification" && last.key() == run.key() => {
                    last.count += 1;
                }
                _ => runs.push(run),
            }
        }
        Ok(runs)
    }
}

/// The (sender, kind, method) counts that differ.
fn counts(a: &[Run], b: &[Run]) -> Vec<MethodCount> {
    use std::collections::BTreeMap;
    let mut by: BTreeMap<(String, String, Option<String>), (i64, i64)> = BTreeMap::new();
    for run in a {
        by.entry((run.side.clone(), run.kind.clone(), run.method.clone()))
            .or_default()
            .0 += run.count;
    }
    for run in b {
        by.entry((run.side.clone(), run.kind.clone(), run.method.clone()))
            .or_default()
            .1 += run.count;
    }
    by.into_iter()
        .filter(|(_, (x, y))| x != y)
        .map(|((side, kind, method), (a, b))| MethodCount {
            side,
            kind,
            method,
            a,
            b,
        })
        .collect()
}

/// Aligns two lists of runs in order (see the module docs); at most `limit` rows.
fn align(a: Vec<Run>, b: Vec<Run>, limit: usize) -> (Vec<Aligned>, bool) {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        if out.len() == limit {
            return (out, true);
        }
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.key() == y.key() => {
                out.push(Aligned {
                    a: Some(x.clone()),
                    b: Some(y.clone()),
                });
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) => {
                let in_b = b[j..]
                    .iter()
                    .take(LOOK_AHEAD)
                    .position(|r| r.key() == x.key());
                let in_a = a[i..]
                    .iter()
                    .take(LOOK_AHEAD)
                    .position(|r| r.key() == y.key());
                // Skip the shorter way to the next match; with none, both are unmatched.
                match (in_a, in_b) {
                    (Some(da), Some(db)) if da <= db => {
                        out.push(only_a(x));
                        i += 1;
                    }
                    (_, Some(_)) => {
                        out.push(only_b(y));
                        j += 1;
                    }
                    (Some(_), None) => {
                        out.push(only_a(x));
                        i += 1;
                    }
                    (None, None) => {
                        out.push(only_a(x));
                        i += 1;
                        if out.len() < limit {
                            out.push(only_b(y));
                            j += 1;
                        }
                    }
                }
            }
            (Some(x), None) => {
                out.push(only_a(x));
                i += 1;
            }
            (None, Some(y)) => {
                out.push(only_b(y));
                j += 1;
            }
            (None, None) => break,
        }
    }
    (out, false)
}

fn only_a(run: &Run) -> Aligned {
    Aligned {
        a: Some(run.clone()),
        b: None,
    }
}

fn only_b(run: &Run) -> Aligned {
    Aligned {
        a: None,
        b: Some(run.clone()),
    }
}

/// Adds the paths under `path` where `a` and `b` differ (objects compared key by key; other
/// values as a whole).
fn compare(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Change>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                compare(&format!("{path}.{key}"), x.get(key), y.get(key), out);
            }
        }
        (x, y) if x != y => out.push(Change {
            path: path.to_owned(),
            a: x.cloned(),
            b: y.cloned(),
        }),
        _ => {}
    }
}
