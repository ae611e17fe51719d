//! Clean fallback messages: each notice repaired for a v1 client without `session.notices`
//! becomes an agent message of its own (its own `messageId`, set apart by blank lines), and no
//! escape sequence, control, bidi or invisible character of the agent's text reaches it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_check::fallback;
use acptk_check::proxy::ProxyOptions;
use acptk_check::{CheckOptions, Rule, check_bytes};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}"#;
const PROMPT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}"#;
const PROMPT_OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}"#;

fn chunk(text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s1","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":{}}}}}}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

fn notice(severity: &str, title: &str, description: Option<&str>) -> String {
    let description = description.map_or(String::new(), |d| {
        format!(r#","description":{}"#, serde_json::to_string(d).unwrap())
    });
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s1","update":{{"sessionUpdate":"notice","severity":{},"title":{}{description}}}}}}}"#,
        serde_json::to_string(severity).unwrap(),
        serde_json::to_string(title).unwrap()
    )
}

/// Characters that must never reach conversation text.
fn hostile(c: char) -> bool {
    c.is_control() && c != '\n'
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}'..='\u{200F}' | '\u{061C}' | '\u{2060}' | '\u{FEFF}' | '\u{E0000}'..='\u{E007F}')
}

#[tokio::test]
async fn four_notices_become_four_clean_messages_of_their_own() {
    let notices = [
        notice(
            "warning",
            "MCP server db unavailable",
            Some("Continuing without it."),
        ),
        notice(
            "info",
            "Model \u{1b}[31mrerouted\u{1b}[0m",
            Some("\u{202E}acme_quota\u{202C}: using \u{200B}the fallback\u{7}"),
        ),
        notice(
            "_acme_quota",
            "\u{1b}]8;;https://evil.example\u{7}Click here\u{1b}]8;;\u{7}",
            Some("\u{1b}]52;c;cm0gLXJmIH4=\u{7}Quota\r\nat 95%"),
        ),
        notice(
            "\u{1b}[2Jerror",
            "\u{E0041}\u{E0042}Provider degraded",
            None,
        ),
    ];
    let mut agent = vec![chunk("Working on it.")];
    agent.extend(notices.iter().cloned());
    agent.push(chunk("Done."));
    agent.push(PROMPT_OK.to_owned());
    let run = support::run(
        &[INIT.to_owned(), PROMPT.to_owned()],
        &[vec![INIT_OK.to_owned()], agent],
        ProxyOptions::new().timestamps(false),
    )
    .await;
    let received = String::from_utf8(run.client_received.clone()).unwrap();
    let got: Vec<serde_json::Value> = received
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got.len(), 8, "{received}");
    assert_eq!(
        got[1],
        serde_json::from_str::<serde_json::Value>(&chunk("Working on it.")).unwrap()
    );
    assert_eq!(
        got[6],
        serde_json::from_str::<serde_json::Value>(&chunk("Done.")).unwrap()
    );

    let mut ids = Vec::new();
    let mut texts = Vec::new();
    for repaired in &got[2..6] {
        let update = &repaired["params"]["update"];
        assert_eq!(update["sessionUpdate"], "agent_message_chunk");
        ids.push(update["messageId"].as_str().unwrap().to_owned());
        let text = update["content"]["text"].as_str().unwrap();
        // Set apart from the text around it, even for a client that ignores message ids.
        assert!(text.starts_with(fallback::SEPARATION) && text.ends_with(fallback::SEPARATION));
        assert!(!text.chars().any(hostile), "{text:?}");
        texts.push(text.trim().to_owned());
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "each message has its own id");
    assert_eq!(
        texts,
        [
            "Warning: MCP server db unavailable - Continuing without it.",
            "Info: Model rerouted - acme_quota: using the fallback",
            "_acme_quota: Click here - Quota\nat 95%",
            "Error: Provider degraded",
        ]
    );
    // The whole conversation the client got is free of hostile characters but for what the
    // agent itself wrote outside notices (nothing here).
    assert!(!received.chars().any(hostile));
    // The record keeps the notices as the agent sent them.
    let record = String::from_utf8(run.record).unwrap();
    assert_eq!(record.matches(r#""sessionUpdate":"notice""#).count(), 4);
    let (findings, _) = check_bytes(record.as_bytes(), &CheckOptions::new());
    assert_eq!(
        findings
            .iter()
            .filter(|f| f.rule == Rule::NoticeWithoutCapability)
            .count(),
        4
    );
}

#[test]
fn the_fallback_text_is_the_runtimes_wording_on_sanitised_text() {
    let line = fallback::line(
        "s1",
        &acptk_check::NoticeView::new("warning", "Disk\u{1b}[1m low\u{2066}", Some("5%\u{0} left")),
        "m-1",
    );
    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(value["params"]["update"]["messageId"], "m-1");
    assert_eq!(
        value["params"]["update"]["content"]["text"],
        "\n\nWarning: Disk low - 5% left\n\n"
    );
}
