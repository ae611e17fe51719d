//! Every session update variant of both versions round-trips through the typed model.
//!
//! The corpus files hold one `session/update` params object per line, a minimal and a full
//! example for every variant of the reference schema, the unstable ones included (notices are
//! covered in `notices.rs`). A build checks the lines whose tag it knows with its features.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use serde_json::Value;

/// Decodes every line as `T` (from text, the streaming path, and from a `Value`, the buffered
/// path), re-encodes it and compares with the input. Returns the tags seen.
fn check_corpus<T>(corpus: &str, tag_of: impl Fn(&T) -> String) -> BTreeSet<String>
where
    T: serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    let mut tags = BTreeSet::new();
    for (index, line) in corpus
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let input: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", index + 1));
        let typed: T = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {}: {e}\n{line}", index + 1));
        assert_eq!(
            serde_json::to_value(&typed).unwrap(),
            input,
            "line {}",
            index + 1
        );
        let from_value: T = serde_json::from_value(input.clone()).unwrap();
        assert_eq!(
            serde_json::to_value(&from_value).unwrap(),
            input,
            "line {} (value)",
            index + 1
        );
        tags.insert(tag_of(&typed));
    }
    tags
}

/// The lines of `corpus` whose update tag is one of `tags` (the variants of this build).
fn known_lines(corpus: &str, tags: &[&str]) -> String {
    corpus
        .lines()
        .filter(|line| !line.trim().is_empty())
        .filter(|line| {
            let params: Value = serde_json::from_str(line).unwrap();
            params["update"]["sessionUpdate"]
                .as_str()
                .is_some_and(|tag| tags.contains(&tag))
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Moves the tag of every update to the end of the object, forcing the buffered decode path.
fn tag_last(corpus: &str, tag_key: &str) -> String {
    corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut params: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
            let Some(Value::Object(update)) = params.remove("update") else {
                panic!("no update")
            };
            let mut text = String::from("{");
            let mut tag = String::new();
            for (key, value) in &update {
                if key == tag_key {
                    tag = format!("{key:?}:{value}");
                } else {
                    text.push_str(&format!("{key:?}:{value},"));
                }
            }
            text.push_str(&tag);
            text.push('}');
            let mut out = serde_json::to_string(&params).unwrap();
            out.pop();
            format!("{out},\"update\":{text}}}\n")
        })
        .collect()
}

#[test]
fn v1_every_variant_round_trips() {
    use acptk_schema::v1::{SessionNotification, SessionUpdate};
    let corpus = &known_lines(
        include_str!("data/v1-session-updates.jsonl"),
        SessionUpdate::TAGS,
    );
    let tags = check_corpus::<SessionNotification>(corpus, |n| n.update.tag().to_owned());
    let expected = tags_but_notice(SessionUpdate::TAGS);
    assert_eq!(tags, expected, "corpus must cover every v1 variant");
    let shuffled = tag_last(corpus, "sessionUpdate");
    check_corpus::<SessionNotification>(&shuffled, |n| n.update.tag().to_owned());
    replayable_round_trip::<SessionNotification, acptk_schema::v1::ReplayableUpdate, SessionUpdate>(
        corpus,
        |n| n.update,
    );
}

/// Every tag of a version's `SessionUpdate` but `notice`: the corpus holds every other kind
/// (notices have their tests in `notices.rs`).
fn tags_but_notice(tags: &[&str]) -> BTreeSet<String> {
    tags.iter()
        .filter(|t| **t != "notice")
        .map(|t| t.to_string())
        .collect()
}

/// Every update of the corpus is replayable, and converting it there and back changes nothing.
fn replayable_round_trip<N, R, U>(corpus: &str, update: impl Fn(N) -> U)
where
    N: serde::de::DeserializeOwned,
    U: Clone + PartialEq + std::fmt::Debug + TryInto<R> + From<R>,
    <U as TryInto<R>>::Error: std::fmt::Debug,
{
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let original = update(serde_json::from_str::<N>(line).unwrap());
        let replayable: R = original
            .clone()
            .try_into()
            .expect("conversation updates are replayable");
        assert_eq!(U::from(replayable), original);
    }
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn v2_every_variant_round_trips() {
    use acptk_schema::v2::{SessionUpdate, UpdateSessionNotification};
    let corpus = &known_lines(
        include_str!("data/v2-session-updates.jsonl"),
        SessionUpdate::TAGS,
    );
    let tags = check_corpus::<UpdateSessionNotification>(corpus, |n| {
        assert!(
            !matches!(n.update, SessionUpdate::Other(_)),
            "known variant decoded as unknown: {n:?}"
        );
        n.update.tag().to_owned()
    });
    let expected = tags_but_notice(SessionUpdate::TAGS);
    assert_eq!(tags, expected, "corpus must cover every v2 variant");
    let shuffled = tag_last(corpus, "sessionUpdate");
    check_corpus::<UpdateSessionNotification>(&shuffled, |n| n.update.tag().to_owned());
    replayable_round_trip::<
        UpdateSessionNotification,
        acptk_schema::v2::ReplayableUpdate,
        SessionUpdate,
    >(corpus, |n| n.update);
}

#[test]
fn v1_unknown_update_is_an_error_naming_the_tag() {
    let text = r#"{"sessionId":"s","update":{"sessionUpdate":"future_thing","x":1}}"#;
    let error = serde_json::from_str::<acptk_schema::v1::SessionNotification>(text).unwrap_err();
    assert!(error.to_string().contains("future_thing"), "{error}");
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn v2_unknown_update_is_kept_verbatim() {
    use acptk_schema::v2::{SessionUpdate, UpdateSessionNotification};
    for text in [
        r#"{"sessionId":"s","update":{"sessionUpdate":"future_thing","x":1,"nested":{"a":[1,2,{"b":null}]}}}"#,
        r#"{"sessionId":"s","update":{"x":1,"sessionUpdate":"_acme_progress"}}"#,
        r#"{"sessionId":"s","update":{"sessionUpdate":"future_thing"}}"#,
    ] {
        let input: Value = serde_json::from_str(text).unwrap();
        let decoded: UpdateSessionNotification = serde_json::from_str(text).unwrap();
        assert!(matches!(decoded.update, SessionUpdate::Other(_)));
        assert_eq!(serde_json::to_value(&decoded).unwrap(), input);
    }
    assert!(SessionUpdate::unknown("agent_message_chunk", Default::default()).is_err());
    let built = SessionUpdate::unknown("_acme_progress", Default::default()).unwrap();
    assert_eq!(
        serde_json::to_string(&built).unwrap(),
        r#"{"sessionUpdate":"_acme_progress"}"#
    );
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn v2_known_tag_with_bad_payload_is_an_error_not_unknown() {
    use acptk_schema::v2::UpdateSessionNotification;
    for text in [
        r#"{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}"#,
        r#"{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":5}}"#,
        r#"{"sessionId":"s","update":{"content":{"type":"text"},"sessionUpdate":"agent_message_chunk"}}"#,
        r#"{"sessionId":"s","update":{"sessionUpdate":"tool_call_update"}}"#,
    ] {
        assert!(
            serde_json::from_str::<UpdateSessionNotification>(text).is_err(),
            "{text}"
        );
    }
}

#[test]
fn tag_must_be_a_string_and_present() {
    use acptk_schema::v1::SessionUpdate;
    for text in [
        r#"{"sessionUpdate":1,"content":{"type":"text","text":"x"}}"#,
        r#"{"content":{"type":"text","text":"x"},"sessionUpdate":null}"#,
        r#"{"content":{"type":"text","text":"x"}}"#,
        r#"{}"#,
        r#"[]"#,
        r#""agent_message_chunk""#,
    ] {
        assert!(
            serde_json::from_str::<SessionUpdate>(text).is_err(),
            "{text}"
        );
    }
}

/// Patch-style updates tell "absent" (keep), `null` (clear) and a value (set) apart, and write
/// back exactly what they read.
#[test]
fn patch_updates_keep_absent_null_and_value_apart() {
    use acptk_schema::Patch;
    use acptk_schema::v1::{SessionNotification, SessionUpdate};
    let cases = [
        (
            r#"{"sessionId":"s","update":{"sessionUpdate":"session_info_update"}}"#,
            Patch::Unchanged,
        ),
        (
            r#"{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":null}}"#,
            Patch::Clear,
        ),
        (
            r#"{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":"Refactor"}}"#,
            Patch::Set("Refactor".to_owned()),
        ),
        // Malformed means absent.
        (
            r#"{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":7}}"#,
            Patch::Unchanged,
        ),
    ];
    for (text, expected) in cases {
        let decoded: SessionNotification = serde_json::from_str(text).unwrap();
        let SessionUpdate::SessionInfoUpdate(info) = &decoded.update else {
            panic!("{text}")
        };
        assert_eq!(info.title, expected, "{text}");
        let written = serde_json::to_value(&decoded).unwrap();
        let title = &written["update"].get("title");
        match &expected {
            Patch::Unchanged => assert!(title.is_none(), "{written}"),
            Patch::Clear => assert_eq!(*title, Some(&Value::Null)),
            Patch::Set(value) => assert_eq!(*title, Some(&Value::from(value.as_str()))),
        }
    }
}

/// Boxed variants (the large, rarely sent payloads) are built with `From` on the unboxed
/// payload, read through the `Box`, and written exactly like unboxed ones.
#[test]
fn boxed_variants_build_from_their_payload_and_read_through_the_box() {
    use acptk_schema::v1::{
        Annotations, ContentBlock, ImageContent, SessionUpdate, ToolCallStatus, ToolCallUpdate,
    };
    let update: SessionUpdate = ToolCallUpdate::new("call_1")
        .status(ToolCallStatus::Completed)
        .into();
    let SessionUpdate::ToolCallUpdate(call) = &update else {
        panic!("{update:?}")
    };
    assert_eq!(call.tool_call_id.as_str(), "call_1");
    assert_eq!(call.status, Some(ToolCallStatus::Completed));
    assert_eq!(
        serde_json::to_value(&update).unwrap(),
        serde_json::json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed"})
    );

    let block: ContentBlock = ImageContent::new("iVBORw0KGgo=", "image/png")
        .annotations(Annotations::new().priority(0.5))
        .into();
    let ContentBlock::Image(image) = &block else {
        panic!("{block:?}")
    };
    assert_eq!(
        image.annotations.as_deref().and_then(|a| a.priority),
        Some(0.5)
    );
    let written = serde_json::to_value(&block).unwrap();
    assert_eq!(
        written,
        serde_json::json!({
            "type": "image",
            "data": "iVBORw0KGgo=",
            "mimeType": "image/png",
            "annotations": {"priority": 0.5}
        })
    );
    assert_eq!(
        serde_json::from_value::<ContentBlock>(written).unwrap(),
        block
    );
}

/// The frequent values (a text chunk and everything around it) stay small, so that decoding
/// does not move the size of the largest, rarest payload through every level. Upper bounds in
/// bytes on 64-bit targets, as measured when the large payloads were boxed.
#[cfg(target_pointer_width = "64")]
#[test]
fn frequent_values_stay_small() {
    use std::mem::size_of;
    /// The name, size and upper bound of `$version::$name`.
    macro_rules! case {
        ($version:ident, $name:ident, $limit:literal) => {
            (
                concat!(stringify!($version), "::", stringify!($name)),
                size_of::<acptk_schema::$version::$name>(),
                $limit,
            )
        };
    }
    /// The bounds of one version's types, the same in both: its `session/update` params
    /// (`$notification`), the union, the replayable union, a chunk and a content block.
    macro_rules! version_cases {
        ($version:ident, $notification:ident) => {
            [
                case!($version, $notification, 112),
                case!($version, SessionUpdate, 80),
                case!($version, ReplayableUpdate, 80),
                case!($version, ContentChunk, 72),
                case!($version, ContentBlock, 40),
            ]
        };
    }
    let mut cases = vec![(
        "UnknownVariant",
        size_of::<acptk_schema::UnknownVariant>(),
        8,
    )];
    cases.extend(version_cases!(v1, SessionNotification));
    #[cfg(feature = "unstable_protocol_v2")]
    cases.extend(version_cases!(v2, UpdateSessionNotification));
    for (name, size, limit) in cases {
        assert!(
            size <= limit,
            "{name} is {size} bytes, expected at most {limit}"
        );
    }
}
