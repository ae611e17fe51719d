//! What the runtime answers by itself for the unstable session methods (cargo feature
//! `unstable`), in both versions: `session/fork` copies the history to a new id,
//! `session/archive` / `session/unarchive` hide and show sessions in `session/list`,
//! `session/set_title` stores the title that `session/list` reports, `session/status` tells
//! open from saved; and what an agent's handlers add: `session/options` with initial values,
//! providers, `auth/status`, `mcp/message` notifications.
#![cfg(feature = "unstable")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod unstable_support;

use acptk_runtime::agent::{AgentServer, FileStore};
use common::TestAgent;
use common::wire::Wire;
use serde_json::{Value, json};
use unstable_support::FullAgent;

/// The replayed updates of `session` (v1 `session/load`, v2 `session/resume` from the
/// start), as `sessionUpdate` kinds with their text.
async fn replay(wire: &mut Wire, session: &str) -> Vec<String> {
    wire.take_updates();
    if wire.version == 1 {
        wire.ok(
            "session/load",
            json!({"sessionId": session, "cwd": "/work", "mcpServers": []}),
        )
        .await;
    } else {
        wire.ok(
            "session/resume",
            json!({"sessionId": session, "cwd": "/work", "replayFrom": {"type": "start"}}),
        )
        .await;
    }
    wire.take_updates()
        .iter()
        .filter(|update| {
            !matches!(
                update["sessionUpdate"].as_str(),
                Some("state_update" | "replay_complete")
            )
        })
        .map(|update| {
            format!(
                "{}:{}",
                update["sessionUpdate"].as_str().unwrap_or_default(),
                update["content"]["text"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[tokio::test]
async fn a_fork_has_a_copy_of_the_history_under_a_new_id() {
    let server = AgentServer::new(TestAgent::default());
    for version in [1u16, 2] {
        let (mut wire, source) = Wire::with_session(&server, version, "/work").await;
        wire.prompt(&source, "first").await;
        let forked = wire
            .ok(
                "session/fork",
                json!({"sessionId": source, "cwd": "/work", "mcpServers": []}),
            )
            .await;
        let fork = forked["sessionId"].as_str().unwrap().to_owned();
        assert_ne!(fork, source);
        // The fork is open here: it can be prompted, and only it changes.
        wire.prompt(&fork, "second").await;
        let source_history = replay(&mut wire, &source).await;
        let fork_history = replay(&mut wire, &fork).await;
        assert!(
            source_history.iter().any(|entry| entry.contains("first")),
            "v{version}: {source_history:?}"
        );
        assert!(
            !source_history.iter().any(|entry| entry.contains("second")),
            "v{version}: the source changed: {source_history:?}"
        );
        assert_eq!(
            fork_history[..source_history.len()],
            source_history[..],
            "v{version}"
        );
        assert!(
            fork_history.iter().any(|entry| entry.contains("second")),
            "v{version}: {fork_history:?}"
        );
        // Both are listed.
        let ids = wire.listed(json!({})).await;
        assert!(ids.contains(&source) && ids.contains(&fork), "{ids:?}");
        // An unknown source is a missing resource; a cursor this agent never announced is
        // refused rather than forking everything.
        let message = wire
            .refused(
                "session/fork",
                json!({"sessionId": "sess_nope", "cwd": "/work", "mcpServers": []}),
                -32002,
            )
            .await;
        assert!(message.contains("sess_nope"), "{message}");
        wire.refused(
            "session/fork",
            json!({"sessionId": source, "cwd": "/work", "mcpServers": [], "cursorId": "c1"}),
            -32602,
        )
        .await;
    }
}

#[tokio::test]
async fn a_fork_keeps_the_current_mode_and_options_of_its_source() {
    let server = AgentServer::new(FullAgent::default());
    let (mut wire, source) = Wire::with_session(&server, 1, "/work").await;
    wire.ok(
        "session/set_mode",
        json!({"sessionId": source, "modeId": "code"}),
    )
    .await;
    let forked = wire
        .ok(
            "session/fork",
            json!({"sessionId": source, "cwd": "/work", "mcpServers": []}),
        )
        .await;
    assert_eq!(forked["modes"]["currentModeId"], "code", "{forked}");
}

#[tokio::test]
async fn archived_sessions_leave_the_default_list_and_come_back() {
    let server = AgentServer::new(TestAgent::default());
    for version in [1u16, 2] {
        let (mut wire, kept) = Wire::with_session(&server, version, "/archive").await;
        let hidden = wire.new_session("/archive").await;
        let mine = json!({"cwd": "/archive"});
        wire.ok("session/archive", json!({"sessionId": hidden}))
            .await;
        // Twice is fine.
        wire.ok("session/archive", json!({"sessionId": hidden}))
            .await;
        assert_eq!(wire.listed(mine.clone()).await, vec![kept.clone()]);
        let only = wire
            .listed(json!({"cwd": "/archive", "archived": "only"}))
            .await;
        assert_eq!(only, vec![hidden.clone()]);
        let mut all = wire
            .listed(json!({"cwd": "/archive", "archived": "include"}))
            .await;
        all.sort();
        let mut expected = vec![kept.clone(), hidden.clone()];
        expected.sort();
        assert_eq!(all, expected);
        // Each listed session says whether it is archived.
        let result = wire
            .ok(
                "session/list",
                json!({"cwd": "/archive", "archived": "include"}),
            )
            .await;
        for info in result["sessions"].as_array().unwrap() {
            assert_eq!(info["archived"], info["sessionId"] == hidden, "{info}");
        }
        // Archiving closed it on this connection.
        wire.refused("session/prompt", Wire::prompt_params(&hidden, "hi"), -32002)
            .await;
        wire.ok("session/unarchive", json!({"sessionId": hidden}))
            .await;
        wire.ok("session/unarchive", json!({"sessionId": hidden}))
            .await;
        let mut back = wire.listed(mine).await;
        back.sort();
        assert_eq!(back, expected);
        wire.refused("session/archive", json!({"sessionId": "sess_nope"}), -32002)
            .await;
        wire.refused(
            "session/list",
            json!({"cwd": "/archive", "archived": "_sometimes"}),
            -32602,
        )
        .await;
        // Delete the two so the next version's listing starts empty.
        for id in [kept, hidden] {
            wire.ok("session/delete", json!({"sessionId": id})).await;
        }
    }
}

#[tokio::test]
async fn titles_and_archive_flags_survive_a_restart() {
    let scratch = tempfile::tempdir().unwrap();
    let open =
        || AgentServer::new(TestAgent::default()).store(FileStore::open(scratch.path()).unwrap());
    let server = open();
    let (mut wire, session) = Wire::with_session(&server, 2, "/work").await;
    let stored = wire
        .ok(
            "session/set_title",
            json!({"sessionId": session, "title": "  Investigate the timeout  "}),
        )
        .await;
    assert_eq!(stored["title"], "Investigate the timeout");
    wire.ok("session/archive", json!({"sessionId": session}))
        .await;
    drop(wire);
    drop(server);
    let server = open();
    let (mut wire, _) = Wire::start(&server, 2, json!({})).await;
    assert!(wire.listed(json!({})).await.is_empty());
    let result = wire.ok("session/list", json!({"archived": "only"})).await;
    assert_eq!(result["sessions"][0]["title"], "Investigate the timeout");
    assert_eq!(result["sessions"][0]["archived"], true);
}

#[tokio::test]
async fn a_title_is_stored_and_listed_and_an_empty_one_is_refused() {
    let server = AgentServer::new(TestAgent::default());
    for version in [1u16, 2] {
        let (mut wire, session) = Wire::with_session(&server, version, "/titles").await;
        let stored = wire
            .ok(
                "session/set_title",
                json!({"sessionId": session, "title": "Plan the release"}),
            )
            .await;
        assert_eq!(stored["title"], "Plan the release");
        let list = wire.ok("session/list", json!({"cwd": "/titles"})).await;
        assert_eq!(list["sessions"][0]["title"], "Plan the release", "{list}");
        wire.refused(
            "session/set_title",
            json!({"sessionId": session, "title": "   "}),
            -32602,
        )
        .await;
        wire.refused(
            "session/set_title",
            json!({"sessionId": "sess_nope", "title": "x"}),
            -32002,
        )
        .await;
        wire.ok("session/delete", json!({"sessionId": session}))
            .await;
    }
}

#[tokio::test]
async fn status_tells_open_from_saved_and_changes_nothing() {
    let server = AgentServer::new(TestAgent::default());
    for version in [1u16, 2] {
        let (mut wire, session) = Wire::with_session(&server, version, "/work").await;
        let status = wire
            .ok("session/status", json!({"sessionId": session}))
            .await;
        assert_eq!(status["status"], "open", "{status}");
        if version == 2 {
            assert_eq!(status["state"]["state"], "idle", "{status}");
        }
        wire.ok("session/close", json!({"sessionId": session}))
            .await;
        let status = wire
            .ok("session/status", json!({"sessionId": session}))
            .await;
        assert_eq!(status["status"], "saved", "{status}");
        assert!(status.get("state").is_none(), "{status}");
        // Asking did not attach the session to this connection.
        wire.refused(
            "session/prompt",
            Wire::prompt_params(&session, "hi"),
            -32002,
        )
        .await;
        let answer = wire
            .call("session/status", json!({"sessionId": "sess_nope"}))
            .await;
        assert_eq!(answer["error"]["code"], -32002, "{answer}");
        assert_eq!(answer["error"]["data"]["sessionId"], "sess_nope");
    }
}

/// Whether a config option (v1 `id`, v2 `configId`) is the `fast` option.
fn is_fast(option: &Value) -> bool {
    option["id"] == "fast" || option["configId"] == "fast"
}

#[tokio::test]
async fn session_options_and_initial_values_follow_the_agent() {
    let agent = FullAgent::default();
    let events = agent.events.clone();
    let server = AgentServer::new(agent);
    for version in [1u16, 2] {
        let (mut wire, _) = Wire::start(&server, version, json!({})).await;
        let options = wire.ok("session/options", json!({"cwd": "/opts"})).await;
        let fast = options["configOptions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|option| is_fast(option))
            .cloned();
        assert!(fast.is_some(), "v{version}: {options}");
        // Nothing was created.
        assert!(wire.listed(json!({"cwd": "/opts"})).await.is_empty());
        // Initial values are applied in order; an unknown option is skipped.
        let created = wire
            .ok(
                "session/new",
                json!({"cwd": "/opts", "mcpServers": [], "configOptions": [
                    {"configId": "nope", "type": "boolean", "value": true},
                    {"configId": "fast", "type": "boolean", "value": true},
                ]}),
            )
            .await;
        let fast = created["configOptions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|option| is_fast(option))
            .cloned()
            .unwrap();
        assert_eq!(fast["currentValue"], true, "v{version}: {created}");
        // The same option twice is refused.
        wire.refused(
            "session/new",
            json!({"cwd": "/opts", "mcpServers": [], "configOptions": [
                {"configId": "fast", "type": "boolean", "value": true},
                {"configId": "fast", "type": "boolean", "value": false},
            ]}),
            -32602,
        )
        .await;
        // Options of an unknown stored session: a missing resource.
        wire.refused(
            "session/options",
            json!({"cwd": "/opts", "sessionId": "sess_nope"}),
            -32002,
        )
        .await;
    }
    assert_eq!(
        events
            .lock()
            .unwrap()
            .iter()
            .filter(|event| event.starts_with("session/options"))
            .count(),
        2
    );
}

#[tokio::test]
async fn providers_auth_status_and_mcp_notifications_reach_the_agent() {
    let agent = FullAgent::default();
    let events = agent.events.clone();
    let server = AgentServer::new(agent);
    for version in [1u16, 2] {
        let (mut wire, _) = Wire::start(&server, version, json!({})).await;
        let list = wire.ok("providers/list", json!({})).await;
        assert_eq!(list["providers"][0]["providerId"], "main", "{list}");
        wire.ok(
            "providers/set",
            json!({"providerId": "main", "apiType": "openai", "baseUrl": "https://llm.example"}),
        )
        .await;
        wire.ok("providers/disable", json!({"providerId": "main"}))
            .await;
        let status = wire.ok("auth/status", json!({})).await;
        assert_eq!(status["state"], "not_required", "{status}");
        wire.notify(
            "mcp/message",
            json!({"serverId": "srv", "requestId": "r1", "method": "notifications/progress"}),
        )
        .await;
        // A request after the notification: when it is answered the notification was handled.
        wire.ok("auth/status", json!({})).await;
    }
    let events = events.lock().unwrap().clone();
    for expected in [
        "providers/list",
        "providers/set:main=https://llm.example",
        "providers/disable:main",
        "mcp/message:notifications/progress",
    ] {
        assert_eq!(
            events.iter().filter(|event| *event == expected).count(),
            2,
            "{expected}: {events:?}"
        );
    }
}
