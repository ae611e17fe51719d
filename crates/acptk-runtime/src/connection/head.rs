//! What the first bytes of an over-long line say about the message.
//!
//! A line over the limit is not kept, but its head usually names what it is: peers write
//! `{"jsonrpc":"2.0","id":7,"result":...` or `{"jsonrpc":"2.0","id":7,"method":"x","params":...`
//! with the large part last. Reading the head up to that point tells a response (whose
//! request can then fail at once instead of waiting for the connection to close) from a
//! request (which can be refused with its own id) and from a notification (which gets no
//! answer).

use std::fmt;

use acptk_schema::jsonrpc::Id;
use serde::de::{Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};

/// What the head of a message says, as far as it goes.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Head {
    /// The `id`, when it came before the cut.
    id: Option<Id>,
    /// A `method` key came before the cut.
    method: bool,
    /// A `result` or `error` key came before the cut.
    answer: bool,
    /// A `params` key came before the cut.
    params: bool,
}

/// What kind of message a head shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A request (method and id).
    Request(Id),
    /// A response (result or error, and id).
    Response(Id),
    /// A notification (method, and params before any id).
    Notification,
    /// Cannot tell.
    Unknown,
}

impl Head {
    /// Reads `head` (the first bytes of a JSON-RPC message, cut anywhere).
    pub(crate) fn read(head: &[u8]) -> Head {
        let mut found = Head::default();
        let mut deserializer = serde_json::Deserializer::from_slice(head);
        // The cut always ends in an error; what was read before it is in `found`.
        let _ = deserializer.deserialize_map(Envelope(&mut found));
        found
    }

    /// The kind of message, judged from the keys before the cut. (A request whose `id`
    /// comes after its large params reads as a notification: nothing better can be said.)
    pub(crate) fn kind(&self) -> Kind {
        match (&self.id, self.method, self.answer) {
            (Some(id), true, false) => Kind::Request(id.clone()),
            (Some(id), false, true) => Kind::Response(id.clone()),
            (None, true, false) if self.params => Kind::Notification,
            _ => Kind::Unknown,
        }
    }
}

/// Reads envelope keys until the first large value (`params`, `result`, `error`).
struct Envelope<'a>(&'a mut Head);

/// Stops the reading on purpose once the large value starts.
const STOP: &str = "stop at the large value";

impl<'de> Visitor<'de> for Envelope<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "id" => self.0.id = Some(map.next_value()?),
                "method" => {
                    map.next_value::<IgnoredAny>()?;
                    self.0.method = true;
                }
                "params" => {
                    self.0.params = true;
                    return Err(A::Error::custom(STOP));
                }
                "result" | "error" => {
                    self.0.answer = true;
                    return Err(A::Error::custom(STOP));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Kind {
        Head::read(text.as_bytes()).kind()
    }

    #[test]
    fn heads_cut_inside_the_large_value() {
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":7,"result":{"content":"aaaa"#),
            Kind::Response(Id::Number(7))
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":"r-1","error":{"code":1,"mess"#),
            Kind::Response(Id::Str("r-1".into()))
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":3,"method":"fs/write_text_file","params":{"con"#),
            Kind::Request(Id::Number(3))
        );
        assert_eq!(
            kind(r#"{"method":"session/update","id":4,"params":{"upd"#),
            Kind::Request(Id::Number(4))
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","method":"session/update","params":{"upd"#),
            Kind::Notification
        );
    }

    #[test]
    fn heads_that_do_not_tell() {
        for text in [
            // Cut before the id.
            r#"{"jsonrpc":"2.0","i"#,
            r#"{"jsonrpc":"2.0","id":12"#,
            // Not an object, not JSON.
            r#"["a","b"#,
            "aaaaaaaaaaaaaa",
            // The id after the large value.
            r#"{"jsonrpc":"2.0","result":{"x":"aaa"#,
            // Both method and result.
            r#"{"id":1,"method":"x","result":{"#,
        ] {
            assert_eq!(kind(text), Kind::Unknown, "{text}");
        }
    }
}
