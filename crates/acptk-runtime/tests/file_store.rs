//! What only the file store has: its file formats (a damaged or cut line, a file of a newer
//! format), names (ids that cannot name files), the byte limit of a session and its cache of
//! open files. Whatever every store does (surviving a restart, replays, listing, corrupt
//! entries, failing writes) is the common suite of `tests/stores.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use acptk_runtime::ProtocolVersion;
use acptk_runtime::agent::{
    AgentServer, ConfigValue, FileStore, HistoryEntry, SessionMeta, SessionStore, StoreError,
};
use acptk_schema::{v1, v2};
use common::wire::Wire;
use common::{TestAgent, create_empty, ids};
use serde_json::json;

fn v1_text(text: &str) -> HistoryEntry {
    HistoryEntry::V1(v1::ReplayableUpdate::AgentMessageChunk(
        v1::ContentChunk::new(text.to_owned()).message_id("m1"),
    ))
}

fn v2_text(text: &str) -> HistoryEntry {
    HistoryEntry::V2(v2::ReplayableUpdate::AgentMessageChunk(
        v2::ContentChunk::new("m1", text.to_owned()),
    ))
}

/// A store in `dir` with sessions `a` (v1) and `b` (v2), two entries each.
async fn filled(dir: &Path) -> FileStore {
    let store = FileStore::open(dir).unwrap();
    let mut a = SessionMeta::new("a", ProtocolVersion::V1, "/work");
    a.title = Some("First".to_owned());
    a.mode = Some("code".to_owned());
    a.config = vec![("fast".to_owned(), ConfigValue::Boolean(true))];
    store.create(&a).await.unwrap();
    store.append("a", v1_text("one")).await.unwrap();
    store.append("a", v1_text("two")).await.unwrap();
    create_empty(&store, "b", ProtocolVersion::V2, "/other").await;
    store.append("b", v2_text("three")).await.unwrap();
    store
        .append(
            "b",
            HistoryEntry::PromptKey {
                key: "k".to_owned(),
                message_id: "u1".to_owned(),
            },
        )
        .await
        .unwrap();
    store
}

/// Replaces line `line` (1-based) of `path` with `text`.
fn replace_line(path: &Path, line: usize, text: &str) {
    let content = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<&str> = content.lines().collect();
    lines[line - 1] = text;
    std::fs::write(path, format!("{}\n", lines.join("\n"))).unwrap();
}

#[tokio::test]
async fn a_damaged_or_cut_history_fails_only_its_session_and_names_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let store = filled(dir.path()).await;
    let path = store.history_path("a");
    // (what, how, the line named, a word of the message)
    type Damage<'a> = (&'a str, Box<dyn Fn() + 'a>, usize, &'a str);
    let damages: Vec<Damage> = vec![
        (
            "garbage line",
            Box::new(|| replace_line(&path, 2, "this is not json")),
            2,
            "expected",
        ),
        (
            "a notice recorded by someone else",
            Box::new(|| {
                replace_line(
                    &path,
                    3,
                    r#"{"update":{"sessionUpdate":"notice","severity":"info","title":"x"}}"#,
                )
            }),
            3,
            "notice",
        ),
        (
            "a record of an unknown kind",
            Box::new(|| replace_line(&path, 2, r#"{"bookmark":{"at":3}}"#)),
            2,
            "bookmark",
        ),
        (
            "cut in the middle of the last line",
            Box::new(|| {
                let content = std::fs::read(&path).unwrap();
                std::fs::write(&path, &content[..content.len() - 7]).unwrap();
            }),
            3,
            "cut off",
        ),
    ];
    for (name, damage, line, says) in damages {
        let intact = std::fs::read(&path).unwrap();
        damage();
        let error = store.history("a").await.unwrap_err();
        let message = error.to_string();
        match &error {
            StoreError::Corrupt {
                line: at,
                path: file,
                ..
            } => {
                assert_eq!(*at, line, "{name}: {message}");
                assert_eq!(file, &path, "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
        assert!(message.contains("session `a`"), "{name}: {message}");
        assert!(
            message.contains(&path.display().to_string()),
            "{name}: {message}"
        );
        assert!(message.contains(says), "{name}: {message}");
        // The other session and this session's metadata are untouched.
        assert_eq!(store.history("b").await.unwrap().len(), 2, "{name}");
        assert!(store.meta("a").await.unwrap().is_some(), "{name}");
        std::fs::write(&path, intact).unwrap();
        assert_eq!(
            store.history("a").await.unwrap().len(),
            2,
            "{name}: restored"
        );
    }
}

#[tokio::test]
async fn a_file_of_a_newer_format_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let store = filled(dir.path()).await;
    let history = store.history_path("a");
    replace_line(
        &history,
        1,
        r#"{"format":2,"sessionId":"a","protocolVersion":1,"compression":"zstd"}"#,
    );
    let error = store.history("a").await.unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::NewerFormat {
                found: 2,
                supported: 1,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("newer version"), "{error}");
    let meta = store.meta_path("b");
    std::fs::write(&meta, r#"{"format":3,"sessionId":"b","everything":"else"}"#).unwrap();
    let error = store.meta("b").await.unwrap_err();
    assert!(
        matches!(error, StoreError::NewerFormat { found: 3, .. }),
        "{error:?}"
    );
    // A session that cannot be read is left out of the list, the others stay.
    assert_eq!(ids(store.list().await.unwrap()), ["a"]);
}

#[tokio::test]
async fn a_full_session_refuses_more_and_keeps_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap().max_session_bytes(400);
    create_empty(&store, "a", ProtocolVersion::V1, "/work").await;
    create_empty(&store, "b", ProtocolVersion::V1, "/work").await;
    let mut recorded = 0;
    let error = loop {
        match store.append("a", v1_text("some words of a reply")).await {
            Ok(()) => recorded += 1,
            Err(error) => break error,
        }
        assert!(recorded < 100, "the limit was never reached");
    };
    assert!(
        matches!(
            error,
            StoreError::Full {
                limit: 400,
                unit: "bytes",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("session `a` is full"), "{error}");
    assert_eq!(store.history("a").await.unwrap().len(), recorded);
    let size = std::fs::metadata(store.history_path("a")).unwrap().len();
    assert!(size <= 400, "{size}");
    // The other session is not affected.
    store.append("b", v1_text("fine")).await.unwrap();
}

#[tokio::test]
async fn a_failing_write_fails_only_its_session_and_leaves_the_file_readable() {
    let dir = tempfile::tempdir().unwrap();
    filled(dir.path()).await;
    // A fresh store (no open files), and `a`'s history file replaced by a directory: every
    // write to it fails, as on a broken disk.
    let store = FileStore::open(dir.path()).unwrap();
    let path = store.history_path("a");
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    let error = store.append("a", v1_text("lost?")).await.unwrap_err();
    assert!(matches!(error, StoreError::Io { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("session `a`") && message.contains(&path.display().to_string()),
        "{message}"
    );
    store.append("b", v2_text("still fine")).await.unwrap();
    assert_eq!(store.history("b").await.unwrap().len(), 3);
    // A directory that cannot hold sessions fails to open with its name.
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let error = FileStore::open(&file).unwrap_err();
    assert!(
        error.to_string().contains(&file.display().to_string()),
        "{error}"
    );
}

#[tokio::test]
async fn many_sessions_recording_in_turn_keep_their_own_histories() {
    // More sessions than the store keeps files open for: closed files are reopened.
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let ids: Vec<String> = (0..150).map(|n| format!("s{n}")).collect();
    for id in &ids {
        store
            .create(&SessionMeta::new(id.as_str(), ProtocolVersion::V1, "/"))
            .await
            .unwrap();
    }
    for round in 0..3 {
        for id in &ids {
            store
                .append(id, v1_text(&format!("{id}-{round}")))
                .await
                .unwrap();
        }
    }
    for id in &ids {
        let expected: Vec<HistoryEntry> = (0..3)
            .map(|round| v1_text(&format!("{id}-{round}")))
            .collect();
        assert_eq!(store.history(id).await.unwrap(), expected, "{id}");
    }
}

#[tokio::test]
async fn ids_that_are_not_file_names_are_never_stored() {
    let dir = tempfile::tempdir().unwrap();
    let store = filled(dir.path()).await;
    for id in ["../a", "a/b", "", "a.json", "é"] {
        assert!(store.meta(id).await.unwrap().is_none(), "{id}");
        assert!(store.append(id, v1_text("x")).await.is_err(), "{id}");
        assert!(
            store
                .create(&SessionMeta::new(id, ProtocolVersion::V1, "/"))
                .await
                .is_err(),
            "{id}"
        );
        assert!(!store.delete(id).await.unwrap(), "{id}");
    }
}

#[tokio::test]
async fn a_damaged_session_answers_a_clear_error_and_the_others_still_load() {
    let dir = tempfile::tempdir().unwrap();
    let store = filled(dir.path()).await;
    replace_line(&store.history_path("a"), 2, "{oops");
    let server = AgentServer::new(TestAgent::default()).store(store);
    let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
    let message = wire
        .refused(
            "session/load",
            json!({"sessionId": "a", "cwd": "/work", "mcpServers": []}),
            -32603,
        )
        .await;
    assert!(
        message.contains("session `a` cannot be read") && message.contains("line 2"),
        "{message}"
    );
    // Nothing of the damaged session was sent.
    assert!(wire.take_updates().is_empty());
    let (mut v2, _) = Wire::start(&server, 2, json!({})).await;
    v2.ok(
        "session/resume",
        json!({"sessionId": "b", "cwd": "/other", "replayFrom": {"type": "start"}}),
    )
    .await;
    // The replayed message is announced whole (empty) before its chunk.
    assert_eq!(
        Wire::kinds(&v2.take_updates())[..2],
        ["agent_message", "agent_message_chunk"]
    );
}

#[tokio::test]
async fn a_full_session_ends_its_turn_with_a_clear_error_and_the_others_go_on() {
    for version in [1u16, 2] {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::open(dir.path()).unwrap().max_session_bytes(900);
        let server = AgentServer::new(TestAgent::default()).store(store);
        let (mut wire, full) = Wire::with_session(&server, version, "/work").await;
        let other = wire.new_session("/work").await;
        let long = "x".repeat(300);
        let mut failure = None;
        for _ in 0..5 {
            let answer = wire.call_prompt(&full, &long).await;
            if let Some(error) = answer.get("error") {
                failure = Some(error["message"].as_str().unwrap().to_owned());
                break;
            }
            if version == 2 {
                let stop = wire.until_idle(&full).await;
                if stop == "error" {
                    let idle = wire.seen.last().unwrap()["params"]["update"].clone();
                    failure = Some(idle["error"]["message"].as_str().unwrap().to_owned());
                    break;
                }
            }
        }
        let failure = failure.expect("the session never filled up");
        assert!(
            failure.contains("is full") && failure.contains("900 bytes"),
            "v{version}: {failure}"
        );
        // The other session works, and the full one still loads with what it holds.
        assert_eq!(wire.prompt(&other, "hello").await, "end_turn");
        let history = server.sessions().history(&full).await.unwrap();
        assert!(!history.is_empty());
    }
}

#[tokio::test]
async fn a_store_that_cannot_create_files_refuses_new_sessions_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("state");
    let store = FileStore::open(&root).unwrap();
    let server = AgentServer::new(TestAgent::default()).store(store);
    // The directory goes away and a file takes its place.
    std::fs::remove_dir(&root).unwrap();
    std::fs::write(&root, "not a directory").unwrap();
    let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
    let message = wire
        .refused(
            "session/new",
            json!({"cwd": "/work", "mcpServers": []}),
            -32603,
        )
        .await;
    assert!(
        message.contains("cannot create the session") && message.contains("state"),
        "{message}"
    );
}
