//! What the remote transports read of a JSON-RPC message to route it, without building its
//! tree: its id, whether it has a method, and `params.sessionId` (or a result's). Everything
//! else is skipped, not decoded: every notice and update of a turn passes through here.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// What is read of a JSON-RPC message to route it (nothing else is decoded).
#[derive(Deserialize)]
pub(super) struct Peek<'a> {
    #[serde(borrow, default)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) result: Option<&'a RawValue>,
}

impl Peek<'_> {
    /// The id as written (`7` and `"7"` stay apart).
    pub(super) fn id_key(&self) -> Option<String> {
        self.id.map(|id| id.get().to_owned())
    }
}

/// Whether `message` may have an `id` key: `false` only when the bytes `"id"` appear nowhere
/// in it and no `\u` escape could spell them, which a byte search tells far faster than a
/// parse. A message without an id needs no routing note on the client (a notification).
pub(crate) fn may_have_id(message: &[u8]) -> bool {
    memchr::memmem::find(message, b"\"id\"").is_some()
        || memchr::memmem::find(message, b"\\u").is_some()
}

/// The `sessionId` of a params or result object, when it is a string.
pub(crate) fn session_in(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<SessionField>(raw?.get())
        .ok()?
        .session_id
}

/// A key for a JSON-RPC id of a decoded message (numbers and strings kept apart).
pub(crate) fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::String(text) => Some(format!("s:{text}")),
        Value::Number(number) => Some(format!("n:{number}")),
        _ => None,
    }
}

/// The session a decoded message is about, from `params.sessionId`.
pub(crate) fn session_of(message: &Value) -> Option<String> {
    message
        .get("params")?
        .get("sessionId")?
        .as_str()
        .map(str::to_owned)
}

/// Where a message an agent sends goes, as far as its own fields say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outgoing {
    /// A response (no `method`), with the key of its id.
    Answer(Option<String>),
    /// A request or notification, with its `params.sessionId`.
    Message(Option<String>),
}

/// Reads where `message` goes, as [`id_key`] and [`session_of`] read it from the decoded
/// message. Three speeds: the shape every runtime encoder writes for a session's
/// notifications and requests (`{"jsonrpc":"2.0","method":"…","params":{"sessionId":"…"`)
/// is recognised from its first bytes; anything else is read with the rest of its fields
/// skipped; a message whose fields are not of the expected kinds (a `sessionId` that is not
/// a string, positional params, a key twice) is decoded whole. The first two take the first
/// `sessionId` of params that name it twice, where decoding whole takes the last.
pub(crate) fn outgoing_route(message: &[u8]) -> Outgoing {
    if let Some(session) = leading_session(message) {
        return Outgoing::Message(Some(session));
    }
    match serde_json::from_slice::<Fields>(message) {
        Ok(fields) if fields.method.0 => {
            Outgoing::Message(fields.params.and_then(|params| params.session_id))
        }
        Ok(fields) => Outgoing::Answer(
            fields
                .id
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
                .as_ref()
                .and_then(id_key),
        ),
        Err(_) => {
            let value: Value = serde_json::from_slice(message).unwrap_or(Value::Null);
            if value.get("method").is_some() {
                Outgoing::Message(session_of(&value))
            } else {
                Outgoing::Answer(value.get("id").and_then(id_key))
            }
        }
    }
}

/// The session of a request or notification that starts
/// `{"jsonrpc":"2.0","method":"<name>","params":{"sessionId":"<id>"` with both strings free
/// of escapes. What follows is not read: the message has a method, and its id does not
/// matter for routing.
pub(crate) fn leading_session(message: &[u8]) -> Option<String> {
    /// The plain text of a string that starts `bytes` and the bytes after its closing quote.
    fn plain(bytes: &[u8]) -> Option<(&str, &[u8])> {
        let end = memchr::memchr2(b'"', b'\\', bytes)?;
        if bytes[end] != b'"' {
            return None;
        }
        let text = std::str::from_utf8(&bytes[..end]).ok()?;
        // Control characters may not stand raw in a JSON string: the whole read says what
        // such a message is.
        if text.bytes().any(|byte| byte < 0x20) {
            return None;
        }
        Some((text, &bytes[end + 1..]))
    }
    let rest = message.strip_prefix(br#"{"jsonrpc":"2.0","method":""#)?;
    let (_, rest) = plain(rest)?;
    let rest = rest.strip_prefix(br#","params":{"sessionId":""#)?;
    let (session, _) = plain(rest)?;
    Some(session.to_owned())
}

/// The routing fields of a message an agent sends.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Present,
    #[serde(default)]
    params: Option<SessionField>,
}

/// Whether a field is there, whatever its value (`null` included, which an `Option` would
/// read as absent).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer)?;
        Ok(Present(true))
    }
}

/// `sessionId` of an object (an array is refused: a derived struct would take its first
/// item). Other keys are skipped where they lie.
struct SessionField {
    session_id: Option<String>,
}

/// Whether an object key is `sessionId` (compared in place, not copied).
struct IsSessionId(bool);

impl<'de> Deserialize<'de> for IsSessionId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Key;
        impl Visitor<'_> for Key {
            type Value = IsSessionId;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object key")
            }

            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<IsSessionId, E> {
                Ok(IsSessionId(key == "sessionId"))
            }
        }
        deserializer.deserialize_identifier(Key)
    }
}

impl<'de> Deserialize<'de> for SessionField {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = SessionField;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<SessionField, M::Error> {
                let mut session_id = None;
                while let Some(IsSessionId(named)) = map.next_key()? {
                    if !named {
                        map.next_value::<IgnoredAny>()?;
                    } else if session_id.is_some() {
                        return Err(serde::de::Error::duplicate_field("sessionId"));
                    } else {
                        session_id = Some(map.next_value::<String>()?);
                    }
                }
                Ok(SessionField { session_id })
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Where decoding the whole message sends it.
    pub(crate) fn decoded_whole(message: &str) -> Outgoing {
        let value: Value = serde_json::from_str(message).unwrap_or(Value::Null);
        if value.get("method").is_some() {
            Outgoing::Message(session_of(&value))
        } else {
            Outgoing::Answer(value.get("id").and_then(id_key))
        }
    }

    /// The quick reads route every message as reading the whole message does.
    #[test]
    fn the_quick_reads_agree_with_the_whole_one() {
        let messages = [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"info","title":"t","sessionId":"nested"}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionId":"nested"},"sessionId":"s\"2\u00e9"}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s\"2\u00e9","update":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"a\"b","params":{"sessionId":"s","update":{}}}"#,
            r#"{"method":"session/update","jsonrpc":"2.0","params":{"sessionId":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}"#,
            r#"{"jsonrpc":"2.0","id":"abc","error":{"code":-32603,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.5e3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s3","options":[]}}"#,
            r#"{"jsonrpc":"2.0","method":"session/request_permission","params":{"sessionId":"s3","options":[]},"id":3}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":null,"params":{"sessionId":"s4"}}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":["s5"]}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{"sessionId":42}}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{"update":{},"sessionId":"a","sessionId":"b"}}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":null}"#,
            r#"{"jsonrpc":"2.0","method":"x"}"#,
            r#"{"id":1,"id":2,"result":{}}"#,
            r#"not json"#,
        ];
        for message in messages {
            assert_eq!(
                outgoing_route(message.as_bytes()),
                decoded_whole(message),
                "{message}"
            );
        }
        assert_eq!(
            outgoing_route(messages[0].as_bytes()),
            Outgoing::Message(Some("s1".to_owned()))
        );
        assert!(
            matches!(
                outgoing_route(messages[11].as_bytes()),
                Outgoing::Message(_)
            ),
            "a null method is a method"
        );
    }

    /// A session id with an escape or a raw control character is left to the whole read.
    #[test]
    fn escaped_session_ids_are_not_read_quickly() {
        let escaped = r#"{"jsonrpc":"2.0","method":"m","params":{"sessionId":"a\nb"}}"#;
        assert_eq!(leading_session(escaped.as_bytes()), None);
        let raw_control =
            "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"sessionId\":\"a\tb\"}}";
        assert_eq!(leading_session(raw_control.as_bytes()), None);
    }

    /// A message said to have no id has none when parsed.
    #[test]
    fn may_have_id_is_false_only_without_an_id() {
        let without = [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"toolCallId":"t","text":"idea: \"identity\""}}}"#,
            r#"{"jsonrpc":"2.0","method":"x"}"#,
        ];
        let with = [
            r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{},"id":"a"}"#,
            r#"{"jsonrpc":"2.0","method":"x","i\u0064":2}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{"text":"\u00e9"}}"#,
        ];
        for message in without {
            assert!(!may_have_id(message.as_bytes()), "{message}");
            let peek: Peek = serde_json::from_str(message).unwrap();
            assert!(peek.id.is_none());
        }
        for message in with {
            assert!(may_have_id(message.as_bytes()), "{message}");
        }
        let escaped: Peek = serde_json::from_str(with[2]).unwrap();
        assert_eq!(
            escaped.id_key().as_deref(),
            Some("2"),
            "an escaped key is an id"
        );
    }

    #[test]
    fn session_in_reads_only_a_string_of_an_object() {
        let read = |text: &str| session_in(Some(&RawValue::from_string(text.to_owned()).unwrap()));
        assert_eq!(
            read(r#"{"a":[1,{"sessionId":"x"}],"sessionId":"s"}"#).as_deref(),
            Some("s")
        );
        assert_eq!(read(r#"{"sessionId":7}"#), None);
        assert_eq!(read(r#"["s"]"#), None);
        assert_eq!(read(r#"{}"#), None);
        assert_eq!(session_in(None), None);
    }
}
