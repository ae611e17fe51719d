//! Telling the input's format from its start.

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::input::InputFormat;

/// How many lines at the start are looked at for one that tells the format.
const LOOK: usize = 16;

/// The keys that tell the formats apart.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct Keys {
    jsonrpc: Option<IgnoredAny>,
    from: Option<IgnoredAny>,
    to: Option<IgnoredAny>,
    #[serde(rename = "type")]
    kind: Option<serde_json::Value>,
    message: Option<IgnoredAny>,
    line: Option<IgnoredAny>,
    too_long: Option<IgnoredAny>,
    header: Option<IgnoredAny>,
    #[serde(rename = "_direction")]
    direction: Option<IgnoredAny>,
    #[serde(rename = "_type")]
    zed_type: Option<IgnoredAny>,
}

impl Keys {
    /// The keys of a JSON object line; `None` when it is not one.
    pub(crate) fn of(line: &str) -> Option<Keys> {
        serde_json::from_str(line).ok()
    }

    /// The format a line with these keys belongs to, if it tells.
    pub(crate) fn format(&self) -> Option<InputFormat> {
        let event = matches!(
            self.kind.as_ref().and_then(serde_json::Value::as_str),
            Some("request" | "response" | "notification" | "trace")
        );
        if self.jsonrpc.is_some() {
            Some(InputFormat::JsonRpc)
        } else if event && self.to.is_some() {
            Some(InputFormat::Conductor)
        } else if self.direction.is_some() || self.zed_type.is_some() {
            Some(InputFormat::Zed)
        } else if self.header.is_some()
            || (self.from.is_some()
                && (self.message.is_some() || self.line.is_some() || self.too_long.is_some()))
        {
            Some(InputFormat::Transcript)
        } else {
            None
        }
    }
}

/// The format told by the first key of a line cut short.
fn first_key(line: &str) -> Option<InputFormat> {
    let key = line.strip_prefix('{')?.trim_start();
    if key.starts_with(r#""from""#) || key.starts_with(r#""header""#) {
        Some(InputFormat::Transcript)
    } else if key.starts_with(r#""jsonrpc""#) {
        Some(InputFormat::JsonRpc)
    } else if key.starts_with(r#""type""#) {
        Some(InputFormat::Conductor)
    } else {
        None
    }
}

/// The format of an input that starts with `start` (as much of it as is at hand): `None` when
/// it is none of the known ones. Empty input reads as a transcript (with nothing in it).
///
/// A JSON array whose first element has Zed's `_direction`/`_type` is Zed's log copy (any other
/// array is a JSON-RPC batch). Otherwise the first of the first lines that is a JSON object
/// tells: `from` with `message` (or a run `header`) is a transcript, `type` with `to` a
/// conductor event, `jsonrpc` a bare JSON-RPC message (acpx's output is read the same way).
///
/// ```
/// use acptk_check::input::{InputFormat, detect};
/// assert_eq!(detect(b"[\n  {\n    \"_direction\": \"outgoing\""), Some(InputFormat::Zed));
/// assert_eq!(detect(br#"{"type":"request","from":"Client","to":"Agent"}"#), Some(InputFormat::Conductor));
/// assert_eq!(detect(br#"{"from":"agent","message":{}}"#), Some(InputFormat::Transcript));
/// assert_eq!(detect(b"hello"), None);
/// ```
pub fn detect(start: &[u8]) -> Option<InputFormat> {
    let start = start.strip_prefix(b"\xef\xbb\xbf").unwrap_or(start);
    let trimmed = start.trim_ascii_start();
    if trimmed.is_empty() {
        return Some(InputFormat::Transcript);
    }
    if trimmed[0] == b'[' {
        let inner = trimmed[1..].trim_ascii_start();
        let zed = inner.starts_with(b"]")
            || (inner.starts_with(b"{") && {
                // The first element's first key, as Zed writes it.
                let first = inner[1..].trim_ascii_start();
                first.starts_with(br#""_direction""#) || first.starts_with(br#""_type""#)
            });
        return Some(if zed {
            InputFormat::Zed
        } else {
            InputFormat::JsonRpc
        });
    }
    let mut lines = start.split(|b| *b == b'\n').take(LOOK).peekable();
    while let Some(line) = lines.next() {
        // The last piece may be cut short by the end of what is at hand.
        let whole = lines.peek().is_some() || start.ends_with(b"\n");
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        if let Some(format) = Keys::of(text).and_then(|keys| keys.format()) {
            return Some(format);
        }
        if !whole {
            // A line longer than what is at hand: its first key, as each format writes it.
            return first_key(text.trim_start());
        }
    }
    None
}
