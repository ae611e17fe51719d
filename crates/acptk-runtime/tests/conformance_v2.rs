//! The three requirements of the public v2 conformance kit that the runtime once failed, each
//! checked on the wire: deleting an unknown session succeeds silently (another principal's
//! session included, which is neither touched nor revealed); everything the agent sends for a
//! session resumed with a replay comes before the resume response (the agent's own set-up
//! updates included); a replayed streamed message is announced whole, with empty content,
//! before its chunks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use acptk_runtime::agent::{AgentServer, CommandSpec, Principal};
use acptk_runtime::prelude::*;
use common::wire::Wire;
use serde_json::{Value, json};

/// Streams its reply in two chunks and offers a command in every session it opens.
struct Streamer;

impl Agent for Streamer {
    async fn session_opened(&self, session: Session, _setup: SessionSetup) {
        let _ = session
            .set_commands(&[CommandSpec::new("count", "Count")])
            .await;
    }

    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        session.send_thought("thinking").await?;
        session.send_text("one ").await?;
        session.send_text("two").await?;
        Ok(StopReason::EndTurn)
    }
}

#[tokio::test]
async fn deleting_an_unknown_session_succeeds_silently_in_both_versions() {
    for version in [1u16, 2] {
        let server = AgentServer::new(Streamer);
        let mut alice = Wire::start_as(&server, version, Principal::named("alice")).await;
        let theirs = alice.new_session("/work").await;
        let mut bob = Wire::start_as(&server, version, Principal::named("bob")).await;
        let never = bob
            .ok("session/delete", json!({"sessionId": "sess_never"}))
            .await;
        assert_eq!(never, json!({}), "v{version}");
        // Another principal's session answers the same, and is still there.
        let other = bob.ok("session/delete", json!({"sessionId": theirs})).await;
        assert_eq!(other, never, "v{version}");
        assert!(server.sessions().meta(&theirs).await.unwrap().is_some());
        assert_eq!(alice.prompt(&theirs, "hi").await, "end_turn");
    }
}

#[tokio::test]
async fn everything_for_a_resumed_session_comes_before_the_resume_response() {
    let server = AgentServer::new(Streamer);
    let (mut first, id) = Wire::with_session(&server, 2, "/work").await;
    first.prompt(&id, "hello").await;

    let (mut second, _) = Wire::start(&server, 2, json!({})).await;
    let resume = second
        .request(
            "session/resume",
            json!({"sessionId": id, "cwd": "/work", "replayFrom": {"type": "start"}}),
        )
        .await;
    let mut before: Vec<Value> = Vec::new();
    loop {
        let message = second.next().await;
        if message["id"] == resume {
            assert!(message["result"].is_object(), "{message}");
            break;
        }
        before.push(message["params"]["update"].clone());
    }
    let kinds = Wire::kinds(&before);
    let complete = kinds.iter().position(|k| k == "replay_complete").unwrap();
    // The agent's set-up update is live: after the replay, before the response.
    let commands = kinds
        .iter()
        .position(|k| k == "available_commands_update")
        .unwrap_or_else(|| panic!("no commands before the response: {kinds:?}"));
    assert!(commands > complete, "{kinds:?}");
    let after = second.next_within(Duration::from_millis(200)).await;
    assert!(after.is_none(), "sent after the resume response: {after:?}");
}

#[tokio::test]
async fn a_replayed_streamed_message_is_announced_whole_before_its_chunks() {
    let server = AgentServer::new(Streamer);
    let (mut first, id) = Wire::with_session(&server, 2, "/work").await;
    first.prompt(&id, "hello").await;
    first.prompt(&id, "again").await;

    let (mut second, _) = Wire::start(&server, 2, json!({})).await;
    second
        .ok(
            "session/resume",
            json!({"sessionId": id, "cwd": "/work", "replayFrom": {"type": "start"}}),
        )
        .await;
    let replayed = second.take_updates();
    let mut chunks = 0;
    for (index, update) in replayed.iter().enumerate() {
        let kind = update["sessionUpdate"].as_str().unwrap();
        let Some(whole) = kind.strip_suffix("_chunk") else {
            continue;
        };
        chunks += 1;
        let primed = replayed[..index].iter().any(|prior| {
            prior["sessionUpdate"] == whole
                && prior["messageId"] == update["messageId"]
                && prior["content"] == json!([])
        });
        assert!(primed, "{kind} #{index} not announced first: {replayed:?}");
    }
    // Two turns of one thought chunk and two text chunks each; one announcement per message.
    assert_eq!(chunks, 6, "{replayed:?}");
    let announced = replayed
        .iter()
        .filter(|u| u["content"] == json!([]))
        .count();
    assert_eq!(announced, 4, "{replayed:?}");
}
