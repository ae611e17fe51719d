//! `acp agent` keeps sessions across restarts: a session created by one process is listed
//! and loaded with its whole history (without its notices) by the next one on the same
//! `--state-dir`; two processes share its database and never hand out the same session id;
//! the session files of earlier versions found there are moved into the database once and
//! kept aside unchanged; `--ephemeral` writes nothing and advertises no `loadSession`; the
//! default directory follows the XDG rules.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod agent_peer;
#[path = "support/sessions_db.rs"]
mod sessions_db;

#[path = "support/scratch.rs"]
mod scratch;
#[path = "support/spawn.rs"]
mod spawn;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_peer::AgentPeer;
use scratch::scratch;
use serde_json::{Value, json};
use spawn::Spawn;

/// The files in `dir` (recursively), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                found.extend(files(&path));
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// What a replay must reproduce of what was sent live: every update but notices, state and
/// the user's own messages (which a v1 client shows itself, and which the replay adds).
fn conversation(updates: &[Value]) -> Vec<Value> {
    updates
        .iter()
        .filter(|u| {
            !matches!(
                u["sessionUpdate"].as_str(),
                Some(
                    "notice"
                        | "state_update"
                        | "replay_complete"
                        | "available_commands_update"
                        | "user_message"
                        | "user_message_chunk"
                )
            ) && !is_announcement(u)
        })
        .cloned()
        .collect()
}

/// The whole-message update (`agent_message` with no content) that a v2 replay sends before a
/// streamed message's chunks.
fn is_announcement(update: &Value) -> bool {
    update["sessionUpdate"] == "agent_message" && update["content"] == json!([])
}

/// A v1 example agent keeping its sessions in `state`, asking no permission.
fn start_v1(state: &Path) -> AgentPeer {
    let state = state.to_str().unwrap();
    AgentPeer::start(&["--state-dir", state, "--no-permission"], 1, json!({})).0
}

#[test]
fn a_restarted_agent_loads_a_session_with_its_whole_history_and_none_of_its_notices() {
    for version in [1u16, 2] {
        let state = scratch(&format!("restart-v{version}"));
        let args = [
            "--state-dir",
            state.path().to_str().unwrap(),
            "--no-permission",
        ];
        let (mut first, _) = AgentPeer::start(&args, version, json!({"session": {"notices": {}}}));
        let id = first.new_session("/work");
        assert_eq!(
            first.prompt(&id, "/notice warning Disk low -- 5% left"),
            "end_turn"
        );
        assert_eq!(first.prompt(&id, "hello there"), "end_turn");
        let live = first.take_updates();
        assert!(
            live.iter().any(|u| u["sessionUpdate"] == "notice"),
            "v{version}: {live:?}"
        );
        assert_eq!(first.finish(), Some(0));

        let (mut second, init) = AgentPeer::start(&args, version, json!({}));
        if version == 1 {
            assert_eq!(init["agentCapabilities"]["loadSession"], true, "{init}");
        }
        let listed = second.ok("session/list", json!({}));
        assert_eq!(listed["sessions"][0]["sessionId"], id.as_str(), "{listed}");
        assert_eq!(
            listed["sessions"][0]["title"],
            "/notice warning Disk low -- 5% left"
        );
        let (method, params) = if version == 1 {
            (
                "session/load",
                json!({"sessionId": id, "cwd": "/work", "mcpServers": []}),
            )
        } else {
            (
                "session/resume",
                json!({"sessionId": id, "cwd": "/work", "replayFrom": {"type": "start"}}),
            )
        };
        second.ok(method, params);
        let replayed = second.take_updates();
        assert!(
            replayed.iter().all(|u| u["sessionUpdate"] != "notice"),
            "{replayed:?}"
        );
        assert_eq!(conversation(&replayed), conversation(&live), "v{version}");
        if version == 2 {
            // Every replayed stream of chunks is announced whole first (the v2 draft's rule).
            let mut announced = Vec::new();
            for update in &replayed {
                if is_announcement(update) {
                    announced.push(update["messageId"].clone());
                } else if update["sessionUpdate"] == "agent_message_chunk" {
                    assert!(announced.contains(&update["messageId"]), "{replayed:?}");
                }
            }
            assert_eq!(announced.len(), 2, "{replayed:?}");
        }
        let text = AgentPeer::agent_text(&replayed);
        assert!(text.contains("Done: 2 words"), "v{version}: {text}");
        // The user's prompts are in the history too.
        let users = replayed
            .iter()
            .filter(|u| {
                matches!(
                    u["sessionUpdate"].as_str(),
                    Some("user_message_chunk" | "user_message")
                )
            })
            .count();
        assert_eq!(users, 2, "v{version}: {replayed:?}");
        // And the conversation goes on.
        assert_eq!(second.prompt(&id, "more"), "end_turn");
        assert_eq!(second.finish(), Some(0));
    }
}

#[test]
fn two_agent_processes_never_hand_out_the_same_session_id() {
    let state = scratch("two");
    let dir = state.path().to_str().unwrap().to_owned();
    let run = move || {
        let (mut peer, _) = AgentPeer::start(&["--state-dir", &dir], 1, json!({}));
        let ids: Vec<String> = (0..100).map(|_| peer.new_session("/work")).collect();
        assert_eq!(peer.finish(), Some(0));
        ids
    };
    let other = run.clone();
    let one = std::thread::spawn(run);
    let two = std::thread::spawn(other);
    let mut all = HashSet::new();
    for ids in [one.join().unwrap(), two.join().unwrap()] {
        for id in ids {
            assert!(all.insert(id.clone()), "{id} was handed out twice");
        }
    }
    assert_eq!(all.len(), 200);
    // Both wrote into the one database of the state directory.
    assert_eq!(sessions_db::sessions(state.path()), 200);
}

#[test]
fn ephemeral_keeps_nothing_and_advertises_nothing_that_needs_persistence() {
    let home = scratch("ephemeral");
    let mut peer = AgentPeer::spawn(&["--ephemeral"]);
    let init = peer.ok("initialize", agent_peer::init_params(1, json!({})));
    assert_eq!(init["agentCapabilities"]["loadSession"], false, "{init}");
    let id = peer.new_session("/work");
    let answer = peer.call(
        "session/load",
        json!({"sessionId": id, "cwd": "/work", "mcpServers": []}),
    );
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert_eq!(peer.finish(), Some(0));
    // With XDG_STATE_HOME pointing at an empty directory, nothing appeared there.
    let status = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args(["agent", "--ephemeral"])
        .env("XDG_STATE_HOME", home.path())
        .stdin(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(files(home.path()).is_empty());
}

#[test]
fn the_default_state_directory_follows_xdg_then_home() {
    for (xdg, expected) in [
        (true, "xdg/acp/agent"),
        (false, "home/.local/state/acp/agent"),
    ] {
        let scratch = scratch(if xdg { "xdg" } else { "home" });
        let mut command = Command::new(env!("CARGO_BIN_EXE_acp"));
        command.arg("agent").env("ACP_AGENT_DELAY_MS", "0");
        if xdg {
            command.env("XDG_STATE_HOME", scratch.path().join("xdg"));
        } else {
            command
                .env_remove("XDG_STATE_HOME")
                .env("HOME", scratch.path().join("home"));
        }
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#,
            "\n"
        );
        let child = command.spawn_with_input(std::process::Stdio::inherit(), input.as_bytes());
        let output = child.unwrap().wait_with_output().unwrap();
        assert!(output.status.success());
        let dir = scratch.path().join(expected);
        assert_eq!(sessions_db::sessions(&dir), 1, "{}", dir.display());
    }
}

#[test]
fn a_state_directory_that_cannot_be_used_is_a_clear_error() {
    let scratch = scratch("bad-dir");
    let file = scratch.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args(["agent", "--state-dir", file.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(file.to_str().unwrap()), "{stderr}");
    // --state-dir and --ephemeral exclude each other.
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args([
            "agent",
            "--ephemeral",
            "--state-dir",
            scratch.path().to_str().unwrap(),
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
}

/// Every file under `dir` (recursively) with its bytes, by path relative to `dir`.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files(dir)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path.strip_prefix(dir).unwrap().to_path_buf(), bytes)
        })
        .collect()
}

#[test]
fn a_file_store_in_the_state_directory_moves_into_the_database_once() {
    use acptk_runtime::agent::{FileStore, HistoryEntry, SessionMeta, SessionStore};
    use acptk_schema::v1;
    let state = scratch("migrate");
    // Two sessions written by the file store of this code, as an earlier `acp agent` did.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let files = FileStore::open(state.path()).unwrap();
        for (id, title) in [("sess_old1", "Kept one"), ("sess_old2", "Kept two")] {
            let mut meta = SessionMeta::new(id, acptk_runtime::ProtocolVersion::V1, "/work");
            meta.title = Some(title.to_owned());
            files.create(&meta).await.unwrap();
            for text in ["before the move", "and more"] {
                let chunk = v1::ContentChunk::new(text.to_owned()).message_id("m1");
                let entry = HistoryEntry::V1(v1::ReplayableUpdate::AgentMessageChunk(chunk));
                files.append(id, entry).await.unwrap();
            }
        }
    });
    let before = contents(state.path());
    assert_eq!(before.len(), 4);

    let mut peer = start_v1(state.path());
    let listed = peer.ok("session/list", json!({}));
    let mut titles: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|session| session["title"].as_str().unwrap())
        .collect();
    titles.sort();
    assert_eq!(titles, ["Kept one", "Kept two"], "{listed}");
    peer.ok(
        "session/load",
        json!({"sessionId": "sess_old1", "cwd": "/work", "mcpServers": []}),
    );
    assert_eq!(
        AgentPeer::agent_text(&peer.take_updates()),
        "before the moveand more"
    );
    assert_eq!(peer.prompt("sess_old1", "after the move"), "end_turn");
    assert_eq!(peer.finish(), Some(0));

    // The files are kept aside, byte for byte, and nothing of them is left in the directory.
    let kept = state.path().join("sessions.v1-files");
    let after: Vec<(PathBuf, Vec<u8>)> = contents(&kept);
    assert_eq!(after, before);
    for path in files(state.path()) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("sessions.sqlite3") || path.starts_with(&kept),
            "{}",
            path.display()
        );
    }
    // Once: the next start finds nothing to move and has everything.
    let mut peer = start_v1(state.path());
    let listed = peer.ok("session/list", json!({}));
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 2);
    assert_eq!(peer.finish(), Some(0));
    assert_eq!(contents(&kept), before);
    assert_eq!(sessions_db::sessions(state.path()), 2);
}
