//! The transcript format: newline-delimited JSON, one object per message.
//!
//! ```text
//! {"from":"client","timestamp":"2025-01-31T12:00:00.000001Z","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}}
//! {"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}
//! ```
//!
//! * `from` (required): `"client"` or `"agent"`, the side that sent the message.
//! * `message`: the JSON-RPC message exactly as it was sent (any JSON value is kept).
//! * `timestamp` (optional): when the message was seen (`acp proxy` gives the lines one read
//!   brought in the same time); any value, not interpreted.
//! * Instead of `message`, `acp proxy --record` writes `line` (a string) for a line that was not
//!   JSON, and `too_long` (the line limit in bytes) for a line longer than the limit.
//!
//! Each run of `acp proxy --record` starts with a *header* entry, so that a file that several
//! runs appended to (`--append`) can be told apart run by run; `acp check` starts with fresh
//! connection state at each header:
//!
//! ```text
//! {"header":{"proxy":"acp proxy","version":"0.1.0","time":"2025-01-31T12:00:00.000001Z","agent":["acp","agent"]}}
//! ```
//!
//! A line without `from` and `message` (typically one with `jsonrpc`) is a *bare* JSON-RPC
//! message; its sender is inferred by the checker.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

/// A side of an ACP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The client (editor).
    Client,
    /// The agent.
    Agent,
}

impl Side {
    /// `"client"` or `"agent"`, as in the transcript's `from`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Agent => "agent",
        }
    }

    /// The other side.
    pub fn peer(self) -> Side {
        match self {
            Side::Client => Side::Agent,
            Side::Agent => Side::Client,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line of a transcript, read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Entry<'a> {
    /// A message: its sender when the line said so (`None` for a bare line), and its JSON
    /// text (which may still be invalid: the checker reports that).
    Message {
        /// The sender, from `from`; `None` for a bare JSON-RPC line.
        from: Option<Side>,
        /// The message text.
        text: &'a str,
    },
    /// A recorded line that was not JSON (`line`).
    NotJson {
        /// The sender.
        from: Side,
        /// The text of the line as recorded.
        text: String,
    },
    /// A recorded line that was longer than the limit (`too_long`).
    TooLong {
        /// The sender.
        from: Side,
        /// The limit the line exceeded, in bytes.
        limit: u64,
    },
    /// The header of a run (`{"header": {...}}`): a new connection starts here.
    Header(Header),
    /// A transcript entry that is itself broken (bad `from`, nothing to check).
    Invalid {
        /// Why, in one line.
        reason: String,
    },
}

/// The header entry a proxy run starts its record with: who recorded, when, and what agent.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, Deserialize)]
#[non_exhaustive]
pub struct Header {
    /// What recorded the run (`acp proxy`).
    #[serde(default)]
    pub proxy: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
    /// When the run started (RFC 3339, UTC).
    #[serde(default)]
    pub time: String,
    /// The agent's command line, program first.
    #[serde(default)]
    pub agent: Vec<String>,
}

impl Header {
    /// The header of a run of `proxy` at `version`, starting now, of the agent `agent`.
    pub fn new(proxy: &str, version: &str, agent: Vec<String>) -> Self {
        Self {
            proxy: proxy.to_owned(),
            version: version.to_owned(),
            time: rfc3339(SystemTime::now()),
            agent,
        }
    }

    /// The header entry (with its line break), as the record holds it.
    pub fn entry(&self) -> String {
        #[derive(serde::Serialize)]
        struct Entry<'a> {
            header: &'a Header,
        }
        // Serialising plain strings cannot fail.
        let mut line = serde_json::to_string(&Entry { header: self }).unwrap_or_default();
        line.push('\n');
        line
    }
}

#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(default)]
    header: Option<serde_json::Value>,
    #[serde(default)]
    jsonrpc: Option<IgnoredAny>,
    #[serde(default)]
    from: Option<serde_json::Value>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default)]
    line: Option<serde_json::Value>,
    #[serde(default)]
    too_long: Option<serde_json::Value>,
}

/// Reads one line of a transcript (without its line break). Never fails: a line that is not
/// a transcript entry is taken as a bare message, and the checker says what is wrong with it.
pub fn parse_line(line: &str) -> Entry<'_> {
    let bare = Entry::Message {
        from: None,
        text: line,
    };
    let Ok(fields) = serde_json::from_str::<Fields<'_>>(line) else {
        return bare;
    };
    let is_entry = fields.from.is_some()
        || fields.message.is_some()
        || fields.line.is_some()
        || fields.too_long.is_some();
    if fields.jsonrpc.is_some() {
        return bare;
    }
    if let Some(header) = fields.header.filter(|_| !is_entry) {
        return match serde_json::from_value::<Header>(header) {
            Ok(header) => Entry::Header(header),
            Err(error) => Entry::Invalid {
                reason: format!("transcript header: {error}"),
            },
        };
    }
    if !is_entry {
        return bare;
    }
    let from = match fields.from.as_ref().and_then(serde_json::Value::as_str) {
        Some("client") => Side::Client,
        Some("agent") => Side::Agent,
        Some(other) => {
            return Entry::Invalid {
                reason: format!(
                    "transcript entry: `from` must be \"client\" or \"agent\", found {}",
                    crate::finding::quote(other)
                ),
            };
        }
        None => {
            return Entry::Invalid {
                reason: "transcript entry without a `from` string (\"client\" or \"agent\")"
                    .to_owned(),
            };
        }
    };
    if let Some(message) = fields.message {
        return Entry::Message {
            from: Some(from),
            text: message.get(),
        };
    }
    if let Some(text) = fields.line.as_ref().and_then(serde_json::Value::as_str) {
        return Entry::NotJson {
            from,
            text: text.to_owned(),
        };
    }
    if let Some(limit) = fields.too_long.as_ref().and_then(serde_json::Value::as_u64) {
        return Entry::TooLong { from, limit };
    }
    Entry::Invalid {
        reason: "transcript entry without `message`".to_owned(),
    }
}

/// What to write for one line in a recorded transcript.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Recorded<'a> {
    /// A line that is JSON: written verbatim as `message`.
    Json(&'a str),
    /// A line that is not JSON: written as the string `line` (invalid UTF-8 replaced).
    NotJson(&'a [u8]),
    /// A line longer than `limit` bytes: written as `too_long`.
    TooLong(u64),
}

/// Appends one transcript entry (with its line break) to `out`. `text` of
/// [`Recorded::Json`] must be JSON (the caller has parsed it); it is written byte for byte.
pub fn write_entry(
    out: &mut Vec<u8>,
    from: Side,
    timestamp: Option<SystemTime>,
    line: Recorded<'_>,
) {
    let stamp = timestamp.map(rfc3339);
    write_stamped(out, from, stamp.as_deref(), line);
}

/// [`write_entry`] with the timestamp already formatted (RFC 3339).
pub(crate) fn write_stamped(
    out: &mut Vec<u8>,
    from: Side,
    stamp: Option<&str>,
    line: Recorded<'_>,
) {
    out.extend_from_slice(b"{\"from\":\"");
    out.extend_from_slice(from.as_str().as_bytes());
    out.push(b'"');
    if let Some(stamp) = stamp {
        out.extend_from_slice(b",\"timestamp\":\"");
        out.extend_from_slice(stamp.as_bytes());
        out.push(b'"');
    }
    match line {
        Recorded::Json(text) => {
            out.extend_from_slice(b",\"message\":");
            out.extend_from_slice(text.trim().as_bytes());
        }
        Recorded::NotJson(bytes) => {
            out.extend_from_slice(b",\"line\":");
            let text = String::from_utf8_lossy(bytes);
            // Writing a string into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, &*text);
        }
        Recorded::TooLong(limit) => {
            out.extend_from_slice(b",\"too_long\":");
            out.extend_from_slice(limit.to_string().as_bytes());
        }
    }
    out.extend_from_slice(b"}\n");
}

/// Formats a time as RFC 3339 in UTC with microseconds (`2025-01-31T12:00:00.000001Z`).
pub fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_micros()
    )
}

/// The Gregorian date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}
