//! Importing traces: every format `acp check` reads (our transcripts, bare JSON-RPC lines,
//! ACP conductor traces, Zed ACP log copies, acpx output) and acp-devtools' export JSON.
//!
//! Each run of the input (a transcript holds one per run header) becomes a capture of its own,
//! checked by the same rules as `acp check`: findings and notices are stored with the frames.
//! Times come from the input where it has them (transcript `timestamp`s, devtools
//! `timestamp`s, conductor `ts` counted from the import's start); frames without one have no
//! time (and their responses no latency).

mod devtools;

use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::SystemTime;

use acptk_check::input::{Event, InputFormat};
use acptk_check::{CheckOptions, Finding, Side};
use rusqlite::Connection;

use crate::Store;
use crate::error::{Error, Result};
use crate::notice::Outcome;
use crate::writer::{NewCapture, NewFrame, Writer, micros};

pub use devtools::is_devtools;

/// What one import made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Imported {
    /// The captures created, one per run.
    pub captures: Vec<i64>,
    /// The format the input was read as (`devtools`, or an `acp check` input format).
    pub format: String,
    /// Frames stored.
    pub frames: u64,
}

/// Imports the file at `path` (format told from its start).
pub fn file(store: &mut Store, path: &Path) -> Result<Imported> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let opened = std::fs::File::open(path).map_err(io)?;
    let mut reader = BufReader::with_capacity(64 * 1024, opened);
    let start = reader.fill_buf().map_err(io)?;
    let origin = path.display().to_string();
    if is_devtools(start) {
        return devtools::import(store, reader, &origin);
    }
    traces(store, reader, &origin)
}

/// Imports a trace in any `acp check` format from `reader`; `origin` names it.
pub fn traces(store: &mut Store, reader: impl BufRead, origin: &str) -> Result<Imported> {
    let tx = store
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let state = RefCell::new(State {
        conn: &tx,
        origin: origin.to_owned(),
        run: None,
        captures: Vec::new(),
        frames: 0,
        error: None,
        start: micros(SystemTime::now()),
    });
    let summary = acptk_check::visit(
        reader,
        &CheckOptions::new(),
        |event| {
            let mut state = state.borrow_mut();
            if state.error.is_some() {
                return;
            }
            if let Err(error) = state.event(&event) {
                state.error = Some(error);
            }
        },
        |finding| {
            let mut state = state.borrow_mut();
            if state.error.is_some() {
                return;
            }
            if let Err(error) = state.finding(finding) {
                state.error = Some(error);
            }
        },
    )
    .map_err(|source| Error::Io {
        path: origin.into(),
        source,
    })?;
    let mut state = state.into_inner();
    if let Some(error) = state.error.take() {
        return Err(error);
    }
    state.close()?;
    let (captures, frames) = (state.captures, state.frames);
    let format = summary.format.as_str().to_owned();
    for id in &captures {
        tx.execute(
            "UPDATE captures SET format = ?2 WHERE id = ?1",
            rusqlite::params![id, format],
        )?;
    }
    tx.commit()?;
    store.index()?;
    Ok(Imported {
        captures,
        format,
        frames,
    })
}

/// The run being imported.
struct Run {
    writer: Writer,
    /// The line of the last frame, and its seq (findings of that line are about it).
    last: Option<(u64, i64)>,
    first_time: Option<i64>,
    last_time: Option<i64>,
}

struct State<'c> {
    conn: &'c Connection,
    origin: String,
    run: Option<Run>,
    captures: Vec<i64>,
    frames: u64,
    error: Option<Error>,
    /// When the import started (conductor times count from it).
    start: i64,
}

impl State<'_> {
    fn open(&mut self, started_at: Option<i64>) -> Result<&mut Run> {
        if self.run.is_none() {
            let new = NewCapture {
                source: "import",
                origin: self.origin.clone(),
                started_at: started_at.unwrap_or(self.start),
                ..NewCapture::default()
            };
            let writer = Writer::create(self.conn, &new)?;
            self.captures.push(writer.capture);
            self.run = Some(Run {
                writer,
                last: None,
                first_time: None,
                last_time: None,
            });
        }
        // Just made, when it was missing.
        self.run
            .as_mut()
            .ok_or_else(|| Error::Invalid("no run".to_owned()))
    }

    /// Ends the run being imported: its times and counts.
    fn close(&mut self) -> Result<()> {
        if let Some(run) = self.run.take() {
            if let Some(first) = run.first_time {
                self.conn.execute(
                    "UPDATE captures SET started_at = min(started_at, ?2) WHERE id = ?1",
                    rusqlite::params![run.writer.capture, first],
                )?;
            }
            let ended = run.last_time.unwrap_or(self.start);
            run.writer.end(self.conn, ended)?;
        }
        Ok(())
    }

    fn event(&mut self, event: &Event<'_>) -> Result<()> {
        match event {
            Event::Header { header, .. } => {
                self.close()?;
                let time = parse_rfc3339(&header.time);
                let start = self.start;
                let conn = self.conn;
                let run = self.open(time.or(Some(start)))?;
                run.writer.set_proxy_version(
                    conn,
                    &format!("{} {}", header.proxy, header.version),
                    &header.agent.join(" "),
                )?;
                Ok(())
            }
            Event::Message(seen) => {
                let time = timestamp(seen.source, self.start);
                let conn = self.conn;
                let run = self.open(None)?;
                let side = seen.observation.side.unwrap_or(Side::Client);
                let (raw, too_long) = match seen.text {
                    Some(text) => (text.as_bytes(), false),
                    None => (&b""[..], true),
                };
                let seq = run.writer.frame(
                    conn,
                    NewFrame {
                        side,
                        time,
                        raw,
                        too_long,
                        size: raw.len() as u64,
                    },
                )?;
                run.last = Some((seen.line, seq));
                if let Some(time) = time {
                    run.first_time.get_or_insert(time);
                    run.last_time = Some(time);
                }
                if let Some(notice) = &seen.observation.notice {
                    run.writer.notice(
                        conn,
                        seq,
                        notice,
                        seen.checker.client_advertises_notices(),
                        seen.checker.version(),
                        Outcome::of_traffic(notice),
                        None,
                    )?;
                }
                self.frames += 1;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn finding(&mut self, finding: &Finding) -> Result<()> {
        let conn = self.conn;
        let run = self.open(None)?;
        let seq = run
            .last
            .filter(|(line, _)| *line == finding.line)
            .map(|(_, seq)| seq);
        run.writer.finding(conn, seq, finding)
    }
}

/// The time of a trace entry: a transcript's `timestamp` (RFC 3339), a conductor event's
/// `ts` (seconds, counted from `start`).
fn timestamp(source: &str, start: i64) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct Times {
        #[serde(default)]
        timestamp: Option<serde_json::Value>,
        #[serde(default)]
        ts: Option<f64>,
    }
    let times: Times = serde_json::from_str(source).ok()?;
    if let Some(serde_json::Value::String(stamp)) = times.timestamp {
        return parse_rfc3339(&stamp);
    }
    times
        .ts
        .filter(|ts| ts.is_finite() && *ts >= 0.0)
        .map(|ts| start + (ts * 1e6) as i64)
}

/// Microseconds since the epoch of an RFC 3339 UTC time as `acp proxy` writes it
/// (`2025-01-31T12:00:00.000001Z`; fractions of any length, `Z` or `+00:00`).
pub(crate) fn parse_rfc3339(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || bytes[13] != b':' {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> { text.get(range)?.parse().ok() };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let rest = &text[19..];
    let (fraction, zone) = match rest.strip_prefix('.') {
        Some(after) => {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            (&after[..digits], &after[digits..])
        }
        None => ("", rest),
    };
    if !matches!(zone, "Z" | "z" | "+00:00") {
        return None;
    }
    let mut micros: i64 = 0;
    for (i, digit) in fraction.bytes().take(6).enumerate() {
        micros += i64::from(digit - b'0') * 10i64.pow(5 - i as u32);
    }
    let days = days_from_civil(year, month, day)?;
    Some(((days * 86_400 + hour * 3600 + minute * 60 + second) * 1_000_000) + micros)
}

/// Days since 1970-01-01 of a Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> Option<i64> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// The input formats `acp inspect import` tells apart (devtools first, then those of
/// `acp check`).
pub fn formats() -> Vec<&'static str> {
    let mut names = vec!["devtools"];
    names.extend(
        InputFormat::ALL
            .iter()
            .filter(|f| **f != InputFormat::Auto)
            .map(|f| f.as_str()),
    );
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_read_back_as_written() {
        let now = std::time::SystemTime::now();
        let text = acptk_check::transcript::rfc3339(now);
        assert_eq!(
            super::parse_rfc3339(&text),
            Some(crate::writer::micros(now))
        );
        assert_eq!(
            super::parse_rfc3339("1970-01-01T00:00:01Z"),
            Some(1_000_000)
        );
        assert_eq!(super::parse_rfc3339("1970-01-01T00:00:01+02:00"), None);
        assert_eq!(super::parse_rfc3339("garbage"), None);
    }
}
