//! The traces people already have: the same conversation written as our transcript, bare
//! JSON-RPC lines, an ACP conductor trace, a Zed ACP log copy and acpx's JSON output checks the
//! same; formats are told from their start; foreign entries that are not messages between
//! the client and the agent are skipped and said so.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use acptk_check::input::{InputFormat, detect};
use acptk_check::{CheckOptions, Rule, Side, check_bytes};
use serde_json::{Value, json};

/// A conversation with a replayed notice, a notice to a client without the capability, an
/// error response, a permission request from the agent, and an unknown method.
fn conversation() -> Vec<(Side, Value)> {
    let update = |u: Value| json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":u}});
    vec![
        (
            Side::Client,
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}}),
        ),
        (
            Side::Agent,
            json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}),
        ),
        (
            Side::Client,
            json!({"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s1","cwd":"/p","mcpServers":[]}}),
        ),
        (
            Side::Agent,
            update(
                json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"old"}}),
            ),
        ),
        (
            Side::Agent,
            update(json!({"sessionUpdate":"notice","severity":"info","title":"Replayed"})),
        ),
        (Side::Agent, json!({"jsonrpc":"2.0","id":1,"result":{}})),
        (
            Side::Client,
            json!({"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}),
        ),
        (
            Side::Agent,
            json!({"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"ok","name":"OK","kind":"allow_once"}]}}),
        ),
        (
            Side::Client,
            json!({"jsonrpc":"2.0","id":"p1","result":{"outcome":{"outcome":"selected","optionId":"ok"}}}),
        ),
        (
            Side::Agent,
            update(json!({"sessionUpdate":"notice","severity":"warning","title":"Live"})),
        ),
        (
            Side::Agent,
            json!({"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}),
        ),
        (
            Side::Client,
            json!({"jsonrpc":"2.0","id":3,"method":"session/nope","params":{"sessionId":"s1"}}),
        ),
        (
            Side::Agent,
            json!({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}),
        ),
    ]
}

fn transcript(messages: &[(Side, Value)]) -> String {
    messages
        .iter()
        .map(|(side, m)| format!("{}\n", json!({"from": side.as_str(), "message": m})))
        .collect()
}

fn bare(messages: &[(Side, Value)]) -> String {
    messages.iter().map(|(_, m)| format!("{m}\n")).collect()
}

/// As the conductor traces a chain with one proxy: each message once on the client's hop
/// (skipped) and once on the agent's.
fn conductor(messages: &[(Side, Value)]) -> String {
    let mut out = String::new();
    let mut ts = 0.0;
    for (side, m) in messages {
        let (agent_hop, client_hop) = match side {
            Side::Client => (("Proxy(0)", "Agent"), ("Client", "Proxy(0)")),
            Side::Agent => (("Agent", "Proxy(0)"), ("Proxy(0)", "Client")),
        };
        for (from, to) in [client_hop, agent_hop] {
            ts += 0.001;
            let event = if let Some(method) = m.get("method") {
                let mut e = json!({"type": if m.get("id").is_some() {"request"} else {"notification"}, "ts": ts, "protocol": "acp", "from": from, "to": to, "method": method, "params": m["params"]});
                if let Some(id) = m.get("id") {
                    e["id"] = id.clone();
                }
                e
            } else {
                let error = m.get("error");
                json!({"type":"response","ts": ts, "from": from, "to": to, "id": m["id"], "is_error": error.is_some(), "payload": error.unwrap_or(&m["result"])})
            };
            out.push_str(&format!("{event}\n"));
        }
    }
    out
}

/// As Zed copies it: Zed is the client.
fn zed(messages: &[(Side, Value)]) -> String {
    let entries: Vec<Value> = messages
        .iter()
        .map(|(side, m)| {
            let direction = if *side == Side::Client { "outgoing" } else { "incoming" };
            let (kind, params) = match (m.get("method"), m.get("id")) {
                (Some(_), Some(_)) => ("request", m["params"].clone()),
                (Some(_), None) => ("notification", m["params"].clone()),
                _ => ("response", m.get("error").unwrap_or(&m["result"]).clone()),
            };
            json!({"_direction": direction, "_type": kind, "id": m.get("id"), "method": m.get("method").cloned().unwrap_or(json!("session/x")), "params": params})
        })
        .collect();
    serde_json::to_string_pretty(&entries).unwrap()
}

/// The rules found, without the notes about the input and the line numbers.
fn rules(input: &str) -> Vec<Rule> {
    let (findings, _) = check_bytes(input.as_bytes(), &CheckOptions::new());
    findings
        .iter()
        .map(|f| f.rule)
        .filter(|r| !matches!(r, Rule::InferredDirection | Rule::SkippedEntry))
        .collect()
}

#[test]
fn one_conversation_in_every_format_checks_the_same() {
    let messages = conversation();
    let ours = rules(&transcript(&messages));
    assert_eq!(
        ours,
        [
            Rule::NoticeWithoutCapability,
            Rule::NoticeInReplay,
            Rule::NoticeWithoutCapability,
            Rule::UnknownMethod,
        ]
    );
    let mut acpx = bare(&messages);
    acpx.push_str(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"gone","data":{"acpxCode":"RUNTIME","origin":"runtime"}}}"#);
    acpx.push('\n');
    for (name, input) in [
        ("bare", bare(&messages)),
        ("conductor", conductor(&messages)),
        ("zed", zed(&messages)),
        ("acpx", acpx),
    ] {
        assert_eq!(rules(&input), ours, "{name}:\n{input}");
    }
}

#[test]
fn findings_name_the_line_a_foreign_entry_starts_on() {
    let messages = conversation();
    // The replayed notice is the fifth message: line 10 of the conductor trace (two hops per
    // message), and in the Zed copy the line its object opens on.
    let (findings, summary) = check_bytes(conductor(&messages).as_bytes(), &CheckOptions::new());
    let replay = findings
        .iter()
        .find(|f| f.rule == Rule::NoticeInReplay)
        .unwrap();
    assert_eq!(replay.line, 10);
    assert_eq!(summary.format, InputFormat::Conductor);
    assert_eq!(summary.messages, messages.len() as u64);
    // The client's hop is skipped, and said so once.
    let skipped: Vec<u64> = findings
        .iter()
        .filter(|f| f.rule == Rule::SkippedEntry)
        .map(|f| f.line)
        .collect();
    assert_eq!(skipped, [1]);

    let copy = zed(&messages);
    let (findings, summary) = check_bytes(copy.as_bytes(), &CheckOptions::new());
    let replay = findings
        .iter()
        .find(|f| f.rule == Rule::NoticeInReplay)
        .unwrap();
    let line = copy.lines().nth(replay.line as usize - 1).unwrap();
    assert_eq!(line, "  {", "an element opens on that line");
    let rest: String = copy.lines().skip(replay.line as usize).take(12).collect();
    assert!(rest.contains("\"Replayed\""), "{rest}");
    assert_eq!(summary.format, InputFormat::Zed);
    assert_eq!(summary.messages, messages.len() as u64);
}

#[test]
fn formats_are_told_from_their_start() {
    let messages = conversation();
    let cases: Vec<(String, Option<InputFormat>)> = vec![
        (transcript(&messages), Some(InputFormat::Transcript)),
        (bare(&messages), Some(InputFormat::JsonRpc)),
        (conductor(&messages), Some(InputFormat::Conductor)),
        (zed(&messages), Some(InputFormat::Zed)),
        ("[]\n".to_owned(), Some(InputFormat::Zed)),
        (
            r#"[{"jsonrpc":"2.0","method":"_x"}]"#.to_owned(),
            Some(InputFormat::JsonRpc),
        ),
        (String::new(), Some(InputFormat::Transcript)),
        (
            "\u{feff}{\"header\":{\"proxy\":\"acp proxy\"}}\n".to_owned(),
            Some(InputFormat::Transcript),
        ),
        // A first line that does not tell, then one that does.
        (
            format!("not json\n{}", conductor(&messages)),
            Some(InputFormat::Conductor),
        ),
        // A first line longer than what is at hand: its first key tells.
        (
            r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"#
                .to_owned(),
            Some(InputFormat::Transcript),
        ),
        ("hello world\n".to_owned(), None),
        (r#"{"level":"info"}"#.to_owned() + "\n", None),
    ];
    for (input, expected) in cases {
        assert_eq!(detect(input.as_bytes()), expected, "{input:.80}");
    }
}

#[test]
fn mcp_events_and_their_responses_are_skipped_not_unmatched() {
    let lines = [
        r#"{"type":"request","ts":0.1,"protocol":"acp","from":"Client","to":"Agent","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
        r#"{"type":"response","ts":0.2,"from":"Agent","to":"Client","id":0,"is_error":false,"payload":{"protocolVersion":1}}"#,
        r#"{"type":"request","ts":0.3,"protocol":"mcp","from":"Agent","to":"Client","id":"m1","method":"tools/call","params":{"name":"x"}}"#,
        r#"{"type":"response","ts":0.4,"from":"Client","to":"Agent","id":"m1","is_error":false,"payload":{"content":[]}}"#,
        r#"{"type":"response","ts":0.5,"from":"Agent","to":"Client","id":"m2","is_error":false,"payload":{}}"#,
    ];
    let input = lines.join("\n");
    let (findings, summary) = check_bytes(input.as_bytes(), &CheckOptions::new());
    let found: Vec<(u64, Rule)> = findings.iter().map(|f| (f.line, f.rule)).collect();
    assert_eq!(
        found,
        [(3, Rule::SkippedEntry), (5, Rule::UnmatchedResponse)]
    );
    assert_eq!(summary.messages, 3);
}

#[test]
fn forcing_a_format_that_does_not_fit_names_what_was_expected() {
    let messages = conversation();
    for (format, input) in [
        (InputFormat::Zed, transcript(&messages)),
        (InputFormat::Conductor, zed(&messages)),
        (InputFormat::Conductor, transcript(&messages)),
        (InputFormat::Transcript, conductor(&messages)),
    ] {
        let (findings, _) = check_bytes(input.as_bytes(), &CheckOptions::new().format(format));
        let first = &findings[0];
        assert!(
            matches!(first.rule, Rule::UnknownInput | Rule::InvalidMessage),
            "{format}: {first:?}"
        );
        assert!(
            first.message.contains("expected")
                || first.message.contains("but the input is read as"),
            "{format}: {}",
            first.message
        );
    }
}
