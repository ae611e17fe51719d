//! Interop over WebSocket and Streamable HTTP with the official TypeScript SDK: `acp client
//! --url` against an agent served by the SDK's own server transports (WebSocket and
//! Streamable HTTP, one port), and the SDK's WebSocket and Streamable HTTP clients against
//! `acp agent --listen`, in v1 and v2, with notices (v1 gating and fallback) and a second
//! connection that loads the session (v1; and, for the SDK's clients, a permission request
//! answered by the client and a v2 `session/resume` with the replay). The peers (the SDK
//! and the `ws` package) are
//! installed by `scripts/interop-setup.sh`; without them the tests skip (and fail with
//! `ACP_INTEROP_REQUIRED=1`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/interop.rs"]
mod interop;
#[path = "support/listening.rs"]
mod listening;
#[path = "support/peer_client.rs"]
mod peer_client;
#[path = "support/scripted.rs"]
mod scripted;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use interop::Peers;
use listening::Listening;
use peer_client::{CASES, OUR_CASES, run_json};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(90);

fn peer(name: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
}

/// The peers, when the SDK and `ws` are installed.
fn ws_peers(test: &str) -> Option<Peers> {
    let peers = interop::peers(test)?;
    if peers.node_modules().join("ws/package.json").is_file() {
        return Some(peers);
    }
    let message = format!(
        "{test}: the `ws` package is not installed in {} (run ./scripts/interop-setup.sh)",
        peers.node_modules().display()
    );
    if std::env::var("ACP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!("{message}; ACP_INTEROP_REQUIRED=1 makes this a failure");
    }
    eprintln!("skipped: {message}");
    None
}

fn node(peers: &Peers, script: &str) -> Command {
    let mut command = Command::new(peers.node());
    command
        .arg(peer(script))
        .env(
            "ACP_SDK_DIR",
            peers.node_modules().join("@agentclientprotocol/sdk"),
        )
        .env("ACP_NODE_MODULES", peers.node_modules());
    command
}

/// The TypeScript SDK's agent on a loopback port, ended when dropped.
struct TsAgent {
    child: Child,
    url: String,
}

impl TsAgent {
    fn start(peers: &Peers, protocol: &str) -> Self {
        Self::with_args(peers, &["--protocol", protocol])
    }

    fn with_args(peers: &Peers, args: &[&str]) -> Self {
        let mut child = node(peers, "ts_ws_agent.mjs")
            .args(args)
            .spawn_reading(Stdio::inherit())
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line: String = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
        let Some(url) = line.trim().strip_prefix("listening on ").map(str::to_owned) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ts_ws_agent.mjs did not say where it listens: {line:?}");
        };
        Self { child, url }
    }
}

impl Drop for TsAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn our_client(url: &str, flags: &[&str]) -> Vec<Value> {
    peer_client::acp_client(url, flags, LIMIT)
}

#[test]
fn our_client_against_a_typescript_agent_over_websocket() {
    let Some(peers) = ws_peers("our_client_against_a_typescript_agent_over_websocket") else {
        return;
    };
    against_a_typescript_agent(&peers, "ws");
}

#[test]
fn our_client_against_a_typescript_agent_over_streamable_http() {
    let Some(peers) = ws_peers("our_client_against_a_typescript_agent_over_streamable_http") else {
        return;
    };
    against_a_typescript_agent(&peers, "http");
}

/// `acp client --url SCHEME://...` against the SDK's server (which serves WebSocket and
/// Streamable HTTP on one port): turns with notices in v1 (with and without
/// `session.notices`) and v2, and in v1 a second connection that loads the session.
fn against_a_typescript_agent(peers: &Peers, scheme: &str) {
    let fallback = "Warning: Quota almost used - 90% of today's quota";
    for (protocol, flags, as_notice) in [
        ("1", &[][..], true),
        ("1", &["--no-notices"][..], false),
        ("2", &[][..], true),
    ] {
        let agent = TsAgent::start(peers, protocol);
        let url = agent.url.replacen("ws://", &format!("{scheme}://"), 1);
        let mut all = vec!["--protocol", protocol, "--prompt", "hi"];
        all.extend_from_slice(flags);
        let events = our_client(&url, &all);
        let session = events.iter().find(|e| e["type"] == "session").unwrap();
        assert_eq!(session["agent"], "ts-ws-agent");
        assert_eq!(session["protocolVersion"], protocol.parse::<u16>().unwrap());
        let notices: Vec<&Value> = events.iter().filter(|e| e["type"] == "notice").collect();
        let agent_text: String = events
            .iter()
            .filter(|e| e["type"] == "message" && e["role"] == "agent")
            .filter_map(|e| e["text"].as_str())
            .collect();
        assert!(
            agent_text.starts_with("Hello over WebSocket, you said: hi"),
            "{events:?}"
        );
        if as_notice {
            assert_eq!(notices.len(), 1, "v{protocol} {flags:?}: {events:?}");
            assert_eq!(notices[0]["title"], "Quota almost used");
            assert!(!agent_text.contains(fallback));
        } else {
            assert!(notices.is_empty(), "{events:?}");
            assert!(agent_text.contains(fallback), "{events:?}");
        }
        if protocol == "1" {
            // A second connection loads the session: the first turn comes back as history.
            let id = session["sessionId"].as_str().unwrap();
            let events = our_client(&url, &["--load", id, "--prompt", "again"]);
            let history: Vec<&str> = events
                .iter()
                .filter(|e| e["history"] == true && e["type"] == "message")
                .filter_map(|e| e["text"].as_str())
                .collect();
            assert_eq!(
                history,
                ["hi", "Hello over WebSocket, you said: hi"],
                "{events:?}"
            );
            assert!(
                events
                    .iter()
                    .filter(|e| e["type"] == "notice")
                    .all(|e| e["history"] != true),
                "no notice in a replay"
            );
        }
    }
}

#[test]
fn our_client_against_a_typescript_agent_asking_permission() {
    let Some(peers) = ws_peers("our_client_against_a_typescript_agent_asking_permission") else {
        return;
    };
    for case in OUR_CASES {
        let agent =
            TsAgent::with_args(&peers, &["--protocol", &case.protocol.to_string(), "--ask"]);
        // The SDK's server serves both transports on one port.
        let http = agent.url.replacen("ws://", "http://", 1);
        for url in [&agent.url, &http] {
            case.run(url, "ts-ws-agent", "Hello over WebSocket", LIMIT);
        }
    }
}

#[test]
fn the_typescript_client_against_acp_agent_listen() {
    let Some(peers) = ws_peers("the_typescript_client_against_acp_agent_listen") else {
        return;
    };
    let state = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("interop-remote-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
    let agent = Listening::start(&["--state-dir", state.to_str().unwrap()], &[]);
    // The same endpoint over WebSocket and over Streamable HTTP.
    let http = agent.url.replacen("ws://", "http://", 1);
    for url in [&agent.url, &http] {
        for case in CASES {
            let label = format!("typescript client {url} {case:?}");
            let mut command = node(&peers, "ts_ws_client.mjs");
            command.arg(url).args(case.flags());
            let seen = run_json(command, LIMIT, &label);
            case.check(&seen, &label);
        }
    }
    drop(agent);
    let _ = std::fs::remove_dir_all(state);
}
