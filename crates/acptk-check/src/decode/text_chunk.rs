//! The most frequent message of all, an agent's text chunk, recognised by its bytes.
//!
//! Most of what an agent sends are pieces of its reply, and nearly every agent writes them
//! the same way: the params of `session/update` as
//! `{"sessionId":"S","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"T"}}}`
//! (`user_message_chunk` and `agent_thought_chunk` alike; v2 with `"messageId":"M"` after the
//! tag). [`text_chunk`] compares such params with that form byte by byte and checks that the
//! strings are valid JSON strings, without building anything but the session id.
//!
//! Like the rest of the one-pass path it only ever says "valid, and these are the facts". A
//! key out of order or added (`_meta`, `annotations`), whitespace, a string with a control
//! character, a `\u` escape or an escape JSON does not know: anything else gives `None`, and
//! the typed decoder reads the params as usual. Every string of the form is opaque to the
//! schema (any JSON string is a valid session id, message id and text), so the form is valid
//! exactly when its strings are, and the facts are those the typed decoder gives it (the
//! tests compare the two on random input).

use crate::decode::{Facts, UpdateKind, Version};
use crate::replay::UpdateClass;

/// The update tags of the form: the three kinds of text chunk.
const TAGS: [&str; 3] = [
    "agent_message_chunk",
    "user_message_chunk",
    "agent_thought_chunk",
];

/// The facts of params of `session/update` in the text chunk form of `version`; `None` when
/// they are not in it (they may still be valid).
pub(crate) fn text_chunk(params: &str, version: Version) -> Option<Facts> {
    let rest = params.strip_prefix(r#"{"sessionId":""#)?;
    let (session, rest) = plain_string(rest)?;
    let rest = rest.strip_prefix(r#","update":{"sessionUpdate":""#)?;
    let rest = TAGS
        .iter()
        .find_map(|tag| rest.strip_prefix(tag)?.strip_prefix('"'))?;
    let rest = match version {
        Version::V1 => rest,
        Version::V2 => {
            let rest = rest.strip_prefix(r#","messageId":""#)?;
            plain_string(rest)?.1
        }
    };
    let rest = rest.strip_prefix(r#","content":{"type":"text","text":""#)?;
    let rest = json_string(rest)?;
    if rest != "}}}" {
        return None;
    }
    Some(Facts::Update {
        session: session.to_owned(),
        kind: UpdateKind::Plain(UpdateClass::History),
    })
}

/// The body of a string without escapes and what follows its closing quote; `None` when the
/// body has an escape (the typed decoder then says what it stands for) or a control character
/// (invalid JSON), or the string does not end.
fn plain_string(text: &str) -> Option<(&str, &str)> {
    let end = memchr::memchr2(b'"', b'\\', text.as_bytes())?;
    let body = &text[..end];
    if text.as_bytes()[end] != b'"' || body.bytes().any(|b| b < 0x20) {
        return None;
    }
    Some((body, &text[end + 1..]))
}

/// What follows a JSON string body that ends at the first unescaped quote and holds no control
/// character and no escape but the two-character ones (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
/// `\r`, `\t`); `None` otherwise (a `\u` escape, checked for surrogates by the typed decoder,
/// included).
fn json_string(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    loop {
        let next = at + memchr::memchr2(b'"', b'\\', &bytes[at..])?;
        if bytes[at..next].iter().any(|b| *b < 0x20) {
            return None;
        }
        if bytes[next] == b'"' {
            return Some(&text[next + 1..]);
        }
        match bytes.get(next + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at = next + 2,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Side;

    /// The typed decoder's verdict on `session/update` params from the agent.
    fn typed(params: &str, version: Version) -> Option<Facts> {
        let mut deserializer = serde_json::Deserializer::from_str(params);
        let facts = version
            .notification_from(Side::Agent, "session/update", &mut deserializer)
            .ok()?;
        deserializer.end().ok()?;
        Some(facts)
    }

    fn form(version: Version, session: &str, tag: &str, text: &str) -> String {
        let message = match version {
            Version::V1 => String::new(),
            Version::V2 => r#","messageId":"m1""#.to_owned(),
        };
        format!(
            r#"{{"sessionId":"{session}","update":{{"sessionUpdate":"{tag}"{message},"content":{{"type":"text","text":"{text}"}}}}}}"#
        )
    }

    #[test]
    fn the_form_is_recognised_in_both_versions_with_the_typed_facts() {
        for version in [Version::V1, Version::V2] {
            for tag in TAGS {
                for text in ["", "Hello", r#"a \"quoted\" line\n\t\\ end\/"#, "ünï ✓"] {
                    let params = form(version, "sess_1", tag, text);
                    let facts = text_chunk(&params, version);
                    assert!(facts.is_some(), "{params}");
                    assert_eq!(facts, typed(&params, version), "{params}");
                }
            }
        }
    }

    #[test]
    fn anything_else_is_left_to_the_typed_decoder() {
        let v1 = |text: &str| form(Version::V1, "s", "agent_message_chunk", text);
        let declined = [
            // Escapes the typed decoder has to read, control characters, a string that
            // does not end.
            v1(r"\u0041"),
            v1(r"\ud800"),
            v1(r"\x"),
            v1("tab\there"),
            form(Version::V1, r"s\n", "agent_message_chunk", "x"),
            form(Version::V1, "s\u{1}", "agent_message_chunk", "x"),
            r#"{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x\"#.to_owned(),
            // Another tag, another content type, another key, whitespace, more after it.
            form(Version::V1, "s", "agent_message_chunk_x", "x"),
            form(Version::V1, "s", "tool_call", "x"),
            v1("x").replace(r#""type":"text""#, r#""type":"image""#),
            v1("x").replace(r#""text":"x""#, r#""text":"x","annotations":null"#),
            v1("x").replace(r#""sessionId""#, r#""_meta":{},"sessionId""#),
            v1("x").replace(r#","update""#, r#", "update""#),
            format!("{} ", v1("x")),
            format!("{}}}", v1("x")),
        ];
        for params in &declined {
            assert_eq!(text_chunk(params, Version::V1), None, "{params}");
        }
        // Each version's form is not the other's: v1 has no message id, v2 requires one.
        let (one, two) = (v1("x"), form(Version::V2, "s", "agent_message_chunk", "x"));
        assert!(text_chunk(&one, Version::V1).is_some(), "{one}");
        assert_eq!(text_chunk(&one, Version::V2), None, "{one}");
        assert!(text_chunk(&two, Version::V2).is_some(), "{two}");
        assert_eq!(text_chunk(&two, Version::V1), None, "{two}");
    }

    #[test]
    fn random_text_chunks_agree_with_the_typed_decoder() {
        use acptk_conformance::rng::Rng;

        // Pieces that make valid strings, invalid ones and ones only the typed decoder reads.
        const PIECES: [&str; 16] = [
            "a",
            "Z",
            " ",
            "é",
            "✓",
            "😀",
            r"\n",
            r"\t",
            r#"\""#,
            r"\\",
            r"\/",
            r"\u00e9",
            r"\ud83d\ude00",
            r"\ud800",
            r"\q",
            "\u{7}",
        ];
        let mut rng = Rng::new(13);
        let (mut fast, mut total) = (0, 0);
        for _ in 0..4_000 {
            let version = *rng.pick(&[Version::V1, Version::V2]).expect("a version");
            let mut text = String::new();
            for _ in 0..rng.below(8) {
                text.push_str(rng.pick(&PIECES).expect("a piece"));
            }
            let session = if rng.chance(0.1) {
                r"s\u0031"
            } else {
                "sess_01"
            };
            let tag = *rng.pick(&TAGS).expect("a tag");
            let params = form(version, session, tag, &text);
            let typed = typed(&params, version);
            match text_chunk(&params, version) {
                Some(facts) => {
                    assert_eq!(Some(&facts), typed.as_ref(), "{params}");
                    fast += 1;
                }
                // Declined: only what has an escape the form leaves to the typed decoder, or
                // is invalid.
                None => assert!(
                    params.contains(r"\u") || params.contains(r"\q") || params.contains('\u{7}'),
                    "declined {params}"
                ),
            }
            total += 1;
        }
        assert!(fast > total / 10 && fast < total, "{fast} of {total}");
    }
}
