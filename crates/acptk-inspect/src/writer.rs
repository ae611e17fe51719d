//! Writing a capture: its row, its frames with their pairing and findings, its notices. Shared
//! by the proxy's tap ([`crate::capture`]) and imports ([`crate::import`]).

use std::collections::HashMap;

use acptk_check::{Finding, NoticeEvent, Side, Version};
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::frame::{Kind, envelope};
use crate::notice::Outcome;

/// The most requests in flight remembered per capture for pairing (a peer that never answers
/// does not make the map grow without bound: past it, the map starts afresh).
const MAX_PENDING: usize = 65_536;

/// The row of a new capture.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewCapture {
    pub(crate) source: &'static str,
    pub(crate) origin: String,
    pub(crate) format: String,
    pub(crate) name: Option<String>,
    pub(crate) started_at: i64,
    pub(crate) pid: Option<u32>,
    pub(crate) proxy_version: Option<String>,
}

/// A frame to write.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NewFrame<'a> {
    pub(crate) side: Side,
    /// Microseconds since the epoch, when known.
    pub(crate) time: Option<i64>,
    pub(crate) raw: &'a [u8],
    pub(crate) too_long: bool,
    /// Bytes as sent: `raw`'s length, or that of a line too long to keep.
    pub(crate) size: u64,
}

/// A finding to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NewFinding<'a> {
    /// The rule's stable id.
    pub(crate) rule: &'a str,
    /// The checker's name for it (`error`, `warning`, `info`, `note`).
    pub(crate) severity: &'a str,
    pub(crate) message: &'a str,
}

impl<'a> NewFinding<'a> {
    pub(crate) fn of(finding: &'a Finding) -> Self {
        NewFinding {
            rule: finding.rule.id(),
            severity: finding.severity().as_str(),
            message: &finding.message,
        }
    }
}

/// A notice to write: what the agent sent, and what happened to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct NewNotice<'a> {
    pub(crate) session: Option<&'a str>,
    pub(crate) severity: Option<&'a str>,
    pub(crate) title: Option<&'a str>,
    pub(crate) description: Option<&'a str>,
    /// Whether the client advertised `session.notices`; `None` before `initialize`.
    pub(crate) advertised: Option<bool>,
    /// The protocol version's number.
    pub(crate) version: Option<i64>,
    /// [`Outcome::as_str`].
    pub(crate) outcome: &'a str,
    /// The line the client got instead.
    pub(crate) delivered_as: Option<&'a str>,
}

impl<'a> NewNotice<'a> {
    pub(crate) fn of(
        event: &'a NoticeEvent,
        advertised: Option<bool>,
        version: Option<Version>,
        outcome: Outcome,
        delivered_as: Option<&'a str>,
    ) -> Self {
        let notice = event.notice.as_ref();
        NewNotice {
            session: event.session.as_deref(),
            severity: notice.map(|n| n.severity.as_str()),
            title: notice.map(|n| n.title.as_str()),
            description: notice.and_then(|n| n.description.as_deref()),
            advertised,
            version: version.map(|v| i64::from(v.number())),
            outcome: outcome.as_str(),
            delivered_as,
        }
    }
}

/// A request in flight: its frame, time, method and session.
struct Pending {
    seq: i64,
    time: Option<i64>,
    method: String,
    session: Option<String>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    frames: i64,
    bytes: i64,
    errors: i64,
    warnings: i64,
    findings: i64,
    notices: i64,
}

/// One capture being written.
pub(crate) struct Writer {
    pub(crate) capture: i64,
    seq: i64,
    pending: HashMap<(Side, String), Pending>,
    counts: Counts,
}

const INSERT_FRAME: &str = "INSERT INTO frames (capture, seq, time, side, kind, method, rpc_id, session, size, request_seq, latency, raw, update_tag) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

impl Writer {
    /// Creates the capture's row.
    pub(crate) fn create(conn: &Connection, new: &NewCapture) -> Result<Writer> {
        conn.execute(
            "INSERT INTO captures (source, origin, format, name, started_at, pid, proxy_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                new.source,
                new.origin,
                new.format,
                new.name,
                new.started_at,
                new.pid,
                new.proxy_version
            ],
        )?;
        Ok(Writer {
            capture: conn.last_insert_rowid(),
            seq: 0,
            pending: HashMap::new(),
            counts: Counts::default(),
        })
    }

    /// Takes up writing capture `capture` where a proxy that is gone left it: after its last
    /// frame, with its counts (requests it had in flight are not paired any more).
    pub(crate) fn resume(conn: &Connection, capture: i64) -> Result<Writer> {
        let (seq, counts) = conn.query_row(
            "SELECT (SELECT COALESCE(max(seq), 0) FROM frames WHERE capture = ?1), frames, bytes, errors, warnings, findings, notices FROM captures WHERE id = ?1",
            [capture],
            |row| {
                Ok((
                    row.get(0)?,
                    Counts {
                        frames: row.get(1)?,
                        bytes: row.get(2)?,
                        errors: row.get(3)?,
                        warnings: row.get(4)?,
                        findings: row.get(5)?,
                        notices: row.get(6)?,
                    },
                ))
            },
        )?;
        Ok(Writer {
            capture,
            seq,
            pending: HashMap::new(),
            counts,
        })
    }

    /// Writes one frame; returns its `seq`.
    pub(crate) fn frame(&mut self, conn: &Connection, frame: NewFrame<'_>) -> Result<i64> {
        self.seq += 1;
        let seq = self.seq;
        let env = if frame.too_long {
            crate::frame::Envelope {
                kind: Some(Kind::TooLong),
                ..Default::default()
            }
        } else {
            envelope(frame.raw)
        };
        let kind = env.kind.unwrap_or(Kind::Invalid);
        let mut method = env.method.as_deref().map(str::to_owned);
        let mut session = env.session.as_deref().map(str::to_owned);
        let mut request_seq = None;
        let mut latency = None;
        match kind {
            Kind::Request => {
                if let (Some(id), Some(m)) = (&env.id, &method) {
                    if self.pending.len() >= MAX_PENDING {
                        self.pending.clear();
                    }
                    self.pending.insert(
                        (frame.side, id.to_string()),
                        Pending {
                            seq,
                            time: frame.time,
                            method: m.clone(),
                            session: session.clone(),
                        },
                    );
                    if m == "initialize" && frame.side == Side::Client {
                        self.client_facts(conn, frame.raw)?;
                    }
                }
            }
            Kind::Response | Kind::Error => {
                let key = env
                    .id
                    .as_ref()
                    .map(|id| (frame.side.peer(), id.to_string()));
                if let Some(pending) = key.and_then(|key| self.pending.remove(&key)) {
                    request_seq = Some(pending.seq);
                    latency = match (frame.time, pending.time) {
                        (Some(now), Some(then)) => Some((now - then).max(0)),
                        _ => None,
                    };
                    // A new session's id is in the result; other responses name the
                    // request's session.
                    let created = env.result.and_then(|r| {
                        serde_json::from_str::<&serde_json::value::RawValue>(r)
                            .ok()
                            .and_then(|raw| crate::frame::params(raw).0.map(|s| s.into_owned()))
                    });
                    session = created.or(pending.session);
                    if pending.method == "initialize" && kind == Kind::Response {
                        self.agent_facts(conn, env.result)?;
                    }
                    method = Some(pending.method);
                }
            }
            _ => {}
        }
        let raw: &[u8] = if frame.too_long { b"" } else { frame.raw };
        let mut statement = conn.prepare_cached(INSERT_FRAME)?;
        statement.execute(params![
            self.capture,
            seq,
            frame.time,
            frame.side.as_str(),
            kind.as_str(),
            method,
            env.id.as_deref(),
            session,
            i64::try_from(frame.size).unwrap_or(i64::MAX),
            request_seq,
            latency,
            raw,
            env.update.as_deref(),
        ])?;
        self.counts.frames += 1;
        self.counts.bytes = self
            .counts
            .bytes
            .saturating_add(i64::try_from(frame.size).unwrap_or(i64::MAX));
        Ok(seq)
    }

    /// Writes a finding about frame `seq` (`None`: about the input).
    pub(crate) fn finding(
        &mut self,
        conn: &Connection,
        seq: Option<i64>,
        finding: &Finding,
    ) -> Result<()> {
        self.finding_row(conn, seq, NewFinding::of(finding))
    }

    /// Writes a finding about frame `seq` (`None`: about the input).
    pub(crate) fn finding_row(
        &mut self,
        conn: &Connection,
        seq: Option<i64>,
        finding: NewFinding<'_>,
    ) -> Result<()> {
        let mut statement = conn.prepare_cached(
            "INSERT INTO findings (capture, seq, rule, severity, message) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        statement.execute(params![
            self.capture,
            seq,
            finding.rule,
            finding.severity,
            finding.message
        ])?;
        self.counts.findings += 1;
        if finding.severity == acptk_check::Severity::Error.as_str() {
            self.counts.errors += 1;
        } else if finding.severity == acptk_check::Severity::Warning.as_str() {
            self.counts.warnings += 1;
        }
        Ok(())
    }

    /// Writes a notice the agent sent in frame `seq`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn notice(
        &mut self,
        conn: &Connection,
        seq: i64,
        event: &NoticeEvent,
        advertised: Option<bool>,
        version: Option<Version>,
        outcome: Outcome,
        delivered_as: Option<&str>,
    ) -> Result<()> {
        let row = NewNotice::of(event, advertised, version, outcome, delivered_as);
        self.notice_row(conn, seq, row)
    }

    /// Writes a notice the agent sent in frame `seq`.
    pub(crate) fn notice_row(
        &mut self,
        conn: &Connection,
        seq: i64,
        notice: NewNotice<'_>,
    ) -> Result<()> {
        let mut statement = conn.prepare_cached(
            "INSERT INTO notices (capture, seq, session, severity, title, description, advertised, version, outcome, delivered_as) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?;
        statement.execute(params![
            self.capture,
            seq,
            notice.session,
            notice.severity,
            notice.title,
            notice.description,
            notice.advertised,
            notice.version,
            notice.outcome,
            notice.delivered_as
        ])?;
        self.counts.notices += 1;
        Ok(())
    }

    /// Notes the recorder of an imported run and its agent (from its run header).
    pub(crate) fn set_proxy_version(
        &self,
        conn: &Connection,
        recorder: &str,
        agent: &str,
    ) -> Result<()> {
        conn.execute(
            "UPDATE captures SET proxy_version = ?2, origin = CASE WHEN ?3 = '' THEN origin ELSE origin || ' (' || ?3 || ')' END WHERE id = ?1",
            params![self.capture, recorder.trim(), agent],
        )?;
        Ok(())
    }

    /// Saves the running counts in the capture's row.
    pub(crate) fn save_counts(&self, conn: &Connection) -> Result<()> {
        let c = self.counts;
        let mut statement = conn.prepare_cached(
            "UPDATE captures SET frames = ?2, bytes = ?3, errors = ?4, warnings = ?5, findings = ?6, notices = ?7 WHERE id = ?1",
        )?;
        statement.execute(params![
            self.capture,
            c.frames,
            c.bytes,
            c.errors,
            c.warnings,
            c.findings,
            c.notices
        ])?;
        Ok(())
    }

    /// Marks the capture ended at `time` (and saves the counts).
    pub(crate) fn end(&self, conn: &Connection, time: i64) -> Result<()> {
        self.save_counts(conn)?;
        conn.execute(
            "UPDATE captures SET ended_at = ?2 WHERE id = ?1",
            params![self.capture, time],
        )?;
        Ok(())
    }

    /// The client's name, version and proposed protocol version, from `initialize`.
    fn client_facts(&self, conn: &Connection, raw: &[u8]) -> Result<()> {
        let value: serde_json::Value = serde_json::from_slice(raw).unwrap_or_default();
        let params = &value["params"];
        self.peer_facts(
            conn,
            "UPDATE captures SET client_name = ?2, client_version = ?3, proposed_version = ?4 WHERE id = ?1",
            &params["clientInfo"],
            params["protocolVersion"].as_i64(),
        )
    }

    /// The agent's name, version and protocol version, from the `initialize` result.
    fn agent_facts(&self, conn: &Connection, result: Option<&str>) -> Result<()> {
        let value: serde_json::Value = result
            .and_then(|r| serde_json::from_str(r).ok())
            .unwrap_or_default();
        self.peer_facts(
            conn,
            "UPDATE captures SET agent_name = ?2, agent_version = ?3, protocol_version = ?4 WHERE id = ?1",
            &value["agentInfo"],
            value["protocolVersion"].as_i64(),
        )
    }

    /// Runs `update` (which sets a peer's name, version and a protocol version from `?2`, `?3`
    /// and `?4`) with the name and version in `info` and `version`.
    fn peer_facts(
        &self,
        conn: &Connection,
        update: &str,
        info: &serde_json::Value,
        version: Option<i64>,
    ) -> Result<()> {
        conn.execute(
            update,
            params![
                self.capture,
                info["name"].as_str(),
                info["version"].as_str(),
                version
            ],
        )?;
        Ok(())
    }
}

/// Whether capture `id` exists.
pub(crate) fn exists(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM captures WHERE id = ?1", [id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Microseconds since the Unix epoch.
pub(crate) fn micros(time: std::time::SystemTime) -> i64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}
