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

/// `(is a response, id key, session)` of a message an agent sends, as [`id_key`] and
/// [`session_of`] read it from the decoded message. A message whose fields are not of the
/// expected kinds (a `sessionId` that is not a string, positional params, a key twice) is
/// decoded whole, so it routes exactly as before.
pub(crate) fn outgoing_route(message: &[u8]) -> (bool, Option<String>, Option<String>) {
    match serde_json::from_slice::<Outgoing>(message) {
        Ok(peek) => {
            let id = peek
                .id
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
                .as_ref()
                .and_then(id_key);
            let session = peek.params.and_then(|params| params.session_id);
            (!peek.method.0, id, session)
        }
        Err(_) => {
            let value: Value = serde_json::from_slice(message).unwrap_or(Value::Null);
            let id = value.get("id").and_then(id_key);
            (value.get("method").is_none(), id, session_of(&value))
        }
    }
}

/// The routing fields of a message an agent sends.
#[derive(Deserialize)]
struct Outgoing<'a> {
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
mod tests {
    use super::*;

    /// The quick read routes every message as reading the whole message does.
    #[test]
    fn the_quick_read_agrees_with_the_whole_one() {
        let messages = [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"info","title":"t","sessionId":"nested"}}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionId":"nested"},"sessionId":"s\"2\u00e9"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}"#,
            r#"{"jsonrpc":"2.0","id":"abc","error":{"code":-32603,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.5e3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s3","options":[]}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":null,"params":{"sessionId":"s4"}}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":["s5"]}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{"sessionId":42}}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{"sessionId":"a","sessionId":"b"}}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":null}"#,
            r#"{"jsonrpc":"2.0","method":"x"}"#,
            r#"{"id":1,"id":2,"result":{}}"#,
            r#"not json"#,
        ];
        for message in messages {
            let value: Value = serde_json::from_str(message).unwrap_or(Value::Null);
            let whole = (
                value.get("method").is_none(),
                value.get("id").and_then(id_key),
                session_of(&value),
            );
            assert_eq!(outgoing_route(message.as_bytes()), whole, "{message}");
        }
        assert_eq!(
            outgoing_route(messages[0].as_bytes()).2.as_deref(),
            Some("s1")
        );
        assert!(
            !outgoing_route(messages[7].as_bytes()).0,
            "a null method is a method"
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
