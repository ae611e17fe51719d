//! The hot path of the checker: a notification line decoded in one pass.
//!
//! The general path parses the JSON-RPC envelope first (copying the params out as raw JSON)
//! and then decodes the params with the typed schema: two scans of every byte of the params.
//! Streams are nearly all notifications (`session/update`), and nearly all of them are written
//! the plain way: `jsonrpc`, then `method`, then `params`. A line in the canonical form
//! (`{"jsonrpc":"2.0","method":"M","params":P}`) has its envelope matched by its bytes, so only
//! `P` is parsed, and an agent's text chunk written plainly is matched by its bytes as a whole
//! ([`text_chunk`]). Other plain lines (spaces, another key order) have their envelope read
//! with the params borrowed in place, not copied, and then decoded. The typed decoders are
//! the schema's `read_params`, compiled once in `acptk_schema` rather than again here.
//!
//! It only ever says "valid, and these are the facts". Anything else (a request or response,
//! `params` before `method`, no params, an unknown or repeated key, an escaped key or method
//! name, params that do not decode) gives `None`, and the caller takes the general path,
//! which finds the same verdict and words the findings. So the two paths cannot disagree on a
//! finding: a line decodes here only when the general path decodes it too, to the same facts
//! (the same typed decoder runs on the same params text).

use std::fmt;

use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::decode::text_chunk::text_chunk;
use crate::decode::{Facts, Version};
use crate::transcript::Side;

/// The facts of a plainly written, valid notification line `sender` sent, decoded with
/// `version`'s typed schema; `None` when the line needs the general path.
pub(crate) fn notification(text: &str, version: Version, sender: Side) -> Option<Facts> {
    if let Some(verdict) = canonical(text, version, sender) {
        return verdict;
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let (method, params) = deserializer.deserialize_map(Envelope).ok()?;
    deserializer.end().ok()?;
    decode_params(params.get(), version, sender, method)
}

/// How nearly every peer writes a notification, up to the method name: the envelope's keys in
/// this order, without whitespace.
const CANONICAL_START: &str = r#"{"jsonrpc":"2.0","method":""#;
/// What follows the method name in that form.
const CANONICAL_PARAMS: &str = r#"","params":"#;

/// A line in the canonical form (`{"jsonrpc":"2.0","method":"M","params":P}`, method name
/// without escapes, only whitespace after the closing brace) is recognised by comparing
/// bytes, and only `P` is parsed: the envelope costs no JSON parsing at all. `None` when the
/// line is not in that form (the envelope is then read as JSON); `Some(None)` when it is but
/// `P` does not decode, which is the general path's case too, since it decodes the same text.
fn canonical(text: &str, version: Version, sender: Side) -> Option<Option<Facts>> {
    let rest = text.strip_prefix(CANONICAL_START)?;
    let end = memchr::memchr(b'"', rest.as_bytes())?;
    let method = &rest[..end];
    // An escape or a control character: JSON decides what the name is (or that it is none).
    if method.bytes().any(|b| b == b'\\' || b < 0x20) {
        return None;
    }
    let params = rest[end..]
        .strip_prefix(CANONICAL_PARAMS)?
        .trim_end_matches([' ', '\t', '\n', '\r'])
        .strip_suffix('}')?;
    // An agent's text chunk written plainly: its params are matched by their bytes too.
    if method == "session/update"
        && sender == Side::Agent
        && let Some(facts) = text_chunk(params, version)
    {
        return Some(Some(facts));
    }
    Some(decode_params(params, version, sender, method))
}

/// Decodes `params` of `method` with the typed schema; `None` when they do not decode or
/// anything but whitespace follows them (another key, a second object: not plain).
fn decode_params(params: &str, version: Version, sender: Side, method: &str) -> Option<Facts> {
    let mut deserializer = serde_json::Deserializer::from_str(params);
    let facts = version
        .notification_from(sender, method, &mut deserializer)
        .ok();
    facts.filter(|_| deserializer.end().is_ok())
}

/// Reads the envelope object, keeping the params as they are written (the typed decoders are
/// the schema's, compiled once there, and read text); fails (to hand over to the general path)
/// on anything unusual.
struct Envelope;

impl<'de> Visitor<'de> for Envelope {
    type Value = (&'de str, &'de RawValue);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a plainly written JSON-RPC notification")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut jsonrpc = false;
        let mut method: Option<&'de str> = None;
        let mut params = None;
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "jsonrpc" if !jsonrpc => {
                    if map.next_value::<&'de str>()? != "2.0" {
                        return Err(A::Error::custom("not JSON-RPC 2.0"));
                    }
                    jsonrpc = true;
                }
                "method" if method.is_none() => method = Some(map.next_value()?),
                "params" if params.is_none() => {
                    if method.is_none() {
                        return Err(A::Error::custom("params before method"));
                    }
                    params = Some(map.next_value::<&'de RawValue>()?);
                }
                _ => return Err(A::Error::custom("not a plain notification")),
            }
        }
        match (method, params) {
            (Some(method), Some(params)) if jsonrpc => Ok((method, params)),
            _ => Err(A::Error::custom("not a plain notification")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::UpdateKind;

    const NOTICE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable"}}}"#;

    #[test]
    fn a_plain_notice_decodes_in_one_pass() {
        let facts = notification(NOTICE, Version::V1, Side::Agent).expect("one pass");
        let Facts::Update { session, kind } = facts else {
            panic!("not an update: {facts:?}");
        };
        assert_eq!(session, "s1");
        let UpdateKind::Notice(notice) = kind else {
            panic!("not a notice: {kind:?}");
        };
        assert_eq!(notice.title, "MCP server unavailable");
    }

    #[test]
    fn anything_unusual_goes_to_the_general_path() {
        let unusual = [
            // Sent by the wrong side.
            (NOTICE, Side::Client),
            // A request, a response.
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"session/update","params":{}}"#,
                Side::Agent,
            ),
            (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, Side::Agent),
            // Params before method, no params, null params.
            (
                r#"{"jsonrpc":"2.0","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[]}},"method":"session/update"}"#,
                Side::Agent,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"session/update"}"#,
                Side::Agent,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"session/update","params":null}"#,
                Side::Agent,
            ),
            // Wrong or missing version, repeated or unknown key, escaped method name.
            (
                r#"{"jsonrpc":"1.0","method":"_x","params":{}}"#,
                Side::Agent,
            ),
            (r#"{"method":"_x","params":{}}"#, Side::Agent),
            (
                r#"{"jsonrpc":"2.0","method":"_x","method":"_y","params":{}}"#,
                Side::Agent,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"_x","params":{},"extra":1}"#,
                Side::Agent,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"_\u0078","params":{}}"#,
                Side::Agent,
            ),
            // Params that do not decode; an unknown method; trailing bytes.
            (
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"info","title":""}}}"#,
                Side::Agent,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"session/nope","params":{}}"#,
                Side::Agent,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"_x","params":{}} x"#,
                Side::Agent,
            ),
        ];
        for (line, sender) in unusual {
            assert_eq!(notification(line, Version::V1, sender), None, "{line}");
        }
    }

    /// The general path's verdict on a notification line.
    fn general(text: &str, version: Version, sender: Side) -> Option<Facts> {
        match text.parse::<acptk_schema::jsonrpc::Message>().ok()? {
            acptk_schema::jsonrpc::Message::Notification(n) => version
                .notification(sender, &n.method, n.params.as_deref())
                .ok(),
            _ => None,
        }
    }

    #[test]
    fn one_pass_never_disagrees_with_the_general_path() {
        use acptk_conformance::rng::Rng;
        use acptk_conformance::schema_gen::mutate;
        use acptk_conformance::stream::{self, session_updates};

        let mut rng = Rng::new(11);
        let (mut fast, mut checked) = (0, 0);
        for (stream_version, version) in [
            (stream::Version::V1, Version::V1),
            (stream::Version::V2, Version::V2),
        ] {
            for params in session_updates(stream_version, 600, 3) {
                let mut value: serde_json::Value = serde_json::from_str(&params).expect("json");
                // Every other line gets one to three random structural changes.
                if rng.chance(0.5) {
                    for _ in 0..=rng.below(3) {
                        mutate(&mut value, &mut rng);
                    }
                }
                let params = value.to_string();
                let method = *rng
                    .pick(&[
                        "session/update",
                        "session/update",
                        "_x/y",
                        "$/cancel_request",
                    ])
                    .expect("a method");
                // The canonical form (compared byte by byte) and forms read as JSON.
                let form = rng.below(4);
                for sender in [Side::Agent, Side::Client] {
                    let line = match form {
                        0 | 1 => {
                            format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params}}}"#)
                        }
                        2 => format!(
                            r#"{{ "jsonrpc": "2.0", "method": "{method}", "params": {params} }} "#
                        ),
                        _ => format!(
                            r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":null}}"#
                        ),
                    };
                    let one = notification(&line, version, sender);
                    let general = general(&line, version, sender);
                    if let Some(facts) = &one {
                        assert_eq!(Some(facts), general.as_ref(), "{line}");
                        fast += 1;
                    } else if form < 3 {
                        // Plainly written: the one-pass path declines only what is invalid.
                        assert_eq!(general, None, "declined a valid line: {line}");
                    }
                    checked += 1;
                }
            }
        }
        // Both kinds of outcome occurred, so the assertions above were exercised.
        assert!(fast > checked / 4 && fast < checked, "{fast} of {checked}");
    }

    #[test]
    fn the_canonical_form_is_recognised_by_its_bytes() {
        let facts = canonical(NOTICE, Version::V1, Side::Agent);
        assert!(
            matches!(facts, Some(Some(Facts::Update { .. }))),
            "{facts:?}"
        );
        // Trailing whitespace is still the canonical form.
        let spaced = format!("{NOTICE} \t\r");
        assert_eq!(canonical(&spaced, Version::V1, Side::Agent), facts);
        // In the form, but the params do not decode, or something follows them.
        for line in [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":1}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":null}"#,
            r#"{"jsonrpc":"2.0","method":"_x","params":{},"id":1}"#,
            r#"{"jsonrpc":"2.0","method":"_x","params":{}}{}"#,
            // The closing brace of the envelope is missing.
            r#"{"jsonrpc":"2.0","method":"_x","params":{}"#,
        ] {
            assert_eq!(
                canonical(line, Version::V1, Side::Agent),
                Some(None),
                "{line}"
            );
        }
        // Not in the form: read as JSON instead.
        for line in [
            r#"{ "jsonrpc":"2.0","method":"_x","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"_\u0078","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"_x"}"#,
            r#"{"jsonrpc":"2.0","method":"_x", "params":{}}"#,
        ] {
            assert_eq!(canonical(line, Version::V1, Side::Agent), None, "{line}");
        }
        // Read as JSON, a spaced line gives the same facts as its canonical twin.
        let spaced = NOTICE
            .replace(r#"{"jsonrpc":"#, r#"{ "jsonrpc" : "#)
            .replace(r#","params":"#, r#", "params" : "#);
        assert_eq!(canonical(&spaced, Version::V1, Side::Agent), None);
        assert_eq!(
            notification(&spaced, Version::V1, Side::Agent),
            notification(NOTICE, Version::V1, Side::Agent)
        );
    }

    #[test]
    fn extension_notifications_and_cancels_decode_in_one_pass() {
        let ext = r#"{"jsonrpc":"2.0","method":"_vendor/ping","params":{"a":[1,2]}}"#;
        assert_eq!(
            notification(ext, Version::V2, Side::Client),
            Some(Facts::Nothing)
        );
        let cancel = r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}"#;
        assert_eq!(
            notification(cancel, Version::V1, Side::Agent),
            Some(Facts::Cancel)
        );
    }
}
