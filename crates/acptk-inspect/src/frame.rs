//! What a frame is, read cheaply from its bytes: its kind, method, JSON-RPC id, ACP session
//! and session update tag.
//!
//! The usual notification, `{"jsonrpc":"2.0","method":"M","params":{"sessionId":"S","update":
//! {"sessionUpdate":"T",...}}}` written plainly, is read by its bytes; anything else is read
//! with a partial decode that keeps the id and params as raw JSON.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// What kind of message a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// A request (a method and an id).
    Request,
    /// A notification (a method, no id).
    Notification,
    /// A response with a result.
    Response,
    /// A response with an error.
    Error,
    /// A JSON array (a JSON-RPC batch).
    Batch,
    /// Not a JSON-RPC message (not JSON, or JSON of another shape).
    Invalid,
    /// A line longer than the proxy's limit: forwarded unchecked, its bytes not kept.
    TooLong,
}

impl Kind {
    /// Every kind.
    pub const ALL: &'static [Kind] = &[
        Kind::Request,
        Kind::Notification,
        Kind::Response,
        Kind::Error,
        Kind::Batch,
        Kind::Invalid,
        Kind::TooLong,
    ];

    /// The name stored in the database: `request`, `notification`, `response`, `error`,
    /// `batch`, `invalid`, `too_long`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response => "response",
            Kind::Error => "error",
            Kind::Batch => "batch",
            Kind::Invalid => "invalid",
            Kind::TooLong => "too_long",
        }
    }

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

/// What the bytes of a frame say about it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Envelope<'a> {
    pub(crate) kind: Option<Kind>,
    pub(crate) method: Option<Cow<'a, str>>,
    /// The id as JSON text.
    pub(crate) id: Option<Cow<'a, str>>,
    pub(crate) session: Option<Cow<'a, str>>,
    pub(crate) update: Option<Cow<'a, str>>,
    /// The result, when it is one (to read a new session's id).
    pub(crate) result: Option<&'a str>,
}

/// Reads the envelope of a frame.
pub(crate) fn envelope(raw: &[u8]) -> Envelope<'_> {
    if let Some(fast) = plain_notification(raw) {
        return fast;
    }
    let Ok(text) = std::str::from_utf8(raw) else {
        return invalid();
    };
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return match serde_json::from_str::<&RawValue>(text) {
            Ok(_) => Envelope {
                kind: Some(Kind::Batch),
                ..Envelope::default()
            },
            Err(_) => invalid(),
        };
    }
    let Ok(fields) = serde_json::from_str::<Fields<'_>>(text) else {
        return invalid();
    };
    let id = fields.id.map(|raw| Cow::Borrowed(raw.get()));
    let kind = match (&fields.method, &id, fields.result, fields.error) {
        (Some(_), Some(_), _, _) => Kind::Request,
        (Some(_), None, _, _) => Kind::Notification,
        (None, Some(_), Some(_), None) => Kind::Response,
        (None, Some(_), None, Some(_)) => Kind::Error,
        _ => Kind::Invalid,
    };
    let (session, update) = fields.params.map(params).unwrap_or_default();
    Envelope {
        kind: Some(kind),
        method: fields.method,
        id,
        session,
        update,
        result: fields.result.map(RawValue::get),
    }
}

fn invalid<'a>() -> Envelope<'a> {
    Envelope {
        kind: Some(Kind::Invalid),
        ..Envelope::default()
    }
}

#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A field that is there, `null` included.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The `sessionId` and `update.sessionUpdate` of params (or of a result), when they are
/// strings.
pub(crate) fn params(raw: &RawValue) -> (Option<Cow<'_, str>>, Option<Cow<'_, str>>) {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(default, rename = "sessionId")]
        session: Option<serde_json::Value>,
        #[serde(default, borrow)]
        update: Option<Update<'a>>,
    }
    #[derive(Deserialize)]
    struct Update<'a> {
        #[serde(default, rename = "sessionUpdate", borrow)]
        tag: Option<Cow<'a, str>>,
    }
    match serde_json::from_str::<Params<'_>>(raw.get()) {
        Ok(p) => (
            p.session.and_then(|s| match s {
                serde_json::Value::String(s) => Some(Cow::Owned(s)),
                _ => None,
            }),
            p.update.and_then(|u| u.tag),
        ),
        Err(_) => (None, None),
    }
}

/// `{"jsonrpc":"2.0","method":"M","params":{"sessionId":"S",...` read by its bytes, when the
/// strings hold no escapes (anything else goes to the decoder).
fn plain_notification(raw: &[u8]) -> Option<Envelope<'_>> {
    let rest = raw.strip_prefix(br#"{"jsonrpc":"2.0","method":""#)?;
    let (method, rest) = plain_string(rest)?;
    let rest = rest.strip_prefix(br#","params":{"sessionId":""#)?;
    let (session, rest) = plain_string(rest)?;
    let update = rest
        .strip_prefix(br#","update":{"sessionUpdate":""#)
        .and_then(plain_string)
        .map(|(tag, _)| Cow::Borrowed(tag));
    // Params must be the last member (an id after them would make a request), which the
    // end shows: `}}` cannot end a member holding an id (a string, a number or null).
    if !raw.ends_with(b"}}") || memchr::memmem::find(rest, br#""id":"#).is_some() {
        return None;
    }
    Some(Envelope {
        kind: Some(Kind::Notification),
        method: Some(Cow::Borrowed(method)),
        id: None,
        session: Some(Cow::Borrowed(session)),
        update,
        result: None,
    })
}

/// The string up to the next quote, when it has no escape or control character, and what
/// follows the quote.
fn plain_string(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let end = memchr::memchr(b'"', bytes)?;
    let text = &bytes[..end];
    if text.iter().any(|b| *b == b'\\' || *b < 0x20) {
        return None;
    }
    Some((std::str::from_utf8(text).ok()?, &bytes[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_path_and_the_decoder_agree() {
        let lines = [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}"#,
        ];
        for line in lines {
            let fast = plain_notification(line.as_bytes()).unwrap();
            let spaced = line.replacen(r#""jsonrpc":"2.0","#, r#""jsonrpc": "2.0", "#, 1);
            let slow = envelope(spaced.as_bytes());
            assert_eq!(fast.kind, slow.kind, "{line}");
            assert_eq!(fast.method, slow.method, "{line}");
            assert_eq!(fast.session, slow.session, "{line}");
            assert_eq!(fast.update, slow.update, "{line}");
        }
    }

    #[test]
    fn kinds() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
                Kind::Request,
            ),
            (r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#, Kind::Request),
            (r#"{"jsonrpc":"2.0","id":1,"result":null}"#, Kind::Response),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#,
                Kind::Error,
            ),
            (r#"{"jsonrpc":"2.0","method":"x"}"#, Kind::Notification),
            (
                r#"{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s"},"id":4}"#,
                Kind::Request,
            ),
            (r#"[{"jsonrpc":"2.0","method":"x"}]"#, Kind::Batch),
            ("not json", Kind::Invalid),
            (r#"{"jsonrpc":"2.0"}"#, Kind::Invalid),
            (
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a\"b"}}"#,
                Kind::Notification,
            ),
        ];
        for (line, kind) in cases {
            assert_eq!(envelope(line.as_bytes()).kind, Some(kind), "{line}");
        }
        let escaped = envelope(
            br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a\"b"}}"#,
        );
        assert_eq!(escaped.session.as_deref(), Some("a\"b"));
        assert_eq!(
            envelope(br#"{"id":"x","jsonrpc":"2.0","result":{}}"#)
                .id
                .as_deref(),
            Some(r#""x""#)
        );
    }
}
