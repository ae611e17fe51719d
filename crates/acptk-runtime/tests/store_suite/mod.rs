//! The one test suite every session store passes: each case is a function generic over a
//! [`Fixture`] (how to open the store under test, a second view of the same data, and how to
//! damage it from outside), and `tests/stores.rs` runs every case against every store.
//!
//! Store-level cases call the [`SessionStore`] methods directly; runtime-level cases serve a
//! [`TestAgent`] over the store and speak the wire to it, so they check what a client sees.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use acptk_runtime::ProtocolVersion;
use acptk_runtime::agent::{
    AgentServer, ConfigValue, HistoryEntry, Principal, SessionMeta, SessionStore, StoreError,
};
use acptk_runtime::{Notice, rpc};
use acptk_schema::{v1, v2};
use serde_json::{Value, json};

use crate::common::wire::Wire;
use crate::common::{TestAgent, create_empty, ids};

mod batches;
mod leases;

pub use batches::*;
pub use leases::*;

/// How to reach the store under test.
pub trait Fixture: Send + Sync {
    /// The store under test: empty when the test starts (the same value on every call).
    fn store(&self) -> Arc<dyn SessionStore>;

    /// Another store value on the same data, as a second agent process would open it (`None`
    /// for a store that lives in one value, like the memory store).
    fn second(&self) -> Option<Arc<dyn SessionStore>>;

    /// Whether several processes may share the store: its leases are then held in the store
    /// (`false`: the store grants every lease, as one process's turns are already one at a
    /// time).
    fn shared(&self) -> bool {
        self.second().is_some() && !self.process_local()
    }

    /// Whether the store's leases are those of one process even though a second value can be
    /// opened on the same data (the file store).
    fn process_local(&self) -> bool {
        false
    }

    /// Damages what is stored for history entry `entry` (0-based) of session `id`, so that
    /// it no longer decodes; `false` when the store cannot be damaged from outside.
    fn damage(&self, id: &str, entry: usize) -> impl Future<Output = bool> + Send;

    /// Makes later writes of session `id`'s history fail at the storage level (a broken
    /// disk, a database that refuses): every write, or at least that of each entry whose
    /// text holds `lost` (a database refuses those rows alone). Returns the store value to
    /// write with, or `None` when the store cannot be broken from outside.
    fn break_writes(&self, id: &str) -> impl Future<Output = Option<Arc<dyn SessionStore>>> + Send;
}

/// A fixed time with whole milliseconds, which every store keeps exactly.
fn at(ms: u64) -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

pub fn v1_text(text: &str) -> HistoryEntry {
    HistoryEntry::V1(v1::ReplayableUpdate::AgentMessageChunk(
        v1::ContentChunk::new(text.to_owned()).message_id("m1"),
    ))
}

pub fn v2_text(text: &str) -> HistoryEntry {
    HistoryEntry::V2(v2::ReplayableUpdate::AgentMessageChunk(
        v2::ContentChunk::new("m1", text.to_owned()),
    ))
}

fn key(key: &str, message_id: &str) -> HistoryEntry {
    HistoryEntry::PromptKey {
        key: key.to_owned(),
        message_id: message_id.to_owned(),
    }
}

/// Metadata with every field set.
fn full_meta(id: &str) -> SessionMeta {
    let mut meta = SessionMeta::new(id, ProtocolVersion::V1, "/work/ünïcode dir");
    meta.additional_directories = vec!["/lib".to_owned(), "/docs".to_owned()];
    meta.title = Some("First \"quoted\" title".to_owned());
    meta.created_at = at(1_700_000_000_123);
    meta.updated_at = at(1_700_000_100_456);
    meta.mode = Some("code".to_owned());
    meta.config = vec![
        ("fast".to_owned(), ConfigValue::Boolean(true)),
        ("model".to_owned(), ConfigValue::Id("large".to_owned())),
    ];
    meta.archived = true;
    meta.owner = Some("alice".to_owned());
    meta
}

/// Creates v1 sessions `ids`, each with the history `history`.
async fn sessions_with(store: &Arc<dyn SessionStore>, ids: &[&str], history: &[HistoryEntry]) {
    for id in ids {
        create_empty(store.as_ref(), id, ProtocolVersion::V1, "/").await;
        store.append_batch(id, history.to_vec()).await.unwrap();
    }
}

/// The stores to read back from: the store itself and, when there is one, a second view.
/// Whether the store under test has session `id` archived.
async fn is_archived(fixture: &impl Fixture, id: &str) -> bool {
    fixture.store().meta(id).await.unwrap().unwrap().archived
}

fn readers(fixture: &impl Fixture) -> Vec<Arc<dyn SessionStore>> {
    let mut readers = vec![fixture.store()];
    readers.extend(fixture.second());
    readers
}

/// create, meta, save_meta: every field comes back as it was given, from every view.
pub async fn metadata_round_trips(fixture: &impl Fixture) {
    let store = fixture.store();
    let meta = full_meta("sess_meta");
    store.create(&meta).await.unwrap();
    let plain = SessionMeta::new("sess_plain", ProtocolVersion::V2, "/");
    store.create(&plain).await.unwrap();
    for reader in readers(fixture) {
        assert_eq!(
            reader.meta("sess_meta").await.unwrap().as_ref(),
            Some(&meta)
        );
        let read = reader.meta("sess_plain").await.unwrap().unwrap();
        assert_eq!(read.owner, None);
        assert_eq!(read.protocol_version, ProtocolVersion::V2);
        assert!(reader.meta("sess_unknown").await.unwrap().is_none());
    }
    let error = store.create(&plain).await.unwrap_err();
    assert!(
        matches!(error, StoreError::Exists(ref id) if id == "sess_plain"),
        "{error:?}"
    );
    let mut changed = meta.clone();
    changed.title = None;
    changed.archived = false;
    changed.mode = Some("ask".to_owned());
    changed.config.clear();
    changed.updated_at = at(1_800_000_000_000);
    store.save_meta(&changed).await.unwrap();
    for reader in readers(fixture) {
        assert_eq!(
            reader.meta("sess_meta").await.unwrap(),
            Some(changed.clone())
        );
    }
    let error = store
        .save_meta(&SessionMeta::new("sess_unknown", ProtocolVersion::V1, "/"))
        .await
        .unwrap_err();
    assert!(matches!(error, StoreError::Unknown(_)), "{error:?}");
}

/// append, history: entries of both versions and prompt keys come back in order.
pub async fn history_keeps_order_and_kinds(fixture: &impl Fixture) {
    let store = fixture.store();
    create_empty(store.as_ref(), "sess_a", ProtocolVersion::V1, "/").await;
    create_empty(store.as_ref(), "sess_b", ProtocolVersion::V2, "/").await;
    let a: Vec<HistoryEntry> = (0..20).map(|n| v1_text(&format!("a{n}"))).collect();
    let b = vec![
        HistoryEntry::V2(v2::ReplayableUpdate::UserMessage(
            v2::UserMessage::new("u1").content(vec![v2::ContentBlock::from("hi")]),
        )),
        key("k1", "u1"),
        v2_text("b0 with a newline\nand a tab\t"),
        v2_text(""),
    ];
    for (index, entry) in a.iter().enumerate() {
        store.append("sess_a", entry.clone()).await.unwrap();
        if let Some(entry) = b.get(index) {
            store.append("sess_b", entry.clone()).await.unwrap();
        }
    }
    for reader in readers(fixture) {
        assert_eq!(reader.history("sess_a").await.unwrap(), a);
        assert_eq!(reader.history("sess_b").await.unwrap(), b);
    }
    create_empty(store.as_ref(), "sess_empty", ProtocolVersion::V1, "/").await;
    assert!(store.history("sess_empty").await.unwrap().is_empty());
    let unknown = store
        .append("sess_unknown", v1_text("x"))
        .await
        .unwrap_err();
    assert!(matches!(unknown, StoreError::Unknown(_)), "{unknown:?}");
    let unknown = store.history("sess_unknown").await.unwrap_err();
    assert!(matches!(unknown, StoreError::Unknown(_)), "{unknown:?}");
}

/// The parameters that reopen session `id` with its history: v1 `session/load`, v2
/// `session/resume` replaying from the start.
fn reopen(version: u16, id: &str) -> (&'static str, Value) {
    if version == 1 {
        (
            "session/load",
            json!({"sessionId": id, "cwd": "/work", "mcpServers": []}),
        )
    } else {
        (
            "session/resume",
            json!({"sessionId": id, "cwd": "/work", "replayFrom": {"type": "start"}}),
        )
    }
}

/// The texts of the agent message chunks among `updates`.
fn texts(updates: &[Value]) -> Vec<String> {
    updates
        .iter()
        .filter(|update| update["sessionUpdate"] == "agent_message_chunk")
        .map(|update| {
            update["content"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// A server of the test agent over `store` that sends a notice whenever a session opens.
fn noticing_server(store: Arc<dyn SessionStore>) -> AgentServer<TestAgent> {
    let agent = TestAgent {
        notice_on_open: Some(Notice::warning("MCP server unavailable")),
        ..TestAgent::default()
    };
    AgentServer::new(agent).shared_store(store)
}

/// A session written through one server is replayed whole by another (on the second view
/// when there is one, as another instance would), notices left out, in both versions.
pub async fn replay_leaves_notices_out(fixture: &impl Fixture) {
    for version in [1u16, 2] {
        let writer = noticing_server(fixture.store());
        let (mut wire, _) =
            Wire::start(&writer, version, json!({"session": {"notices": {}}})).await;
        let id = wire.new_session("/work").await;
        wire.prompt(&id, "hello").await;
        wire.prompt(&id, "title:Greeting").await;
        wire.prompt(&id, "again").await;
        let seen = wire.take_updates();
        assert!(
            seen.iter()
                .any(|update| update["sessionUpdate"] == "notice")
        );
        let reader = noticing_server(fixture.second().unwrap_or_else(|| fixture.store()));
        let (mut wire, _) = Wire::start(&reader, version, json!({})).await;
        let listed = wire.ok("session/list", json!({})).await;
        assert_eq!(
            listed["sessions"][0]["sessionId"],
            id.as_str(),
            "v{version}"
        );
        assert_eq!(listed["sessions"][0]["title"], "Greeting", "v{version}");
        let (method, params) = reopen(version, &id);
        wire.ok(method, params).await;
        let mut replayed = wire.take_updates();
        // A v2 resume sends what the agent's set-up hook sends (here its notice) before the
        // response too, but live, after `replay_complete`: the replay is what comes before.
        if let Some(end) = replayed
            .iter()
            .position(|update| update["sessionUpdate"] == "replay_complete")
        {
            replayed.truncate(end);
        }
        assert_eq!(texts(&replayed), texts(&seen), "v{version}");
        assert_eq!(texts(&replayed), ["echo: ", "hello", "echo: ", "again"]);
        assert!(
            replayed
                .iter()
                .all(|update| update["sessionUpdate"] != "notice"),
            "v{version}: {replayed:?}"
        );
        // The session goes on from the other instance.
        assert_eq!(wire.prompt(&id, "more").await, "end_turn");
        let history = fixture.store().history(&id).await.unwrap();
        let recorded = history
            .iter()
            .filter(|entry| matches!(entry, HistoryEntry::V1(_) | HistoryEntry::V2(_)))
            .count();
        assert!(recorded >= 8, "v{version}: {recorded} entries");
    }
}

/// `session/list` in pages of two: every session exactly once, newest first, only the
/// caller's own; `list` and `list_owned` of the store agree.
pub async fn list_in_pages(fixture: &impl Fixture) {
    let store = fixture.store();
    for n in 0..5u64 {
        let mut meta = SessionMeta::new(format!("sess_{n}"), ProtocolVersion::V1, "/work");
        meta.updated_at = at(1_700_000_000_000 + n * 1000);
        meta.owner = Some("alice".to_owned());
        store.create(&meta).await.unwrap();
    }
    let mut other = SessionMeta::new("sess_bob", ProtocolVersion::V1, "/work");
    other.owner = Some("bob".to_owned());
    store.create(&other).await.unwrap();
    store
        .create(&SessionMeta::new(
            "sess_local",
            ProtocolVersion::V1,
            "/work",
        ))
        .await
        .unwrap();
    assert_eq!(store.list().await.unwrap().len(), 7);
    let mut alice = ids(store.list_owned(Some("alice")).await.unwrap());
    alice.sort();
    assert_eq!(alice, ["sess_0", "sess_1", "sess_2", "sess_3", "sess_4"]);
    let local = ids(store.list_owned(None).await.unwrap());
    assert_eq!(local, ["sess_local"]);

    let server = AgentServer::new(TestAgent::default())
        .shared_store(fixture.second().unwrap_or_else(|| fixture.store()))
        .list_page_size(2);
    let mut wire = Wire::start_as(&server, 1, Principal::named("alice")).await;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..5 {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = wire.ok("session/list", params).await;
        let sessions = page["sessions"].as_array().unwrap();
        assert!(sessions.len() <= 2, "{page}");
        seen.extend(
            sessions
                .iter()
                .map(|session| session["sessionId"].as_str().unwrap().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, ["sess_4", "sess_3", "sess_2", "sess_1", "sess_0"]);
}

/// `session/close`, then the session is loaded again on another connection and goes on.
pub async fn close_then_reopen(fixture: &impl Fixture) {
    let server = AgentServer::new(TestAgent::default()).shared_store(fixture.store());
    let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
    let id = wire.new_session("/work").await;
    wire.prompt(&id, "one").await;
    wire.ok("session/close", json!({"sessionId": id})).await;
    let (code, _) = wire
        .error("session/prompt", Wire::prompt_params(&id, "closed"))
        .await;
    assert_eq!(code, i64::from(rpc::RESOURCE_NOT_FOUND));
    let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
    let (method, params) = reopen(1, &id);
    wire.ok(method, params).await;
    assert_eq!(texts(&wire.take_updates()), ["echo: ", "one"]);
    wire.prompt(&id, "two").await;
    let history = fixture.store().history(&id).await.unwrap();
    assert_eq!(
        history.len(),
        6,
        "two prompts and two replies of two chunks each"
    );
}

/// delete: the session and its history are gone, from every view; a second delete says so.
pub async fn delete_removes_everything(fixture: &impl Fixture) {
    let store = fixture.store();
    sessions_with(&store, &["sess_gone", "sess_kept"], &[v1_text("x")]).await;
    let deleter = fixture.second().unwrap_or_else(|| fixture.store());
    assert!(deleter.delete("sess_gone").await.unwrap());
    assert!(!deleter.delete("sess_gone").await.unwrap());
    for reader in readers(fixture) {
        assert!(reader.meta("sess_gone").await.unwrap().is_none());
        let error = reader.history("sess_gone").await.unwrap_err();
        assert!(matches!(error, StoreError::Unknown(_)), "{error:?}");
        assert_eq!(ids(reader.list().await.unwrap()), ["sess_kept"]);
        assert_eq!(reader.history("sess_kept").await.unwrap(), [v1_text("x")]);
    }
    // Appending to a deleted session fails; the id may be used again.
    let error = store
        .append("sess_gone", v1_text("late"))
        .await
        .unwrap_err();
    assert!(matches!(error, StoreError::Unknown(_)), "{error:?}");
    create_empty(store.as_ref(), "sess_gone", ProtocolVersion::V1, "/").await;
    assert!(store.history("sess_gone").await.unwrap().is_empty());

    // Over the wire, from another instance.
    let server = AgentServer::new(TestAgent::default()).shared_store(fixture.store());
    let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
    let id = wire.new_session("/work").await;
    wire.prompt(&id, "doomed").await;
    let other = AgentServer::new(TestAgent::default())
        .shared_store(fixture.second().unwrap_or_else(|| fixture.store()));
    let (mut other, _) = Wire::start(&other, 1, json!({})).await;
    other.ok("session/delete", json!({"sessionId": id})).await;
    // Gone for every instance: deleting it again succeeds silently (as for any unknown
    // session), loading it answers that it is not found.
    other.ok("session/delete", json!({"sessionId": id})).await;
    let (code, _) = other
        .error(
            "session/load",
            json!({"sessionId": id, "cwd": "/work", "mcpServers": []}),
        )
        .await;
    assert_eq!(code, i64::from(rpc::RESOURCE_NOT_FOUND));
    assert!(fixture.store().meta(&id).await.unwrap().is_none());
}

/// `session/fork`: a new session with a copy of the history; the source stays as it was.
#[cfg(feature = "unstable_session_fork")]
pub async fn fork_copies_history(fixture: &impl Fixture) {
    let server = AgentServer::new(TestAgent::default()).shared_store(fixture.store());
    let (mut wire, _) = Wire::start(&server, 2, json!({})).await;
    let source = wire.new_session("/work").await;
    wire.prompt(&source, "title:Original").await;
    wire.prompt(&source, "hello").await;
    let other = AgentServer::new(TestAgent::default())
        .shared_store(fixture.second().unwrap_or_else(|| fixture.store()));
    let (mut other, _) = Wire::start(&other, 2, json!({})).await;
    let forked = other
        .ok("session/fork", json!({"sessionId": source, "cwd": "/fork"}))
        .await;
    let fork = forked["sessionId"].as_str().unwrap().to_owned();
    assert_ne!(fork, source);
    let store = fixture.store();
    let copy = store.history(&fork).await.unwrap();
    let original: Vec<HistoryEntry> = store
        .history(&source)
        .await
        .unwrap()
        .into_iter()
        .filter(|entry| !matches!(entry, HistoryEntry::PromptKey { .. }))
        .collect();
    assert_eq!(copy, original);
    let meta = store.meta(&fork).await.unwrap().unwrap();
    assert_eq!(meta.title.as_deref(), Some("Original"));
    assert_eq!(meta.cwd, "/fork");
    // Each goes on alone.
    other.prompt(&fork, "only in the fork").await;
    assert_eq!(store.history(&source).await.unwrap().len(), original.len());
}

/// `session/archive` from another instance: the flag is stored and the default list leaves
/// the session out.
#[cfg(feature = "unstable_session_archive")]
pub async fn archive_is_stored(fixture: &impl Fixture) {
    let server = AgentServer::new(TestAgent::default()).shared_store(fixture.store());
    let (mut wire, _) = Wire::start(&server, 2, json!({})).await;
    let kept = wire.new_session("/work").await;
    let archived = wire.new_session("/work").await;
    let other = AgentServer::new(TestAgent::default())
        .shared_store(fixture.second().unwrap_or_else(|| fixture.store()));
    let (mut other, _) = Wire::start(&other, 2, json!({})).await;
    other
        .ok("session/archive", json!({"sessionId": archived}))
        .await;
    assert!(is_archived(fixture, &archived).await);
    assert_eq!(wire.listed(json!({})).await, [kept.as_str()]);
    // A prompt on the instance that still has it open does not bring it back.
    wire.prompt(&kept, "touch").await;
    assert!(is_archived(fixture, &archived).await);
}

/// Titles: the agent's own (`session_info_update`, recorded) and, with the feature, the
/// client's `session/set_title` from another instance; neither is lost when the first
/// instance changes the session again.
pub async fn titles_are_stored(fixture: &impl Fixture) {
    let server = AgentServer::new(TestAgent::default()).shared_store(fixture.store());
    let (mut wire, _) = Wire::start(&server, 2, json!({})).await;
    let id = wire.new_session("/work").await;
    wire.prompt(&id, "title:From the agent").await;
    let store = fixture.store();
    assert_eq!(
        store.meta(&id).await.unwrap().unwrap().title.as_deref(),
        Some("From the agent")
    );
    #[cfg(feature = "unstable_session_set_title")]
    {
        let other = AgentServer::new(TestAgent::default())
            .shared_store(fixture.second().unwrap_or_else(|| fixture.store()));
        let (mut other, _) = Wire::start(&other, 2, json!({})).await;
        other
            .ok(
                "session/set_title",
                json!({"sessionId": id, "title": "  From the client "}),
            )
            .await;
        // The first instance has the session open and records a prompt: the title stays.
        wire.prompt(&id, "hello").await;
        assert_eq!(
            store.meta(&id).await.unwrap().unwrap().title.as_deref(),
            Some("From the client")
        );
    }
}

/// A damaged entry fails its session with an error that says where; other sessions read.
pub async fn corrupt_entry_fails_only_its_session(fixture: &impl Fixture) {
    let store = fixture.store();
    for id in ["sess_bad", "sess_good"] {
        create_empty(store.as_ref(), id, ProtocolVersion::V1, "/").await;
        for n in 0..3 {
            store
                .append(id, v1_text(&format!("{id} {n}")))
                .await
                .unwrap();
        }
    }
    if !fixture.damage("sess_bad", 1).await {
        eprintln!("skipped: this store cannot be damaged from outside");
        return;
    }
    for reader in readers(fixture) {
        let error = reader.history("sess_bad").await.unwrap_err();
        assert!(
            matches!(
                error,
                StoreError::Corrupt { .. } | StoreError::CorruptRecord { .. }
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("sess_bad"), "{message}");
        assert_eq!(reader.history("sess_good").await.unwrap().len(), 3);
    }
    // Over the wire: a clear internal error, and the good session still loads.
    let server = AgentServer::new(TestAgent::default()).shared_store(fixture.store());
    let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
    let (method, params) = reopen(1, "sess_bad");
    let (code, message) = wire.error(method, params).await;
    assert_eq!(code, -32603, "{message}");
    assert!(message.contains("sess_bad"), "{message}");
    let (method, params) = reopen(1, "sess_good");
    wire.ok(method, params).await;
    assert_eq!(texts(&wire.take_updates()).len(), 3);
}

/// A write the storage refuses fails with an error naming the session; what was recorded
/// stays, and other sessions go on.
pub async fn failing_write_loses_nothing(fixture: &impl Fixture) {
    let store = fixture.store();
    sessions_with(&store, &["sess_broken", "sess_fine"], &[v1_text("before")]).await;
    let Some(writer) = fixture.break_writes("sess_broken").await else {
        eprintln!("skipped: this store cannot be broken from outside");
        return;
    };
    let error = writer
        .append("sess_broken", v1_text("lost?"))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("sess_broken"), "{error}");
    writer.append("sess_fine", v1_text("after")).await.unwrap();
    for reader in readers(fixture) {
        assert_eq!(
            reader.history("sess_fine").await.unwrap(),
            [v1_text("before"), v1_text("after")]
        );
    }
}

/// Two store values (two connections, as two processes would have) append to the same
/// sessions at once: nothing is lost, and each writer's entries keep their order.
pub async fn concurrent_appends_from_two_connections(fixture: &impl Fixture) {
    const EACH: usize = 200;
    let first = fixture.store();
    let second = fixture.second().unwrap_or_else(|| fixture.store());
    for id in ["sess_shared", "sess_one", "sess_two"] {
        first
            .create(&SessionMeta::new(id, ProtocolVersion::V1, "/"))
            .await
            .unwrap();
    }
    let write = |store: Arc<dyn SessionStore>, name: &'static str, own: &'static str| {
        tokio::spawn(async move {
            for n in 0..EACH {
                store
                    .append("sess_shared", v1_text(&format!("{name} {n}")))
                    .await
                    .unwrap();
                store
                    .append(own, v1_text(&format!("{name} {n}")))
                    .await
                    .unwrap();
            }
        })
    };
    let a = write(first, "a", "sess_one");
    let b = write(second, "b", "sess_two");
    a.await.unwrap();
    b.await.unwrap();
    for reader in readers(fixture) {
        let shared = reader.history("sess_shared").await.unwrap();
        assert_eq!(shared.len(), 2 * EACH);
        for name in ["a", "b"] {
            let mine: Vec<HistoryEntry> = shared
                .iter()
                .filter(|entry| match entry {
                    HistoryEntry::V1(v1::ReplayableUpdate::AgentMessageChunk(chunk)) => {
                        chunk_text(chunk).starts_with(&format!("{name} "))
                    }
                    _ => false,
                })
                .cloned()
                .collect();
            let expected: Vec<HistoryEntry> =
                (0..EACH).map(|n| v1_text(&format!("{name} {n}"))).collect();
            assert_eq!(mine, expected, "{name}'s entries, in order");
        }
        assert_eq!(reader.history("sess_one").await.unwrap().len(), EACH);
        assert_eq!(reader.history("sess_two").await.unwrap().len(), EACH);
    }
}

fn chunk_text(chunk: &v1::ContentChunk) -> String {
    serde_json::to_value(chunk).unwrap()["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
