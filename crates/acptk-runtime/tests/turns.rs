//! Prompt turns by the rules of each version: the v2 echo of the user's message, message
//! ids, state transitions, cancellation that always ends the turn `cancelled`, prompts held
//! behind a running turn, idempotent v2 retries, and v2 tool call cancellation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use acptk_runtime::agent::AgentServer;
use common::TestAgent;
use common::wire::Wire;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A server whose agent reports each started turn on the returned channel.
fn server() -> (AgentServer<TestAgent>, mpsc::UnboundedReceiver<String>) {
    let (agent, _) = TestAgent::new();
    let (tx, rx) = mpsc::unbounded_channel();
    *agent.started.lock().unwrap() = Some(tx);
    (AgentServer::new(agent), rx)
}

/// Serves the test agent, opens a session of `version` and starts a turn there that asks the
/// client for permission: what keeps the agent running, the wire, the session id, the
/// prompt's request id and the permission request.
async fn asking_permission(version: u16) -> (impl Sized, Wire, String, i64, Value) {
    let (server, mut started) = server();
    let (mut wire, id) = Wire::with_session(&server, version, "/work").await;
    let prompt = wire.start_prompt(&id, "permission").await;
    started.recv().await.unwrap();
    let permission = wire
        .until(|m| m["method"] == "session/request_permission")
        .await;
    ((server, started), wire, id, prompt, permission)
}

/// Waits (a bounded time) until the agent noted `event`.
async fn until_event(events: &std::sync::Arc<std::sync::Mutex<Vec<String>>>, event: &str) {
    for _ in 0..200 {
        if events.lock().unwrap().iter().any(|e| e == event) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "the agent never noted `{event}`: {:?}",
        events.lock().unwrap()
    );
}

#[tokio::test]
async fn v2_echoes_the_user_message_with_the_id_of_the_prompt_response() {
    let (server, _) = server();
    let (mut wire, id) = Wire::with_session(&server, 2, "/work").await;
    let answer = wire.call_prompt(&id, "hello").await;
    let message_id = answer["result"]["messageId"].as_str().unwrap().to_owned();
    wire.until_idle(&id).await;
    let updates = wire.take_updates();
    assert_eq!(
        Wire::kinds(&updates),
        [
            "user_message",
            "state_update:running",
            "agent_message_chunk",
            "agent_message_chunk",
            "state_update:idle"
        ]
    );
    assert_eq!(updates[0]["messageId"], message_id.as_str());
    assert_eq!(
        updates[0]["content"],
        json!([{"type": "text", "text": "hello"}])
    );
    // Agent messages carry an id of their own, one per message.
    let agent_id = updates[2]["messageId"].as_str().unwrap();
    assert!(!agent_id.is_empty());
    assert_eq!(updates[3]["messageId"], agent_id);
    assert_eq!(updates[4]["stopReason"], "end_turn");
    // A second turn: a fresh user id and a fresh agent message id.
    let answer = wire.call_prompt(&id, "again").await;
    assert_ne!(answer["result"]["messageId"], message_id.as_str());
    wire.until_idle(&id).await;
    let updates = wire.take_updates();
    assert_ne!(updates[2]["messageId"], agent_id);
}

#[tokio::test]
async fn v1_agent_chunks_carry_message_ids() {
    let (server, _) = server();
    let (mut wire, id) = Wire::with_session(&server, 1, "/work").await;
    assert_eq!(wire.prompt(&id, "hello").await, "end_turn");
    let updates = wire.take_updates();
    assert_eq!(
        Wire::kinds(&updates),
        ["agent_message_chunk", "agent_message_chunk"]
    );
    assert!(updates[0]["messageId"].is_string());
    assert_eq!(updates[0]["messageId"], updates[1]["messageId"]);
}

#[tokio::test]
async fn a_cancelled_turn_ends_cancelled_whatever_the_handler_returns() {
    for version in [1u16, 2] {
        for script in ["wait then end", "wait then fail", "wait"] {
            let (server, mut started) = server();
            let events = server.agent().events.clone();
            let (mut wire, id) = Wire::with_session(&server, version, "/work").await;
            let prompt = wire.start_prompt(&id, script).await;
            started.recv().await.unwrap();
            wire.notify("session/cancel", json!({"sessionId": id}))
                .await;
            let stop = if version == 1 {
                let answer = wire.response(prompt).await;
                assert!(answer.get("result").is_some(), "v1 {script}: {answer}");
                answer["result"]["stopReason"].clone()
            } else {
                let answer = wire.response(prompt).await;
                assert!(answer["result"]["messageId"].is_string(), "{answer}");
                wire.until_idle(&id).await
            };
            assert_eq!(stop, "cancelled", "v{version} {script}");
            // What the handler tried to send after the cancellation was refused with the
            // cancellation's error, and nothing of the turn followed its stop.
            if script == "wait then end" {
                let kinds = Wire::kinds(&wire.take_updates());
                assert!(
                    !kinds.iter().any(|k| k == "agent_message_chunk"),
                    "v{version}: {kinds:?}"
                );
                until_event(&events, "late:cancelled").await;
            }
            // The next prompt is a normal turn again.
            assert_eq!(
                wire.prompt(&id, "hello").await,
                "end_turn",
                "v{version} {script}"
            );
        }
    }
}

#[tokio::test]
async fn prompts_wait_for_the_running_turn_and_cancel_releases_them() {
    for version in [1u16, 2] {
        let (server, mut started) = server();
        let (mut wire, id) = Wire::with_session(&server, version, "/work").await;
        let running = wire.start_prompt(&id, "wait").await;
        started.recv().await.unwrap();
        let held = wire.start_prompt(&id, "hello").await;
        // The held prompt is not answered while the turn runs.
        let quiet = wire.next_within(Duration::from_millis(150)).await;
        assert!(
            quiet.as_ref().is_none_or(|m| m["id"] != held),
            "v{version}: answered while held: {quiet:?}"
        );
        wire.seen.extend(quiet);
        wire.notify("session/cancel", json!({"sessionId": id}))
            .await;
        let answer = wire.response(held).await;
        assert_eq!(
            answer["error"]["code"], -32800,
            "v{version}: {answer} {:?}",
            wire.seen
        );
        let answer = wire.response(running).await;
        if version == 1 {
            assert_eq!(answer["result"]["stopReason"], "cancelled");
        } else {
            assert_eq!(wire.until_idle(&id).await, "cancelled");
        }
        // A prompt sent after the cancellation is not covered by it.
        assert_eq!(wire.prompt(&id, "hello").await, "end_turn");
    }
}

#[tokio::test]
async fn a_held_prompt_runs_once_the_turn_before_it_ended() {
    for version in [1u16, 2] {
        let (_running, mut wire, id, first, permission) = asking_permission(version).await;
        let second = wire.start_prompt(&id, "hello").await;
        let quiet = wire.next_within(Duration::from_millis(150)).await;
        assert!(quiet.is_none(), "v{version}: {quiet:?}");
        wire.send(json!({"jsonrpc":"2.0","id":permission["id"],"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}))
            .await;
        let answer = wire.response(first).await;
        assert!(answer.get("result").is_some(), "{answer}");
        if version == 2 {
            wire.until_idle(&id).await;
        }
        let answer = wire.response(second).await;
        assert!(answer.get("result").is_some(), "{answer}");
        if version == 2 {
            assert_eq!(wire.until_idle(&id).await, "end_turn");
        }
        let texts: Vec<String> = wire
            .take_updates()
            .iter()
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
            .collect();
        assert!(texts[0].starts_with("allowed"), "{texts:?}");
        assert!(texts.contains(&"hello".to_owned()), "{texts:?}");
    }
}

#[tokio::test]
async fn v2_reports_requires_action_while_it_waits_for_the_user() {
    let (server, mut started) = server();
    let (mut wire, _) = Wire::start(&server, 2, json!({})).await;
    wire.respond_with(|request| {
        (request["method"] == "session/request_permission")
            .then(|| json!({"outcome": {"outcome": "selected", "optionId": "reject"}}))
    });
    let id = wire.new_session("/work").await;
    wire.start_prompt(&id, "permission").await;
    started.recv().await.unwrap();
    assert_eq!(wire.until_idle(&id).await, "end_turn");
    let kinds: Vec<String> = wire
        .seen
        .iter()
        .filter_map(|m| match m["method"].as_str() {
            Some("session/update") => Some(Wire::kinds(&[m["params"]["update"].clone()]).remove(0)),
            Some(method) => Some(method.to_owned()),
            None => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "user_message",
            "state_update:running",
            "tool_call_update",
            "state_update:requires_action",
            "session/request_permission",
            "state_update:running",
            "agent_message_chunk",
            // The handler left its tool call open: the runtime closes it before the end.
            "tool_call_update",
            "state_update:idle"
        ]
    );
    let updates = wire.take_updates();
    let text = updates[5]["content"]["text"].clone();
    assert!(text.as_str().unwrap().starts_with("not allowed"), "{text}");
    assert_eq!(updates[6]["status"], "failed");
    assert_eq!(updates[6]["toolCallId"], updates[2]["toolCallId"]);
}

#[tokio::test]
async fn a_cancelled_turn_stops_waiting_for_permission_and_cancels_the_request() {
    for version in [1u16, 2] {
        let (_running, mut wire, id, prompt, permission) = asking_permission(version).await;
        wire.notify("session/cancel", json!({"sessionId": id}))
            .await;
        let cancel = wire.until(|m| m["method"] == "$/cancel_request").await;
        assert_eq!(cancel["params"]["requestId"], permission["id"]);
        let stop = if version == 1 {
            wire.response(prompt).await["result"]["stopReason"].clone()
        } else {
            wire.until_idle(&id).await
        };
        assert_eq!(stop, "cancelled", "v{version}");
        // The cancelled request was never an approval.
        let texts: Vec<Value> = wire
            .take_updates()
            .iter()
            .filter_map(|u| u["content"]["text"].as_str().map(|t| json!(t)))
            .collect();
        assert!(
            texts
                .iter()
                .all(|t| !t.as_str().unwrap().starts_with("allowed")),
            "{texts:?}"
        );
    }
}

#[tokio::test]
async fn errors_of_the_handler_end_the_turn_by_the_rules_of_each_version() {
    let (server, _) = server();
    let (mut v1, id) = Wire::with_session(&server, 1, "/work").await;
    let answer = v1.call_prompt(&id, "fail").await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");

    let (mut v2, id) = Wire::with_session(&server, 2, "/work").await;
    // Inserted, so the response succeeds; the failure is the error stop reason.
    let answer = v2.call_prompt(&id, "fail").await;
    assert!(answer["result"]["messageId"].is_string(), "{answer}");
    let stop = v2.until_idle(&id).await;
    assert_eq!(stop, "error");
    let idle = v2.seen.last().unwrap()["params"]["update"].clone();
    assert_eq!(idle["error"]["code"], -32603, "{idle}");
    // An empty prompt is refused before insertion.
    v2.refused(
        "session/prompt",
        json!({"sessionId": id, "prompt": []}),
        -32602,
    )
    .await;
}

#[tokio::test]
async fn a_v2_retry_with_the_same_idempotency_key_inserts_nothing() {
    let (server, _) = server();
    let (mut wire, id) = Wire::with_session(&server, 2, "/work").await;
    let mut params = Wire::prompt_params(&id, "hello");
    params["idempotencyKey"] = json!("key-1");
    let first = wire.ok("session/prompt", params.clone()).await;
    wire.until_idle(&id).await;
    let retry = wire.ok("session/prompt", params.clone()).await;
    assert_eq!(first["messageId"], retry["messageId"]);
    assert!(wire.next_within(Duration::from_millis(100)).await.is_none());
    // Also on a new connection to the same agent.
    let (mut other, _) = Wire::start(&server, 2, json!({})).await;
    other
        .ok("session/resume", json!({"sessionId": id, "cwd": "/work"}))
        .await;
    let again = other.ok("session/prompt", params.clone()).await;
    assert_eq!(first["messageId"], again["messageId"]);
    // The history holds one user message.
    let users = server
        .sessions()
        .history(&id)
        .await
        .unwrap()
        .iter()
        .filter(|entry| {
            matches!(
                entry,
                acptk_runtime::agent::HistoryEntry::V2(
                    acptk_schema::v2::ReplayableUpdate::UserMessage(_)
                )
            )
        })
        .count();
    assert_eq!(users, 1);
    // A key that is not 1 to 255 characters is refused.
    params["idempotencyKey"] = json!("k".repeat(256));
    other.refused("session/prompt", params, -32602).await;
}

#[tokio::test]
async fn v2_tool_calls_that_advertise_cancel_can_be_cancelled_by_the_client() {
    let (agent, _) = TestAgent::new();
    let (tx, mut started) = mpsc::unbounded_channel();
    *agent.started.lock().unwrap() = Some(tx);
    let events = agent.events.clone();
    let server = AgentServer::new(agent);
    let (mut wire, id) = Wire::with_session(&server, 2, "/work").await;
    // Unknown: refused.
    let params = json!({"sessionId": id, "toolCallId": "call_c"});
    assert_eq!(
        wire.error("tool_call/cancel", params.clone()).await.0,
        -32602
    );
    wire.ok(
        "session/prompt",
        Wire::prompt_params(&id, "cancellable tool"),
    )
    .await;
    started.recv().await.unwrap();
    wire.ok("tool_call/cancel", params.clone()).await;
    assert_eq!(wire.until_idle(&id).await, "end_turn");
    let updates = wire.take_updates();
    let statuses: Vec<&Value> = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update")
        .map(|u| &u["status"])
        .collect();
    assert_eq!(statuses, [&json!("in_progress"), &json!("cancelled")]);
    assert_eq!(*events.lock().unwrap(), ["cancel_tool_call:call_c"]);
    // Final now: refused.
    assert_eq!(wire.error("tool_call/cancel", params).await.0, -32602);
    let terminal = json!({"sessionId": id, "terminalId": "t1"});
    assert_eq!(wire.error("terminal/cancel", terminal).await.0, -32602);
}
