//! Interop over Streamable HTTP with the official Python SDK: `acp client --url http://...`
//! against an agent served by the SDK's own ASGI application (under uvicorn): turns with
//! notices (v1 with and without `session.notices`), a permission request from the agent and
//! its answer, and a second connection that loads the session (the SDK's server knows a
//! session on a connection only once it is attached, so this also checks how the client opens
//! session streams and posts `session/load`). The peers come from
//! `scripts/interop-setup.sh` (the SDK with its `http` extra, and uvicorn); without them the
//! test skips (and fails with `ACP_INTEROP_REQUIRED=1`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/interop.rs"]
mod interop;
#[path = "support/scripted.rs"]
mod scripted;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use interop::Peers;
use scripted::{ACP, finish, text};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(90);

/// The peers, when the Python SDK's HTTP extra and uvicorn are installed.
fn http_peers(test: &str) -> Option<Peers> {
    let peers = interop::peers(test)?;
    let found = Command::new(peers.python())
        .args(["-c", "import acp.http.asgi, uvicorn"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if found {
        return Some(peers);
    }
    let message = format!(
        "{test}: the Python SDK's `http` extra or uvicorn is not installed in {} (run ./scripts/interop-setup.sh)",
        peers.dir().display()
    );
    if std::env::var("ACP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!("{message}; ACP_INTEROP_REQUIRED=1 makes this a failure");
    }
    eprintln!("skipped: {message}");
    None
}

/// The Python SDK's agent on a loopback port, ended when dropped.
struct PyAgent {
    child: Child,
    url: String,
}

impl PyAgent {
    fn start(peers: &Peers) -> Self {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/py_http_agent.py");
        let mut child = Command::new(peers.python())
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
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
            panic!("py_http_agent.py did not say where it listens: {line:?}");
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

fn our_client(url: &str, flags: &[&str]) -> Vec<Value> {
    let child = Command::new(ACP)
        .args([
            "client",
            "--url",
            url,
            "--format",
            "json",
            "--timeout",
            "60",
        ])
        .args(flags)
        .env_remove("ACP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = finish(child, LIMIT);
    assert_eq!(
        output.status.code(),
        Some(0),
        "acp client {flags:?}: {}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn agent_text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "message" && e["role"] == "agent" && e["history"] != true)
        .filter_map(|e| e["text"].as_str())
        .collect()
}

#[test]
fn our_client_against_a_python_agent_over_streamable_http() {
    let Some(peers) = http_peers("our_client_against_a_python_agent_over_streamable_http") else {
        return;
    };
    let agent = PyAgent::start(&peers);
    let fallback = "Warning: Quota almost used - 90% of today's quota";
    let mut first = None;
    for (flags, as_notice) in [(&[][..], true), (&["--no-notices"][..], false)] {
        let mut all = vec!["--prompt", "hi"];
        all.extend_from_slice(flags);
        let events = our_client(&agent.url, &all);
        let session = events.iter().find(|e| e["type"] == "session").unwrap();
        assert_eq!(session["agent"], "py-http-agent", "{events:?}");
        assert_eq!(session["protocolVersion"], 1);
        first.get_or_insert_with(|| session["sessionId"].as_str().unwrap().to_owned());
        let notices: Vec<&Value> = events.iter().filter(|e| e["type"] == "notice").collect();
        let said = agent_text(&events);
        assert!(
            said.starts_with("Hello over HTTP from Python, you said: hi"),
            "{events:?}"
        );
        if as_notice {
            assert_eq!(notices.len(), 1, "{flags:?}: {events:?}");
            assert_eq!(notices[0]["title"], "Quota almost used");
            assert!(!said.contains(fallback));
        } else {
            assert!(notices.is_empty(), "{events:?}");
            assert!(said.contains(fallback), "{events:?}");
        }
    }

    // The agent asks permission; `--allow` answers it with the allowing option.
    let events = our_client(&agent.url, &["--prompt", "ask", "--allow"]);
    assert!(
        agent_text(&events).starts_with("permission: selected"),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| e["type"] == "permission"),
        "{events:?}"
    );

    // A second connection loads the first session: its turn comes back as history, and the
    // loaded session takes a new turn.
    let id = first.unwrap();
    let events = our_client(&agent.url, &["--load", &id, "--prompt", "again"]);
    let history: Vec<&str> = events
        .iter()
        .filter(|e| e["history"] == true && e["type"] == "message")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(
        history,
        ["hi", "Hello over HTTP from Python, you said: hi"],
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .filter(|e| e["type"] == "notice")
            .all(|e| e["history"] != true),
        "no notice in a replay"
    );
    assert!(
        agent_text(&events).starts_with("Hello over HTTP from Python, you said: again"),
        "{events:?}"
    );
}
