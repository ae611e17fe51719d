//! Interop with the official SDKs: `acp client` against small agents written with the
//! TypeScript SDK and the Python SDK (v1 and v2, one requiring authentication, one sending
//! notices), and clients written with both SDKs against `acp agent`. The peers are installed
//! by `scripts/interop-setup.sh`; without them the tests skip (and fail with
//! `ACP_INTEROP_REQUIRED=1`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/interop.rs"]
mod interop;
#[path = "support/scripted.rs"]
mod scripted;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use interop::Peers;
use scripted::{ACP, Run, finish, text};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(90);

fn peer(name: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
}

/// Which agent an `acp client` run talks to.
#[derive(Clone, Copy)]
enum Sdk {
    TypeScript,
    Python,
}

/// The command line of the SDK agent with `flags`.
fn agent(peers: &Peers, sdk: Sdk, flags: &[&str]) -> Vec<String> {
    let mut line = match sdk {
        Sdk::TypeScript => vec![
            peers.node().display().to_string(),
            peer("ts_agent.mjs").display().to_string(),
        ],
        Sdk::Python => vec![
            peers.python().display().to_string(),
            peer("py_agent.py").display().to_string(),
        ],
    };
    line.extend(flags.iter().map(|flag| (*flag).to_owned()));
    line
}

/// Runs `acp client CLIENT_FLAGS -- AGENT`; returns exit code, stdout, stderr and the agent's
/// log.
fn client(
    peers: &Peers,
    run: &Run,
    client_flags: &[&str],
    agent: &[String],
) -> (i32, String, String, String) {
    let child = Command::new(ACP)
        .arg("client")
        .args(client_flags)
        .args(["--timeout", "30", "--cwd"])
        .arg(&run.dir)
        .arg("--")
        .args(agent)
        .env(
            "ACP_SDK_DIR",
            peers.node_modules().join("@agentclientprotocol/sdk"),
        )
        .env("ACP_TEST_LOG", run.dir.join("agent.log"))
        .env("NO_COLOR", "1")
        .spawn_reading(Stdio::piped())
        .unwrap();
    let output = finish(child, LIMIT);
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
        run.log(),
    )
}

/// The agent's log records of `event`.
fn records(log: &str, event: &str) -> Vec<Value> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|record| record["event"] == event)
        .collect()
}

#[test]
fn our_client_gets_notices_from_sdk_agents_in_v1_and_v2() {
    let Some(peers) = interop::peers("our_client_gets_notices_from_sdk_agents_in_v1_and_v2") else {
        return;
    };
    let cases: [(Sdk, &[&str], &[&str], &str); 4] = [
        (
            Sdk::TypeScript,
            &[],
            &["--notices"],
            "[notice] Warning: Quota almost used - 90% of today's quota",
        ),
        (
            Sdk::TypeScript,
            &["--protocol", "2"],
            &["--protocol", "2", "--notices"],
            "[notice] Warning: Quota almost used",
        ),
        (
            Sdk::Python,
            &[],
            &["--notices"],
            "[notice] Error: Index out of date - Rebuilding it",
        ),
        (
            Sdk::Python,
            &["--protocol", "2"],
            &["--protocol", "2", "--notices"],
            "[notice] Info: Using the cache",
        ),
    ];
    for (sdk, ours, theirs, expected) in cases {
        let run = Run::new("sdk-notices");
        let mut flags = vec!["--prompt", "hello"];
        flags.extend_from_slice(ours);
        let (code, out, err, log) = client(&peers, &run, &flags, &agent(&peers, sdk, theirs));
        assert_eq!(code, 0, "{theirs:?}\nstdout:\n{out}\nstderr:\n{err}");
        assert!(
            out.contains(expected),
            "{theirs:?}: {expected:?} missing:\n{out}"
        );
        assert!(out.contains("you said: hello"), "{out}");
        // The prompt is shown once, also when a v2 agent echoes it.
        assert_eq!(out.matches("You: hello").count(), 1, "{out}");
        assert!(out.contains("-- turn ended: end_turn --"), "{out}");
        let init = records(&log, "initialize");
        assert_eq!(init.len(), 1, "{log}");
    }
}

#[test]
fn a_v1_sdk_agent_asked_for_v2_still_learns_the_v1_capabilities() {
    let Some(peers) =
        interop::peers("a_v1_sdk_agent_asked_for_v2_still_learns_the_v1_capabilities")
    else {
        return;
    };
    for sdk in [Sdk::TypeScript, Sdk::Python] {
        let run = Run::new("sdk-fallback");
        let (code, out, err, log) = client(
            &peers,
            &run,
            &["--protocol", "2", "--prompt", "hello", "--format", "json"],
            &agent(&peers, sdk, &["--notices"]),
        );
        assert_eq!(code, 0, "{out}\n{err}");
        let init = records(&log, "initialize");
        let last = init.last().unwrap();
        assert_eq!(last["protocolVersion"], 1, "{log}");
        assert_eq!(
            last["capabilities"]["session"]["notices"],
            serde_json::json!({}),
            "{log}"
        );
        let events: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(events[0]["type"], "session");
        assert_eq!(events[0]["protocolVersion"], 1);
        assert_eq!(events[0]["proposedVersion"], 2);
        assert!(events.iter().any(|e| e["type"] == "notice"), "{out}");
    }
}

#[test]
fn without_notices_sdk_agents_fall_back_to_a_message() {
    let Some(peers) = interop::peers("without_notices_sdk_agents_fall_back_to_a_message") else {
        return;
    };
    for sdk in [Sdk::TypeScript, Sdk::Python] {
        let run = Run::new("sdk-no-notices");
        let (code, out, err, log) = client(
            &peers,
            &run,
            &["--no-notices", "--prompt", "hello"],
            &agent(&peers, sdk, &["--notices"]),
        );
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains("[notice]"), "{out}");
        assert!(out.contains("Agent: Hello from"), "{out}");
        let init = &records(&log, "initialize")[0];
        assert!(
            init["capabilities"]["session"]["notices"].is_null(),
            "{log}"
        );
    }
}

#[test]
fn sdk_agents_that_require_authentication() {
    let Some(peers) = interop::peers("sdk_agents_that_require_authentication") else {
        return;
    };
    for (sdk, version) in [
        (Sdk::TypeScript, "1"),
        (Sdk::TypeScript, "2"),
        (Sdk::Python, "1"),
        (Sdk::Python, "2"),
    ] {
        let theirs = agent(&peers, sdk, &["--auth", "--protocol", version]);
        let run = Run::new("sdk-auth");
        let (code, out, err, _) = client(
            &peers,
            &run,
            &["--protocol", version, "--prompt", "hi"],
            &theirs,
        );
        assert_eq!(code, 3, "v{version}\nstdout:\n{out}\nstderr:\n{err}");
        assert!(
            err.contains("Authentication required (code -32000)"),
            "{err}"
        );
        assert!(err.contains("\n  token  Use a token"), "{err}");
        assert!(err.contains("pick one with --auth METHOD_ID"), "{err}");

        let run = Run::new("sdk-auth-ok");
        let (code, out, err, log) = client(
            &peers,
            &run,
            &["--protocol", version, "--auth", "token", "--prompt", "hi"],
            &theirs,
        );
        assert_eq!(code, 0, "v{version}\nstdout:\n{out}\nstderr:\n{err}");
        assert_eq!(
            records(&log, "authenticate")[0]["methodId"],
            "token",
            "{log}"
        );
    }
}

#[test]
fn session_controls_and_lists_with_sdk_agents() {
    let Some(peers) = interop::peers("session_controls_and_lists_with_sdk_agents") else {
        return;
    };
    let run = Run::new("sdk-controls");
    let (code, out, err, log) = client(
        &peers,
        &run,
        &["--mode", "code", "--set", "model=Large", "--prompt", "hi"],
        &agent(&peers, Sdk::TypeScript, &[]),
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(records(&log, "set_mode")[0]["modeId"], "code", "{log}");
    assert_eq!(
        records(&log, "set_config_option")[0]["value"],
        "large",
        "{log}"
    );

    for sdk in [Sdk::TypeScript, Sdk::Python] {
        let run = Run::new("sdk-list");
        let (code, out, err, _) =
            client(&peers, &run, &["--list-sessions"], &agent(&peers, sdk, &[]));
        assert_eq!(code, 0, "{err}");
        let line = out.lines().next().unwrap_or_default();
        assert!(
            line.ends_with("_old\t/old\tAn old session\t2025-06-01T10:00:00Z")
                || line.starts_with("py_old\t/old\tA Python session\t-"),
            "{out}"
        );
    }

    let run = Run::new("sdk-mode-unknown");
    let (code, _, err, _) = client(
        &peers,
        &run,
        &["--mode", "fly", "--prompt", "hi"],
        &agent(&peers, Sdk::Python, &[]),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the agent's modes are: ask, code"), "{err}");
}

#[test]
fn an_sdk_agent_reads_a_file_through_our_client() {
    let Some(peers) = interop::peers("an_sdk_agent_reads_a_file_through_our_client") else {
        return;
    };
    let run = Run::new("sdk-read");
    std::fs::write(run.dir.join("note.txt"), "the secret word is swordfish\n").unwrap();
    let prompt = format!("read {}", run.dir.join("note.txt").display());
    let (code, out, err, _) = client(
        &peers,
        &run,
        &["--prompt", &prompt],
        &agent(&peers, Sdk::TypeScript, &[]),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("The file says: the secret word is swordfish"),
        "{out}"
    );
}

/// Runs an SDK client against `acp agent` and returns what it printed.
fn their_client(peers: &Peers, script: &str, flags: &[&str]) -> Value {
    let interpreter = if script.ends_with(".py") {
        peers.python()
    } else {
        peers.node()
    };
    let child = Command::new(interpreter)
        .arg(peer(script))
        .args(flags)
        .args([
            "--prompt",
            "/notice warning Disk almost full -- 95% used",
            "--",
            ACP,
            "agent",
        ])
        .env(
            "ACP_SDK_DIR",
            peers.node_modules().join("@agentclientprotocol/sdk"),
        )
        .env("ACP_AGENT_DELAY_MS", "0")
        .spawn_reading(Stdio::piped())
        .unwrap();
    let output = finish(child, LIMIT);
    let out = text(&output.stdout);
    assert!(
        output.status.success(),
        "{script} {flags:?}: {out}\n{}",
        text(&output.stderr)
    );
    serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{script}: not JSON: {out}"))
}

#[test]
fn sdk_clients_against_acp_agent() {
    let Some(peers) = interop::peers("sdk_clients_against_acp_agent") else {
        return;
    };
    for script in ["ts_client.mjs", "py_client.py"] {
        for (flags, version, notice) in [
            (&[][..], 1, true),
            (&["--no-notices"][..], 1, false),
            (&["--protocol", "2"][..], 2, true),
        ] {
            let seen = their_client(&peers, script, flags);
            assert!(seen.get("error").is_none(), "{script} {flags:?}: {seen}");
            assert_eq!(seen["protocolVersion"], version, "{seen}");
            assert_eq!(seen["agent"], "acp-example-agent");
            assert_eq!(seen["stopReason"], "end_turn", "{seen}");
            let updates = seen["updates"].as_array().unwrap();
            let notices: Vec<&Value> = updates
                .iter()
                .filter(|u| u["sessionUpdate"] == "notice")
                .collect();
            let fallback = updates.iter().any(|u| {
                u["sessionUpdate"] == "agent_message_chunk"
                    && u["content"]["text"] == "Warning: Disk almost full - 95% used"
            });
            if notice {
                assert_eq!(notices.len(), 1, "{script} {flags:?}: {seen}");
                assert_eq!(notices[0]["severity"], "warning");
                assert_eq!(notices[0]["title"], "Disk almost full");
                assert!(!fallback);
            } else {
                assert!(notices.is_empty(), "{script} {flags:?}: {seen}");
                assert!(fallback, "{script} {flags:?}: {seen}");
            }
        }
    }
}
