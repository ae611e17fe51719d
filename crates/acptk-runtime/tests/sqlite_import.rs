//! A file store written by this code moves into a SQLite store once: every session with its
//! whole history, owners and settings, the original files kept aside byte for byte, nothing
//! imported twice, and a damaged session reported (and kept aside) instead of stopping the
//! others.
#![cfg(feature = "sqlite")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use acptk_runtime::agent::{
    AgentServer, FileStore, HistoryEntry, Principal, SessionStore, SqliteStore,
};
use common::TestAgent;
use common::wire::Wire;
use serde_json::json;

/// Every file under `dir` (not in subdirectories) with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().is_file())
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_file_store_moves_into_sqlite_once_and_is_kept_aside_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path();
    // Sessions written by the current code: v1 and v2, a title, a prompt key, an owner.
    let (v1, v2, owned) = {
        let server = AgentServer::new(TestAgent::default()).store(FileStore::open(state).unwrap());
        let (mut wire, v1) = Wire::with_session(&server, 1, "/work").await;
        wire.prompt(&v1, "hello").await;
        wire.prompt(&v1, "title:Greeting").await;
        let (mut wire, v2) = Wire::with_session(&server, 2, "/work").await;
        let mut params = Wire::prompt_params(&v2, "keyed");
        params["idempotencyKey"] = json!("key-1");
        wire.ok("session/prompt", params).await;
        wire.until_idle(&v2).await;
        let mut wire = Wire::start_as(&server, 1, Principal::named("alice")).await;
        let owned = wire.new_session("/alice").await;
        wire.prompt(&owned, "mine").await;
        (v1, v2, owned)
    };
    let source = FileStore::open(state).unwrap();
    let mut before = BTreeMap::new();
    for id in [&v1, &v2, &owned] {
        before.insert(
            id.clone(),
            (
                source.meta(id).await.unwrap().unwrap(),
                source.history(id).await.unwrap(),
            ),
        );
    }
    // Something in the directory that is not the file store's, and a damaged session.
    std::fs::write(state.join("notes.txt"), "mine").unwrap();
    std::fs::write(state.join("sess_broken.json"), "{ not json").unwrap();
    std::fs::write(state.join("sess_broken.jsonl"), "").unwrap();
    let originals = files(state);

    let database = state.join("sessions.sqlite3");
    let aside = state.join("sessions.v1-files");
    let store = SqliteStore::open(&database).unwrap();
    let report = store.import_files(state, &aside).unwrap();
    let mut imported = report.imported.clone();
    imported.sort();
    let mut expected = vec![v1.clone(), v2.clone(), owned.clone()];
    expected.sort();
    assert_eq!(imported, expected);
    assert_eq!(report.unreadable.len(), 1, "{report:?}");
    assert_eq!(report.unreadable[0].0, "sess_broken");
    assert!(report.present.is_empty());
    assert_eq!(report.moved_files, 8, "{report:?}");

    // Everything is in the database as it was.
    for (id, (meta, history)) in &before {
        assert_eq!(store.meta(id).await.unwrap().as_ref(), Some(meta), "{id}");
        assert_eq!(&store.history(id).await.unwrap(), history, "{id}");
    }
    assert!(
        before[&v2]
            .1
            .iter()
            .any(|entry| matches!(entry, HistoryEntry::PromptKey { .. }))
    );
    assert_eq!(
        store.meta(&owned).await.unwrap().unwrap().owner.as_deref(),
        Some("alice")
    );
    // The files are aside, byte for byte; what was not the store's stayed.
    let mut kept = files(&aside);
    for (name, bytes) in &originals {
        if name == "notes.txt" {
            continue;
        }
        assert_eq!(kept.remove(name).as_ref(), Some(bytes), "{name}");
    }
    assert!(kept.is_empty(), "{kept:?}");
    assert_eq!(
        files(state)
            .keys()
            .filter(|name| !name.starts_with("sessions.sqlite3"))
            .collect::<Vec<_>>(),
        ["notes.txt"]
    );

    // Once: a second run finds nothing, and the imported sessions go on in the database.
    let again = SqliteStore::open(&database)
        .unwrap()
        .import_files(state, &aside)
        .unwrap();
    assert!(again.is_empty(), "{again:?}");
    let server = AgentServer::new(TestAgent::default()).store(store.clone());
    let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
    wire.ok(
        "session/load",
        json!({"sessionId": v1, "cwd": "/work", "mcpServers": []}),
    )
    .await;
    assert_eq!(wire.prompt(&v1, "more").await, "end_turn");
    assert_eq!(
        store.history(&v1).await.unwrap().len(),
        before[&v1].1.len() + 3
    );
    let mut params = Wire::prompt_params(&v2, "keyed again");
    params["idempotencyKey"] = json!("key-1");
    let (mut wire, _) = Wire::start(&server, 2, json!({})).await;
    wire.ok("session/resume", json!({"sessionId": v2, "cwd": "/work"}))
        .await;
    let retried = wire.ok("session/prompt", params).await;
    let HistoryEntry::PromptKey { message_id, .. } = before[&v2]
        .1
        .iter()
        .find(|entry| matches!(entry, HistoryEntry::PromptKey { .. }))
        .unwrap()
    else {
        unreachable!()
    };
    assert_eq!(retried["messageId"], message_id.as_str());
}

#[tokio::test]
async fn an_interrupted_import_copies_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path();
    let id = {
        let server = AgentServer::new(TestAgent::default()).store(FileStore::open(state).unwrap());
        let (mut wire, id) = Wire::with_session(&server, 1, "/work").await;
        wire.prompt(&id, "hello").await;
        id
    };
    let database = state.join("db").join("sessions.sqlite3");
    let store = SqliteStore::open(&database).unwrap();
    // As if the first run stopped after copying, before moving the files.
    let aside = state.join("aside");
    let first = store.import_files(state, &aside).unwrap();
    assert_eq!(first.imported, std::slice::from_ref(&id));
    for name in [format!("{id}.json"), format!("{id}.jsonl")] {
        std::fs::rename(aside.join(&name), state.join(&name)).unwrap();
    }
    store.append(&id, common_entry()).await.unwrap();
    let second = store.import_files(state, &aside).unwrap();
    assert!(second.imported.is_empty());
    assert_eq!(second.present, std::slice::from_ref(&id));
    assert_eq!(second.moved_files, 2);
    // The database's own later entry is still there.
    assert_eq!(store.history(&id).await.unwrap().len(), 4);
}

fn common_entry() -> HistoryEntry {
    HistoryEntry::V1(acptk_schema::v1::ReplayableUpdate::AgentMessageChunk(
        acptk_schema::v1::ContentChunk::new("later".to_owned()).message_id("m9"),
    ))
}
