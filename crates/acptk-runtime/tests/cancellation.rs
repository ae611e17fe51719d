//! Cancellation as a property: a turn made of random steps (streamed text, a permission
//! request, a request for a client file, a tool call left open, text sent while ignoring
//! errors), cancelled at a random point (while text streams, while a permission request or a
//! file read waits for the client, or while the handler ignores everything), always ends with
//! exactly one `cancelled` stop, sends nothing of the turn after it, leaves no tool call open,
//! and never announces `requires_action` without the request it is for.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use acptk_runtime::agent::{AgentServer, ToolCall};
use acptk_runtime::prelude::*;
use common::wire::Wire;
use proptest::prelude::*;
use serde_json::{Value, json};

/// One step of the handler.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// `send_text(..)?`
    Text,
    /// Text, ignoring the error (a handler that does not stop).
    TextIgnoringErrors,
    /// A tool call, a permission request for it, and its final status.
    Permission,
    /// A request for the client (v1: `fs/read_text_file`; v2: a form elicitation).
    ClientRequest,
    /// A tool call announced and never finished.
    OpenToolCall,
}

/// How the handler ends when nothing stops it.
#[derive(Debug, Clone, Copy)]
enum Last {
    /// Hangs, ignoring the cancellation.
    Hang,
    /// Keeps trying to send, ignoring every error, for a while.
    Spin,
}

struct Scripted;

impl Agent for Scripted {
    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let (steps, last) = prompt
            .text
            .split_once('|')
            .unwrap_or((&prompt.text, "hang"));
        for step in steps.chars() {
            match step {
                't' => session.send_text("chunk ").await?,
                'i' => {
                    let _ = session.send_text("ignored ").await;
                }
                'p' => {
                    let call = session.start_tool_call(ToolCall::new("Edit")).await?;
                    if call.request_permission().await?.allowed() {
                        call.complete("done").await?;
                    } else {
                        call.fail("refused").await?;
                    }
                }
                'r' => {
                    if session.protocol_version() == ProtocolVersion::V1 {
                        session.read_text_file("/work/a.txt", None, None).await?;
                    } else {
                        use acptk_runtime::acptk_schema::v2;
                        let request = v2::CreateElicitationRequest::form(
                            "Name?",
                            v2::ElicitationSessionScope::new(session.id()),
                            v2::ElicitationSchema::new(BTreeMap::new()),
                        );
                        session.elicit(&request).await?;
                    }
                }
                'o' => {
                    session.start_tool_call(ToolCall::new("Open")).await?;
                }
                _ => {}
            }
        }
        if last == "spin" {
            for _ in 0..200 {
                let _ = session.send_text("spin ").await;
                let _ = session.start_tool_call(ToolCall::new("Late")).await;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        std::future::pending::<()>().await;
        Ok(StopReason::EndTurn)
    }
}

use acptk_runtime::ProtocolVersion;

fn script(steps: &[Step], last: Last) -> String {
    let mut text: String = steps
        .iter()
        .map(|step| match step {
            Step::Text => 't',
            Step::TextIgnoringErrors => 'i',
            Step::Permission => 'p',
            Step::ClientRequest => 'r',
            Step::OpenToolCall => 'o',
        })
        .collect();
    text.push('|');
    text.push_str(match last {
        Last::Hang => "hang",
        Last::Spin => "spin",
    });
    text
}

/// The answer a client gives to the agent's request `method` before the cancellation.
fn answer(method: &str) -> Value {
    match method {
        "session/request_permission" => {
            json!({"outcome": {"outcome": "selected", "optionId": "allow"}})
        }
        "fs/read_text_file" => json!({"content": "text"}),
        _ => json!({"action": "decline"}),
    }
}

/// What was seen of one cancelled turn.
struct Run {
    /// Everything the agent sent after the prompt, up to and including the stop.
    before_stop: Vec<Value>,
    /// The stops (v1 prompt answers, v2 idle states).
    stops: Vec<Value>,
    /// What the agent sent after the stop.
    after_stop: Vec<Value>,
}

async fn run_one(version: u16, text: &str, cancel_at: usize) -> Run {
    let server = AgentServer::new(Scripted);
    let capabilities = if version == 1 {
        json!({"fs": {"readTextFile": true}})
    } else {
        json!({"elicitation": {"form": {}}})
    };
    let (mut wire, _) = Wire::start(&server, version, capabilities).await;
    let id = wire.new_session("/work").await;
    let prompt = wire.start_prompt(&id, text).await;
    let is_stop = |message: &Value| {
        if version == 1 {
            message["id"] == prompt
        } else {
            message["params"]["update"]["sessionUpdate"] == "state_update"
                && message["params"]["update"]["state"] == "idle"
        }
    };
    let mut before_stop = Vec::new();
    let mut stops = Vec::new();
    let mut unanswered = Vec::new();
    let mut cancelled = false;
    let mut count = 0;
    loop {
        let message = if cancelled {
            wire.next().await
        } else {
            match wire.next_within(Duration::from_millis(100)).await {
                Some(message) => message,
                None => {
                    // The handler waits (hangs, or waits for an answer): cancel now.
                    wire.notify("session/cancel", json!({"sessionId": id}))
                        .await;
                    cancelled = true;
                    continue;
                }
            }
        };
        if is_stop(&message) {
            stops.push(message.clone());
            before_stop.push(message);
            break;
        }
        if message["id"] == prompt {
            // The v2 answer to the prompt (its messageId), not a stop.
            before_stop.push(message);
            continue;
        }
        count += 1;
        let request = message.get("method").is_some() && message.get("id").is_some();
        let cancel_here = !cancelled && count == cancel_at;
        if cancel_here {
            wire.notify("session/cancel", json!({"sessionId": id}))
                .await;
            cancelled = true;
        }
        if request {
            if cancelled {
                unanswered.push(message.clone());
            } else {
                let result = answer(message["method"].as_str().unwrap());
                wire.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": result}))
                    .await;
            }
        }
        before_stop.push(message);
    }
    // The client answers what was left, late (a cancelled permission as the protocol says).
    for request in unanswered {
        let result = match request["method"].as_str().unwrap() {
            "session/request_permission" => json!({"outcome": {"outcome": "cancelled"}}),
            other => answer(other),
        };
        wire.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await;
    }
    let mut after_stop = Vec::new();
    while let Some(message) = wire.next_within(Duration::from_millis(60)).await {
        if is_stop(&message) {
            stops.push(message.clone());
        }
        after_stop.push(message);
    }
    Run {
        before_stop,
        stops,
        after_stop,
    }
}

fn check(version: u16, run: &Run) -> Result<(), TestCaseError> {
    prop_assert_eq!(run.stops.len(), 1, "one stop: {:?}", run.stops);
    let stop = &run.stops[0];
    let reason = if version == 1 {
        &stop["result"]["stopReason"]
    } else {
        &stop["params"]["update"]["stopReason"]
    };
    prop_assert_eq!(reason, "cancelled", "{}", stop);
    prop_assert!(
        run.after_stop.is_empty(),
        "{} messages sent after the stop, the first: {}",
        run.after_stop.len(),
        run.after_stop.first().unwrap_or(&Value::Null)
    );
    // Every tool call announced before the stop was finished before it.
    let mut open: Vec<String> = Vec::new();
    for message in &run.before_stop {
        let update = &message["params"]["update"];
        let kind = update["sessionUpdate"].as_str().unwrap_or_default();
        if kind != "tool_call" && kind != "tool_call_update" {
            continue;
        }
        let call = update["toolCallId"].as_str().unwrap().to_owned();
        let status = update["status"].as_str().unwrap_or("pending");
        let finished = matches!(status, "completed" | "failed" | "cancelled");
        open.retain(|id| *id != call);
        if !finished {
            open.push(call);
        }
    }
    prop_assert!(open.is_empty(), "left open: {:?}", open);
    // A `requires_action` is always followed by the request it is for.
    for (index, message) in run.before_stop.iter().enumerate() {
        if message["params"]["update"]["state"] == "requires_action" {
            let next_request = run.before_stop[index + 1..]
                .iter()
                .find(|m| m.get("method").is_some() && m.get("id").is_some());
            prop_assert!(
                next_request.is_some(),
                "requires_action without a request: {:?}",
                run.before_stop
            );
        }
    }
    Ok(())
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Text),
        Just(Step::TextIgnoringErrors),
        Just(Step::Permission),
        Just(Step::ClientRequest),
        Just(Step::OpenToolCall),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_cancel_at_any_point_ends_the_turn_once_and_for_good(
        version in 1u16..=2,
        steps in proptest::collection::vec(step(), 1..7),
        last in prop_oneof![Just(Last::Hang), Just(Last::Spin)],
        cancel_at in 1usize..12,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let text = script(&steps, last);
        let run = runtime.block_on(run_one(version, &text, cancel_at));
        check(version, &run)?;
    }
}
