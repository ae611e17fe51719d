//! What `acp agent` holds for a client that stops reading, measured on the binary (Linux
//! `/proc/PID/status`): a client that keeps asking for 1 MiB notices and reads none of them,
//! over WebSocket, over a Streamable HTTP event stream and over stdio. Peak RSS stays under
//! the configured bound (`--max-queued-bytes`) plus a fixed overhead; the client is
//! disconnected after `--stall-timeout` with the reason logged; over the network the RSS is
//! back under twice the idle RSS within 10 s of the disconnect (over stdio the agent exits).
//! The figures are printed (BENCHMARKS.md has them). `ACP_MEMORY_NOTICE_MIB`,
//! `ACP_MEMORY_QUEUED_MIB` and `ACP_MEMORY_PROMPTS` change the notice size (1), the bound (4)
//! and the number of notices asked for (300).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/listening.rs"]
mod listening;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use acptk_runtime::transport::remote::{ClientOptions, connect};
use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};
use listening::{Listening, lines_of, runtime, wait_for_line};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ACP: &str = env!("CARGO_BIN_EXE_acp");
/// `--max-queued-bytes` (`ACP_MEMORY_QUEUED_MIB`, default 4).
fn queued() -> usize {
    env_mib("ACP_MEMORY_QUEUED_MIB", 4)
}

/// The description of each notice asked for (`ACP_MEMORY_NOTICE_MIB`, default 1).
fn notice() -> usize {
    env_mib("ACP_MEMORY_NOTICE_MIB", 1)
}

/// Notices asked for (`ACP_MEMORY_PROMPTS`, default 300): far more than the bound (a queue
/// of 256 messages held 256 of them).
fn prompts() -> u64 {
    std::env::var("ACP_MEMORY_PROMPTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

fn env_mib(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
        << 20
}

/// `--stall-timeout`, in seconds.
const STALL: u64 = 3;

/// The configured bound: `--max-queued-bytes` for each of the output queue, the requests in
/// flight and (over Streamable HTTP) the posted messages the agent has not read yet.
fn bound() -> usize {
    3 * queued()
}

/// What the agent may hold beyond it, whatever the number of notices: a message is held
/// several times over on its way (the request's params, the decoded prompt, the notice, its
/// encoding, the copies of the transport), and the allocator keeps some of what was freed.
fn overhead() -> usize {
    32 * notice() + (16 << 20)
}

/// VmRSS and VmHWM of `pid`, in bytes.
fn memory(pid: u32) -> (usize, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse::<usize>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

/// The flags of `acp agent` in these tests (after `agent`).
fn agent_args(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--ephemeral",
        "--verbose",
        "--max-queued-bytes",
        &queued().to_string(),
        "--stall-timeout",
        &STALL.to_string(),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

fn initialize() -> Value {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}})
}

fn new_session() -> Value {
    json!({"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}})
}

/// A prompt that makes the agent send a notice with a 1 MiB description.
fn big_prompt(id: u64, session: &str) -> String {
    let text = format!("/notice info Big -- {}", "x".repeat(notice()));
    json!({"jsonrpc":"2.0","id":id,"method":"session/prompt",
           "params":{"sessionId":session,"prompt":[{"type":"text","text":text}]}})
    .to_string()
}

/// Samples the agent's memory until `done` (or 20 s): the highest VmHWM seen.
fn peak_until(pid: u32, done: impl Fn() -> bool) -> usize {
    let started = Instant::now();
    let mut peak = 0;
    while !done() && started.elapsed() < Duration::from_secs(20) {
        peak = peak.max(memory(pid).1);
        std::thread::sleep(Duration::from_millis(50));
    }
    peak.max(memory(pid).1)
}

/// How long after the disconnect the agent's RSS took to be under twice `idle` (10 s at
/// most); `None` when it never was.
fn returned(pid: u32, idle: usize) -> Option<(Duration, usize)> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        let rss = memory(pid).0;
        if rss < 2 * idle {
            return Some((started.elapsed(), rss));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

fn check(transport: &str, idle: usize, peak: usize, after: Option<(Duration, usize)>) {
    println!(
        "{transport}: {} notices of {}: idle {}, peak {} (bound {} + overhead {}), after the disconnect {}",
        prompts(),
        mib(notice()),
        mib(idle),
        mib(peak),
        mib(bound()),
        mib(overhead()),
        after.map_or("the agent exited".to_owned(), |(took, rss)| format!(
            "{} within {took:?}",
            mib(rss)
        )),
    );
    assert!(
        peak < idle + bound() + overhead(),
        "{transport}: peak {} over idle {} + bound + overhead",
        mib(peak),
        mib(idle)
    );
}

/// `acp agent --listen 0` with the flags above.
fn listening() -> Listening {
    let args = agent_args(&[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Listening::start(&args, &[])
}

/// Once `ready`, measures the listening `agent` while the `flood` thread runs: its peak,
/// that it logged the disconnect, and that its memory came back; then ends both.
fn measure_network(
    transport: &str,
    agent: Listening,
    flood: std::thread::JoinHandle<()>,
    ready: &mpsc::Receiver<()>,
) {
    let pid = agent.id();
    ready.recv_timeout(Duration::from_secs(30)).unwrap();
    let idle = memory(pid).0;
    assert!(idle > 0, "the agent runs");
    let peak = peak_until(pid, || flood.is_finished());
    assert!(
        agent.wait_for("read nothing for", Duration::from_secs(10)),
        "the disconnect is logged"
    );
    let after = returned(pid, idle);
    check(transport, idle, peak, after);
    assert!(after.is_some(), "the memory is given back");
    drop(agent);
    let _ = flood.join();
}

/// Runs `client` on a thread of its own (with its own runtime): it sets up, says when it
/// is flooding, and returns when the agent hung up.
fn client_thread<F, Fut>(client: F) -> (std::thread::JoinHandle<()>, mpsc::Receiver<()>)
where
    F: FnOnce(mpsc::Sender<()>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let (ready_tx, ready) = mpsc::channel();
    let thread = std::thread::spawn(move || runtime().block_on(client(ready_tx)));
    (thread, ready)
}

#[test]
fn a_websocket_client_that_reads_nothing() {
    let agent = listening();
    let address = agent.address().to_owned();
    let (flood, ready) = client_thread(move |ready| async move {
        // A long stall timeout of our own: the agent is the one to give up.
        let options = ClientOptions::new().stall_timeout(Duration::from_secs(120));
        let (mut reader, mut writer) = connect(&format!("ws://{address}/acp"), &options)
            .await
            .unwrap();
        for message in [initialize(), new_session()] {
            writer.write(message.to_string().as_bytes()).await.unwrap();
        }
        writer.flush().await.unwrap();
        let session = loop {
            let Frame::Message(message) = reader.read().await.unwrap() else {
                panic!("no answer");
            };
            let answer: Value = serde_json::from_slice(&message).unwrap();
            if answer["id"] == 1 {
                break answer["result"]["sessionId"].as_str().unwrap().to_owned();
            }
        };
        let _ = ready.send(());
        // Prompts without end, none of the answers read (the reader is kept unread).
        for id in 2..2 + prompts() {
            if writer
                .write(big_prompt(id, &session).as_bytes())
                .await
                .is_err()
                || writer.flush().await.is_err()
            {
                break;
            }
        }
        drop(reader);
    });
    measure_network("websocket", agent, flood, &ready);
}

/// One raw HTTP/1.1 POST: the status and the `Acp-Connection-Id`.
async fn post(address: &str, id: Option<&str>, body: &str) -> (u16, Option<String>) {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let mut head = format!(
        "POST /acp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = id {
        head.push_str(&format!("Acp-Connection-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    if stream.write_all(head.as_bytes()).await.is_err()
        || stream.write_all(body.as_bytes()).await.is_err()
    {
        return (0, None);
    }
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    listening::status_and_connection(&String::from_utf8_lossy(&raw))
}

#[test]
fn an_http_event_stream_that_is_not_read() {
    let agent = listening();
    let address = agent.address().to_owned();
    let (flood, ready) = client_thread(move |ready| async move {
        let (status, connection) = post(&address, None, &initialize().to_string()).await;
        assert_eq!(status, 200);
        let connection = connection.unwrap();
        // The connection's event stream: read up to the answer to `session/new`, then no
        // more (it stays open).
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        let get = format!(
            "GET /acp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\nAcp-Connection-Id: {connection}\r\n\r\n"
        );
        stream.write_all(get.as_bytes()).await.unwrap();
        let (status, _) = post(&address, Some(&connection), &new_session().to_string()).await;
        assert_eq!(status, 202);
        let mut seen = Vec::new();
        let session = loop {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the stream ended");
            seen.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&seen);
            if let Some(at) = text.find(r#""sessionId":""#) {
                let rest = &text[at + 13..];
                break rest[..rest.find('"').unwrap()].to_owned();
            }
        };
        let _ = ready.send(());
        for id in 2..2 + prompts() {
            let (status, _) = post(&address, Some(&connection), &big_prompt(id, &session)).await;
            // 503 while the agent reads nothing more (it is slowed down); 404 once the
            // connection is gone.
            if status == 404 || status == 0 {
                break;
            }
        }
        drop(stream);
    });
    measure_network("streamable-http", agent, flood, &ready);
}

#[test]
fn a_stdio_client_that_reads_nothing() {
    let mut child = Command::new(ACP)
        .arg("agent")
        .args(agent_args(&[]))
        .env("ACP_AGENT_DELAY_MS", "0")
        .spawn_piped(Stdio::piped())
        .unwrap();
    let pid = child.id();
    let lines = lines_of(child.stderr.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut answers = BufReader::new(stdout);
    for message in [initialize(), new_session()] {
        writeln!(stdin, "{message}").unwrap();
    }
    let mut session = None;
    while session.is_none() {
        let mut line = String::new();
        answers.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        if answer["id"] == 1 {
            session = answer["result"]["sessionId"].as_str().map(str::to_owned);
        }
    }
    let session = session.unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let idle = memory(pid).0;
    // Standard output is not read from now on (the reader is kept, so the pipe stays open).
    let flood = std::thread::spawn(move || {
        for id in 2..2 + prompts() {
            if writeln!(stdin, "{}", big_prompt(id, &session)).is_err() {
                break;
            }
        }
    });
    let started = Instant::now();
    let peak = peak_until(pid, || flood.is_finished());
    assert!(
        wait_for_line(&lines, "the stall timeout", Duration::from_secs(10)),
        "the disconnect is logged"
    );
    // The stdio agent has one client: it exits.
    let exited = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(25) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    check("stdio", idle, peak, None);
    drop(answers);
    let _ = child.kill();
    let _ = child.wait();
    assert!(exited.is_some(), "the agent exits after the stall timeout");
}
