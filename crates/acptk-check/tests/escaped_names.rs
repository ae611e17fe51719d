//! A JSON escape in a method name, a key or a tag never changes what the checker sees: the
//! byte matchers of its fast path decline such lines (they never misread them) and the
//! general path decodes the names, so the findings, the notice and the proxy's repair of an
//! escaped line are those of its plain twin.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_check::proxy::ProxyOptions;
use acptk_check::{Checker, Rule, Side};
use support::run;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}"#;
const NEW: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}"#;
const NEW_OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}"#;

/// A notice to a v1 client that did not advertise notices (a finding and a repair), and a
/// text chunk (the fast path's own form), each written plainly and with escapes.
const PLAIN_NOTICE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"Disk"}}}"#;
const PLAIN_CHUNK: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;

/// Escaped spellings of the two lines above.
fn escaped() -> Vec<(&'static str, String)> {
    let notice = PLAIN_NOTICE;
    let chunk = PLAIN_CHUNK;
    vec![
        (notice, notice.replace("session/update", r"session\/update")),
        (
            notice,
            notice.replace("session/update", r"\u0073ession/update"),
        ),
        (
            notice,
            notice.replace(r#""sessionUpdate""#, r#""session\u0055pdate""#),
        ),
        (notice, notice.replace(r#""notice""#, r#""n\u006ftice""#)),
        (notice, notice.replace(r#""method""#, r#""m\u0065thod""#)),
        (notice, notice.replace(r#""2.0""#, r#""2\u002e0""#)),
        (chunk, chunk.replace("session/update", r"session\/update")),
        (
            chunk,
            chunk.replace(r#""agent_message_chunk""#, r#""agent_message\u005fchunk""#),
        ),
        (
            chunk,
            chunk.replace(r#""text":"hi""#, r#""t\u0065xt":"hi""#),
        ),
        (
            chunk,
            chunk.replace(r#""sessionId""#, r#""session\u0049d""#),
        ),
    ]
}

/// What a checker that saw the opening of a session says of `line` from the agent: its
/// rules and its notice event.
fn observe(line: &str) -> (Vec<Rule>, String) {
    let mut checker = Checker::new();
    checker.observe(1, Some(Side::Client), INIT);
    checker.observe(2, Some(Side::Agent), INIT_OK);
    checker.observe(3, Some(Side::Client), NEW);
    checker.observe(4, Some(Side::Agent), NEW_OK);
    let observation = checker.observe(5, Some(Side::Agent), line);
    assert!(observation.json, "{line}");
    let rules = observation.findings.iter().map(|f| f.rule).collect();
    (rules, format!("{:?}", observation.notice))
}

#[test]
fn an_escaped_line_is_checked_like_its_plain_twin() {
    // The plain notice is a finding, the plain chunk is not: the comparison means something.
    assert_eq!(observe(PLAIN_NOTICE).0, [Rule::NoticeWithoutCapability]);
    assert!(observe(PLAIN_CHUNK).0.is_empty());
    for (plain, escaped) in escaped() {
        assert_eq!(observe(&escaped), observe(plain), "{escaped}");
    }
}

#[tokio::test]
async fn the_proxy_repairs_an_escaped_notice_like_a_plain_one() {
    for (plain, escaped) in escaped() {
        if plain != PLAIN_NOTICE {
            continue;
        }
        let client = [INIT.to_owned(), NEW.to_owned()];
        let agent = [
            vec![INIT_OK.to_owned()],
            vec![NEW_OK.to_owned(), escaped.clone()],
        ];
        let run = run(&client, &agent, ProxyOptions::new()).await;
        let received = String::from_utf8(run.client_received).unwrap();
        let last = received.lines().last().unwrap();
        // Repaired into an agent message: the notice never reaches the client.
        assert!(last.contains("agent_message_chunk"), "{escaped}: {last}");
        assert!(!last.contains("otice\""), "{escaped}: {last}");
        assert!(
            run.findings.iter().any(|f| f.rule == Rule::Repair),
            "{escaped}"
        );
    }
}
