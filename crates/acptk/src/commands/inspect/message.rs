//! What a frame said, as `acp inspect show --frames` prints it: one line for a terminal in
//! text, the message itself in JSON. The message comes redacted (or not) from
//! [`acptk_inspect::message::Message`], the same reading `export` uses.
//!
//! **The line.** JSON is written without the spaces between its tokens; in its strings,
//! characters a terminal could act on (control characters, line and paragraph separators,
//! bidirectional overrides) become JSON escapes (`\u001b`), so the line stays the same JSON.
//! Other text gets the same characters escaped as `\n`, `\r`, `\t` or `\u{1b}`, and bytes that
//! are not UTF-8 as `\xff`. A line wider than the width (see [`width`]) ends in `…`.
//!
//! **JSON.** Each frame gets `message`: the captured JSON itself, embedded as it was sent (key
//! order, numbers and spacing kept; written again, compact and with its keys sorted, when
//! something in it was redacted, which `redacted` then says), or `null` when the frame is not
//! JSON. Such a frame has its text as `raw`, or, when its bytes are not UTF-8, `raw_base64`
//! (standard base64, with padding) instead, so no byte is lost.

use std::io::IsTerminal;

use acptk_inspect::message::Message;
use acptk_inspect::query::FrameRow;
use base64::Engine;
use serde::Serialize;
use serde_json::value::RawValue;
use unicode_width::UnicodeWidthChar;

/// What ends a line that was cut.
pub(super) const CUT: char = '…';

/// The width the message lines are cut at: none with `--full`; else `$COLUMNS` when it is a
/// positive number; else the terminal's width when standard output is a terminal; else
/// (output to a pipe or a file) none, so scripts get whole messages.
pub(super) fn width(full: bool) -> Option<usize> {
    if full {
        return None;
    }
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
    {
        return Some(columns);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size()
        .ok()
        .map(|(columns, _)| usize::from(columns))
        .filter(|c| *c > 0)
}

/// Characters a terminal may act on, or that reorder or break what follows: C0 and C1
/// controls and DEL, the line and paragraph separators, and the bidirectional controls.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}'
        )
}

/// The message on one line, nothing a terminal could act on left in it.
pub(super) fn one_line(message: &Message<'_>) -> String {
    match message {
        Message::Json(text) => compact_json(text),
        Message::Text(text) => {
            let mut out = String::with_capacity(text.len());
            escape_text(text, &mut out);
            out
        }
        Message::Bytes(bytes) => {
            let mut out = String::with_capacity(bytes.len());
            for chunk in bytes.utf8_chunks() {
                escape_text(chunk.valid(), &mut out);
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            out
        }
        Message::NotKept => "(not kept: longer than the proxy's line limit)".to_owned(),
        _ => String::new(),
    }
}

/// Valid JSON without the whitespace between tokens, its strings' unsafe characters escaped.
fn compact_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if !in_string {
            match c {
                ' ' | '\t' | '\n' | '\r' => {}
                '"' => {
                    in_string = true;
                    out.push(c);
                }
                _ => out.push(c),
            }
        } else if escaped {
            escaped = false;
            out.push(c);
        } else if unsafe_char(c) {
            // All of them are in the Basic Multilingual Plane: one `\uXXXX`.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            match c {
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            out.push(c);
        }
    }
    out
}

fn escape_text(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
}

/// `line` cut to `width` terminal columns, its last one `…` when it was cut.
pub(super) fn cut(line: &str, width: Option<usize>) -> std::borrow::Cow<'_, str> {
    let Some(width) = width else {
        return line.into();
    };
    let columns = |c: char| c.width().unwrap_or(0);
    if line.chars().map(columns).sum::<usize>() <= width {
        return line.into();
    }
    let room = width.saturating_sub(1);
    let mut used = 0;
    let mut out = String::with_capacity(width * 2);
    for c in line.chars() {
        used += columns(c);
        if used > room {
            break;
        }
        out.push(c);
    }
    out.push(CUT);
    out.into()
}

/// A frame in `show --format json`: its row, then its message (see the module docs).
#[derive(Serialize)]
pub(super) struct JsonFrame<'a> {
    #[serde(flatten)]
    row: &'a FrameRow,
    message: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_base64: Option<String>,
    redacted: bool,
}

impl<'a> JsonFrame<'a> {
    /// Frame `row` with its bytes `raw`, redacted when `redact`.
    pub(super) fn new(row: &'a FrameRow, raw: &'a [u8], redact: bool) -> Self {
        let message = Message::read(row.kind, raw, redact);
        let redacted = message.redacted();
        let (mut json, mut text, mut encoded) = (None, None, None);
        match message {
            Message::Json(value) => match RawValue::from_string(value.into_owned()) {
                Ok(value) => json = Some(value),
                // Checked as JSON when read: cannot happen, but the text is not lost.
                Err(_) => text = std::str::from_utf8(raw).ok(),
            },
            Message::Text(value) => text = Some(value),
            Message::Bytes(bytes) => {
                encoded = Some(base64::engine::general_purpose::STANDARD.encode(bytes));
            }
            _ => {}
        }
        JsonFrame {
            row,
            message: json,
            raw: text,
            raw_base64: encoded,
            redacted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn json_on_one_line_stays_json() {
        let text = "{\n  \"a\": \"x y\\\"z\u{7f}[31m\u{85}\u{202e}\",\n\t\"b\": [1, 2]\n}";
        let line = one_line(&Message::Json(Cow::Borrowed(text)));
        assert_eq!(line, r#"{"a":"x y\"z\u007f[31m\u0085\u202e","b":[1,2]}"#);
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        let orig: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(back, orig);
    }

    #[test]
    fn text_and_bytes_are_escaped() {
        assert_eq!(one_line(&Message::Text("a\nb\u{1b}c")), r"a\nb\u{1b}c");
        assert_eq!(one_line(&Message::Bytes(b"ok\xff\n")), r"ok\xff\n");
    }

    #[test]
    fn cut_at_the_width_with_a_marker() {
        assert_eq!(cut("abcdef", Some(6)), "abcdef");
        assert_eq!(cut("abcdefg", Some(6)), "abcde…");
        assert_eq!(cut("abcdefg", None), "abcdefg");
        // Wide characters take two columns.
        assert_eq!(cut("日本語です", Some(6)), "日本…");
    }
}
