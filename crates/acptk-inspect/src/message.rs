//! A frame's message as it is shown outside the database: redacted (unless the user asked for
//! secrets) through [`crate::redact`], and sorted by what its bytes are: JSON, other text,
//! bytes that are not UTF-8, or nothing kept. `acp inspect export` and `acp inspect show`
//! both read frames through [`Message::read`], so they redact the same values.

use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::frame::Kind;

/// A frame's message, redacted or as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Message<'a> {
    /// JSON: the text as captured, or (when something was redacted) written again from its
    /// parsed JSON, compact and with its object keys sorted.
    Json(Cow<'a, str>),
    /// UTF-8 text that is not JSON, as captured (nothing in it is redacted: there are no
    /// keys to find).
    Text(&'a str),
    /// Bytes that are not UTF-8, as captured.
    Bytes(&'a [u8]),
    /// A line longer than the proxy's limit: forwarded unchecked, its bytes not kept.
    NotKept,
}

impl<'a> Message<'a> {
    /// The message of a frame of kind `kind` whose bytes are `raw`, with secrets replaced by
    /// `"<redacted>"` when `redact` is true.
    pub fn read(kind: Kind, raw: &'a [u8], redact: bool) -> Message<'a> {
        if kind == Kind::TooLong {
            return Message::NotKept;
        }
        let Ok(text) = std::str::from_utf8(raw) else {
            return Message::Bytes(raw);
        };
        if serde_json::from_str::<&RawValue>(text).is_err() {
            return Message::Text(text);
        }
        if !redact {
            return Message::Json(Cow::Borrowed(text));
        }
        match crate::redact::frame(raw) {
            Cow::Borrowed(_) => Message::Json(Cow::Borrowed(text)),
            // Written by serde_json from a value: UTF-8.
            Cow::Owned(bytes) => {
                Message::Json(Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|e| {
                    String::from_utf8_lossy(e.as_bytes()).into_owned()
                })))
            }
        }
    }

    /// Its bytes (none for [`Message::NotKept`]).
    pub fn bytes(&self) -> &[u8] {
        match self {
            Message::Json(text) => text.as_bytes(),
            Message::Text(text) => text.as_bytes(),
            Message::Bytes(bytes) => bytes,
            Message::NotKept => &[],
        }
    }

    /// Whether its text had secrets replaced.
    pub fn redacted(&self) -> bool {
        matches!(self, Message::Json(Cow::Owned(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"gh","command":"gh","args":[],"env":[{"name":"GITHUB_TOKEN","value":"ghp_x"}]}]}}"#;

    #[test]
    fn each_kind_of_bytes() {
        let spaced = br#"{ "jsonrpc": "2.0", "method": "x" }"#;
        assert_eq!(
            Message::read(Kind::Notification, spaced, true),
            Message::Json(Cow::Borrowed(std::str::from_utf8(spaced).unwrap()))
        );
        assert_eq!(
            Message::read(Kind::Invalid, b"not json", true),
            Message::Text("not json")
        );
        assert_eq!(
            Message::read(Kind::Invalid, b"\xff\xfe", true),
            Message::Bytes(b"\xff\xfe")
        );
        assert_eq!(Message::read(Kind::TooLong, b"", true), Message::NotKept);
    }

    #[test]
    fn redacted_unless_asked() {
        let redacted = Message::read(Kind::Request, SECRET, true);
        assert!(redacted.redacted());
        let text = std::str::from_utf8(redacted.bytes()).unwrap();
        assert!(
            !text.contains("ghp_x") && text.contains("GITHUB_TOKEN"),
            "{text}"
        );
        let kept = Message::read(Kind::Request, SECRET, false);
        assert!(!kept.redacted());
        assert_eq!(kept.bytes(), SECRET);
    }
}
