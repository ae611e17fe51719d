//! `acptk-runtime-bench store`: what keeping sessions costs, for every store side by side in
//! one run: memory, file, SQLite and (with `--postgres URL` or `$ACP_TEST_POSTGRES_URL`)
//! PostgreSQL, in a schema of its own that is dropped afterwards.
//!
//! * record: the cost of one recorded update, in the store alone (`SessionStore::append` of
//!   the stream's updates, ACP v1);
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

use acptk_runtime::agent::{
    Agent, AgentServer, FileStore, HistoryEntry, MemoryStore, PostgresStore, Prompt, Session,
    SessionMeta, SessionStore, SqliteStore, StopReason,
};
use acptk_runtime::client::ClientBuilder;
use acptk_runtime::connection::{BoxFuture, Handler, Reply};
use acptk_runtime::{Connection, ConnectionBuilder, ProtocolVersion};
use acptk_schema::jsonrpc::{ErrorObject, Id, RawValue};
use acptk_schema::v1;

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

/// A scratch directory for the file and SQLite stores, removed when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Result<Scratch, BoxError> {
        let dir = std::env::temp_dir().join(format!(
            "acptk-runtime-bench-{name}-{}-{}",
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

/// A kind of store.
#[derive(Debug, Clone)]
pub enum Kind {
    Memory,
    File,
    Sqlite,
    /// The URL (with the benchmark's schema in its `search_path`).
    Postgres(String),
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Memory => "memory",
            Kind::File => "file",
            Kind::Sqlite => "sqlite",
            Kind::Postgres(_) => "postgres",
        }
    }

    /// A store of this kind; `tag` names its files in `scratch` (a store of its own per tag).
    pub async fn open(
        &self,
        scratch: &std::path::Path,
        tag: &str,
    ) -> Result<Arc<dyn SessionStore>, BoxError> {
        Ok(match self {
            Kind::Memory => Arc::new(MemoryStore::new()),
            Kind::File => Arc::new(FileStore::open(scratch.join(tag))?),
            Kind::Sqlite => Arc::new(SqliteStore::open(
                scratch.join(format!("{tag}.sqlite3")),
            )?),
            Kind::Postgres(url) => Arc::new(PostgresStore::connect(url).await?),
        })
    }
}

/// A schema of its own in the PostgreSQL of `url`, dropped when [`Schema::drop_now`] runs.
pub struct Schema {
    admin: String,
    name: String,
}

impl Schema {
    pub async fn create(admin: &str) -> Result<Schema, BoxError> {
        let name = format!("acp_bench_{}_{}", std::process::id(), crate::timing::now_ns() % 1_000_000);
        run_sql(admin, &format!("CREATE SCHEMA {name}")).await?;
        Ok(Schema {
            admin: admin.to_owned(),
            name,
        })
    }

    /// The URL whose connections use the schema.
    pub fn url(&self) -> String {
        let separator = if self.admin.contains('?') { '&' } else { '?' };
        format!("{}{separator}options=-c%20search_path%3D{}", self.admin, self.name)
    }

    pub async fn drop_now(self) -> Result<(), BoxError> {
        run_sql(&self.admin, &format!("DROP SCHEMA {} CASCADE", self.name)).await
    }
}

async fn run_sql(url: &str, sql: &str) -> Result<(), BoxError> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    let driver = tokio::spawn(connection);
    client.batch_execute(sql).await?;
    drop(client);
    let _ = driver.await;
    Ok(())
}

/// The PostgreSQL of `--postgres`, else `$ACP_TEST_POSTGRES_URL`.
pub fn postgres_url(flag: Option<String>) -> Option<String> {
    flag.or_else(|| std::env::var("ACP_TEST_POSTGRES_URL").ok())
        .filter(|url| !url.trim().is_empty())
}

/// Microseconds per appended entry, one run.
async fn record_once(
    store: &dyn SessionStore,
    id: &str,
    entries: Vec<HistoryEntry>,
) -> Result<f64, BoxError> {
    store
        .create(&SessionMeta::new(id, ProtocolVersion::V1, "/bench"))
        .await?;
    let count = entries.len();
    let started = Instant::now();
    for entry in entries {
        store.append(id, entry).await?;
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
                .map_err(acptk_runtime::rpc::internal)?;
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
        Box::pin(async move { Reply::error(acptk_runtime::rpc::method_not_found(&method)) })
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

/// Runs the store measurements: `count` updates, `runs` runs each (median shown), for
/// every kind of store (PostgreSQL when `postgres` names one).
pub async fn bench(
    count: usize,
    runs: usize,
    seed: u64,
    postgres: Option<String>,
) -> Result<(), BoxError> {
    println!(
        "acptk-runtime session stores: ACP v1 stream without notices, {count} updates, {runs} runs (median)"
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
    let schema = match &postgres {
        Some(url) => Some(Schema::create(url).await?),
        None => {
            println!("postgres: skipped (no --postgres URL and no $ACP_TEST_POSTGRES_URL)");
            None
        }
    };
    let mut kinds = vec![Kind::Memory, Kind::File, Kind::Sqlite];
    if let Some(schema) = &schema {
        kinds.push(Kind::Postgres(schema.url()));
    }
    let result = measure(&kinds, &updates, runs, &scratch).await;
    if let Some(schema) = schema {
        schema.drop_now().await?;
    }
    let table = result?;
    println!();
    println!(
        "{:<9} {:>16} {:>14} {:>14} {:>16} {:>18}",
        "store",
        "append us/entry",
        "turn us/update",
        "send msg/s",
        "read history ms",
        "session/load ms"
    );
    for (kind, row) in kinds.iter().zip(&table) {
        println!(
            "{:<9} {:>16.2} {:>14.2} {:>14.0} {:>16.1} {:>18.1}",
            kind.name(),
            median(&row.record),
            1e6 / median(&row.send),
            median(&row.send),
            median(&row.read),
            median(&row.load),
        );
    }
    println!();
    println!(
        "append: one SessionStore::append per entry, awaited (the store alone, no grouping);"
    );
    println!(
        "turn: a prompt handler sends every update; each is recorded (in groups) before it is sent"
    );
    println!();
    let memory = median(&table[0].send);
    for (kind, row) in kinds.iter().zip(&table).skip(1) {
        let added = 1e6 / median(&row.send) - 1e6 / memory;
        println!(
            "{} store on the send path: {added:.2} us more per update than the memory store ({:.2}x its throughput)",
            kind.name(),
            median(&row.send) / memory
        );
    }
    Ok(())
}

/// The figures of one kind of store.
#[derive(Default)]
struct Figures {
    record: Vec<f64>,
    send: Vec<f64>,
    read: Vec<f64>,
    load: Vec<f64>,
}

async fn measure(
    kinds: &[Kind],
    updates: &[v1::SessionUpdate],
    runs: usize,
    scratch: &Scratch,
) -> Result<Vec<Figures>, BoxError> {
    let mut table: Vec<Figures> = kinds.iter().map(|_| Figures::default()).collect();
    // Record: the store alone.
    for run in 0..runs {
        for (kind, row) in kinds.iter().zip(table.iter_mut()) {
            let store = kind.open(&scratch.0, &format!("record-{run}")).await?;
            let id = format!("sess_record_{run}");
            row.record
                .push(record_once(store.as_ref(), &id, entries(updates)).await?);
        }
    }
    // Send: agent to client with each store; the order turns, so that no store always runs
    // on a warmer machine.
    for run in 0..runs {
        for offset in 0..kinds.len() {
            let index = (run + offset) % kinds.len();
            let store = kinds[index].open(&scratch.0, &format!("send-{run}")).await?;
            table[index]
                .send
                .push(tokio::spawn(send_once(store, updates.to_vec())).await??);
        }
    }
    // Load: a session of `count` updates, from the store and over a connection.
    for (kind, row) in kinds.iter().zip(table.iter_mut()) {
        let store = kind.open(&scratch.0, "load").await?;
        record_once(store.as_ref(), "sess_load", entries(updates)).await?;
        for _ in 0..runs {
            let started = Instant::now();
            let history = store.history("sess_load").await?;
            row.read.push(started.elapsed().as_secs_f64() * 1e3);
            if history.len() != updates.len() {
                return Err(
                    format!("{} of {} updates read back", history.len(), updates.len()).into(),
                );
            }
            let (ms, received) =
                tokio::spawn(load_once(Arc::clone(&store), "sess_load")).await??;
            if received != updates.len() {
                return Err(format!("{received} of {} updates replayed", updates.len()).into());
            }
            row.load.push(ms);
        }
    }
    Ok(table)
}
