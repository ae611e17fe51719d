//! Session notices on the wire: decoding, encoding and the v1 capability gate.
//!
//! Table-driven; each table names the case it covers. Notices are stable ACP and part of every
//! build; cases that need v2 are compiled only with `unstable_protocol_v2`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use acptk_schema::v1;
use serde_json::{Value, json};

/// Decodes `value` as `T`, re-encodes it and returns the JSON.
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(
    value: &Value,
) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

/// The same, from JSON text (the streaming decode path used on real traffic).
fn round_trip_text<T: serde::de::DeserializeOwned + serde::Serialize>(
    text: &str,
) -> Result<Value, String> {
    let typed: T = serde_json::from_str(text).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

fn update(fields: Value) -> Value {
    let mut object = json!({ "sessionUpdate": "notice" });
    if let (Some(target), Value::Object(extra)) = (object.as_object_mut(), fields) {
        target.extend(extra);
    }
    object
}

/// Notices that must fail to decode in both versions, with the reason.
const MALFORMED: &[(&str, &str)] = &[
    (
        "missing title",
        r#"{"sessionUpdate":"notice","severity":"info"}"#,
    ),
    (
        "null title",
        r#"{"sessionUpdate":"notice","severity":"info","title":null}"#,
    ),
    (
        "empty title",
        r#"{"sessionUpdate":"notice","severity":"info","title":""}"#,
    ),
    (
        "numeric title",
        r#"{"sessionUpdate":"notice","severity":"info","title":7}"#,
    ),
    (
        "object title",
        r#"{"sessionUpdate":"notice","severity":"info","title":{"text":"x"}}"#,
    ),
    (
        "array title",
        r#"{"sessionUpdate":"notice","severity":"info","title":["x"]}"#,
    ),
    (
        "missing severity",
        r#"{"sessionUpdate":"notice","title":"x"}"#,
    ),
    (
        "null severity",
        r#"{"sessionUpdate":"notice","severity":null,"title":"x"}"#,
    ),
    (
        "numeric severity",
        r#"{"sessionUpdate":"notice","severity":2,"title":"x"}"#,
    ),
    (
        "boolean severity",
        r#"{"sessionUpdate":"notice","severity":true,"title":"x"}"#,
    ),
    (
        "tag after fields, empty title",
        r#"{"severity":"info","title":"","sessionUpdate":"notice"}"#,
    ),
    (
        "tag after fields, missing severity",
        r#"{"title":"x","sessionUpdate":"notice"}"#,
    ),
];

/// Severities that must round-trip unchanged, with (is_known, is_extension, is_reserved).
const SEVERITIES: &[(&str, bool, bool, bool)] = &[
    ("info", true, false, false),
    ("warning", true, false, false),
    ("error", true, false, false),
    ("critical", false, false, true),
    ("_acme_quota", false, true, false),
    ("Info", false, false, true),
    ("", false, false, true),
];

/// `clientCapabilities` JSON of a v1 `initialize` request -> does it advertise notices?
fn advertisement_cases() -> Vec<(&'static str, Value, bool)> {
    vec![
        ("no capabilities at all", json!({}), false),
        (
            "session omitted",
            json!({ "fs": { "readTextFile": true } }),
            false,
        ),
        ("session null", json!({ "session": null }), false),
        ("session empty", json!({ "session": {} }), false),
        (
            "notices null",
            json!({ "session": { "notices": null } }),
            false,
        ),
        (
            "notices true",
            json!({ "session": { "notices": true } }),
            false,
        ),
        (
            "notices false",
            json!({ "session": { "notices": false } }),
            false,
        ),
        (
            "notices string",
            json!({ "session": { "notices": "yes" } }),
            false,
        ),
        (
            "notices array",
            json!({ "session": { "notices": [] } }),
            false,
        ),
        (
            "notices non-empty array",
            json!({ "session": { "notices": [{}] } }),
            false,
        ),
        (
            "notices number",
            json!({ "session": { "notices": 1 } }),
            false,
        ),
        (
            "session not an object",
            json!({ "session": "notices" }),
            false,
        ),
        (
            "notices object",
            json!({ "session": { "notices": {} } }),
            true,
        ),
        (
            "notices with unknown keys",
            json!({ "session": { "notices": { "future": 1 } } }),
            true,
        ),
        (
            "notices with _meta",
            json!({ "session": { "notices": { "_meta": { "a": 1 } } } }),
            true,
        ),
        (
            "notices with bad _meta",
            json!({ "session": { "notices": { "_meta": 3 } } }),
            true,
        ),
        (
            "notices beside other session capabilities",
            json!({ "session": { "compaction": {}, "notices": {} } }),
            true,
        ),
    ]
}

#[test]
fn capability_advertisement_is_decoded_from_every_form() {
    for (case, capabilities, expected) in advertisement_cases() {
        let request = json!({ "protocolVersion": 1, "clientCapabilities": capabilities.clone() });
        for text in [capabilities.to_string(), request.to_string()] {
            let advertised = if text.contains("protocolVersion") {
                let decoded: v1::InitializeRequest = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{case}: initialize did not decode: {e}"));
                decoded.client_capabilities.advertises_notices()
            } else {
                let decoded: v1::ClientCapabilities = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{case}: capabilities did not decode: {e}"));
                decoded.advertises_notices()
            };
            assert_eq!(advertised, expected, "{case}: {text}");
        }
    }
}

#[test]
fn capability_advertisement_encodes_as_an_empty_object_or_not_at_all() {
    let with = serde_json::to_value(v1::ClientCapabilities::default().with_notices()).unwrap();
    assert_eq!(with["session"], json!({ "notices": {} }));
    let without = serde_json::to_value(v1::ClientCapabilities::default()).unwrap();
    assert!(without.get("session").is_none(), "{without}");
    // A decoded non-object value is dropped, not echoed.
    let odd: v1::ClientCapabilities =
        serde_json::from_value(json!({ "session": { "notices": true } })).unwrap();
    assert_eq!(serde_json::to_value(odd).unwrap()["session"], json!({}));
    // with_notices keeps other session capabilities.
    let caps = v1::ClientCapabilities::default()
        .session(v1::ClientSessionCapabilities::new().compaction(v1::CompactionCapabilities::new()))
        .with_notices();
    let encoded = serde_json::to_value(caps).unwrap();
    assert_eq!(
        encoded["session"],
        json!({ "compaction": {}, "notices": {} })
    );
}

fn full_notice() -> Value {
    json!({
        "sessionUpdate": "notice",
        "severity": "warning",
        "title": "MCP server unavailable",
        "description": "Continuing without it.",
        "_meta": { "acme.dev/retryInSeconds": 30 }
    })
}

/// The exact JSON of a full notice (with `_meta`) and a minimal one of `$version`, each as a
/// session update, and of the minimal one in the version's `session/update` params
/// (`$notification`).
macro_rules! check_exact_wire_json {
    ($version:ident, $notification:ident, $meta:expr, $full_text:expr, $minimal_text:expr) => {{
        let full = $version::SessionUpdate::Notice(
            $version::Notice::try_new($version::NoticeSeverity::Warning, "MCP server unavailable")
                .unwrap()
                .description("Continuing without it.")
                .meta($meta),
        );
        let minimal = $version::SessionUpdate::Notice(
            $version::Notice::try_new("info", "Using defaults").unwrap(),
        );
        assert_eq!(serde_json::to_string(&full).unwrap(), $full_text);
        assert_eq!(serde_json::to_string(&minimal).unwrap(), $minimal_text);
        let notification = $version::$notification::new("sess_1", minimal);
        assert_eq!(
            serde_json::to_string(&notification).unwrap(),
            format!(r#"{{"sessionId":"sess_1","update":{}}}"#, $minimal_text)
        );
    }};
}

#[test]
fn exact_wire_json_in_both_versions() {
    let mut meta = acptk_schema::Meta::new();
    meta.insert("acme.dev/retryInSeconds".into(), json!(30));
    let full_text = r#"{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable","description":"Continuing without it.","_meta":{"acme.dev/retryInSeconds":30}}"#;
    let minimal_text = r#"{"sessionUpdate":"notice","severity":"info","title":"Using defaults"}"#;
    check_exact_wire_json!(
        v1,
        SessionNotification,
        meta.clone(),
        full_text,
        minimal_text
    );
    #[cfg(feature = "unstable_protocol_v2")]
    {
        use acptk_schema::v2;
        check_exact_wire_json!(v2, UpdateSessionNotification, meta, full_text, minimal_text);
    }
    assert_eq!(
        round_trip::<v1::SessionUpdate>(&full_notice()).unwrap(),
        full_notice()
    );
}

/// Optional fields: omitted, `null` and wrong-typed all decode as absent and are not written.
fn nullable_cases() -> Vec<(&'static str, Value)> {
    vec![
        ("omitted", json!({})),
        ("description null", json!({ "description": null })),
        ("meta null", json!({ "_meta": null })),
        ("both null", json!({ "description": null, "_meta": null })),
        ("description number", json!({ "description": 5 })),
        (
            "description object",
            json!({ "description": { "text": "x" } }),
        ),
        ("description array", json!({ "description": ["x"] })),
        ("description bool", json!({ "description": false })),
        ("meta string", json!({ "_meta": "x" })),
        ("meta array", json!({ "_meta": [1] })),
        ("meta number", json!({ "_meta": 1 })),
    ]
}

#[test]
fn omitted_null_and_wrong_typed_optionals_are_absent() {
    let expected = json!({ "sessionUpdate": "notice", "severity": "info", "title": "T" });
    for (case, extra) in nullable_cases() {
        let mut input = update(json!({ "severity": "info", "title": "T" }));
        if let (Some(target), Value::Object(extra)) = (input.as_object_mut(), extra) {
            target.extend(extra);
        }
        let v1_out =
            round_trip::<v1::SessionUpdate>(&input).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(v1_out, expected, "v1 {case}");
        let v1_text = round_trip_text::<v1::SessionUpdate>(&input.to_string()).unwrap();
        assert_eq!(v1_text, expected, "v1 text {case}");
        #[cfg(feature = "unstable_protocol_v2")]
        {
            let v2_out = round_trip_text::<acptk_schema::v2::SessionUpdate>(&input.to_string())
                .unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(v2_out, expected, "v2 {case}");
        }
        let notice: v1::Notice = serde_json::from_value(input).unwrap();
        assert_eq!(notice.description, None, "{case}");
        assert_eq!(notice.meta, None, "{case}");
    }
}

#[test]
fn open_severities_round_trip_unchanged() {
    for &(severity, known, extension, reserved) in SEVERITIES {
        let input = update(json!({ "severity": severity, "title": "Quota" }));
        assert_eq!(
            round_trip_text::<v1::SessionUpdate>(&input.to_string()).unwrap(),
            input,
            "{severity}"
        );
        let parsed = v1::NoticeSeverity::from(severity);
        assert_eq!(parsed.as_str(), severity);
        assert_eq!(
            (
                parsed.is_known(),
                parsed.is_extension(),
                parsed.is_reserved()
            ),
            (known, extension, reserved),
            "{severity}"
        );
        #[cfg(feature = "unstable_protocol_v2")]
        {
            use acptk_schema::v2;
            assert_eq!(
                round_trip_text::<v2::SessionUpdate>(&input.to_string()).unwrap(),
                input,
                "{severity}"
            );
            let parsed = v2::NoticeSeverity::from(severity);
            assert_eq!(
                (parsed.is_known(), parsed.is_extension()),
                (known, extension),
                "{severity}"
            );
            let decoded: v2::SessionUpdate = serde_json::from_value(input).unwrap();
            assert!(
                matches!(decoded, v2::SessionUpdate::Notice(_)),
                "{severity}"
            );
        }
    }
    // Known strings always map to the known variant, whatever way they were built.
    assert_eq!(
        v1::NoticeSeverity::from("warning".to_string()),
        v1::NoticeSeverity::Warning
    );
}

#[test]
fn malformed_notices_fail_in_both_versions_and_never_become_unknown() {
    for &(case, text) in MALFORMED {
        let error = serde_json::from_str::<v1::SessionUpdate>(text)
            .err()
            .unwrap_or_else(|| panic!("v1 accepted {case}"));
        assert!(!error.to_string().is_empty());
        assert!(
            serde_json::from_str::<v1::Notice>(text).is_err(),
            "v1 Notice accepted {case}"
        );
        #[cfg(feature = "unstable_protocol_v2")]
        {
            let result = serde_json::from_str::<acptk_schema::v2::SessionUpdate>(text);
            assert!(result.is_err(), "v2 accepted {case}: {result:?}");
            let value: Value = serde_json::from_str(text).unwrap();
            assert!(
                serde_json::from_value::<acptk_schema::v2::SessionUpdate>(value).is_err(),
                "v2 accepted {case} from a value"
            );
        }
    }
}

#[test]
fn empty_title_error_says_what_was_expected() {
    let error =
        serde_json::from_str::<v1::Notice>(r#"{"severity":"info","title":""}"#).unwrap_err();
    assert!(error.to_string().contains("non-empty"), "{error}");
    assert_eq!(
        v1::NoticeTitle::new(""),
        Err(acptk_schema::Error::EmptyNoticeTitle)
    );
    assert!(
        v1::NoticeTitle::try_from(" ").is_ok(),
        "a space is a character"
    );
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn v1_and_v2_notices_share_one_wire_format() {
    use acptk_schema::v2;
    let table = [
        update(json!({ "severity": "info", "title": "Using defaults" })),
        full_notice(),
        update(
            json!({ "severity": "_acme_quota", "title": "Quota at 90%", "description": "Resets at midnight." }),
        ),
        update(json!({ "severity": "critical", "title": "Model rerouted" })),
        update(json!({ "severity": "error", "title": "日本語のタイトル", "_meta": {} })),
    ];
    for input in table {
        let one: v1::SessionUpdate = serde_json::from_value(input.clone()).unwrap();
        let two: v2::SessionUpdate = serde_json::from_value(input.clone()).unwrap();
        let one_text = serde_json::to_string(&one).unwrap();
        let two_text = serde_json::to_string(&two).unwrap();
        assert_eq!(one_text, two_text);
        // Each decodes the other's output.
        let back_two: v2::SessionUpdate = serde_json::from_str(&one_text).unwrap();
        let back_one: v1::SessionUpdate = serde_json::from_str(&two_text).unwrap();
        assert_eq!(back_two, two);
        assert_eq!(back_one, one);
    }
}

#[test]
fn notices_are_live_only_and_cannot_become_history() {
    let notice = v1::SessionUpdate::Notice(v1::Notice::try_new("info", "Using defaults").unwrap());
    assert!(notice.is_live_only());
    let back = v1::ReplayableUpdate::try_from(notice.clone()).unwrap_err();
    assert_eq!(back, notice, "the notice is handed back unchanged");
    let chunk = v1::SessionUpdate::agent_message_chunk("hello");
    assert!(!chunk.is_live_only());
    assert!(v1::ReplayableUpdate::try_from(chunk).is_ok());
    #[cfg(feature = "unstable_protocol_v2")]
    {
        use acptk_schema::v2;
        let notice = v2::SessionUpdate::Notice(v2::Notice::try_new("warning", "Rerouted").unwrap());
        assert!(notice.is_live_only());
        assert!(v2::ReplayableUpdate::try_from(notice).is_err());
        // An unknown v2 update is kept, and replayable like any other conversation update.
        let unknown = v2::SessionUpdate::unknown("_acme_progress", Default::default()).unwrap();
        assert!(!unknown.is_live_only());
        assert!(v2::ReplayableUpdate::try_from(unknown).is_ok());
    }
}

#[test]
fn repeated_identical_notices_are_independent_equal_values() {
    let line = r#"{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"warning","title":"Rate limited"}}"#;
    let decoded: Vec<v1::SessionNotification> = (0..3)
        .map(|_| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(decoded.len(), 3);
    assert!(decoded.windows(2).all(|pair| pair[0] == pair[1]));
    let mut first = decoded[0].clone();
    if let v1::SessionUpdate::Notice(notice) = &mut first.update {
        notice.description = Some("changed".into());
    }
    assert_ne!(
        first, decoded[1],
        "changing one copy leaves the others alone"
    );
}

/// Notices are stable ACP: a build with only the default features decodes a v1 `notice`
/// update and the v1 `session.notices` capability, and writes both back unchanged. (These use
/// no notice type by name, so they also build, and fail, where notices are behind a feature.)
#[test]
fn the_default_build_decodes_v1_notices_and_the_capability() {
    let text = r#"{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable","description":"Continuing without it."}"#;
    let update: acptk_schema::v1::SessionUpdate = serde_json::from_str(text)
        .unwrap_or_else(|error| panic!("a v1 notice must decode in every build: {error}"));
    assert_eq!(update.tag(), "notice");
    assert!(update.is_live_only(), "a notice is live-only");
    assert!(acptk_schema::v1::SessionUpdate::TAGS.contains(&"notice"));
    assert_eq!(serde_json::to_string(&update).unwrap(), text);

    let caps: acptk_schema::v1::ClientCapabilities =
        serde_json::from_str(r#"{"session":{"notices":{}}}"#).unwrap();
    assert_eq!(
        serde_json::to_value(&caps).unwrap()["session"],
        json!({ "notices": {} }),
        "the capability is kept, not dropped as unknown"
    );
}

/// The same for v2, whose open union would otherwise keep a notice as an unknown update.
#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn the_default_build_decodes_v2_notices() {
    use acptk_schema::v2::SessionUpdate;
    let text = r#"{"sessionUpdate":"notice","severity":"info","title":"Model rerouted"}"#;
    let update: SessionUpdate = serde_json::from_str(text).unwrap();
    assert!(
        !matches!(update, SessionUpdate::Other(_)),
        "a v2 notice is a known update, not an unknown one: {update:?}"
    );
    assert!(update.is_live_only(), "a notice is live-only");
    assert!(SessionUpdate::TAGS.contains(&"notice"));
    assert_eq!(serde_json::to_string(&update).unwrap(), text);
    // Known, so a malformed notice is an error rather than a kept unknown update.
    assert!(
        serde_json::from_str::<SessionUpdate>(r#"{"sessionUpdate":"notice","title":""}"#).is_err()
    );
}

#[test]
fn severity_table_is_consistent() {
    // Guards the tables above: every known severity is listed exactly once.
    let known: Vec<_> = SEVERITIES.iter().filter(|s| s.1).map(|s| s.0).collect();
    assert_eq!(known, ["info", "warning", "error"]);
    assert!(MALFORMED.len() >= 10);
}
