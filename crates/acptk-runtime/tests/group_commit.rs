//! Group commit: the updates a turn sends in a burst are recorded with few store writes
//! (`SessionStore::append_batch`), none reaches the client before it is recorded, they arrive
//! in the order they were sent, a request to the client comes after the updates sent before
//! it, the queue is bounded, and a write that fails sends none of its updates and ends the
//! turn with the store's error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_runtime::ErrorObject;
use acptk_runtime::agent::{
    Agent, AgentServer, HistoryEntry, MemoryStore, Prompt, Session, SessionMeta, SessionStore,
    StopReason, StoreError, StoreFeatures, StoreFuture, ToolCall,
};
use acptk_schema::{v1, v2};
use common::wire::Wire;
use serde_json::{Value, json};
use tokio::sync::watch;

/// A memory store that counts its batch writes, holds them while its gate is shut, and
/// refuses a batch holding the text it was told to refuse.
struct Watched {
    inner: MemoryStore,
    batches: Mutex<Vec<usize>>,
    gate: watch::Sender<bool>,
    refuse: Mutex<Option<String>>,
}

impl Watched {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: MemoryStore::new(),
            batches: Mutex::new(Vec::new()),
            gate: watch::channel(true).0,
            refuse: Mutex::new(None),
        })
    }

    fn shut(&self) {
        self.gate.send_replace(false);
    }

    fn open(&self) {
        self.gate.send_replace(true);
    }

    fn batches(&self) -> Vec<usize> {
        self.batches.lock().unwrap().clone()
    }
}

/// The text of a history entry that is an agent message chunk.
fn entry_text(entry: &HistoryEntry) -> Option<String> {
    let chunk = match entry {
        HistoryEntry::V1(v1::ReplayableUpdate::AgentMessageChunk(chunk)) => {
            serde_json::to_value(chunk).unwrap()
        }
        HistoryEntry::V2(v2::ReplayableUpdate::AgentMessageChunk(chunk)) => {
            serde_json::to_value(chunk).unwrap()
        }
        _ => return None,
    };
    chunk["content"]["text"].as_str().map(str::to_owned)
}

impl SessionStore for Watched {
    fn features(&self) -> StoreFeatures {
        self.inner.features()
    }
    fn groups_appends(&self) -> bool {
        true
    }
    fn create<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        self.inner.create(meta)
    }
    fn meta<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionMeta>> {
        self.inner.meta(id)
    }
    fn save_meta<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        self.inner.save_meta(meta)
    }
    /// Single appends (the runtime's own records: the user's message) pass straight through.
    fn append<'a>(&'a self, id: &'a str, entry: HistoryEntry) -> StoreFuture<'a, ()> {
        self.inner.append(id, entry)
    }
    fn append_batch<'a>(&'a self, id: &'a str, entries: Vec<HistoryEntry>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let _ = self.gate.subscribe().wait_for(|open| *open).await;
            let refused = self.refuse.lock().unwrap().clone();
            if let Some(refused) = refused
                && entries
                    .iter()
                    .any(|entry| entry_text(entry).as_deref() == Some(refused.as_str()))
            {
                return Err(StoreError::database(id, "appending to", "the disk is full"));
            }
            self.batches.lock().unwrap().push(entries.len());
            self.inner.append_batch(id, entries).await
        })
    }
    fn history<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<HistoryEntry>> {
        self.inner.history(id)
    }
    fn list(&self) -> StoreFuture<'_, Vec<SessionMeta>> {
        self.inner.list()
    }
    fn delete<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        self.inner.delete(id)
    }
}

/// `burst N`: sends `u0` .. `u{N-1}`; `burst N ask`: then asks for a permission;
/// `burst N flush`: then flushes and says how that went.
#[derive(Default)]
struct Burst {
    /// Send calls that returned so far.
    sent: Arc<AtomicUsize>,
}

impl Agent for Burst {
    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let mut words = prompt.text.split(' ').skip(1);
        let count: usize = words.next().unwrap_or("0").parse().unwrap_or(0);
        let then = words.next().unwrap_or("");
        for n in 0..count {
            session.send_text(format!("u{n}")).await?;
            self.sent.fetch_add(1, Ordering::SeqCst);
        }
        match then {
            "ask" => {
                let call = session.start_tool_call(ToolCall::new("Run it")).await?;
                let outcome = call.request_permission().await?;
                session
                    .send_text(format!("allowed: {}", outcome.allowed()))
                    .await?;
            }
            "flush" => {
                let report = match session.flush().await {
                    Ok(()) => "flushed".to_owned(),
                    Err(error) => format!("flush failed: {error}"),
                };
                session.send_text(report).await?;
            }
            _ => {}
        }
        Ok(StopReason::EndTurn)
    }
}

/// A [`Burst`] agent on a [`Watched`] store, with a client of `version` and one session.
async fn serve(version: u16) -> (Arc<Watched>, Wire, String) {
    let store = Watched::new();
    let server = AgentServer::new(Burst::default()).shared_store(store.clone());
    let (wire, session) = Wire::with_session(&server, version, "/work").await;
    (store, wire, session)
}

/// The texts of the agent message chunks among `updates`.
fn chunk_texts(updates: &[Value]) -> Vec<String> {
    updates
        .iter()
        .filter(|update| update["sessionUpdate"] == "agent_message_chunk")
        .map(|update| update["content"]["text"].as_str().unwrap().to_owned())
        .collect()
}

async fn history_texts(store: &Watched, session: &str) -> Vec<String> {
    store
        .history(session)
        .await
        .unwrap()
        .iter()
        .filter_map(entry_text)
        .collect()
}

fn numbered(count: usize) -> Vec<String> {
    (0..count).map(|n| format!("u{n}")).collect()
}

/// Reads until the turn of `session` ended (v1: the prompt's response `id`; v2: idle);
/// returns the v1 response or the v2 idle update.
async fn turn_end(wire: &mut Wire, version: u16, id: i64, session: &str) -> Value {
    if version == 1 {
        wire.response(id).await
    } else {
        wire.until(|message| {
            message["params"]["sessionId"] == session
                && message["params"]["update"]["state"] == "idle"
        })
        .await["params"]["update"]
            .clone()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_is_recorded_in_few_writes_before_any_of_it_is_sent() {
    for version in [1u16, 2] {
        let (store, mut wire, session) = serve(version).await;
        store.shut();
        let id = wire.start_prompt(&session, "burst 300").await;
        // While the store holds the writes, nothing of the reply reaches the client.
        while let Some(message) = wire.next_within(Duration::from_millis(300)).await {
            assert_ne!(
                message["params"]["update"]["sessionUpdate"], "agent_message_chunk",
                "v{version}: an update arrived before it was recorded: {message}"
            );
            wire.seen.push(message);
        }
        assert!(history_texts(&store, &session).await.is_empty());
        store.open();
        let end = turn_end(&mut wire, version, id, &session).await;
        assert!(end.get("error").is_none(), "v{version}: {end}");
        let received = chunk_texts(&wire.take_updates());
        assert_eq!(received, numbered(300), "v{version}: in the order sent");
        assert_eq!(history_texts(&store, &session).await, received);
        let batches = store.batches();
        assert!(
            batches.len() < 50,
            "v{version}: 300 updates took {} writes: {batches:?}",
            batches.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_to_the_client_comes_after_the_updates_sent_before_it() {
    for version in [1u16, 2] {
        let (_store, mut wire, session) = serve(version).await;
        let id = wire.start_prompt(&session, "burst 100 ask").await;
        let request = wire
            .until(|message| message["method"] == "session/request_permission")
            .await;
        let before: Vec<Value> = wire.seen[..wire.seen.len() - 1].to_vec();
        let updates: Vec<Value> = before
            .iter()
            .filter(|message| message["method"] == "session/update")
            .map(|message| message["params"]["update"].clone())
            .collect();
        assert_eq!(chunk_texts(&updates), numbered(100), "v{version}");
        assert!(
            updates
                .iter()
                .any(|update| update["sessionUpdate"] == "tool_call"
                    || update["sessionUpdate"] == "tool_call_update"),
            "v{version}: the tool call came before its permission request"
        );
        let option = request["params"]["options"][0]["optionId"].clone();
        wire.send(json!({
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": option}}
        }))
        .await;
        let end = turn_end(&mut wire, version, id, &session).await;
        assert!(end.get("error").is_none(), "v{version}: {end}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_is_bounded_while_the_store_is_slow() {
    let store = Watched::new();
    let agent = Burst::default();
    let sent = Arc::clone(&agent.sent);
    let server = AgentServer::new(agent).shared_store(store.clone());
    let (mut wire, session) = Wire::with_session(&server, 1, "/work").await;
    store.shut();
    let id = wire.start_prompt(&session, "burst 5000").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let waiting = sent.load(Ordering::SeqCst);
    assert!(
        (1..=2 * 1024).contains(&waiting),
        "{waiting} sends returned while the store held every write"
    );
    store.open();
    let end = wire.response(id).await;
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    assert_eq!(chunk_texts(&wire.take_updates()), numbered(5000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_write_sends_none_of_it_and_ends_the_turn_with_the_error() {
    for version in [1u16, 2] {
        let (store, mut wire, session) = serve(version).await;
        *store.refuse.lock().unwrap() = Some("u7".to_owned());
        let id = wire.start_prompt(&session, "burst 10").await;
        let end = turn_end(&mut wire, version, id, &session).await;
        let message = if version == 1 {
            end["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        } else {
            assert_eq!(end["stopReason"], "error", "{end}");
            end["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        assert!(message.contains("the disk is full"), "v{version}: {end}");
        // The client saw exactly what the history holds, never the refused update.
        let received = chunk_texts(&wire.take_updates());
        assert!(
            !received.contains(&"u7".to_owned()),
            "v{version}: {received:?}"
        );
        assert_eq!(
            history_texts(&store, &session).await,
            received,
            "v{version}"
        );
        // The session goes on once the store accepts again.
        *store.refuse.lock().unwrap() = None;
        let id = wire.start_prompt(&session, "burst 2").await;
        let end = turn_end(&mut wire, version, id, &session).await;
        assert!(end.get("error").is_none(), "v{version}: {end}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_learns_of_a_failed_write_from_flush() {
    let (store, mut wire, session) = serve(1).await;
    *store.refuse.lock().unwrap() = Some("u3".to_owned());
    let id = wire.start_prompt(&session, "burst 5 flush").await;
    let end = wire.response(id).await;
    // The handler saw the failure at its flush; its report after it was recorded and sent.
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    let received = chunk_texts(&wire.take_updates());
    let report = received.last().unwrap();
    assert!(
        report.starts_with("flush failed:") && report.contains("the disk is full"),
        "{received:?}"
    );
    assert_eq!(history_texts(&store, &session).await, received);
}

#[tokio::test]
async fn a_batch_over_a_limit_stores_none_of_it() {
    let memory = MemoryStore::new().max_entries(5);
    let dir = tempfile::tempdir().unwrap();
    let files = acptk_runtime::agent::FileStore::open(dir.path())
        .unwrap()
        .max_session_bytes(2_000);
    let stores: [Arc<dyn SessionStore>; 2] = [Arc::new(memory), Arc::new(files)];
    for store in stores {
        store
            .create(&SessionMeta::new("s", v1::ProtocolVersion::V1, "/"))
            .await
            .unwrap();
        let entry = |n: usize| {
            HistoryEntry::V1(v1::ReplayableUpdate::AgentMessageChunk(
                v1::ContentChunk::new(format!("{n:0>200}")).message_id("m"),
            ))
        };
        store
            .append_batch("s", vec![entry(0), entry(1)])
            .await
            .unwrap();
        // Part of this batch would fit; none of it is kept.
        let error = store
            .append_batch("s", (2..12).map(entry).collect())
            .await
            .unwrap_err();
        assert!(matches!(error, StoreError::Full { .. }), "{error:?}");
        assert_eq!(store.history("s").await.unwrap(), [entry(0), entry(1)]);
    }
}
