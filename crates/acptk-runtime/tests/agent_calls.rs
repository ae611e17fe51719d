//! Typed calls from the agent to the client (`client_calls.rs` has the calls of a client)
//! pass one gate: without the capability they need (or in a version without the method) they
//! fail with a typed error and nothing is sent; with it, the request goes out and the answer
//! comes back decoded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::AgentServer;
use common::TestAgent;
use common::wire::Wire;
use serde_json::{Value, json};

/// The agent's report of `call`, and the requests it sent to the client meanwhile.
async fn run(version: u16, capabilities: Value, call: &str) -> (String, Vec<Value>) {
    let server = AgentServer::new(TestAgent::default());
    let (mut wire, _) = Wire::start(&server, version, capabilities).await;
    wire.respond_with(|request| {
        Some(match request["method"].as_str().unwrap() {
            "fs/read_text_file" => json!({"content": "line two"}),
            "fs/write_text_file" => json!({}),
            "terminal/create" => json!({"terminalId": "term_1"}),
            "terminal/output" => json!({"output": "a.txt", "truncated": false}),
            "terminal/wait_for_exit" => json!({"exitCode": 0}),
            "terminal/kill" | "terminal/release" => json!({}),
            "elicitation/create" => json!({"action": "decline"}),
            _ => return None,
        })
    });
    let id = wire.new_session("/work").await;
    wire.prompt(&id, &format!("call:{call}")).await;
    let requests: Vec<Value> = wire
        .seen
        .iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_some())
        .cloned()
        .collect();
    let report = wire
        .take_updates()
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
        .collect::<String>();
    (report, requests)
}

fn methods(requests: &[Value]) -> Vec<&str> {
    requests
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn without_the_capability_nothing_is_sent() {
    let cases = [
        (1, "read", "clientCapabilities.fs.readTextFile"),
        (1, "write", "clientCapabilities.fs.writeTextFile"),
        (1, "terminal", "clientCapabilities.terminal"),
        (1, "form", "clientCapabilities.elicitation.form"),
        (1, "url", "clientCapabilities.elicitation.url"),
        (2, "read", "ACP v2 has no `fs/read_text_file`"),
        (2, "write", "ACP v2 has no `fs/write_text_file`"),
        (
            2,
            "terminal",
            "ACP v2 has no client terminals (`terminal/*`)",
        ),
        (2, "form", "capabilities.elicitation.form"),
        (2, "url", "capabilities.elicitation.url"),
    ];
    for (version, call, named) in cases {
        // Capabilities that enable everything but what is asked (v1 elicitation: the other mode).
        let capabilities = if version == 1 {
            let mut caps = json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true, "elicitation": {"form": {}, "url": {}}});
            match call {
                "read" => caps["fs"]["readTextFile"] = json!(false),
                "write" => caps["fs"]["writeTextFile"] = json!(false),
                "terminal" => caps["terminal"] = json!(false),
                "form" => caps["elicitation"] = json!({"url": {}}),
                _ => caps["elicitation"] = json!({"form": {}}),
            }
            caps
        } else {
            match call {
                "form" => json!({"elicitation": {"url": {}}}),
                "url" => json!({"elicitation": {"form": {}}}),
                _ => json!({"elicitation": {"form": {}, "url": {}}}),
            }
        };
        let (report, requests) = run(version, capabilities, call).await;
        assert!(report.starts_with("error: "), "v{version} {call}: {report}");
        assert!(report.contains(named), "v{version} {call}: {report}");
        assert!(report.contains("nothing was sent"), "{report}");
        assert!(requests.is_empty(), "v{version} {call}: sent {requests:?}");
    }
}

#[tokio::test]
async fn with_the_capability_the_request_goes_out_and_the_answer_comes_back() {
    let all = json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true, "elicitation": {"form": {}, "url": {}}});
    let (report, requests) = run(1, all.clone(), "read").await;
    assert_eq!(report, "ok: line two");
    assert_eq!(methods(&requests), ["fs/read_text_file"]);
    assert_eq!(requests[0]["params"]["path"], "/work/a.txt");
    assert_eq!(requests[0]["params"]["line"], 2);
    assert_eq!(requests[0]["params"]["limit"], 1);

    let (report, requests) = run(1, all.clone(), "write").await;
    assert_eq!(report, "ok: written");
    assert_eq!(requests[0]["params"]["content"], "new text");

    let (report, requests) = run(1, all.clone(), "terminal").await;
    assert_eq!(report, "ok: term_1: a.txt Some(0)");
    assert_eq!(
        methods(&requests),
        [
            "terminal/create",
            "terminal/output",
            "terminal/wait_for_exit",
            "terminal/kill",
            "terminal/release"
        ]
    );
    assert_eq!(requests[0]["params"]["command"], "ls");
    assert_eq!(requests[0]["params"]["args"], json!(["-l"]));
    assert!(
        requests[1..]
            .iter()
            .all(|r| r["params"]["terminalId"] == "term_1")
    );

    for version in [1u16, 2] {
        let caps = if version == 1 {
            all.clone()
        } else {
            json!({"elicitation": {"form": {}, "url": {}}})
        };
        for call in ["form", "url"] {
            let (report, requests) = run(version, caps.clone(), call).await;
            assert_eq!(report, "ok: Decline", "v{version} {call}");
            assert_eq!(methods(&requests), ["elicitation/create"]);
            assert_eq!(requests[0]["params"]["mode"], call);
        }
    }
}

#[tokio::test]
async fn a_permission_request_needs_no_capability_and_an_unknown_option_is_no_approval() {
    for version in [1u16, 2] {
        for (answer, expected) in [
            (
                json!({"outcome": {"outcome": "selected", "optionId": "allow"}}),
                "allowed",
            ),
            (
                json!({"outcome": {"outcome": "selected", "optionId": "reject"}}),
                "not allowed",
            ),
            (
                json!({"outcome": {"outcome": "selected", "optionId": "made-up"}}),
                "not allowed: Unrecognised",
            ),
            (
                json!({"outcome": {"outcome": "cancelled"}}),
                "not allowed: Cancelled",
            ),
        ] {
            let server = AgentServer::new(TestAgent::default());
            let (mut wire, _) = Wire::start(&server, version, json!({})).await;
            let reply = answer.clone();
            wire.respond_with(move |request| {
                (request["method"] == "session/request_permission").then(|| reply.clone())
            });
            let id = wire.new_session("/work").await;
            wire.prompt(&id, "permission").await;
            let asked: Vec<&Value> = wire
                .seen
                .iter()
                .filter(|m| m["method"] == "session/request_permission")
                .collect();
            assert_eq!(asked.len(), 1);
            let options: Vec<&str> = asked[0]["params"]["options"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["optionId"].as_str().unwrap())
                .collect();
            assert_eq!(options, ["allow", "allow_always", "reject"]);
            // The request names the tool call the handle announced.
            let announced = wire
                .seen
                .iter()
                .find(|m| {
                    matches!(
                        m["params"]["update"]["sessionUpdate"].as_str(),
                        Some("tool_call" | "tool_call_update")
                    )
                })
                .map(|m| m["params"]["update"]["toolCallId"].clone())
                .unwrap();
            assert!(
                announced.as_str().unwrap().starts_with("call_"),
                "{announced}"
            );
            if version == 1 {
                assert_eq!(asked[0]["params"]["toolCall"]["toolCallId"], announced);
            } else {
                assert_eq!(
                    asked[0]["params"]["subject"]["toolCall"]["toolCallId"],
                    announced
                );
                assert_eq!(asked[0]["params"]["title"], "Delete everything");
            }
            let text: String = wire
                .take_updates()
                .iter()
                .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
                .collect();
            assert!(text.starts_with(expected), "v{version} {answer}: {text}");
        }
    }
}
