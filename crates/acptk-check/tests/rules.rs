//! Rule ids, severities, reports and the engine's edge cases, table-driven.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use acptk_check::report::Format;
use acptk_check::{CheckOptions, Checker, Rule, Severity, Side, check_bytes};

#[test]
fn rule_ids_and_severities_are_stable() {
    let table = [
        (
            Rule::NoticeWithoutCapability,
            "notice-without-capability",
            Severity::Error,
        ),
        (Rule::NoticeInReplay, "notice-in-replay", Severity::Warning),
        (
            Rule::NoticeReplayUncertain,
            "notice-replay-uncertain",
            Severity::Info,
        ),
        (Rule::MalformedNotice, "malformed-notice", Severity::Error),
        (Rule::ReservedSeverity, "reserved-severity", Severity::Info),
        (
            Rule::DuplicateToolCallId,
            "duplicate-tool-call-id",
            Severity::Error,
        ),
        (Rule::InvalidMessage, "invalid-message", Severity::Error),
        (Rule::UnknownMethod, "unknown-method", Severity::Warning),
        (
            Rule::UnmatchedResponse,
            "unmatched-response",
            Severity::Warning,
        ),
        (Rule::LineTooLong, "line-too-long", Severity::Warning),
        (
            Rule::InferredDirection,
            "inferred-direction",
            Severity::Note,
        ),
        (Rule::AssumedVersion, "assumed-version", Severity::Note),
        (Rule::Repair, "repair", Severity::Note),
        (Rule::UnknownInput, "unknown-input", Severity::Error),
        (Rule::SkippedEntry, "skipped-entry", Severity::Note),
    ];
    assert_eq!(table.len(), Rule::ALL.len());
    for (rule, id, severity) in table {
        assert_eq!(rule.id(), id);
        assert_eq!(rule.severity(), severity, "{id}");
        assert_eq!(Rule::from_id(id), Some(rule));
    }
}

const INIT_V1: &str =
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
const INIT_V1_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}"#;
const NOTICE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"info","title":"T"}}}"#;

/// (what, input, expected (line, rule) pairs)
type Case = (&'static str, Vec<u8>, Vec<(u64, Rule)>);

fn cases() -> Vec<Case> {
    let entry = |from: &str, message: &str| format!(r#"{{"from":"{from}","message":{message}}}"#);
    vec![
        (
            "CRLF line endings are accepted",
            format!("{}\r\n{}\r\n{}\r\n", entry("client", INIT_V1), entry("agent", INIT_V1_OK), entry("agent", NOTICE)).into_bytes(),
            vec![(3, Rule::NoticeWithoutCapability)],
        ),
        (
            "a line that is not UTF-8 is an invalid message and checking goes on",
            [entry("client", INIT_V1).as_bytes(), b"\n{\"a\":\"\xff\"}\n"].concat(),
            vec![(2, Rule::InvalidMessage)],
        ),
        (
            "a JSON array is not a message",
            b"[1,2,3]\n".to_vec(),
            vec![(1, Rule::InvalidMessage)],
        ),
        (
            "$/cancel_request is sent by the side whose request it names",
            [
                INIT_V1,
                INIT_V1_OK,
                r#"{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"sessionId":"s","prompt":[]}}"#,
                r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p1"}}"#,
                r#"{"jsonrpc":"2.0","id":"p1","error":{"code":-32800,"message":"cancelled"}}"#,
            ]
            .join("\n").into_bytes(),
            vec![(1, Rule::InferredDirection)],
        ),
        (
            "a response whose id both sides have in flight is a guess",
            [
                INIT_V1,
                INIT_V1_OK,
                r#"{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}"#,
                r#"{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}"#,
                r#"{"jsonrpc":"2.0","id":5,"result":{"content":"x"}}"#,
            ]
            .join("\n").into_bytes(),
            vec![(1, Rule::InferredDirection), (5, Rule::InferredDirection)],
        ),
        (
            "an error response with a null id answers an unreadable request",
            format!("{}\n{}\n", entry("client", INIT_V1), entry("agent", r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)).into_bytes(),
            vec![],
        ),
        (
            "an agent answering an unknown version is noted, then read as v2",
            format!(
                "{}\n{}\n",
                entry("client", INIT_V1),
                entry("agent", r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":7,"info":{"name":"a","version":"1"}}}"#)
            ).into_bytes(),
            vec![(2, Rule::AssumedVersion)],
        ),
        (
            "a notification sent with an id is invalid",
            format!("{}\n{}\n{}\n", entry("client", INIT_V1), entry("agent", INIT_V1_OK), entry("agent", r#"{"jsonrpc":"2.0","id":1,"method":"session/update","params":{}}"#)).into_bytes(),
            vec![(3, Rule::InvalidMessage)],
        ),
    ]
}

#[test]
fn engine_edge_cases() {
    for (what, input, expected) in cases() {
        let (findings, _) = check_bytes(&input, &CheckOptions::new());
        let actual: Vec<(u64, Rule)> = findings.iter().map(|f| (f.line, f.rule)).collect();
        assert_eq!(actual, expected, "{what}: {findings:#?}");
    }
}

#[test]
fn a_line_over_the_limit_is_skipped_in_bounded_memory() {
    let long = format!(
        "{{\"from\":\"agent\",\"message\":\"{}\"}}",
        "x".repeat(10_000)
    );
    let input = format!("{long}\n{}\n", NOTICE);
    let (findings, summary) = check_bytes(input.as_bytes(), &CheckOptions::new().max_line(1000));
    assert_eq!(findings[0].rule, Rule::LineTooLong);
    assert_eq!(findings[0].line, 1);
    assert_eq!(
        findings[0].message,
        "line longer than 1000 bytes: not checked"
    );
    assert_eq!(summary.messages, 2);
}

#[test]
fn text_and_json_reports() {
    let input = format!("{INIT_V1}\n{INIT_V1_OK}\n{NOTICE}\n");
    let (findings, summary) = check_bytes(input.as_bytes(), &CheckOptions::new());
    let text = Format::Text.finding("<stdin>", &findings[1]);
    assert_eq!(
        text,
        "<stdin>:3: error[notice-without-capability]: notice \"T\" sent to a v1 client that did not advertise `session.notices`\n"
    );
    assert_eq!(
        Format::Text.summary("<stdin>", &summary),
        "<stdin>: 3 messages, 2 findings: 1 error, 0 warnings, 0 info, 1 note\n  notice-without-capability: 1\n  inferred-direction: 1\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&Format::Json.finding("f", &findings[1])).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"kind":"finding","file":"f","line":3,"severity":"error","rule":"notice-without-capability","message":findings[1].message})
    );
    let json: serde_json::Value =
        serde_json::from_str(&Format::Json.summary("f", &summary)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"kind":"summary","file":"f","format":"jsonrpc","messages":3,"runs":1,"findings":2,"errors":1,"warnings":0,"info":0,"notes":1,
            "rules":{"notice-without-capability":1,"inferred-direction":1}})
    );
}

#[test]
fn peer_text_in_findings_cannot_break_the_terminal() {
    let notice = NOTICE.replace(r#""title":"T""#, r#""title":"\u001b[2Jgone\nnext line""#);
    let input = format!("{INIT_V1}\n{INIT_V1_OK}\n{notice}\n");
    let (findings, _) = check_bytes(input.as_bytes(), &CheckOptions::new());
    let line = Format::Text.finding("f", &findings[1]);
    assert_eq!(line.matches('\n').count(), 1, "{line}");
    assert!(!line.contains('\u{1b}'), "{line}");
}

#[test]
fn the_checker_reports_what_it_negotiated() {
    let mut checker = Checker::new();
    assert_eq!(checker.version(), None);
    checker.observe(1, Some(Side::Client), r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"1"}}}"#);
    assert_eq!(checker.version(), Some(acptk_check::Version::V2));
    checker.observe(2, Some(Side::Agent), INIT_V1_OK);
    assert_eq!(checker.version(), Some(acptk_check::Version::V1));
    assert_eq!(checker.client_advertises_notices(), Some(false));
}

#[test]
fn requests_in_flight_are_bounded_and_recent_ones_still_pair() {
    let mut checker = Checker::new();
    checker.observe(1, Some(Side::Client), INIT_V1);
    checker.observe(2, Some(Side::Agent), INIT_V1_OK);
    for id in 0..20_000 {
        let request =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"session/list","params":{{}}}}"#);
        checker.observe(3 + id, Some(Side::Client), &request);
    }
    let recent = checker.observe(
        30_000,
        Some(Side::Agent),
        r#"{"jsonrpc":"2.0","id":19999,"result":{"sessions":[]}}"#,
    );
    assert!(recent.findings.is_empty(), "{:?}", recent.findings);
    let forgotten = checker.observe(
        30_001,
        Some(Side::Agent),
        r#"{"jsonrpc":"2.0","id":0,"result":{"sessions":[]}}"#,
    );
    assert_eq!(forgotten.findings[0].rule, Rule::UnmatchedResponse);
}
