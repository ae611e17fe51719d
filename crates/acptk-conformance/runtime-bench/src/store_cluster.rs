//! `acptk-runtime-bench store --cluster`: 200 concurrent sessions spread over two agent
//! processes that share one store, over WebSocket on loopback.
//!
//! Each instance is this binary in `store-instance` mode: an `AgentServer` served by
//! `RemoteServer` on 127.0.0.1, whose prompt `N` streams `N` agent message chunks, each
//! carrying its send time (nanoseconds since the Unix epoch, one clock on one machine). Every
//! chunk is recorded in the store before it is sent. The driver opens the connections (half to
//! each instance), creates one session on each, starts every prompt at once, and takes each
//! chunk's latency when it reads it. It reports updates per second (all chunks over the wall
//! time from the first prompt to the last response), p50 and p99 latency, and each
//! instance's peak resident memory (`VmHWM`). Stores: SQLite (one file) and PostgreSQL (one
//! schema) shared by both instances, and as a baseline the file store (a directory per
//! instance: it is not shared, each instance records its own sessions).

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use acptk_runtime::agent::{Agent, AgentServer, Prompt, Session, StopReason};
use acptk_runtime::connection::{BoxFuture, Handler, Reply};
use acptk_runtime::agent::RemoteServer;
use acptk_runtime::transport::remote::{ClientOptions, ServerOptions, connect};
use acptk_runtime::{Connection, ConnectionBuilder};
use acptk_schema::jsonrpc::{ErrorObject, Id, RawValue};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::store::{Kind, Scratch, Schema};
use crate::timing::{now_ns, quantile};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The instance's agent: prompt `N` streams `N` chunks stamped with their send time.
struct Streamer;

impl Agent for Streamer {
    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let count: usize = prompt.text.trim().parse().unwrap_or(0);
        for _ in 0..count {
            session
                .send_text(now_ns().to_string())
                .await
                .map_err(acptk_runtime::rpc::internal)?;
        }
        Ok(StopReason::EndTurn)
    }
}

/// `store-instance file DIR | sqlite PATH | postgres URL`: serves [`Streamer`] on a loopback
/// port, says `listening PORT` on standard output, and runs until standard input closes.
pub async fn instance(args: &[String]) -> Result<(), BoxError> {
    let [kind, place] = args else {
        return Err("store-instance file DIR | sqlite PATH | postgres URL".into());
    };
    let server = AgentServer::new(Streamer);
    let server = match kind.as_str() {
        "file" => server.store(acptk_runtime::agent::FileStore::open(place)?),
        "sqlite" => server.store(acptk_runtime::agent::SqliteStore::open(place)?),
        "postgres" => server.store(acptk_runtime::agent::PostgresStore::connect(place).await?),
        other => return Err(format!("unknown store {other}").into()),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let options = ServerOptions::new().max_connections(1024).max_sessions(4);
    let remote = RemoteServer::new(server, options);
    println!("listening {port}");
    let stdin_closed = async {
        let mut stdin = tokio::io::stdin();
        let mut buffer = [0u8; 64];
        while stdin.read(&mut buffer).await.is_ok_and(|read| read > 0) {}
    };
    remote.serve_until(listener, stdin_closed).await?;
    Ok(())
}

/// One instance process.
struct Instance {
    child: Child,
    port: u16,
}

impl Instance {
    async fn start(kind: &str, place: &str) -> Result<Instance, BoxError> {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["store-instance", kind, place])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await??
            .ok_or("the instance said nothing")?;
        let port = line
            .strip_prefix("listening ")
            .and_then(|port| port.trim().parse().ok())
            .ok_or_else(|| format!("unexpected instance line {line:?}"))?;
        Ok(Instance { child, port })
    }

    /// Peak and current resident memory, MiB (`VmHWM`, `VmRSS`).
    fn memory(&self) -> (f64, f64) {
        let status = self
            .child
            .id()
            .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")).ok())
            .unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|line| line.starts_with(name))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<f64>().ok())
                .map_or(0.0, |kib| kib / 1024.0)
        };
        (field("VmHWM:"), field("VmRSS:"))
    }

    async fn stop(mut self) {
        drop(self.child.stdin.take());
        let _ = tokio::time::timeout(std::time::Duration::from_secs(20), self.child.wait()).await;
        let _ = self.child.kill().await;
    }
}

/// Takes each chunk's latency as it arrives.
struct Clock {
    latencies: Arc<Mutex<Vec<f64>>>,
    received: Arc<AtomicUsize>,
}

impl Handler for Clock {
    fn request(&self, _: Connection, _: Id, method: String, _: Option<Box<RawValue>>) -> BoxFuture<Reply> {
        Box::pin(async move { Reply::error(acptk_runtime::rpc::method_not_found(&method)) })
    }

    fn notification(&self, _: Connection, method: String, params: Option<Box<RawValue>>) -> BoxFuture<()> {
        let now = now_ns();
        if method == "session/update" {
            let sent = params
                .and_then(|params| serde_json::from_str::<Value>(params.get()).ok())
                .and_then(|params| params["update"]["content"]["text"].as_str()?.parse::<u64>().ok());
            if let Some(sent) = sent {
                self.received.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut latencies) = self.latencies.lock() {
                    latencies.push(now.saturating_sub(sent) as f64 / 1e3);
                }
            }
        }
        Box::pin(async {})
    }
}

async fn call(connection: &Connection, method: &str, params: Value) -> Result<Value, BoxError> {
    let raw = serde_json::value::to_raw_value(&params)?;
    let result = connection.request_raw(method, Some(raw)).await?;
    Ok(serde_json::from_str(result.get())?)
}

/// The figures of one store.
struct Row {
    name: String,
    wall: f64,
    updates: usize,
    p50: f64,
    p99: f64,
    memory: Vec<(f64, f64)>,
}

async fn run(
    kind: &Kind,
    scratch: &Scratch,
    sessions: usize,
    per_session: usize,
) -> Result<Row, BoxError> {
    let places: [(String, String); 2] = match kind {
        Kind::File => [0, 1].map(|n| {
            (
                "file".to_owned(),
                scratch.0.join(format!("cluster-files-{n}")).display().to_string(),
            )
        }),
        Kind::Sqlite => {
            let path = scratch.0.join("cluster.sqlite3").display().to_string();
            [("sqlite".to_owned(), path.clone()), ("sqlite".to_owned(), path)]
        }
        Kind::Postgres(url) => [("postgres".to_owned(), url.clone()), ("postgres".to_owned(), url.clone())],
        Kind::Memory => return Err("the memory store is not shared".into()),
    };
    let mut instances = Vec::new();
    for (kind, place) in &places {
        instances.push(Instance::start(kind, place).await?);
    }
    let latencies = Arc::new(Mutex::new(Vec::with_capacity(sessions * per_session)));
    let received = Arc::new(AtomicUsize::new(0));
    let mut peers = Vec::new();
    for index in 0..sessions {
        let url = format!("ws://127.0.0.1:{}/acp", instances[index % 2].port);
        let (reader, writer) = connect(&url, &ClientOptions::new()).await?;
        let connection = ConnectionBuilder::new().start_transport(
            reader,
            writer,
            Clock {
                latencies: Arc::clone(&latencies),
                received: Arc::clone(&received),
            },
        );
        call(&connection, "initialize", json!({"protocolVersion": 1, "clientCapabilities": {}})).await?;
        let created = call(&connection, "session/new", json!({"cwd": "/bench", "mcpServers": []})).await?;
        let id = created["sessionId"].as_str().ok_or("no session id")?.to_owned();
        peers.push((connection, id));
    }
    let started = Instant::now();
    let mut turns = Vec::new();
    for (connection, id) in &peers {
        let connection = connection.clone();
        let params = json!({"sessionId": id, "prompt": [{"type": "text", "text": per_session.to_string()}]});
        turns.push(tokio::spawn(async move { call(&connection, "session/prompt", params).await }));
    }
    for turn in turns {
        turn.await??;
    }
    let wall = started.elapsed().as_secs_f64();
    let memory = instances.iter().map(Instance::memory).collect();
    for (connection, _) in &peers {
        connection.close();
    }
    for instance in instances {
        instance.stop().await;
    }
    let mut latencies = latencies.lock().map_err(|_| "poisoned")?.clone();
    latencies.sort_by(f64::total_cmp);
    let updates = received.load(Ordering::Relaxed);
    if updates != sessions * per_session {
        return Err(format!("{updates} of {} updates arrived", sessions * per_session).into());
    }
    Ok(Row {
        name: match kind {
            Kind::File => "file (one directory per instance)".to_owned(),
            other => format!("{} (shared)", other.name()),
        },
        wall,
        updates,
        p50: quantile(&latencies, 0.50),
        p99: quantile(&latencies, 0.99),
        memory,
    })
}

/// Runs the cluster measurement for the file store, SQLite and (with `postgres`) PostgreSQL.
pub async fn bench(
    sessions: usize,
    per_session: usize,
    postgres: Option<String>,
) -> Result<(), BoxError> {
    println!(
        "acptk-runtime session stores, two instances: {sessions} sessions over WebSocket (half on each instance), {per_session} recorded updates each, all at once"
    );
    println!("machine: {}", crate::machine());
    let scratch = Scratch::new("cluster")?;
    let schema = match &postgres {
        Some(url) => Some(Schema::create(url).await?),
        None => None,
    };
    let mut kinds = vec![Kind::File, Kind::Sqlite];
    if let Some(schema) = &schema {
        kinds.push(Kind::Postgres(schema.url()));
    }
    let mut rows = Vec::new();
    for kind in &kinds {
        match run(kind, &scratch, sessions, per_session).await {
            Ok(row) => rows.push(row),
            Err(error) => println!("{}: failed: {error}", kind.name()),
        }
    }
    if let Some(schema) = schema {
        schema.drop_now().await?;
    }
    println!();
    println!(
        "{:<34} {:>8} {:>12} {:>10} {:>10} {:>22}",
        "store", "wall s", "updates/s", "p50 ms", "p99 ms", "peak RSS per instance"
    );
    for row in rows {
        let memory: Vec<String> = row
            .memory
            .iter()
            .map(|(peak, _)| format!("{peak:.1} MiB"))
            .collect();
        println!(
            "{:<34} {:>8.2} {:>12.0} {:>10.2} {:>10.2} {:>22}",
            row.name,
            row.wall,
            row.updates as f64 / row.wall,
            row.p50 / 1e3,
            row.p99 / 1e3,
            memory.join(" / ")
        );
    }
    Ok(())
}
