//! The byte-level writers: JSON strings, numbers and keys, written exactly as `serde_json`'s
//! compact serializer writes them.

use std::fmt::Write as _;

/// `8` copies of one byte in a word, for the word-at-a-time scan.
const fn splat(byte: u8) -> u64 {
    u64::from_ne_bytes([byte; 8])
}

const ONES: u64 = splat(0x01);
const HIGHS: u64 = splat(0x80);

/// Whether any byte of `word` must be escaped: a control character (below 0x20), `"` or `\`.
///
/// Each test is exact for "some byte of the word matches" (the classic `haszero` and
/// `hasless` bit tricks); which byte matched is found afterwards, one byte at a time.
#[inline]
fn word_needs_escape(word: u64) -> bool {
    let control = word.wrapping_sub(splat(0x20)) & !word;
    let quote = word ^ splat(b'"');
    let backslash = word ^ splat(b'\\');
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS != 0
}

/// Whether `byte` must be escaped inside a JSON string (as `serde_json` does: control
/// characters, `"` and `\`; not `/`, not DEL, not U+2028/U+2029).
#[inline]
fn byte_needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The index of the first byte at or after `from` that must be escaped, or `bytes.len()`.
#[inline]
fn next_escape(bytes: &[u8], from: usize) -> usize {
    let rest = bytes.get(from..).unwrap_or_default();
    let mut at = from;
    let mut chunks = rest.chunks_exact(8);
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        if word_needs_escape(u64::from_ne_bytes(word)) {
            break;
        }
        at += 8;
    }
    for &byte in bytes.get(at..).unwrap_or_default() {
        if byte_needs_escape(byte) {
            return at;
        }
        at += 1;
    }
    bytes.len()
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes the escape sequence of one ASCII byte that [`byte_needs_escape`] selected.
#[cold]
fn write_escape(out: &mut String, byte: u8) {
    match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        0x08 => out.push_str("\\b"),
        0x0C => out.push_str("\\f"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        _ => {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0F)]));
        }
    }
}

/// Writes `text` as a JSON string literal, quotes included.
///
/// Runs of bytes that need no escape (in agent text, nearly all of it) are found eight bytes
/// at a time and copied whole; a string with nothing to escape is one copy.
pub(crate) fn write_str(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut at = next_escape(bytes, 0);
    out.reserve(text.len() + 2);
    out.push('"');
    if at == bytes.len() {
        out.push_str(text);
        out.push('"');
        return;
    }
    let mut start = 0;
    loop {
        // `start` and `at` are 0, the length, or next to an ASCII byte: char boundaries.
        out.push_str(text.get(start..at).unwrap_or_default());
        match bytes.get(at) {
            Some(&byte) => write_escape(out, byte),
            None => break,
        }
        start = at + 1;
        at = next_escape(bytes, start);
    }
    out.push('"');
}

/// Writes an unsigned integer.
#[inline]
pub(crate) fn write_u64(out: &mut String, value: u64) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Writes a signed integer.
#[inline]
pub(crate) fn write_i64(out: &mut String, value: i64) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Writes a float the way `serde_json` does, through `serde_json` itself: `null` for NaN and
/// the infinities (JSON cannot express them), otherwise the text of its shortest round-trip
/// formatter (which has changed between `serde_json` releases, so it is not copied here).
pub(crate) fn write_f64(out: &mut String, value: f64) {
    match serde_json::Number::from_f64(value) {
        Some(number) => write_number(out, &number),
        None => out.push_str("null"),
    }
}

/// Writes a JSON number held by `serde_json`: its `Display` form is exactly what its
/// serializer writes (integers as is, floats through `ryu`, or the verbatim text with
/// `serde_json`'s `arbitrary_precision` feature).
pub(crate) fn write_number(out: &mut String, number: &serde_json::Number) {
    // Writing into a `String` cannot fail.
    let _ = write!(out, "{number}");
}
