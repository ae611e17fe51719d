//! Feeding the engine with the wire types of both protocol versions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_notice_center::{IncomingNotice, NoticeCenter, SessionKey, Severity, ToastState};
use support::secs;

const WIRE: &str = r#"{
    "sessionId": "sess_abc123",
    "update": {
        "sessionUpdate": "notice",
        "severity": "warning",
        "title": "MCP server unavailable",
        "description": "Continuing without it.",
        "_meta": {"vendor": 1}
    }
}"#;

#[test]
fn v1_notice_converts() {
    let notice = acptk_schema::v1::Notice::try_new("_acme.debug", "\x1b[1mHi\x1b[0m")
        .unwrap()
        .description("body");
    let incoming = IncomingNotice::from(&notice);
    assert_eq!(incoming.severity, Severity::from_wire("_acme.debug"));
    assert_eq!(
        incoming.title, "\x1b[1mHi\x1b[0m",
        "conversion borrows; the engine sanitises"
    );
    assert_eq!(incoming.description, Some("body"));
    let Severity::Unknown(unknown) = &incoming.severity else {
        panic!("unknown expected")
    };
    assert!(unknown.is_extension());

    let severities = [
        (acptk_schema::v1::NoticeSeverity::Info, Severity::Info),
        (acptk_schema::v1::NoticeSeverity::Warning, Severity::Warning),
        (acptk_schema::v1::NoticeSeverity::Error, Severity::Error),
        (
            acptk_schema::v1::NoticeSeverity::from("fatal"),
            Severity::from_wire("fatal"),
        ),
    ];
    for (wire, expected) in severities {
        assert_eq!(Severity::from(&wire), expected);
    }
    let id = acptk_schema::v1::SessionId::new("sess_1");
    assert_eq!(SessionKey::from(&id).as_str(), "sess_1");
}

#[test]
fn v1_session_update_is_pushed() {
    let notification: acptk_schema::v1::SessionNotification = serde_json::from_str(WIRE).unwrap();
    let mut center = NoticeCenter::default();
    let receipt = center.push_v1(&notification, secs(0)).expect("a notice");
    assert_eq!(receipt.toast, ToastState::Visible);
    let entry = center.entry("sess_abc123", receipt.entry).unwrap();
    assert_eq!(entry.title(), "MCP server unavailable");
    assert_eq!(entry.description(), Some("Continuing without it."));
    assert_eq!(
        receipt.announcement.unwrap().text,
        "Warning: MCP server unavailable. Continuing without it."
    );

    let chunk: acptk_schema::v1::SessionNotification = serde_json::from_str(
        r#"{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}"#,
    )
    .unwrap();
    assert!(center.push_v1(&chunk, secs(1)).is_none());
    assert_eq!(center.stats().received, 1);
}

#[cfg(feature = "v2")]
#[test]
fn v2_session_update_is_pushed() {
    let notification: acptk_schema::v2::UpdateSessionNotification =
        serde_json::from_str(&WIRE.replace("\"warning\"", "\"_vendor.level\"")).unwrap();
    let mut center = NoticeCenter::default();
    let receipt = center.push_v2(&notification, secs(0)).expect("a notice");
    let entry = center.entry("sess_abc123", receipt.entry).unwrap();
    assert_eq!(entry.severity().as_str(), "_vendor.level");
    assert_eq!(entry.severity().word(), "Notice");
    assert_eq!(
        center.next_deadline(),
        Some(secs(8)),
        "unknown severity: default timing"
    );

    let notice = acptk_schema::v2::Notice::try_new("error", "Boom").unwrap();
    assert_eq!(IncomingNotice::from(&notice).severity, Severity::Error);

    // An update v2 does not know is kept by the schema and ignored here.
    let other: acptk_schema::v2::UpdateSessionNotification = serde_json::from_str(
        r#"{"sessionId":"s","update":{"sessionUpdate":"future_thing","x":1}}"#,
    )
    .unwrap();
    assert!(center.push_v2(&other, secs(1)).is_none());
}

#[test]
fn null_description_is_absent() {
    let notification: acptk_schema::v1::SessionNotification = serde_json::from_str(
        r#"{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"info","title":"T","description":null}}"#,
    )
    .unwrap();
    let mut center = NoticeCenter::default();
    let receipt = center.push_v1(&notification, secs(0)).unwrap();
    assert_eq!(
        center.entry("s", receipt.entry).unwrap().description(),
        None
    );
}
