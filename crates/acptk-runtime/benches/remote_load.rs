//! Load on loopback: C concurrent connections to one `AgentServer`, each opening a session
//! whose prompt streams N notices; every notice carries the time it was sent, so the client
//! measures its latency. The prompts go out together once every client has its session, so
//! the burst is the same whatever a transport's setup costs; throughput counts from the first
//! notice sent to the last one received (the wall time, setup included, is shown beside). Transports: WebSocket and Streamable HTTP (`RemoteServer`, one TCP
//! listener on 127.0.0.1; the HTTP client posts each message and reads the connection's and
//! the session's event streams over HTTP/1.1) and the stdio framing (newline-delimited JSON over in-memory pipes, what a
//! launched agent uses minus the process boundary). Each transport runs in a child process of
//! its own so that its peak memory (VmHWM) is its own. The same workload runs against the
//! TypeScript SDK's server too (`typescript-websocket`: `remote_load/ts_streamer.mjs` in a node
//! process, our clients; its peak memory is the node server's plus the clients'), when the
//! interop peers are installed (`scripts/interop-setup.sh`); otherwise that row is skipped
//! with the reason.
//!
//!   cargo bench -p acptk-runtime --features remote --bench remote_load
//!   ACP_BENCH_CONNECTIONS=200 ACP_BENCH_UPDATES=1000 (the defaults)
//!
//! Open loop (`-- --open-loop`): instead of a burst, the notices are offered at a fixed total
//! rate for a fixed time (`ACP_BENCH_RATES=5000,20000,100000` per second across the
//! connections, `ACP_BENCH_SECONDS=10`): notice i of a turn is due i x interval after the turn
//! started, the server waits until then, and the notice carries the time it was due, so the
//! latency counts from when it should have gone out (a server that falls behind cannot hide
//! it). A rate is sustained when the p99 latency stays under 1 s (no queue builds up).
//!
//! Bounded: at most 1,000 connections, 100,000 updates each, 1,000,000 per second and 60 s;
//! every run stops by itself (a 300 s limit per transport and rate).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "remote_load/ts_server.rs"]
mod ts_server;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use acptk_runtime::agent::RemoteServer;
use acptk_runtime::agent::{Agent, AgentServer, MemoryStore, Prompt, Session, StopReason};
use acptk_runtime::log::{Level, Logger};
use acptk_runtime::transport::remote::{ClientOptions, ServerOptions, connect};
use acptk_runtime::transport::{Frame, LineReader, LineWriter, MessageReader, MessageWriter};
use acptk_runtime::{ConnectionBuilder, Notice};
use acptk_schema::jsonrpc::ErrorObject;
use serde_json::{Value, json};
use tokio::sync::watch;

/// Nanoseconds since the Unix epoch: the clock that notices carry, shared with the node
/// server of the `typescript-websocket` row.
fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64)
}

fn env_count(name: &str, default: usize, max: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .clamp(1, max)
}

/// Sends `updates` notices per prompt, each with its send time; with an `interval`, notice i
/// is due `interval` x i after the turn started and carries that time.
struct Streamer {
    updates: usize,
    interval: Option<Duration>,
}

impl Agent for Streamer {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let start = tokio::time::Instant::now();
        let start_ns = now_ns();
        for i in 0..self.updates {
            let sent = match self.interval {
                Some(interval) => {
                    let due = interval.saturating_mul(u32::try_from(i).unwrap_or(u32::MAX));
                    tokio::time::sleep_until(start + due).await;
                    start_ns + due.as_nanos() as u64
                }
                None => now_ns(),
            };
            let notice = Notice::info(format!("update {i}")).description(sent.to_string());
            session
                .notice(&notice)
                .await
                .map_err(acptk_runtime::rpc::internal)?;
        }
        Ok(StopReason::EndTurn)
    }
}

async fn send<W: MessageWriter>(writer: &mut W, value: Value) {
    writer.write(value.to_string().as_bytes()).await.unwrap();
    writer.flush().await.unwrap();
}

/// Reads until the response with `id`; `on_update` sees every other message.
async fn until<R: MessageReader>(
    reader: &mut R,
    id: u64,
    mut on_update: impl FnMut(&Value),
) -> Value {
    loop {
        match reader.read().await.unwrap() {
            Frame::Message(bytes) => {
                let value: Value = serde_json::from_slice(&bytes).unwrap();
                if value.get("method").is_none() && value["id"] == id {
                    return value;
                }
                on_update(&value);
            }
            Frame::End => panic!("the connection ended"),
            _ => panic!("an oversized message"),
        }
    }
}

/// What one client saw: the latency of each notice, the earliest send time its notices
/// carried and the time the last one arrived (ns since the epoch).
#[derive(Default)]
struct Seen {
    latencies: Vec<u64>,
    first_sent: u64,
    last_arrival: u64,
    /// Clients that could not connect (a server too busy to answer), with the last reason.
    failed: usize,
    failure: Option<String>,
}

impl Seen {
    fn failed(reason: String) -> Self {
        Seen {
            failed: 1,
            failure: Some(reason),
            first_sent: u64::MAX,
            ..Seen::default()
        }
    }
}

/// The start of the burst: every client holds a place and gives it up when its session is
/// ready, or when it fails (a client that panics drops its place too, so the others do not
/// wait for it until the run's time limit).
struct Place(Arc<watch::Sender<usize>>);

impl Place {
    /// Places for `clients` clients.
    fn all(clients: usize) -> Vec<Place> {
        let remaining = Arc::new(watch::Sender::new(clients));
        (0..clients)
            .map(|_| Place(Arc::clone(&remaining)))
            .collect()
    }

    /// Gives this place up and waits until every place is given up.
    async fn wait(self) {
        let mut remaining = self.0.subscribe();
        drop(self);
        let _ = remaining.wait_for(|left| *left == 0).await;
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.0.send_modify(|left| *left -= 1);
    }
}

/// One client: initialize, new session, then (once every client has its session: `start`)
/// one prompt; what it saw of its notices.
async fn client<R: MessageReader, W: MessageWriter>(
    mut reader: R,
    mut writer: W,
    start: Place,
) -> Seen {
    send(
        &mut writer,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": 1, "clientCapabilities": {"session": {"notices": {}}}}}),
    )
    .await;
    until(&mut reader, 1, |_| {}).await;
    send(
        &mut writer,
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": "/tmp", "mcpServers": []}}),
    )
    .await;
    let created = until(&mut reader, 2, |_| {}).await;
    let session = created["result"]["sessionId"].as_str().unwrap().to_owned();
    start.wait().await;
    send(
        &mut writer,
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}}),
    )
    .await;
    let mut seen = Seen {
        first_sent: u64::MAX,
        ..Seen::default()
    };
    let done = until(&mut reader, 3, |message| {
        let update = &message["params"]["update"];
        if update["sessionUpdate"] == "notice"
            && let Some(sent) = update["description"]
                .as_str()
                .and_then(|t| t.parse::<u64>().ok())
        {
            let now = now_ns();
            seen.latencies.push(now.saturating_sub(sent));
            seen.first_sent = seen.first_sent.min(sent);
            seen.last_arrival = seen.last_arrival.max(now);
        }
    })
    .await;
    assert_eq!(done["result"]["stopReason"], "end_turn");
    let _ = writer.close().await;
    seen
}

fn server(updates: usize, interval: Option<Duration>) -> AgentServer<Streamer> {
    AgentServer::new(Streamer { updates, interval })
        .store(MemoryStore::without_history())
        .connection_options(ConnectionBuilder::new().logger(Logger::stderr(Level::Warn)))
}

/// Client options whose warnings (a refused post, a stream that ended) reach stderr, so a run
/// that fails says why.
fn client_options() -> ClientOptions {
    ClientOptions::new().logger(Logger::stderr(Level::Warn))
}

fn peak_rss_kib() -> u64 {
    vm_hwm_kib("/proc/self/status")
}

/// The peak resident memory (VmHWM) in a `/proc/PID/status` file, in KiB (0 when unknown).
fn vm_hwm_kib(status: &str) -> u64 {
    std::fs::read_to_string(status)
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix("VmHWM:")?
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .ok()
            })
        })
        .unwrap_or(0)
}

/// Spawns `connections` clients of the remote endpoint `url`, each at its own place.
fn spawn_remote_clients(
    url: &str,
    places: &mut impl Iterator<Item = Place>,
    connections: usize,
    tasks: &mut Vec<tokio::task::JoinHandle<Seen>>,
) {
    for _ in 0..connections {
        let url = url.to_owned();
        let start = places.next().expect("a place per client");
        tasks.push(tokio::spawn(async move {
            match connect(&url, &client_options()).await {
                Ok((reader, writer)) => client(reader, writer, start).await,
                Err(error) => {
                    start.wait().await;
                    Seen::failed(error.to_string())
                }
            }
        }));
    }
}

async fn run(
    transport: &str,
    connections: usize,
    updates: usize,
    interval: Option<Duration>,
) -> Seen {
    let mut tasks = Vec::new();
    // Every turn starts at once, when all clients are set up: the burst is the same for
    // every transport, however long its setup takes (a client that cannot connect still
    // counts itself in).
    let mut places = Place::all(connections).into_iter();
    match transport {
        "typescript-websocket" => {
            let url = TS_URL.get().expect("the node server was started").clone();
            spawn_remote_clients(&url, &mut places, connections, &mut tasks);
        }
        "websocket" | "streamable-http" => {
            // The runtime's own bind: a listen backlog for 200 clients connecting at once.
            let listener =
                acptk_runtime::transport::remote::bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let scheme = if transport == "websocket" {
                "ws"
            } else {
                "http"
            };
            let url = format!("{scheme}://{}/acp", listener.local_addr().unwrap());
            // Every client comes from 127.0.0.1: one address. An HTTP client holds up to four
            // TCP connections (two event streams, posts), idle ones between its posts count
            // as waiting, and the cap on waiting connections is the connection limit: room
            // for all, so that no idle one is closed to make room during the run.
            let options = ServerOptions::new()
                .max_connections(connections * 4 + 8)
                .max_per_address(connections + 8);
            tokio::spawn(RemoteServer::new(server(updates, interval), options).serve(listener));
            spawn_remote_clients(&url, &mut places, connections, &mut tasks);
        }
        "stdio-pipe" => {
            let server = server(updates, interval);
            for _ in 0..connections {
                let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
                let (agent_read, agent_write) = tokio::io::split(agent_io);
                server.start(agent_read, agent_write);
                let start = places.next().expect("a place per client");
                tasks.push(tokio::spawn(async move {
                    let (read, write) = tokio::io::split(client_io);
                    let (reader, writer) =
                        (LineReader::new(read, 16 << 20), LineWriter::new(write));
                    client(reader, writer, start).await
                }));
            }
        }
        other => panic!("unknown transport {other}"),
    }
    let mut all = Seen {
        first_sent: u64::MAX,
        ..Seen::default()
    };
    for task in tasks {
        let seen = task.await.unwrap();
        all.latencies.extend(seen.latencies);
        all.first_sent = all.first_sent.min(seen.first_sent);
        all.last_arrival = all.last_arrival.max(seen.last_arrival);
        all.failed += seen.failed;
        all.failure = seen.failure.or(all.failure);
    }
    all
}

/// The URL of the node server, in the `typescript-websocket` child.
static TS_URL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// One run of `transport`: a burst (`rate` none) or notices offered at `rate` per second.
fn measure(transport: &str, rate: Option<usize>) {
    let connections = env_count("ACP_BENCH_CONNECTIONS", 200, 1000);
    let (updates, interval) = match rate {
        Some(rate) => {
            let seconds = env_count("ACP_BENCH_SECONDS", 10, 60);
            let updates = (rate * seconds / connections).clamp(1, 100_000);
            (
                updates,
                Some(Duration::from_secs_f64(connections as f64 / rate as f64)),
            )
        }
        None => (env_count("ACP_BENCH_UPDATES", 1000, 100_000), None),
    };
    // The TypeScript SDK's server: its own process, ended when this function returns.
    let node = (transport == "typescript-websocket").then(|| {
        let interval_us = interval.map_or(0, |interval| interval.as_micros() as u64);
        ts_server::TsServer::start(updates, interval_us).unwrap_or_else(|reason| panic!("{reason}"))
    });
    if let Some(node) = &node {
        TS_URL.set(node.url.clone()).unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let mut seen = runtime.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(300),
            run(transport, connections, updates, interval),
        )
        .await
        .expect("the run ends within 300 s")
    });
    let wall = started.elapsed();
    if seen.failed > 0 {
        let reason = seen.failure.unwrap_or_default();
        let failed = seen.failed;
        match rate {
            None => println!(
                "| {transport} | {connections} x {updates} | failed: {failed} clients could not connect ({reason}) | | | | | |"
            ),
            Some(rate) => println!(
                "| {transport} | {rate} | {connections} x {updates} | | | | | | no: {failed} clients could not connect ({reason}) |"
            ),
        }
        return;
    }
    let latencies = &mut seen.latencies;
    assert_eq!(
        latencies.len(),
        connections * updates,
        "every notice arrived"
    );
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize] as f64 / 1e6;
    let memory = (peak_rss_kib() + node.as_ref().map_or(0, ts_server::TsServer::peak_rss_kib))
        as f64
        / 1024.0;
    match rate {
        None => {
            // The burst: from the first notice sent to the last received (the setup before
            // the turns start is in the wall time only).
            let span = seen.last_arrival.saturating_sub(seen.first_sent).max(1) as f64 / 1e9;
            println!(
                "| {transport} | {connections} x {updates} | {:.2} s | {span:.2} s | {:.0} notices/s | {:.2} ms | {:.2} ms | {memory:.1} MiB |",
                wall.as_secs_f64(),
                latencies.len() as f64 / span,
                at(0.5),
                at(0.99),
            );
        }
        Some(rate) => {
            // Delivered: from the first notice due to the last one received.
            let span = seen.last_arrival.saturating_sub(seen.first_sent).max(1) as f64 / 1e9;
            let p99 = at(0.99);
            println!(
                "| {transport} | {rate} | {connections} x {updates} | {:.0} | {:.2} ms | {p99:.2} ms | {:.2} ms | {memory:.1} MiB | {} |",
                latencies.len() as f64 / span,
                at(0.5),
                at(1.0),
                if p99 < 1000.0 { "yes" } else { "**no**" },
            );
        }
    }
}

const TRANSPORTS: [&str; 4] = [
    "websocket",
    "streamable-http",
    "stdio-pipe",
    "typescript-websocket",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|position| args.get(position + 1))
    };
    if let Some(transport) = value("--transport") {
        let rate = value("--rate").map(|rate| rate.parse::<usize>().unwrap());
        measure(transport, rate);
        return;
    }
    let rates: Vec<Option<usize>> = if args.iter().any(|a| a == "--open-loop") {
        println!(
            "| transport | offered notices/s | connections x notices | delivered notices/s | p50 latency | p99 latency | max latency | peak RSS | sustained (p99 < 1 s) |"
        );
        println!("|---|---:|---|---:|---:|---:|---:|---:|---|");
        std::env::var("ACP_BENCH_RATES")
            .unwrap_or_else(|_| "5000,20000,100000".to_owned())
            .split(',')
            .map(|rate| Some(rate.trim().parse::<usize>().unwrap().clamp(1, 1_000_000)))
            .collect()
    } else {
        println!(
            "| transport | connections x notices | wall (setup and burst) | burst | throughput (in the burst) | p50 latency | p99 latency | peak RSS |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        vec![None]
    };
    let mut skipped = Vec::new();
    for rate in rates {
        for transport in TRANSPORTS {
            if transport == "typescript-websocket"
                && let Err(reason) = ts_server::node_modules()
            {
                skipped.push(format!("{transport}: skipped: {reason}"));
                continue;
            }
            let mut child = std::process::Command::new(std::env::current_exe().unwrap());
            child.args(["--transport", transport]);
            if let Some(rate) = rate {
                child.args(["--rate", &rate.to_string()]);
            }
            let status = child.status().unwrap();
            assert!(status.success(), "{transport} failed");
        }
    }
    skipped.dedup();
    for line in skipped {
        println!("{line}");
    }
}
