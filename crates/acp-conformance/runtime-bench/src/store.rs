//! `acp-runtime-bench store`: what keeping sessions costs.
//!
//! * record: the cost of one recorded update, in the store alone (`SessionStore::append` of
//!   the stream's updates, ACP v1), for the in-memory and the file store;
//! * send: `session/update` throughput of an agent (`Session::send_v1`, which records each
//!   update before it sends it) to a client over `tokio::io::duplex`, with either store;
//! * load: reopening a session of `--updates` updates: reading it back from the store
//!   (`SessionStore::history`), and a whole `session/load` over a connection, from the request
//!   to the response, after which the client has received every replayed update.
//!
//! No peer: the official runtime has no session store.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use acp_runtime::agent::{
    Agent, AgentServer, FileStore, HistoryEntry, MemoryStore, Prompt, Session, SessionMeta,
    SessionStore, StopReason,
};
use acp_runtime::client::ClientBuilder;
use acp_runtime::connection::{BoxFuture, Handler, Reply};
use acp_runtime::{Connection, ConnectionBuilder, ProtocolVersion};
use acp_schema::jsonrpc::{ErrorObject, Id, RawValue};
use acp_schema::v1;

use crate::timing::median;
use crate::workload::Workload;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The stream's updates that are history (its notices left out), `count` of them.
fn updates(count: usize, seed: u64) -> Result<Vec<v1::SessionUpdate>, BoxError> {
    let workload = Workload {
        count: count + count / 10 + 10,
        seed,
        pace: None,
    };
    let mut updates = Vec::with_capacity(count);
    for text in workload.params() {
        let notification: v1::SessionNotification = serde_json::from_str(&text)?;
        if !notification.update.is_live_only() {
            updates.push(notification.update);
        }
        if updates.len() == count {
            break;
        }
    }
    Ok(updates)
}

fn entries(updates: &[v1::SessionUpdate]) -> Vec<HistoryEntry> {
    updates
        .iter()
        .filter_map(|update| v1::ReplayableUpdate::try_from(update.clone()).ok())
        .map(HistoryEntry::V1)
        .collect()
}

/// A scratch directory for the file store, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Result<Scratch, BoxError> {
        let dir = std::env::temp_dir().join(format!(
            "acp-runtime-bench-{name}-{}-{}",
            std::process::id(),
            crate::timing::now_ns()
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Microseconds per appended entry, one run.
fn record_once(
    store: &dyn SessionStore,
    id: &str,
    entries: Vec<HistoryEntry>,
) -> Result<f64, BoxError> {
    store.create(&SessionMeta::new(id, ProtocolVersion::V1, "/bench"))?;
    let count = entries.len();
    let started = Instant::now();
    for entry in entries {
        store.append(id, entry)?;
    }
    Ok(started.elapsed().as_secs_f64() * 1e6 / count as f64)
}

/// The agent of the send case: its first turn sends the updates.
struct Sender {
    updates: std::sync::Mutex<Option<Vec<v1::SessionUpdate>>>,
}

impl Agent for Sender {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let updates = self
            .updates
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .unwrap_or_default();
        for update in updates {
            session
                .send_v1(update)
                .await
                .map_err(acp_runtime::rpc::internal)?;
        }
        Ok(StopReason::EndTurn)
    }
}

/// Messages per second of one agent-to-client turn with `store`.
async fn send_once(
    store: Arc<dyn SessionStore>,
    updates: Vec<v1::SessionUpdate>,
) -> Result<f64, BoxError> {
    let count = updates.len();
    let agent = Sender {
        updates: std::sync::Mutex::new(Some(updates)),
    };
    let server = AgentServer::new(agent).shared_store(store);
    let (client_io, agent_io) = tokio::io::duplex(crate::DUPLEX_BYTES);
    let (read, write) = tokio::io::split(agent_io);
    let _agent = server.start(read, write);
    let (read, write) = tokio::io::split(client_io);
    let client = ClientBuilder::new().connect(read, write).await?;
    let session = client.new_session("/bench", &[]).await?;
    let started = Instant::now();
    client.prompt(&session, "send").await?;
    Ok(count as f64 / started.elapsed().as_secs_f64())
}

/// Counts the `session/update` notifications a raw client receives.
struct Counter(Arc<AtomicUsize>);

impl Handler for Counter {
    fn request(
        &self,
        _: Connection,
        _: Id,
        method: String,
        _: Option<Box<RawValue>>,
    ) -> BoxFuture<Reply> {
        Box::pin(async move { Reply::error(acp_runtime::rpc::method_not_found(&method)) })
    }

    fn notification(
        &self,
        _: Connection,
        method: String,
        _: Option<Box<RawValue>>,
    ) -> BoxFuture<()> {
        if method == "session/update" {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        Box::pin(async {})
    }
}

/// Milliseconds of one whole `session/load` of session `id`, and the updates received.
async fn load_once(store: Arc<dyn SessionStore>, id: &str) -> Result<(f64, usize), BoxError> {
    let agent = Sender {
        updates: std::sync::Mutex::new(None),
    };
    let server = AgentServer::new(agent).shared_store(store);
    let (client_io, agent_io) = tokio::io::duplex(crate::DUPLEX_BYTES);
    let (read, write) = tokio::io::split(agent_io);
    let _agent = server.start(read, write);
    let (read, write) = tokio::io::split(client_io);
    let received = Arc::new(AtomicUsize::new(0));
    let client = ConnectionBuilder::new().start(read, write, Counter(Arc::clone(&received)));
    let raw = |value: serde_json::Value| serde_json::value::to_raw_value(&value);
    client
        .request_raw(
            "initialize",
            Some(raw(serde_json::json!({"protocolVersion": 1}))?),
        )
        .await?;
    let params = serde_json::json!({"sessionId": id, "cwd": "/bench", "mcpServers": []});
    let started = Instant::now();
    client
        .request_raw("session/load", Some(raw(params)?))
        .await?;
    let elapsed = started.elapsed();
    client.close();
    Ok((
        elapsed.as_secs_f64() * 1e3,
        received.load(Ordering::Relaxed),
    ))
}

/// Runs the store measurements: `count` updates, `runs` runs each (median shown).
pub async fn bench(count: usize, runs: usize, seed: u64) -> Result<(), BoxError> {
    println!(
        "acp-runtime session stores: ACP v1 stream without notices, {count} updates, {runs} runs (median)"
    );
    println!("machine: {}", crate::machine());
    let updates = updates(count, seed)?;
    let bytes: usize = updates
        .iter()
        .map(|update| serde_json::to_vec(update).map_or(0, |line| line.len() + 12))
        .sum();
    println!(
        "stream: {} updates, {:.1} MB as history lines",
        updates.len(),
        bytes as f64 / 1e6
    );
    let scratch = Scratch::new("store")?;

    // Record: the store alone.
    let mut record = [Vec::new(), Vec::new()];
    for run in 0..runs {
        let memory = MemoryStore::new();
        let file = FileStore::open(scratch.0.join(format!("record-{run}")))?;
        record[0].push(record_once(&memory, "sess_bench", entries(&updates))?);
        record[1].push(record_once(&file, "sess_bench", entries(&updates))?);
    }

    // Send: agent to client with each store.
    let mut send = [Vec::new(), Vec::new()];
    for run in 0..runs {
        let memory: Arc<dyn SessionStore> = Arc::new(MemoryStore::new());
        let file: Arc<dyn SessionStore> =
            Arc::new(FileStore::open(scratch.0.join(format!("send-{run}")))?);
        // Alternate the order, so neither store always runs on a warmer machine.
        if run % 2 == 0 {
            send[0].push(tokio::spawn(send_once(memory, updates.clone())).await??);
            send[1].push(tokio::spawn(send_once(file, updates.clone())).await??);
        } else {
            send[1].push(tokio::spawn(send_once(file, updates.clone())).await??);
            send[0].push(tokio::spawn(send_once(memory, updates.clone())).await??);
        }
    }

    // Load: a session of `count` updates, from the store and over a connection.
    let memory: Arc<dyn SessionStore> = Arc::new(MemoryStore::new());
    let file: Arc<dyn SessionStore> = Arc::new(FileStore::open(scratch.0.join("load"))?);
    for store in [&memory, &file] {
        record_once(store.as_ref(), "sess_load", entries(&updates))?;
    }
    let mut read = [Vec::new(), Vec::new()];
    let mut load = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (index, store) in [&memory, &file].into_iter().enumerate() {
            let started = Instant::now();
            let history = store.history("sess_load")?;
            read[index].push(started.elapsed().as_secs_f64() * 1e3);
            if history.len() != updates.len() {
                return Err(
                    format!("{} of {} updates read back", history.len(), updates.len()).into(),
                );
            }
            let (ms, received) = tokio::spawn(load_once(Arc::clone(store), "sess_load")).await??;
            if received != updates.len() {
                return Err(format!("{received} of {} updates replayed", updates.len()).into());
            }
            load[index].push(ms);
        }
    }

    println!();
    println!(
        "{:<8} {:>16} {:>14} {:>16} {:>18}",
        "store", "record us/update", "send msg/s", "read history ms", "session/load ms"
    );
    for (index, name) in ["memory", "file"].iter().enumerate() {
        println!(
            "{:<8} {:>16.2} {:>14.0} {:>16.1} {:>18.1}",
            name,
            median(&record[index]),
            median(&send[index]),
            median(&read[index]),
            median(&load[index]),
        );
    }
    let added = 1e6 / median(&send[1]) - 1e6 / median(&send[0]);
    println!();
    println!(
        "file store on the send path: {added:.2} us more per update than the memory store ({:.2}x its throughput)",
        median(&send[1]) / median(&send[0])
    );
    Ok(())
}
