//! The example agent (`acp agent`) uses the SDK so that clients can be tested against it: it
//! asks permission before its tool call, reads files and runs commands through the client
//! when the client advertised them (and says why not otherwise), offers two modes and an
//! option that change its answers, and titles its sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod agent_peer;
#[path = "support/json.rs"]
mod json;

use agent_peer::AgentPeer;
use json::json_strings;
use serde_json::{Value, json};

/// The requests the agent sent to the client, by method.
fn asked(peer: &AgentPeer) -> Vec<String> {
    peer.seen
        .iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_some())
        .map(|m| m["method"].as_str().unwrap().to_owned())
        .collect()
}

fn option(answer: &'static str) -> impl FnMut(&Value) -> Option<Value> {
    move |request| {
        (request["method"] == "session/request_permission")
            .then(|| json!({"outcome": {"outcome": "selected", "optionId": answer}}))
    }
}

#[test]
fn it_asks_permission_before_its_tool_call() {
    for version in [1u16, 2] {
        for (answer, done) in [("allow", true), ("reject", false)] {
            let (mut peer, _) = AgentPeer::start(&["--ephemeral"], version, json!({}));
            peer.respond_with(option(answer));
            let id = peer.new_session("/work");
            assert_eq!(peer.prompt(&id, "count these words"), "end_turn");
            // The order of what happened: the tool call is announced, permission is asked,
            // and only then does it run.
            let events: Vec<String> = peer
                .seen
                .iter()
                .filter_map(|m| {
                    if m["method"] == "session/request_permission" {
                        return Some("permission".to_owned());
                    }
                    let update = &m["params"]["update"];
                    match update["sessionUpdate"].as_str() {
                        Some("tool_call" | "tool_call_update") => {
                            Some(format!("tool:{}", update["status"].as_str().unwrap_or("")))
                        }
                        _ => None,
                    }
                })
                .collect();
            let expected: &[&str] = if done {
                &[
                    "tool:pending",
                    "permission",
                    "tool:in_progress",
                    "tool:completed",
                ]
            } else {
                &["tool:pending", "permission", "tool:failed"]
            };
            assert_eq!(events, expected, "v{version} {answer}");
            let text = AgentPeer::agent_text(&peer.take_updates());
            assert_eq!(
                text.contains("Done: 3 words"),
                done,
                "v{version} {answer}: {text}"
            );
            if !done {
                assert!(text.contains("You did not allow the tool call"), "{text}");
            }
        }
    }
}

#[test]
fn read_goes_through_the_client_only_when_it_reads_files() {
    let fs = json!({"fs": {"readTextFile": true}});
    let cases = [
        (1, json!({}), "clientCapabilities.fs.readTextFile"),
        (2, json!({}), "ACP v2 has no `fs/read_text_file`"),
        (
            1,
            fs,
            "has 3 lines and 16 characters. It starts with: alpha",
        ),
    ];
    for (version, capabilities, says) in cases {
        let (mut peer, _) = AgentPeer::start(&["--ephemeral"], version, capabilities);
        let mut paths = Vec::new();
        peer.respond_with(move |request| {
            (request["method"] == "fs/read_text_file")
                .then(|| json!({"content": "alpha\nbeta\ngamma"}))
        });
        let id = peer.new_session("/work/repo");
        assert_eq!(peer.prompt(&id, "/read src/main.rs"), "end_turn");
        for message in &peer.seen {
            if message["method"] == "fs/read_text_file" {
                paths.push(message["params"]["path"].clone());
            }
        }
        let text = AgentPeer::agent_text(&peer.take_updates());
        assert!(text.contains(says), "v{version}: {text}");
        if says.starts_with("has") {
            // A relative path is read in the session's working directory.
            assert_eq!(paths, [json!("/work/repo/src/main.rs")]);
        } else {
            assert!(
                paths.is_empty(),
                "v{version}: nothing may be sent: {paths:?}"
            );
            assert!(text.starts_with("I cannot read src/main.rs"), "{text}");
        }
    }
}

#[test]
fn run_uses_a_client_terminal_only_when_the_client_has_them() {
    // Without the capability: the reason, and no request.
    for (version, says) in [
        (1, "clientCapabilities.terminal"),
        (2, "ACP v2 has no client terminals"),
    ] {
        let (mut peer, _) = AgentPeer::start(&["--ephemeral"], version, json!({}));
        let id = peer.new_session("/work");
        peer.prompt(&id, "/run ls -l");
        assert!(asked(&peer).is_empty(), "v{version}: {:?}", asked(&peer));
        let text = AgentPeer::agent_text(&peer.take_updates());
        assert!(
            text.contains(says) && text.contains("I cannot run `ls -l`"),
            "v{version}: {text}"
        );
    }
    // With it: permission, then the terminal's life, shown in the tool call.
    let (mut peer, _) = AgentPeer::start(&["--ephemeral"], 1, json!({"terminal": true}));
    peer.respond_with(|request| {
        Some(match request["method"].as_str().unwrap() {
            "session/request_permission" => {
                json!({"outcome": {"outcome": "selected", "optionId": "allow"}})
            }
            "terminal/create" => json!({"terminalId": "t1"}),
            "terminal/wait_for_exit" => json!({"exitCode": 0}),
            "terminal/output" => json!({"output": "a.txt\nb.txt\n", "truncated": false}),
            "terminal/release" => json!({}),
            _ => return None,
        })
    });
    let id = peer.new_session("/work");
    assert_eq!(peer.prompt(&id, "/run ls -l"), "end_turn");
    assert_eq!(
        asked(&peer),
        [
            "session/request_permission",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release"
        ]
    );
    let create = peer
        .seen
        .iter()
        .find(|m| m["method"] == "terminal/create")
        .unwrap();
    assert_eq!(create["params"]["command"], "ls");
    assert_eq!(create["params"]["args"], json!(["-l"]));
    assert_eq!(create["params"]["cwd"], "/work");
    let updates = peer.take_updates();
    assert!(
        updates.iter().any(|u| u["content"][0]["type"] == "terminal" && u["content"][0]["terminalId"] == "t1"),
        "the terminal is shown in the tool call: {updates:?}"
    );
    let text = AgentPeer::agent_text(&updates);
    assert!(
        text.contains("`ls -l` exited with code 0") && text.contains("a.txt"),
        "{text}"
    );
}

#[test]
fn modes_and_the_option_change_how_it_answers() {
    for version in [1u16, 2] {
        let (mut peer, _) =
            AgentPeer::start(&["--ephemeral", "--no-permission"], version, json!({}));
        let created = peer.ok("session/new", json!({"cwd": "/work", "mcpServers": []}));
        let id = created["sessionId"].as_str().unwrap().to_owned();
        if version == 1 {
            assert_eq!(created["modes"]["currentModeId"], "code", "{created}");
            let modes: Vec<&str> = created["modes"]["availableModes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap())
                .collect();
            assert_eq!(modes, ["code", "ask"]);
            assert_eq!(created["configOptions"][0]["id"], "shout");
            peer.ok(
                "session/set_mode",
                json!({"sessionId": id, "modeId": "ask"}),
            );
        } else {
            let ids: Vec<&str> = json_strings(&created["configOptions"], "configId");
            assert_eq!(ids, ["mode", "shout"], "{created}");
            peer.ok(
                "session/set_config_option",
                json!({"sessionId": id, "configId": "mode", "type": "id", "value": "ask"}),
            );
        }
        peer.prompt(&id, "three little words");
        let updates = peer.take_updates();
        assert!(
            updates.iter().all(|u| u["sessionUpdate"] != "tool_call"),
            "v{version}: ask mode runs no tool"
        );
        assert_eq!(AgentPeer::agent_text(&updates), "Your prompt had 3 words.");
        peer.ok(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "shout", "type": "boolean", "value": true}),
        );
        peer.prompt(&id, "hi");
        assert_eq!(
            AgentPeer::agent_text(&peer.take_updates()),
            "YOUR PROMPT HAD 1 WORDS."
        );
    }
}

#[test]
fn it_titles_each_session_from_its_first_prompt() {
    for version in [1u16, 2] {
        let (mut peer, _) =
            AgentPeer::start(&["--ephemeral", "--no-permission"], version, json!({}));
        let id = peer.new_session("/work");
        let long = "Please explain how session notices differ between the two protocol versions";
        peer.prompt(&id, long);
        let updates = peer.take_updates();
        let titles: Vec<&Value> = updates
            .iter()
            .filter(|u| u["sessionUpdate"] == "session_info_update")
            .map(|u| &u["title"])
            .collect();
        assert_eq!(
            titles,
            [&json!("Please explain how session notices diffe…")],
            "v{version}"
        );
        // Only the first prompt names the session.
        peer.prompt(&id, "another one");
        assert!(
            peer.take_updates()
                .iter()
                .all(|u| u["sessionUpdate"] != "session_info_update")
        );
        let listed = peer.ok("session/list", json!({}));
        assert_eq!(
            listed["sessions"][0]["title"],
            "Please explain how session notices diffe…"
        );
    }
}

#[test]
fn notices_still_work_as_before() {
    let (mut peer, _) = AgentPeer::start(&["--ephemeral"], 1, json!({"session": {"notices": {}}}));
    let id = peer.new_session("/work");
    peer.prompt(&id, "/notice _acme_quota Quota low -- 3 requests left");
    let notices: Vec<Value> = peer
        .take_updates()
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "notice")
        .collect();
    assert_eq!(
        notices,
        [
            json!({"sessionUpdate": "notice", "severity": "_acme_quota", "title": "Quota low", "description": "3 requests left"})
        ]
    );
}
