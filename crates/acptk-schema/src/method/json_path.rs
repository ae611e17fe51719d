//! Where in a JSON text decoding stopped, as a path of keys and indices (`content[2].type`).
//!
//! serde_json reports the line and column where it stopped reading; [`path_at`] reads the text
//! up to there, following objects, arrays and strings, and names the member or element being
//! read at that point. It knows nothing of the type that was decoded, so naming a failure costs
//! no second decoding of that type (a path-tracking deserializer would instantiate every wire
//! type's decoder again).
//!
//! The path has the form `a.b[2].c`; the top level is `.`. A member counts once its key and
//! colon are read: a failure at a key itself (an unknown field) names the object holding it.

use std::fmt::Write as _;

/// Where the member or element being read sits in its container.
#[derive(Debug)]
enum Slot {
    /// In an object, between members: no key read yet.
    NoKey,
    /// In an object, the key (raw text between its quotes) read, its colon not yet.
    KeyRead(usize, usize),
    /// In an object, inside the value of the member whose key is this raw text.
    Member(usize, usize),
    /// In an array, the element at this index.
    Element(usize),
}

/// The JSON path of the value being read when serde_json stopped at `line` and `column` (as
/// its error reports them: 1-based lines, columns counted in bytes) in `text`: `.` for the
/// top level, and also when the position is unknown (line 0).
pub(crate) fn path_at(text: &str, line: usize, column: usize) -> String {
    if line == 0 {
        return ".".to_owned();
    }
    path_before(text, offset_of(text, line, column))
}

/// The byte offset where serde_json stopped: its column counts the bytes of the line it had
/// read. (A syntax error found by peeking counts the peeked byte too; reading that one byte
/// more changes the path of a syntax error at most, never of a type or a missing field.)
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.bytes()
            .enumerate()
            .filter(|&(_, byte)| byte == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(index, _)| index + 1)
    };
    (line_start + column).min(text.len())
}

/// The path of the value being read after the first `end` bytes of `text`.
fn path_before(text: &str, end: usize) -> String {
    let bytes = &text.as_bytes()[..end];
    let mut stack: Vec<Slot> = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                let start = index + 1;
                index = string_end(bytes, start);
                if let Some(slot @ Slot::NoKey) = stack.last_mut() {
                    // A key is read only once its closing quote is.
                    if index < bytes.len() {
                        *slot = Slot::KeyRead(start, index);
                    }
                }
            }
            b'{' => stack.push(Slot::NoKey),
            b'[' => stack.push(Slot::Element(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b':' => {
                if let Some(slot) = stack.last_mut()
                    && let Slot::KeyRead(start, stop) = *slot
                {
                    *slot = Slot::Member(start, stop);
                }
            }
            b',' => match stack.last_mut() {
                Some(Slot::Element(n)) => *n += 1,
                Some(slot) => *slot = Slot::NoKey,
                None => {}
            },
            _ => {}
        }
        index += 1;
    }
    render(text, &stack)
}

/// The index of the quote closing the string that starts at `start`, or the end of `bytes`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 2,
            b'"' => return index,
            _ => index += 1,
        }
    }
    bytes.len()
}

/// Writes the path of `stack` as `a.b[2].c`.
fn render(text: &str, stack: &[Slot]) -> String {
    let mut path = String::new();
    for slot in stack {
        match *slot {
            Slot::Member(start, end) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key_text(&text[start..end]));
            }
            Slot::Element(n) => {
                let _ = write!(path, "[{n}]");
            }
            Slot::NoKey | Slot::KeyRead(..) => {}
        }
    }
    if path.is_empty() {
        path.push('.');
    }
    path
}

/// A key as its text says (escapes resolved); as written when it does not unescape.
fn key_text(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path serde_json's own error for decoding `text` as `T` points at.
    fn path_of<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) -> String {
        let error = serde_json::from_str::<T>(text).unwrap_err();
        path_at(text, error.line(), error.column())
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Part {
        r#type: String,
        #[serde(default)]
        text: Option<String>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    #[serde(deny_unknown_fields)]
    struct Message {
        id: u32,
        content: Vec<Part>,
        #[serde(default)]
        meta: Option<Meta>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Meta {
        inner: Inner,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        count: u8,
        name: String,
    }

    #[test]
    fn a_wrong_type_is_named_by_its_member() {
        assert_eq!(path_of::<Message>(r#"{"id":"one","content":[]}"#), "id");
        assert_eq!(
            path_of::<Message>(r#"{"id":1,"content":[],"meta":{"inner":{"count":300}}}"#),
            "meta.inner.count"
        );
    }

    #[test]
    fn array_elements_are_counted() {
        let text = r#"{"id":1,"content":[{"type":"a"},{"type":"b"},{"type":7}]}"#;
        assert_eq!(path_of::<Message>(text), "content[2].type");
        let text = r#"{"id":1,"content":[{"type":"a"},{"type":"b","text":[1]}]}"#;
        assert_eq!(path_of::<Message>(text), "content[1].text");
        assert_eq!(path_of::<Vec<u8>>("[1, 2,\n 3, -4]"), "[3]");
        assert_eq!(path_of::<Vec<Vec<u8>>>("[[1], [2, [3]]]"), "[1][1]");
    }

    #[test]
    fn strings_may_hold_quotes_brackets_and_escapes() {
        let text = r#"{"id":1,"content":[{"type":"a\"}],{[\\","text":"x"},{"type":false}]}"#;
        assert_eq!(path_of::<Message>(text), "content[1].type");
        let text = r#"{"id":1,"content":[],"meta":{"inner":{"name":"\"[,:\\","count":-1}}}"#;
        assert_eq!(path_of::<Message>(text), "meta.inner.count");
    }

    #[test]
    fn a_missing_field_is_named_by_its_object() {
        let text = r#"{"id":1,"content":[],"meta":{"inner":{"count":1}}}"#;
        assert_eq!(path_of::<Message>(text), "meta.inner");
        let text = r#"{"id":1,"content":[{"text":"no type"}]}"#;
        assert_eq!(path_of::<Message>(text), "content[0]");
    }

    #[test]
    fn errors_at_the_top_level_are_named_dot() {
        assert_eq!(path_of::<Message>(r#"{"content":[]}"#), ".");
        assert_eq!(path_of::<Message>("[1]"), ".");
        assert_eq!(path_of::<Message>(""), ".");
        assert_eq!(path_of::<Message>(r#"{"id":1,"content":[]} x"#), ".");
    }

    #[test]
    fn an_unknown_field_is_named_by_its_object() {
        let text = r#"{"id":1,"content":[],"extra":true}"#;
        assert_eq!(path_of::<Message>(text), ".");
    }

    #[test]
    fn escaped_keys_are_unescaped_and_lines_counted() {
        let text = "{\n  \"id\": 1,\n  \"content\": [\n    {\"typ\\u0065\": 5}\n  ]\n}";
        assert_eq!(path_of::<Message>(text), "content[0].type");
    }

    #[test]
    fn truncated_text_names_the_open_value() {
        assert_eq!(
            path_of::<Message>(r#"{"id":1,"content":[{"type":"a"#),
            "content[0].type"
        );
        assert_eq!(
            path_of::<Message>(r#"{"id":1,"content":[{"ty"#),
            "content[0]"
        );
    }

    #[test]
    fn an_unknown_position_is_the_top_level() {
        assert_eq!(path_at(r#"{"a":{"b":1}}"#, 0, 0), ".");
    }
}
