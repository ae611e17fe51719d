//! History and replay: `session/load` (v1) and `session/resume` with replay (v2) replay the
//! conversation and never a notice; notices sent after a reconnect are live; a notice that a
//! misbehaving agent sends during a replay is ignored and counted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::AgentServer;
use acptk_runtime::client::transcript::Role;
use acptk_runtime::{Notice, ProtocolVersion};
use common::{TestAgent, client, connect, raw_agent, raw_agent_answering, until};
use serde_json::json;

fn condition() -> Notice {
    Notice::warning("MCP server db unavailable").description("still failing")
}

/// A `notice` session update.
fn notice(severity: &str, title: &str) -> serde_json::Value {
    json!({"sessionUpdate": "notice", "severity": severity, "title": title})
}

#[tokio::test]
async fn replay_rebuilds_the_conversation_without_notices_and_the_notice_is_sent_again() {
    for (version, notices) in [
        (ProtocolVersion::V1, true),
        (ProtocolVersion::V1, false),
        (ProtocolVersion::V2, true),
    ] {
        let label = format!("v{version} notices={notices}");
        let (mut agent, mut opened) = TestAgent::new();
        agent.notice_on_open = Some(condition());
        let server = AgentServer::new(agent);

        // First connection: the condition is reported, one turn runs.
        let first = connect(&server, client(version, notices)).await;
        let id = first.new_session("/tmp", &[]).await.unwrap();
        opened.recv().await.unwrap();
        first.prompt(&id, "hello").await.unwrap();
        let before = first.session_transcript(&id).unwrap();

        // Reconnect: a new connection to the same agent loads the session.
        let second = connect(&server, client(version, notices)).await;
        second.load_session(&id, "/tmp", &[]).await.unwrap();
        opened.recv().await.unwrap();
        let replayed = second.session_transcript(&id).unwrap();
        let user: Vec<&str> = replayed
            .messages(Role::User)
            .map(|m| m.text.as_str())
            .collect();
        let agent_text: Vec<&str> = replayed
            .messages(Role::Agent)
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(user, ["hello"], "{label}");
        if notices {
            // The notice was never history: the replay holds the conversation only.
            assert_eq!(agent_text, ["echo: hello"], "{label}");
            assert_eq!(replayed.entries.len(), 2, "{label}: {replayed:?}");
            if version == ProtocolVersion::V1 {
                // (A v2 live transcript may also hold the echo of the user's message.)
                assert_eq!(before.entries.len(), replayed.entries.len(), "{label}");
            }
            // The condition still holds: the notice arrives again, live, after the replay.
            until(&second, |c| {
                c.with_notice_center(|center| center.entry_count(&id)) == 1
            })
            .await;
        } else {
            // Without the capability the fallback message is conversation, so it is replayed;
            // the reconnect adds a fresh fallback message after the replay.
            let fallback = condition().fallback_text();
            assert_eq!(
                agent_text[..2],
                [fallback.as_str(), "echo: hello"],
                "{label}"
            );
            until(&second, |c| {
                c.session_transcript(&id)
                    .is_some_and(|t| t.messages(Role::Agent).count() == 3)
            })
            .await;
            assert_eq!(
                second.with_notice_center(|center| center.entry_count(&id)),
                0
            );
        }
        assert_eq!(second.violations(), Default::default(), "{label}");
    }
}

/// A misbehaving v1 agent: a notice during the replay of `session/load`.
#[tokio::test]
async fn v1_notice_during_replay_is_ignored_and_counted() {
    let result = json!({"protocolVersion":1,"agentCapabilities":{"loadSession":true}});
    let (client, mut agent, init) =
        raw_agent_answering(client(ProtocolVersion::V1, true), result).await;
    assert_eq!(
        init["params"]["clientCapabilities"]["session"]["notices"],
        json!({})
    );

    let loading = {
        let client = client.clone();
        tokio::spawn(async move { client.load_session("s1", "/tmp", &[]).await })
    };
    let load = agent.recv_some().await;
    assert_eq!(load["method"], "session/load");
    let update = |update: serde_json::Value| json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":update}});
    agent.send_json(update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"old reply"}}))).await;
    agent
        .send_json(update(notice("warning", "during replay")))
        .await;
    agent.reply(&load, json!({})).await;
    agent.send_json(update(notice("info", "live"))).await;
    loading.await.unwrap().unwrap();

    until(&client, |c| {
        c.with_notice_center(|center| center.entry_count("s1")) == 1
    })
    .await;
    assert_eq!(client.violations().notices_during_replay, 1);
    let titles: Vec<String> = client.with_notice_center(|center| {
        center
            .entries("s1")
            .map(|entry| entry.title().to_owned())
            .collect()
    });
    assert_eq!(titles, ["live"]);
    let transcript = client.session_transcript("s1").unwrap();
    let texts: Vec<&str> = transcript
        .messages(Role::Agent)
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(texts, ["old reply"]);
}

/// A misbehaving v2 agent: a notice before `replay_complete`.
#[tokio::test]
async fn v2_notice_before_replay_complete_is_ignored_and_counted() {
    let (client, mut agent, _) = raw_agent(client(ProtocolVersion::V2, true), 2).await;

    let loading = {
        let client = client.clone();
        tokio::spawn(async move { client.load_session("s1", "/tmp", &[]).await })
    };
    let resume = agent.recv_some().await;
    assert_eq!(resume["method"], "session/resume");
    assert_eq!(resume["params"]["replayFrom"], json!({"type":"start"}));
    let update = |update: serde_json::Value| json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":update}});
    agent.send_json(update(json!({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"old reply"}}))).await;
    agent
        .send_json(update(notice("error", "during replay")))
        .await;
    agent
        .send_json(update(json!({"sessionUpdate":"replay_complete"})))
        .await;
    agent.send_json(update(notice("_acme", "live"))).await;
    agent.reply(&resume, json!({})).await;
    loading.await.unwrap().unwrap();

    assert_eq!(client.violations().notices_during_replay, 1);
    assert_eq!(
        client.with_notice_center(|center| center.entry_count("s1")),
        1
    );
    let transcript = client.session_transcript("s1").unwrap();
    assert_eq!(transcript.messages(Role::Agent).count(), 1);
}

/// A v1 client without `session.notices` counts a notice it receives anyway.
#[tokio::test]
async fn v1_notice_without_the_capability_is_counted() {
    let (client, mut agent, init) = raw_agent(client(ProtocolVersion::V1, false), 1).await;
    assert!(
        init["params"]["clientCapabilities"]
            .get("session")
            .is_none()
    );
    agent.send_json(json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"info","title":"x"}}})).await;
    // An answer to a request of ours comes after the notice, so it has been handled by then.
    let asking = {
        let client = client.clone();
        tokio::spawn(async move { client.new_session("/tmp", &[]).await })
    };
    agent.answer_next(json!({"sessionId": "s2"})).await;
    asking.await.unwrap().unwrap();
    assert_eq!(client.violations().unadvertised_notices, 1);
    assert_eq!(
        client.with_notice_center(|center| center.entry_count("s1")),
        0
    );
}
