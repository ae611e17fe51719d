//! The cluster of `tests/cluster.rs` (two `acp agent --listen --store postgres://...` behind
//! HAProxy) with the official TypeScript SDK's clients: over its WebSocket transport (v1) and
//! its Streamable HTTP transport (v2), a session created through the balancer survives the
//! SIGKILL of the instance running its turn: the client reconnects through the balancer,
//! reopens the session on the other instance (v1 `session/load`, v2 `session/resume`) with
//! every update it had seen, gets the lease error (`-32010`) until the dead instance's lease
//! expires, and then goes on.
//!
//! Needs the interop peers (`scripts/interop-setup.sh`), PostgreSQL and HAProxy: skipped
//! without them, failing when `ACP_INTEROP_REQUIRED=1` or `ACP_CLUSTER_REQUIRED=1`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/interop.rs"]
mod interop;
#[path = "support/remote_peer.rs"]
mod remote_peer;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cluster::Cluster;
use remote_peer::history;
use serde_json::Value;

/// As in `tests/cluster.rs`: chunks 100 ms apart, two-second leases.
const FLAGS: &[&str] = &["--delay-ms", "100", "--lease-seconds", "2"];

/// The whole scenario may take this long.
const LIMIT: Duration = Duration::from_secs(45);

fn failover(test: &str, scheme: &str, version: u16) {
    let Some(peers) = interop::peers(test) else {
        return;
    };
    if !peers.node_modules().join("ws/package.json").is_file() {
        interop::peers(&format!("{test} (the `ws` package)"));
        return;
    }
    let Some(mut cluster) = Cluster::postgres(test, FLAGS) else {
        return;
    };
    let url = if scheme == "ws" {
        cluster.ws_url()
    } else {
        cluster.http_url()
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/ts_cluster_client.mjs");
    let mut child = Command::new(peers.node())
        .arg(script)
        .arg(&url)
        .args(["--protocol", &version.to_string()])
        .args(["--prompt", "tell me about the failover please"])
        .args(["--quick", "/notice info Still there"])
        .env(
            "ACP_SDK_DIR",
            peers.node_modules().join("@agentclientprotocol/sdk"),
        )
        .env("ACP_NODE_MODULES", peers.node_modules())
        .spawn_reading(Stdio::inherit())
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, events) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let event = serde_json::from_str(&line)
                .unwrap_or(serde_json::json!({"event": "unparsable", "line": line}));
            if tx.send(event).is_err() {
                break;
            }
        }
    });
    let started = Instant::now();
    let mut all: Vec<Value> = Vec::new();
    let mut next = || -> Option<Value> {
        let left = LIMIT.saturating_sub(started.elapsed());
        let event = events.recv_timeout(left).ok()?;
        all.push(event.clone());
        Some(event)
    };
    let label = format!("typescript {scheme} v{version}");
    // The session, then updates of the turn.
    let mut session = None;
    let mut updates = 0;
    while updates < 8 {
        let event = next()
            .unwrap_or_else(|| panic!("{label}: the turn did not stream\n{}", cluster.logs()));
        match event["event"].as_str() {
            Some("session") => session = event["sessionId"].as_str().map(str::to_owned),
            Some("update") => updates += 1,
            _ => panic!("{label}: {event}"),
        }
    }
    let session = session.unwrap();
    let running = cluster.running(&session);
    cluster.kill(running);
    while let Some(event) = next() {
        if event["event"] == "prompted" {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let of = |kind: &str, events: &[Value]| -> Vec<Value> {
        events
            .iter()
            .filter(|event| event["event"] == kind)
            .map(|event| event["update"].clone())
            .collect()
    };
    let disconnected = all
        .iter()
        .position(|event| event["event"] == "disconnected")
        .unwrap_or_else(|| panic!("{label}: the connection did not end: {all:?}"));
    let seen = history(&of("update", &all[..disconnected]));
    // The replay of the last reopening (an attempt that reached the dead instance first
    // ended with an error).
    let last_try = all
        .iter()
        .rposition(|event| event["event"] == "error")
        .map_or(disconnected, |at| at.max(disconnected));
    let replayed = history(&of("replayed", &all[last_try..]));
    let mut rest = replayed.iter();
    assert!(
        seen.iter().all(|wanted| rest.any(|value| value == wanted)),
        "{label}: the replay lacks updates the client saw\nseen: {seen:?}\nreplayed: {replayed:?}"
    );
    assert!(
        seen.iter()
            .any(|update| update["sessionUpdate"] == "agent_message_chunk"),
        "{label}: {seen:?}"
    );
    let busy: Vec<&Value> = all
        .iter()
        .filter(|event| event["event"] == "busy")
        .collect();
    assert!(!busy.is_empty(), "{label}: no lease error: {all:?}");
    assert!(
        busy.iter()
            .all(|event| event["code"] == -32010 && event["data"]["sessionId"] == session.as_str()),
        "{label}: {busy:?}"
    );
    let prompted = all.last().unwrap();
    assert_eq!(
        prompted["event"],
        "prompted",
        "{label}: {all:?}\n{}",
        cluster.logs()
    );
    assert_eq!(prompted["stopReason"], "end_turn", "{label}");
}

#[test]
fn the_typescript_websocket_client_fails_over_v1() {
    failover("cluster-ts-ws", "ws", 1);
}

#[test]
fn the_typescript_http_client_fails_over_v2() {
    failover("cluster-ts-http", "http", 2);
}
