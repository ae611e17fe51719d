//! The spool: the file a capturing proxy writes ahead of forwarding, moved into the database
//! by a thread of its own (see [`crate::capture`]).
//!
//! An append-only file of records, after a magic line. Each record is a tag byte (`F`, a
//! frame), the length of its body (`u32`, little-endian) and the body:
//!
//! ```text
//! side u8 (0 client, 1 agent) | flags u8 (1: too long, 2: a notice follows)
//! time i64 (microseconds since the epoch) | size u64 (bytes as sent)
//! raw bytes (u32 length)
//! findings u16, each: rule (u16 length) | severity (u16 length) | message (u32 length)
//! notice: session, severity, title, description (each optional text) | advertised u8
//!         (0 no, 1 yes, 2 unknown) | version (optional i64) | outcome (u16 length) |
//!         delivered_as (optional text)
//! ```
//!
//! (Optional text: a byte 0 for none, or 1 and a `u32`-length text.) The proxy appends one
//! batch of records with one write before it forwards the batch, so a killed proxy leaves
//! whole records followed at most by part of one, which a reader leaves unread.

use acptk_check::Side;

use crate::error::{Error, Result};
use crate::writer::{NewFinding, NewNotice};

/// The first bytes of every spool file.
pub(crate) const MAGIC: &[u8] = b"acp-capture-spool 1\n";

const FRAME: u8 = b'F';
const TOO_LONG: u8 = 1;
const HAS_NOTICE: u8 = 2;
/// Tag and body length.
const HEADER: usize = 5;

/// One spooled frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpooledFrame<'a> {
    pub(crate) side: Side,
    pub(crate) time: i64,
    /// Bytes as sent (for a frame too long to keep, its length; `raw` is empty).
    pub(crate) size: u64,
    pub(crate) too_long: bool,
    pub(crate) raw: &'a [u8],
    pub(crate) findings: Vec<NewFinding<'a>>,
    pub(crate) notice: Option<NewNotice<'a>>,
}

/// Appends the record of `frame` to `out`.
pub(crate) fn put(out: &mut Vec<u8>, frame: &SpooledFrame<'_>) {
    out.push(FRAME);
    let length_at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.push(match frame.side {
        Side::Client => 0,
        Side::Agent => 1,
    });
    let mut flags = 0;
    if frame.too_long {
        flags |= TOO_LONG;
    }
    if frame.notice.is_some() {
        flags |= HAS_NOTICE;
    }
    out.push(flags);
    out.extend_from_slice(&frame.time.to_le_bytes());
    out.extend_from_slice(&frame.size.to_le_bytes());
    put_bytes32(out, frame.raw);
    let count = u16::try_from(frame.findings.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&count.to_le_bytes());
    for finding in frame.findings.iter().take(usize::from(count)) {
        put_bytes16(out, finding.rule.as_bytes());
        put_bytes16(out, finding.severity.as_bytes());
        put_bytes32(out, finding.message.as_bytes());
    }
    if let Some(notice) = &frame.notice {
        for text in [
            notice.session,
            notice.severity,
            notice.title,
            notice.description,
        ] {
            put_optional(out, text);
        }
        out.push(match notice.advertised {
            Some(false) => 0,
            Some(true) => 1,
            None => 2,
        });
        match notice.version {
            Some(version) => {
                out.push(1);
                out.extend_from_slice(&version.to_le_bytes());
            }
            None => out.push(0),
        }
        put_bytes16(out, notice.outcome.as_bytes());
        put_optional(out, notice.delivered_as);
    }
    // A body over 4 GiB cannot come: lines are limited far below that by the proxy.
    let length = u32::try_from(out.len() - length_at - 4).unwrap_or(u32::MAX);
    out[length_at..length_at + 4].copy_from_slice(&length.to_le_bytes());
}

fn put_bytes16(out: &mut Vec<u8>, bytes: &[u8]) {
    let bytes = &bytes[..bytes.len().min(usize::from(u16::MAX))];
    out.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn put_bytes32(out: &mut Vec<u8>, bytes: &[u8]) {
    let length = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&bytes[..length as usize]);
}

fn put_optional(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => {
            out.push(1);
            put_bytes32(out, text.as_bytes());
        }
        None => out.push(0),
    }
}

/// What [`next`] found at the start of its input.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Next<'a> {
    /// A whole record, and how many bytes it took.
    Frame(SpooledFrame<'a>, usize),
    /// Part of a record: this many bytes are needed at least.
    Partial(usize),
}

/// Reads the record at the start of `input`.
pub(crate) fn next(input: &[u8]) -> Result<Next<'_>> {
    if input.len() < HEADER {
        return Ok(Next::Partial(HEADER));
    }
    let length = u32::from_le_bytes([input[1], input[2], input[3], input[4]]) as usize;
    let Some(body) = input.get(HEADER..HEADER + length) else {
        return Ok(Next::Partial(HEADER + length));
    };
    if input[0] != FRAME {
        return Err(corrupt(format!("a record tagged {:#04x}", input[0])));
    }
    let frame = frame(&mut Reader(body))?;
    Ok(Next::Frame(frame, HEADER + length))
}

fn frame<'a>(r: &mut Reader<'a>) -> Result<SpooledFrame<'a>> {
    let side = match r.u8()? {
        0 => Side::Client,
        1 => Side::Agent,
        other => return Err(corrupt(format!("side {other}"))),
    };
    let flags = r.u8()?;
    let time = i64::from_le_bytes(r.array()?);
    let size = u64::from_le_bytes(r.array()?);
    let raw = r.bytes32()?;
    let count = u16::from_le_bytes(r.array()?);
    let mut findings = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let rule = r.text16()?;
        let severity = r.text16()?;
        let message = r.text32()?;
        findings.push(NewFinding {
            rule,
            severity,
            message,
        });
    }
    let notice = if flags & HAS_NOTICE != 0 {
        let session = r.optional()?;
        let severity = r.optional()?;
        let title = r.optional()?;
        let description = r.optional()?;
        let advertised = match r.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
        let version = match r.u8()? {
            0 => None,
            _ => Some(i64::from_le_bytes(r.array()?)),
        };
        let outcome = r.text16()?;
        let delivered_as = r.optional()?;
        Some(NewNotice {
            session,
            severity,
            title,
            description,
            advertised,
            version,
            outcome,
            delivered_as,
        })
    } else {
        None
    };
    if !r.0.is_empty() {
        return Err(corrupt(format!("{} bytes after a frame", r.0.len())));
    }
    Ok(SpooledFrame {
        side,
        time,
        size,
        too_long: flags & TOO_LONG != 0,
        raw,
        findings,
        notice,
    })
}

fn corrupt(what: String) -> Error {
    Error::Invalid(format!("capture spool: unreadable record ({what})"))
}

/// A cursor over a record's body.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(corrupt(format!(
                "{n} bytes expected, {} left",
                self.0.len()
            )));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn bytes32(&mut self) -> Result<&'a [u8]> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        self.take(n)
    }

    fn text(bytes: &'a [u8]) -> Result<&'a str> {
        std::str::from_utf8(bytes).map_err(|_| corrupt("text that is not UTF-8".to_owned()))
    }

    fn text16(&mut self) -> Result<&'a str> {
        let n = usize::from(u16::from_le_bytes(self.array()?));
        Self::text(self.take(n)?)
    }

    fn text32(&mut self) -> Result<&'a str> {
        let bytes = self.bytes32()?;
        Self::text(bytes)
    }

    fn optional(&mut self) -> Result<Option<&'a str>> {
        match self.u8()? {
            0 => Ok(None),
            _ => self.text32().map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    fn sample() -> Vec<SpooledFrame<'static>> {
        vec![
            SpooledFrame {
                side: Side::Client,
                time: 1_700_000_000_000_001,
                size: 9,
                too_long: false,
                raw: b"{\"id\":1}\n",
                findings: vec![],
                notice: None,
            },
            SpooledFrame {
                side: Side::Agent,
                time: -5,
                size: 70_000_000,
                too_long: true,
                raw: b"",
                findings: vec![
                    NewFinding {
                        rule: "line-too-long",
                        severity: "warning",
                        message: "a line of 70,000,000 bytes ✓",
                    },
                    NewFinding {
                        rule: "x",
                        severity: "error",
                        message: "",
                    },
                ],
                notice: Some(NewNotice {
                    session: Some("s1"),
                    severity: None,
                    title: Some("MCP server unavailable"),
                    description: Some(""),
                    advertised: Some(false),
                    version: Some(1),
                    outcome: "fallback",
                    delivered_as: Some("{\"jsonrpc\":\"2.0\"}"),
                }),
            },
            SpooledFrame {
                side: Side::Agent,
                time: 0,
                size: 0,
                too_long: false,
                raw: b"",
                findings: vec![],
                notice: Some(NewNotice {
                    outcome: "malformed",
                    ..NewNotice::default()
                }),
            },
        ]
    }

    fn read_all(mut input: &[u8]) -> (Vec<SpooledFrame<'_>>, usize) {
        let mut out = Vec::new();
        loop {
            match next(input).unwrap() {
                Next::Frame(frame, used) => {
                    out.push(frame);
                    input = &input[used..];
                }
                Next::Partial(_) => return (out, input.len()),
            }
        }
    }

    #[test]
    fn records_read_back_as_written() {
        let frames = sample();
        let mut bytes = Vec::new();
        for frame in &frames {
            put(&mut bytes, frame);
        }
        let (read, left) = read_all(&bytes);
        assert_eq!(read, frames);
        assert_eq!(left, 0);
    }

    #[test]
    fn a_cut_record_is_left_unread_at_every_length() {
        let frames = sample();
        let mut bytes = Vec::new();
        let mut ends = Vec::new();
        for frame in &frames {
            put(&mut bytes, frame);
            ends.push(bytes.len());
        }
        for cut in 0..bytes.len() {
            let (read, left) = read_all(&bytes[..cut]);
            let whole = ends.iter().filter(|&&end| end <= cut).count();
            assert_eq!(read, frames[..whole], "cut at {cut}");
            assert_eq!(left, cut - ends[..whole].last().copied().unwrap_or(0));
        }
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_panic() {
        let mut bytes = Vec::new();
        put(&mut bytes, &sample()[1]);
        // Every single-byte change either reads, waits for more, or is refused.
        for at in 0..bytes.len() {
            for value in [0u8, 1, 2, 0x7f, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] = value;
                let _ = next(&damaged);
            }
        }
        let mut wrong_tag = bytes.clone();
        wrong_tag[0] = b'Z';
        let error = next(&wrong_tag).unwrap_err().to_string();
        assert!(error.contains("0x5a"), "{error}");
    }
}
