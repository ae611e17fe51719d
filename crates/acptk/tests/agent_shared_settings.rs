//! Two `acp agent --store sqlite://FILE` processes on one database: a setting one of them
//! changes (the mode, an option, the title) is what the other answers and runs with at its
//! next request, even though it already has the session open; a setting it changes leaves the
//! other's changes as they were.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod agent_peer;
#[path = "support/json.rs"]
mod json;
#[path = "support/scratch.rs"]
mod scratch;

use agent_peer::AgentPeer;
use json::option;
use scratch::scratch;
use serde_json::{Value, json};

/// Opens stored session `id` again: v1 `session/load`, v2 `session/resume`; the result.
fn reopen(peer: &mut AgentPeer, id: &str) -> Value {
    if peer.version == 1 {
        peer.ok(
            "session/load",
            json!({"sessionId": id, "cwd": "/work", "mcpServers": []}),
        )
    } else {
        peer.ok("session/resume", json!({"sessionId": id, "cwd": "/work"}))
    }
}

/// The current mode in a session response: v1 `modes`, v2 the `mode` option.
fn mode(result: &Value) -> Value {
    match &result["modes"]["currentModeId"] {
        Value::Null => option(result, "mode"),
        current => current.clone(),
    }
}

/// Switches the session's mode: v1 `session/set_mode`, v2 the `mode` option.
fn set_mode(peer: &mut AgentPeer, id: &str, mode: &str) {
    if peer.version == 1 {
        peer.ok("session/set_mode", json!({"sessionId": id, "modeId": mode}));
    } else {
        peer.ok(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "mode", "type": "id", "value": mode}),
        );
    }
}

/// Sets the `shout` option; the result (the full option list).
fn set_shout(peer: &mut AgentPeer, id: &str, shout: bool) -> Value {
    peer.ok(
        "session/set_config_option",
        json!({"sessionId": id, "configId": "shout", "type": "boolean", "value": shout}),
    )
}

/// Whether a turn's updates show a tool call (what the `code` mode runs, and `ask` does not):
/// v1 `tool_call`, v2 `tool_call_update`.
fn ran_a_tool(updates: &[Value]) -> bool {
    updates.iter().any(|u| {
        matches!(
            u["sessionUpdate"].as_str(),
            Some("tool_call" | "tool_call_update")
        )
    })
}

/// Two agent processes (`--no-permission`, no chunk delay) on the SQLite file in `dir`.
fn two_processes(dir: &tempfile::TempDir, version: u16) -> (AgentPeer, AgentPeer) {
    let store = format!("sqlite://{}", dir.path().join("sessions.sqlite3").display());
    let args = ["--store", store.as_str(), "--no-permission"];
    let (first, _) = AgentPeer::start(&args, version, json!({}));
    let (second, _) = AgentPeer::start(&args, version, json!({}));
    (first, second)
}

#[test]
fn a_process_that_has_the_session_open_answers_and_runs_with_the_settings_another_set() {
    for version in [1u16, 2] {
        let dir = scratch(&format!("shared-settings-v{version}"));
        let (mut a, mut b) = two_processes(&dir, version);
        let id = a.new_session("/work");
        let loaded = reopen(&mut b, &id);
        assert_eq!(mode(&loaded), "code", "v{version}: {loaded}");
        assert_eq!(option(&loaded, "shout"), false, "v{version}: {loaded}");

        set_mode(&mut a, &id, "ask");
        set_shout(&mut a, &id, true);

        let loaded = reopen(&mut b, &id);
        assert_eq!(mode(&loaded), "ask", "v{version}: B answers a stale mode");
        assert_eq!(
            option(&loaded, "shout"),
            true,
            "v{version}: B answers a stale option"
        );
        b.take_updates();
        assert_eq!(b.prompt(&id, "three little words"), "end_turn");
        let updates = b.take_updates();
        assert!(
            !ran_a_tool(&updates),
            "v{version}: B's turn ran in the old mode: {updates:?}"
        );
        assert_eq!(
            AgentPeer::agent_text(&updates),
            "YOUR PROMPT HAD 3 WORDS.",
            "v{version}"
        );
        assert_eq!(a.finish(), Some(0));
        assert_eq!(b.finish(), Some(0));
    }
}

#[test]
fn a_turn_runs_with_the_settings_another_process_set_without_reopening() {
    for version in [1u16, 2] {
        let dir = scratch(&format!("shared-turn-v{version}"));
        let (mut a, mut b) = two_processes(&dir, version);
        let id = a.new_session("/work");
        reopen(&mut b, &id);
        set_mode(&mut a, &id, "ask");
        set_shout(&mut a, &id, true);
        b.take_updates();
        assert_eq!(b.prompt(&id, "hi"), "end_turn");
        assert_eq!(
            AgentPeer::agent_text(&b.take_updates()),
            "YOUR PROMPT HAD 1 WORDS.",
            "v{version}"
        );
        // And back: A's next turn runs with what B sets.
        set_mode(&mut b, &id, "code");
        set_shout(&mut b, &id, false);
        a.take_updates();
        assert_eq!(a.prompt(&id, "hi again"), "end_turn");
        let updates = a.take_updates();
        assert!(
            ran_a_tool(&updates),
            "v{version}: A's turn ran in the mode it had set itself: {updates:?}"
        );
        assert!(
            AgentPeer::agent_text(&updates).starts_with("Hello!"),
            "v{version}: {updates:?}"
        );
    }
}

#[test]
fn a_setting_changed_in_one_process_leaves_the_others_changes_alone() {
    for version in [1u16, 2] {
        let dir = scratch(&format!("shared-lost-v{version}"));
        let (mut a, mut b) = two_processes(&dir, version);
        let id = a.new_session("/work");
        reopen(&mut b, &id);
        set_mode(&mut a, &id, "ask");
        // B changes the option only; the mode stays as A set it.
        let answer = set_shout(&mut b, &id, true);
        assert_eq!(option(&answer, "shout"), true, "v{version}: {answer}");
        if version == 2 {
            assert_eq!(option(&answer, "mode"), "ask", "v{version}: {answer}");
        }
        let (mut fresh, _) = {
            let store = format!("sqlite://{}", dir.path().join("sessions.sqlite3").display());
            AgentPeer::start(&["--store", store.as_str()], version, json!({}))
        };
        let loaded = reopen(&mut fresh, &id);
        assert_eq!(mode(&loaded), "ask", "v{version}: B's write undid A's mode");
        assert_eq!(option(&loaded, "shout"), true, "v{version}: {loaded}");
    }
}

#[test]
fn a_title_given_in_one_process_is_the_others_title_too() {
    for version in [1u16, 2] {
        let dir = scratch(&format!("shared-title-v{version}"));
        let (mut a, mut b) = two_processes(&dir, version);
        let id = a.new_session("/work");
        reopen(&mut b, &id);
        // A's first prompt titles the session; B, which had it open before, must not title
        // it again with its own first prompt.
        assert_eq!(a.prompt(&id, "the first prompt"), "end_turn");
        b.take_updates();
        assert_eq!(b.prompt(&id, "a later prompt"), "end_turn");
        let updates = b.take_updates();
        assert!(
            updates
                .iter()
                .all(|u| u["sessionUpdate"] != "session_info_update"),
            "v{version}: B titled the session again: {updates:?}"
        );
        let listed = a.ok("session/list", json!({}));
        assert_eq!(
            listed["sessions"][0]["title"], "the first prompt",
            "v{version}: {listed}"
        );
    }
}
