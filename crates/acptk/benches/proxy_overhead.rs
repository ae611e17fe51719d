//! acp proxy overhead: what `acp proxy` adds between a client and an agent, measured against a
//! direct pipe to the same agent in the same run.
//!
//! `cargo bench -p acptk --bench proxy_overhead`
//!
//! The agent is this benchmark program itself, started again with `ACP_PROXY_BENCH_AGENT=1`:
//! a v1 agent that answers `initialize` and `session/new`, and answers `session/prompt` after
//! streaming `_meta.updates` realistic `session/update` notifications (the project's mix:
//! 70% text chunks, 10% thoughts, 12% tool-call updates, 5% usage, 3% notices; the client
//! advertises notices, so the proxy checks every line and repairs nothing).
//!
//! Each measurement is taken four ways in the same run: direct, through `acp proxy`, through
//! `acp proxy --record FILE` (the write-ahead record on: every batch is written to the file
//! before it is forwarded), and through `acp proxy --capture=DB` (every batch committed to the
//! capture database before it is forwarded). The files are in the target directory, or in
//! `ACP_BENCH_RECORD_DIR`, and removed afterwards.
//!
//! `acp proxy` widens the pipes it streams through (from its agent, to its client) to 1 MiB;
//! the direct pipe keeps the system's 64 KiB unless `ACP_BENCH_WIDE_DIRECT=1` is set.
//!
//! * Latency: one `session/prompt` without updates and its response, one at a time; the
//!   round trip crosses the proxy twice (request and response). Added latency per message is
//!   half the difference of the round trips at the same percentile.
//! * Throughput: one prompt that streams `ACP_BENCH_UPDATES` (default 100,000) updates, in
//!   messages per second, with two kinds of endpoints. `ACP_BENCH_ROUNDS` rounds (default 9)
//!   each run the three paths back to back, in an order that rotates from round to round, so
//!   that a machine whose speed drifts slows all three alike; a ratio is the median of the
//!   rounds' ratios (with its quartiles), the rates are the medians of the rounds':
//!   - typed: the agent serialises each update from typed `acptk-schema` values and the client
//!     decodes each line with the typed schema, as ACP peers do (`acptk-runtime` does both);
//!   - raw: the agent writes prepared lines and the client only counts lines, which makes
//!     the direct pipe as fast as the kernel moves bytes: the proxy's worst case, since it
//!     decodes every message with the typed schema.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use acptk_conformance::stream::{Version, session_updates};
use acptk_schema::jsonrpc::{Message, Notification};
use acptk_schema::v1::SessionNotification;
use acptk_schema::v1::methods::AgentNotification;

const AGENT_ENV: &str = "ACP_PROXY_BENCH_AGENT";

/// What the two ends do per message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoints {
    /// Serialise typed values (agent), decode with the typed schema (client).
    Typed,
    /// Prepared lines (agent), line counting (client).
    Raw,
}

impl Endpoints {
    fn name(self) -> &'static str {
        match self {
            Endpoints::Typed => "typed",
            Endpoints::Raw => "raw",
        }
    }
}

/// How the client reaches the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// A pipe to the agent.
    Direct,
    /// `acp proxy -- AGENT`.
    Proxy,
    /// `acp proxy --record FILE -- AGENT`.
    Recorded,
    /// `acp proxy --capture=DB -- AGENT`.
    Captured,
}

const PATHS: [Path; 4] = [Path::Direct, Path::Proxy, Path::Recorded, Path::Captured];

fn main() {
    if let Some(mode) = std::env::var_os(AGENT_ENV) {
        agent(if mode == "raw" {
            Endpoints::Raw
        } else {
            Endpoints::Typed
        });
        return;
    }
    let round_trips = env_number("ACP_BENCH_ROUND_TRIPS", 20_000);
    let updates = env_number("ACP_BENCH_UPDATES", 100_000);
    let rounds = env_number("ACP_BENCH_ROUNDS", 9).max(1);

    println!("acp proxy overhead (agent and client: this benchmark; OS pipes)");
    println!();
    let mut rtt: [Vec<Duration>; 4] = Default::default();
    // One entry per round: [endpoints][path] messages per second.
    let mut rates: Vec<[[f64; 4]; 2]> = Vec::with_capacity(rounds);
    let mut findings = 0;
    let mut db_bytes_per_frame = Vec::new();
    for round in 0..rounds {
        let mut this_round = [[0.0f64; 4]; 2];
        for (e, endpoints) in [Endpoints::Typed, Endpoints::Raw].into_iter().enumerate() {
            for i in 0..PATHS.len() {
                let p = (i + round) % PATHS.len();
                let mut peer = Peer::spawn(PATHS[p], endpoints);
                peer.handshake();
                if endpoints == Endpoints::Typed {
                    rtt[p].extend(peer.latency(round_trips / rounds));
                }
                this_round[e][p] = peer.throughput(updates, endpoints);
                let (found, db) = peer.finish();
                findings += found;
                db_bytes_per_frame.extend(db);
            }
        }
        rates.push(this_round);
    }
    for samples in &mut rtt {
        samples.sort();
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "latency: round trip (request + response), {} each:",
        rtt[0].len()
    );
    println!(
        "{:>6} {:>10} {:>10} {:>14} {:>15} {:>14} {:>16} {:>17}",
        "",
        "direct",
        "proxy",
        "proxy+record",
        "proxy+capture",
        "added/message",
        "added (record)",
        "added (capture)"
    );
    for (name, q) in [("p50", 0.50), ("p90", 0.90), ("p99", 0.99)] {
        let [d, p, r, c] = [0, 1, 2, 3].map(|i| us(percentile(&rtt[i], q)));
        println!(
            "{name:>6} {d:>8.1}us {p:>8.1}us {r:>12.1}us {c:>13.1}us {:>12.1}us {:>14.1}us {:>15.1}us",
            (p - d) / 2.0,
            (r - d) / 2.0,
            (c - d) / 2.0
        );
    }
    println!();
    println!(
        "throughput: {updates} session/update messages per run, {rounds} rounds; medians, ratio [quartiles]:"
    );
    println!(
        "{:>9} {:>14} {:>14} {:>20} {:>14} {:>20} {:>14} {:>20}",
        "endpoints", "direct", "proxy", "ratio", "proxy+record", "ratio", "proxy+capture", "ratio"
    );
    for (e, endpoints) in [Endpoints::Typed, Endpoints::Raw].into_iter().enumerate() {
        let [direct, proxied, recorded, captured] =
            [0, 1, 2, 3].map(|p| rates.iter().map(|round| round[e][p]).collect::<Vec<f64>>());
        let ratio = |path: &[f64]| {
            let ratios: Vec<f64> = path
                .iter()
                .zip(&direct)
                .map(|(p, d)| 100.0 * p / d)
                .collect();
            let (q1, median, q3) = quartiles(&ratios);
            format!("{median:>5.1}% [{q1:.0}-{q3:.0}%]")
        };
        println!(
            "{:>9} {:>8.0} msg/s {:>8.0} msg/s {:>20} {:>8.0} msg/s {:>20} {:>8.0} msg/s {:>20}",
            endpoints.name(),
            quartiles(&direct).1,
            quartiles(&proxied).1,
            ratio(&proxied),
            quartiles(&recorded).1,
            ratio(&recorded),
            quartiles(&captured).1,
            ratio(&captured),
        );
    }
    println!();
    if !db_bytes_per_frame.is_empty() {
        let (_, median, _) = quartiles(&db_bytes_per_frame);
        println!(
            "capture database: {median:.0} bytes per frame (median of the runs, search index included)"
        );
    }
    println!("proxy findings on stderr during the runs: {findings}");
}

/// The first quartile, the median and the third quartile of `values`.
fn quartiles(values: &[f64]) -> (f64, f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    (at(0.25), at(0.5), at(0.75))
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// The client's end of a connection to the agent, direct or through `acp proxy`.
struct Peer {
    child: Child,
    /// The record written by `acp proxy --record`, or the database of `--capture`, removed at
    /// the end.
    record: Option<std::path::PathBuf>,
    path: Path,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Option<JoinHandle<usize>>,
    next_id: u64,
    line: String,
}

impl Peer {
    fn spawn(path: Path, endpoints: Endpoints) -> Peer {
        let me = std::env::current_exe().expect("the benchmark's own path");
        let record = matches!(path, Path::Recorded | Path::Captured).then(|| {
            let dir = std::env::var_os("ACP_BENCH_RECORD_DIR").map_or_else(
                || env!("CARGO_TARGET_TMPDIR").into(),
                std::path::PathBuf::from,
            );
            let extension = if path == Path::Captured {
                "db"
            } else {
                "ndjson"
            };
            dir.join(format!("proxy-bench-{}.{extension}", std::process::id()))
        });
        let mut command = match path {
            Path::Direct => Command::new(&me),
            Path::Proxy | Path::Recorded | Path::Captured => {
                let mut command = Command::new(env!("CARGO_BIN_EXE_acp"));
                command.arg("proxy");
                match (&record, path) {
                    (Some(db), Path::Captured) => {
                        command.arg(format!("--capture={}", db.display()));
                    }
                    (Some(record), _) => {
                        command.arg("--record").arg(record);
                    }
                    _ => {}
                }
                command.arg("--").arg(&me);
                command
            }
        };
        let mut child = command
            .env(AGENT_ENV, endpoints.name())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the agent");
        let stdin = BufWriter::new(child.stdin.take().expect("stdin"));
        let stdout = child.stdout.take().expect("stdout");
        // `acp proxy` widens the pipes it streams through to 1 MiB; with
        // ACP_BENCH_WIDE_DIRECT=1 the direct pipe gets the same, to show what that alone is worth.
        #[cfg(target_os = "linux")]
        if path == Path::Direct && std::env::var_os("ACP_BENCH_WIDE_DIRECT").is_some() {
            use nix::fcntl::{FcntlArg, fcntl};
            fcntl(&stdout, FcntlArg::F_SETPIPE_SZ(1 << 20)).expect("widen the direct pipe");
        }
        let stdout = BufReader::with_capacity(64 * 1024, stdout);
        let stderr = child.stderr.take().expect("stderr");
        // Count what the proxy reports (it should report nothing for this clean traffic).
        let stderr = std::thread::spawn(move || {
            BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
                .filter(|l| l.contains(": error[") || l.contains(": warning["))
                .count()
        });
        Peer {
            child,
            record,
            path,
            stdin,
            stdout,
            stderr: Some(stderr),
            next_id: 0,
            line: String::new(),
        }
    }

    fn send(&mut self, method: &str, params: &str) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        )
        .expect("write");
        self.stdin.flush().expect("flush");
        id
    }

    /// Reads lines up to the response; returns how many lines came before it. With
    /// `decode`, each update is decoded with the typed schema, as a client does.
    fn until_response(&mut self) -> usize {
        self.receive(false)
    }

    fn receive(&mut self, decode: bool) -> usize {
        let mut before = 0;
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).expect("read");
            assert!(n > 0, "the agent ended early");
            if !decode {
                if self.line.contains(r#""result""#) && !self.line.contains(r#""method""#) {
                    return before;
                }
                before += 1;
                continue;
            }
            match self.line.parse::<Message>().expect("a JSON-RPC message") {
                Message::Notification(n) => {
                    AgentNotification::decode(&n.method, n.params.as_deref())
                        .expect("a valid update");
                    before += 1;
                }
                _ => return before,
            }
        }
    }

    fn handshake(&mut self) {
        self.send(
            "initialize",
            r#"{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}"#,
        );
        self.until_response();
        self.send("session/new", r#"{"cwd":"/tmp","mcpServers":[]}"#);
        self.until_response();
    }

    fn latency(&mut self, count: usize) -> Vec<Duration> {
        let prompt = r#"{"sessionId":"sess_bench","prompt":[{"type":"text","text":"ping"}]}"#;
        for _ in 0..count / 10 {
            self.send("session/prompt", prompt);
            self.until_response();
        }
        (0..count)
            .map(|_| {
                let start = Instant::now();
                self.send("session/prompt", prompt);
                self.until_response();
                start.elapsed()
            })
            .collect()
    }

    fn throughput(&mut self, updates: usize, endpoints: Endpoints) -> f64 {
        let params = format!(
            r#"{{"sessionId":"sess_bench","prompt":[{{"type":"text","text":"stream"}}],"_meta":{{"updates":{updates}}}}}"#
        );
        let start = Instant::now();
        self.send("session/prompt", &params);
        let received = self.receive(endpoints == Endpoints::Typed);
        let elapsed = start.elapsed();
        assert_eq!(received, updates);
        updates as f64 / elapsed.as_secs_f64()
    }

    /// Ends the connection; returns the number of proxy findings and, for a capture, the
    /// size of its database per frame.
    fn finish(mut self) -> (usize, Option<f64>) {
        drop(self.stdin);
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "agent or proxy failed: {status}");
        let mut per_frame = None;
        if let Some(record) = &self.record {
            if self.path == Path::Captured {
                let store = acptk_inspect::Store::open(record).expect("the capture database");
                let frames: i64 = store
                    .captures(1, 0)
                    .expect("the capture")
                    .iter()
                    .map(|c| c.frames)
                    .sum();
                drop(store);
                let size: u64 = ["", "-wal"]
                    .iter()
                    .filter_map(|s| std::fs::metadata(format!("{}{s}", record.display())).ok())
                    .map(|m| m.len())
                    .sum();
                per_frame = Some(size as f64 / frames.max(1) as f64);
                for suffix in ["-wal", "-shm"] {
                    std::fs::remove_file(format!("{}{suffix}", record.display())).ok();
                }
            }
            std::fs::remove_file(record).ok();
        }
        let findings = self.stderr.take().map_or(0, |t| t.join().unwrap_or(0));
        (findings, per_frame)
    }
}

/// The benchmark agent (see the module docs).
fn agent(endpoints: Endpoints) {
    let params: Vec<String> = session_updates(Version::V1, 4096, 7);
    let lines: Vec<String> = params
        .iter()
        .map(|p| format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{p}}}"#))
        .collect();
    let typed: Vec<SessionNotification> = params
        .iter()
        .map(|p| serde_json::from_str(p).expect("a valid update"))
        .collect();
    let stdin = std::io::stdin();
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(request) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let id = &request["id"];
        let result = match request["method"].as_str() {
            Some("initialize") => r#"{"protocolVersion":1,"agentCapabilities":{}}"#,
            Some("session/new") => r#"{"sessionId":"sess_bench"}"#,
            Some("session/prompt") => {
                let updates = request["params"]["_meta"]["updates"].as_u64().unwrap_or(0);
                for i in 0..updates as usize {
                    match endpoints {
                        Endpoints::Raw => {
                            let _ = out.write_all(lines[i % lines.len()].as_bytes());
                        }
                        Endpoints::Typed => {
                            let update = &typed[i % typed.len()];
                            let message = Notification::new("session/update", Some(update));
                            let _ = serde_json::to_writer(&mut out, &message);
                        }
                    }
                    let _ = out.write_all(b"\n");
                }
                r#"{"stopReason":"end_turn"}"#
            }
            _ => continue,
        };
        let _ = writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
        if out.flush().is_err() {
            break;
        }
    }
}
