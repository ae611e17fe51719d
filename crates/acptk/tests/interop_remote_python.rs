//! Interop over WebSocket and Streamable HTTP with the official Python SDK
//! (`agent-client-protocol` with its `http` extra): the SDK's WebSocket and Streamable HTTP
//! clients (`acp.ws`, `acp.http`) against `acp agent --listen`, and `acp client --url`
//! against an agent served by the SDK's own ASGI app (under uvicorn) over WebSocket and
//! Streamable HTTP, in v1 and v2: notices (v1 gating and fallback), a permission request
//! answered by the client, and a reconnect that continues the session (v1 `session/load`,
//! v2 `session/resume`) with the history replayed and never a notice.
//!
//! The peers are installed by `scripts/interop-setup.sh`; without them the tests skip (and
//! fail with `ACP_INTEROP_REQUIRED=1`).
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

const LIMIT: Duration = Duration::from_secs(90);

fn script(name: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
}

/// The peers, when the Python SDK's remote transports and uvicorn are installed.
fn py_peers(test: &str) -> Option<Peers> {
    let peers = interop::peers(test)?;
    let importable = Command::new(peers.python())
        .args(["-c", "import acp.ws.client, acp.http.client, uvicorn"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if importable {
        return Some(peers);
    }
    let message = format!(
        "{test}: the Python SDK's `http` extra or uvicorn is not installed in {} (run \
         ./scripts/interop-setup.sh)",
        peers.dir().join("venv").display()
    );
    if std::env::var("ACP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!("{message}; ACP_INTEROP_REQUIRED=1 makes this a failure");
    }
    eprintln!("skipped: {message}");
    None
}

#[test]
fn the_python_client_against_acp_agent_listen() {
    let Some(peers) = py_peers("the_python_client_against_acp_agent_listen") else {
        return;
    };
    let state = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("interop-remote-py-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
    let agent = Listening::start(&["--state-dir", state.to_str().unwrap()], &[]);
    // The same endpoint over WebSocket and over Streamable HTTP.
    let http = agent.url.replacen("ws://", "http://", 1);
    for url in [&agent.url, &http] {
        for case in CASES {
            let label = format!("python client {url} {case:?}");
            let mut command = Command::new(peers.python());
            command
                .arg(script("py_remote_client.py"))
                .arg(url)
                .args(case.flags());
            let seen = run_json(command, LIMIT, &label);
            case.check(&seen, &label);
        }
    }
    drop(agent);
    let _ = std::fs::remove_dir_all(state);
}

/// The Python SDK's agent on a loopback port, ended when dropped.
struct PyAgent {
    child: Child,
    url: String,
}

impl PyAgent {
    fn start(peers: &Peers) -> Self {
        let mut child = Command::new(peers.python())
            .arg(script("py_remote_agent.py"))
            .spawn_reading(Stdio::inherit())
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line: String = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
        let Some(url) = line.trim().strip_prefix("listening on ").map(str::to_owned) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("py_remote_agent.py did not say where it listens: {line:?}");
        };
        Self { child, url }
    }
}

impl Drop for PyAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn our_client_against_a_python_agent_over_both_transports() {
    let Some(peers) = py_peers("our_client_against_a_python_agent_over_both_transports") else {
        return;
    };
    // One process serves both versions (the SDK's router picks one per connection) and both
    // transports (one endpoint).
    let agent = PyAgent::start(&peers);
    let http = agent.url.replacen("ws://", "http://", 1);
    for url in [&agent.url, &http] {
        for case in OUR_CASES {
            case.run(url, "py-remote-agent", "Hello from Python", LIMIT);
        }
    }
}
