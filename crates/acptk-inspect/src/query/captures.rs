//! The captures: listing, one capture, heads for live updates.

use rusqlite::{OptionalExtension, Row};
use serde::Serialize;

use crate::Store;
use crate::error::{Error, Result};

/// A peer's name and version, from `initialize` (`clientInfo`, `agentInfo`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Peer {
    /// Its name.
    pub name: Option<String>,
    /// Its version.
    pub version: Option<String>,
}

/// One capture, as the session picker shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CaptureSummary {
    /// Its id (`acp inspect show ID`).
    pub id: i64,
    /// `proxy` (captured by `acp proxy --capture`) or `import`.
    pub source: String,
    /// What was proxied (the agent's command or URL), or the file imported.
    pub origin: String,
    /// `proxy`, or the format the import was read as.
    pub format: String,
    /// A name, when the source had one (acp-devtools sessions).
    pub name: Option<String>,
    /// When it started.
    pub started_at: i64,
    /// When it ended; `None` while its proxy captures, or when the proxy was killed.
    pub ended_at: Option<i64>,
    /// Its proxy process still runs (on this machine): a live capture.
    pub live: bool,
    /// The capturing process.
    pub pid: Option<i64>,
    /// The proxy's version.
    pub proxy_version: Option<String>,
    /// The client, from `initialize`.
    pub client: Peer,
    /// The agent, from the `initialize` result.
    pub agent: Peer,
    /// The protocol version the agent answered.
    pub protocol_version: Option<i64>,
    /// The protocol version the client asked for.
    pub proposed_version: Option<i64>,
    /// Frames (also the `seq` of the last one).
    pub frames: i64,
    /// Bytes of all frames.
    pub bytes: i64,
    /// Findings of severity error.
    pub errors: i64,
    /// Findings of severity warning.
    pub warnings: i64,
    /// All findings (notes included).
    pub findings: i64,
    /// Notices the agent sent.
    pub notices: i64,
}

/// How far a capture has got, for live updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Head {
    /// The capture.
    pub id: i64,
    /// Its frames: the `seq` of the last committed one.
    pub frames: i64,
    /// It has ended.
    pub ended: bool,
}

const COLUMNS: &str = "id, source, origin, format, name, started_at, ended_at, pid, proxy_version, client_name, client_version, agent_name, agent_version, protocol_version, proposed_version, frames, bytes, errors, warnings, findings, notices";

fn summary(row: &Row<'_>) -> rusqlite::Result<CaptureSummary> {
    let ended_at: Option<i64> = row.get(6)?;
    let pid: Option<i64> = row.get(7)?;
    Ok(CaptureSummary {
        id: row.get(0)?,
        source: row.get(1)?,
        origin: row.get(2)?,
        format: row.get(3)?,
        name: row.get(4)?,
        started_at: row.get(5)?,
        ended_at,
        live: ended_at.is_none() && pid.is_some_and(running),
        pid,
        proxy_version: row.get(8)?,
        client: Peer {
            name: row.get(9)?,
            version: row.get(10)?,
        },
        agent: Peer {
            name: row.get(11)?,
            version: row.get(12)?,
        },
        protocol_version: row.get(13)?,
        proposed_version: row.get(14)?,
        frames: row.get(15)?,
        bytes: row.get(16)?,
        errors: row.get(17)?,
        warnings: row.get(18)?,
        findings: row.get(19)?,
        notices: row.get(20)?,
    })
}

/// Whether process `pid` exists on this machine.
fn running(pid: i64) -> bool {
    if pid == i64::from(std::process::id()) {
        return true;
    }
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

impl Store {
    /// The captures, newest first: `limit` of them after skipping `offset`.
    pub fn captures(&self, limit: usize, offset: usize) -> Result<Vec<CaptureSummary>> {
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM captures ORDER BY started_at DESC, id DESC LIMIT ?1 OFFSET ?2"
        ))?;
        let rows = statement.query_map([limit as i64, offset as i64], summary)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many captures there are.
    pub fn capture_count(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM captures", [], |r| r.get(0))?)
    }

    /// Capture `id`.
    pub fn capture(&self, id: i64) -> Result<CaptureSummary> {
        let mut statement = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM captures WHERE id = ?1"))?;
        statement
            .query_row([id], summary)
            .optional()?
            .ok_or(Error::NoCapture(id))
    }

    /// How far capture `id` has got.
    pub fn head(&self, id: i64) -> Result<Head> {
        let mut statement = self
            .conn
            .prepare_cached("SELECT frames, ended_at IS NOT NULL FROM captures WHERE id = ?1")?;
        statement
            .query_row([id], |r| {
                Ok(Head {
                    id,
                    frames: r.get(0)?,
                    ended: r.get(1)?,
                })
            })
            .optional()?
            .ok_or(Error::NoCapture(id))
    }

    /// A number that changes whenever another connection commits to the database (SQLite's
    /// `data_version`): poll it to learn of new frames cheaply.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }
}
