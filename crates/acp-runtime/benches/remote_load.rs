//! Load on loopback: C concurrent connections to one `AgentServer`, each opening a session
//! whose prompt streams N notices; every notice carries the time it was sent, so the client
//! measures its latency. Transports: WebSocket and Streamable HTTP (`RemoteServer`, one TCP
//! listener on 127.0.0.1; the HTTP client posts each message and reads the connection's and
//! the session's event streams over HTTP/1.1) and the stdio framing (newline-delimited JSON over in-memory pipes, what a
//! launched agent uses minus the process boundary). Each transport runs in a child process of
//! its own so that its peak memory (VmHWM) is its own. The same workload runs against the
//! TypeScript SDK's server too (`typescript-websocket`: `remote_load/ts_streamer.mjs` in a node
//! process, our clients; its peak memory is the node server's plus the clients'), when the
//! interop peers are installed (`scripts/interop-setup.sh`); otherwise that row is skipped
//! with the reason.
//!
//!   cargo bench -p acp-runtime --features remote --bench remote_load
//!   ACP_BENCH_CONNECTIONS=200 ACP_BENCH_UPDATES=1000 (the defaults)
//!
//! Bounded: at most 1,000 connections and 100,000 updates each; every run stops by itself
//! (a 300 s limit per transport).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "remote_load/ts_server.rs"]
mod ts_server;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use acp_runtime::Notice;
use acp_runtime::agent::{Agent, AgentServer, MemoryStore, Prompt, Session, StopReason};
use acp_runtime::transport::remote::{ClientOptions, RemoteServer, ServerOptions, connect};
use acp_runtime::transport::{Frame, LineReader, LineWriter, MessageReader, MessageWriter};
use acp_schema::jsonrpc::ErrorObject;
use serde_json::{Value, json};

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

/// Sends `updates` notices per prompt, each with its send time.
struct Streamer {
    updates: usize,
}

impl Agent for Streamer {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        for i in 0..self.updates {
            let notice = Notice::info(format!("update {i}")).description(now_ns().to_string());
            session
                .notice(&notice)
                .await
                .map_err(acp_runtime::rpc::internal)?;
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

/// One client: initialize, new session, one prompt; the latencies of its notices (ns).
async fn client<R: MessageReader, W: MessageWriter>(mut reader: R, mut writer: W) -> Vec<u64> {
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
    send(
        &mut writer,
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}}),
    )
    .await;
    let mut latencies = Vec::new();
    let done = until(&mut reader, 3, |message| {
        let update = &message["params"]["update"];
        if update["sessionUpdate"] == "notice"
            && let Some(sent) = update["description"]
                .as_str()
                .and_then(|t| t.parse::<u64>().ok())
        {
            latencies.push(now_ns().saturating_sub(sent));
        }
    })
    .await;
    assert_eq!(done["result"]["stopReason"], "end_turn");
    let _ = writer.close().await;
    latencies
}

fn server(updates: usize) -> AgentServer<Streamer> {
    AgentServer::new(Streamer { updates }).store(MemoryStore::without_history())
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

async fn run(transport: &str, connections: usize, updates: usize) -> Vec<u64> {
    let mut tasks = Vec::new();
    match transport {
        "typescript-websocket" => {
            let url = TS_URL.get().expect("the node server was started").clone();
            for _ in 0..connections {
                let url = url.clone();
                tasks.push(tokio::spawn(async move {
                    let (reader, writer) = connect(&url, &ClientOptions::new()).await.unwrap();
                    client(reader, writer).await
                }));
            }
        }
        "websocket" | "streamable-http" => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let scheme = if transport == "websocket" {
                "ws"
            } else {
                "http"
            };
            let url = format!("{scheme}://{}/acp", listener.local_addr().unwrap());
            // Every client comes from 127.0.0.1: one address.
            let options = ServerOptions::new()
                .max_connections(connections + 8)
                .max_per_address(connections + 8);
            tokio::spawn(RemoteServer::new(server(updates), options).serve(listener));
            for _ in 0..connections {
                let url = url.clone();
                tasks.push(tokio::spawn(async move {
                    let (reader, writer) = connect(&url, &ClientOptions::new()).await.unwrap();
                    client(reader, writer).await
                }));
            }
        }
        "stdio-pipe" => {
            let server = server(updates);
            for _ in 0..connections {
                let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
                let (agent_read, agent_write) = tokio::io::split(agent_io);
                server.start(agent_read, agent_write);
                tasks.push(tokio::spawn(async move {
                    let (read, write) = tokio::io::split(client_io);
                    client(LineReader::new(read, 16 << 20), LineWriter::new(write)).await
                }));
            }
        }
        other => panic!("unknown transport {other}"),
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    all
}

/// The URL of the node server, in the `typescript-websocket` child.
static TS_URL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn measure(transport: &str) {
    let connections = env_count("ACP_BENCH_CONNECTIONS", 200, 1000);
    let updates = env_count("ACP_BENCH_UPDATES", 1000, 100_000);
    // The TypeScript SDK's server: its own process, ended when this function returns.
    let node = (transport == "typescript-websocket")
        .then(|| ts_server::TsServer::start(updates).unwrap_or_else(|reason| panic!("{reason}")));
    if let Some(node) = &node {
        TS_URL.set(node.url.clone()).unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let mut latencies = runtime.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(300),
            run(transport, connections, updates),
        )
        .await
        .expect("the run ends within 300 s")
    });
    let wall = started.elapsed();
    assert_eq!(
        latencies.len(),
        connections * updates,
        "every notice arrived"
    );
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize] as f64 / 1e6;
    println!(
        "| {transport} | {connections} x {updates} | {:.2} s | {:.0} notices/s | {:.2} ms | {:.2} ms | {:.1} MiB |",
        wall.as_secs_f64(),
        latencies.len() as f64 / wall.as_secs_f64(),
        at(0.5),
        at(0.99),
        (peak_rss_kib() + node.as_ref().map_or(0, ts_server::TsServer::peak_rss_kib)) as f64
            / 1024.0,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(position) = args.iter().position(|a| a == "--transport") {
        measure(&args[position + 1]);
        return;
    }
    println!(
        "| transport | connections x notices | wall | throughput | p50 latency | p99 latency | peak RSS |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut skipped = Vec::new();
    for transport in [
        "websocket",
        "streamable-http",
        "stdio-pipe",
        "typescript-websocket",
    ] {
        if transport == "typescript-websocket"
            && let Err(reason) = ts_server::node_modules()
        {
            skipped.push(format!("{transport}: skipped: {reason}"));
            continue;
        }
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--transport", transport])
            .status()
            .unwrap();
        assert!(status.success(), "{transport} failed");
    }
    for line in skipped {
        println!("{line}");
    }
}
