//! Named sessions, queued prompts and MCP servers against agents written with the official
//! TypeScript and Python SDKs (v1 and v2), cancel and status from another process, and a
//! named agent of the config file. Neither agent can continue a session, so a named
//! session's later runs start a new one with a note, and the history comes from the client's
//! own record. The peers are installed by `scripts/interop-setup.sh`; without them the tests
//! skip (and fail with `ACP_INTEROP_REQUIRED=1`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/interop.rs"]
mod interop;
#[path = "support/scripted.rs"]
mod scripted;

#[path = "support/home.rs"]
mod home;

use std::path::{Path, PathBuf};
use std::time::Duration;

use home::{Home, Ran, end, prompts};
use interop::Peers;
use serde_json::Value;

/// How long one run against an SDK agent may take.
const LIMIT: Duration = Duration::from_secs(90);

/// The agents: (label, SDK script, `--protocol`).
const AGENTS: [(&str, Sdk, &str); 4] = [
    ("ts-v1", Sdk::TypeScript, "1"),
    ("ts-v2", Sdk::TypeScript, "2"),
    ("py-v1", Sdk::Python, "1"),
    ("py-v2", Sdk::Python, "2"),
];

#[derive(Clone, Copy)]
enum Sdk {
    TypeScript,
    Python,
}

fn peer(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
}

/// The SDK agent's command line, speaking `protocol`.
fn agent(peers: &Peers, sdk: Sdk, protocol: &str) -> Vec<String> {
    let (program, script) = match sdk {
        Sdk::TypeScript => (peers.node(), peer("ts_agent.mjs")),
        Sdk::Python => (peers.python(), peer("py_agent.py")),
    };
    vec![
        program.display().to_string(),
        script.display().to_string(),
        "--protocol".to_owned(),
        protocol.to_owned(),
    ]
}

/// `acp client --protocol P FLAGS -- AGENT` in `cwd`, the agent logging to `log`.
fn client(
    home: &Home,
    peers: &Peers,
    cwd: &Path,
    log: &Path,
    protocol: &str,
    flags: &[&str],
    agent: &[String],
) -> Ran {
    let mut args = vec!["client", "--protocol", protocol, "--timeout", "60"];
    args.extend_from_slice(flags);
    args.push("--");
    args.extend(agent.iter().map(String::as_str));
    let mut command = home.command(cwd, &args);
    command
        .env(
            "ACP_SDK_DIR",
            peers.node_modules().join("@agentclientprotocol/sdk"),
        )
        .env("ACP_TEST_LOG", log);
    end(command.spawn().unwrap(), LIMIT)
}

/// An agent, the MCP servers it gets as (name, type), and the warning.
type Expected = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
);

/// The agent's log records of `event`.
fn records(log: &Path, event: &str) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|record| record["event"] == event)
        .collect()
}

#[test]
fn named_sessions_of_sdk_agents_restart_with_a_note_and_keep_their_history() {
    let Some(peers) = interop::peers("named_sessions_of_sdk_agents") else {
        return;
    };
    let home = Home::new("sdk-ns");
    let (a, b) = (home.work("a"), home.work("b"));
    let log = home.dir().join("agent.log");
    for (label, sdk, protocol) in AGENTS {
        let agent = agent(&peers, sdk, protocol);
        let run = |cwd: &Path, prompt: &str| {
            client(
                &home,
                &peers,
                cwd,
                &log,
                protocol,
                &["--session", label, "--prompt", prompt, "--format", "json"],
                &agent,
            )
            .expect(0)
        };
        let first = run(&a, "one");
        assert_eq!(first.event("named_session")["how"], "new", "{label}");
        let second = run(&a, "two");
        let named = second.event("named_session");
        // They cannot continue a session: a new one, and a note that says where the rest is.
        assert_eq!(named["how"], "restarted", "{label}: {named}");
        assert!(
            named["note"]
                .as_str()
                .unwrap()
                .contains(&format!("`acp sessions history {label}`")),
            "{label}: {named}"
        );
        let history = home
            .sessions(&a, &["history", label, "--format", "json"])
            .expect(0);
        assert_eq!(prompts(&history), ["one", "two"], "{label}");
        let replies = history.stdout.matches("you said: ").count();
        assert_eq!(replies, 2, "{label}: {}", history.stdout);
        // Another directory: another session.
        let elsewhere = run(&b, "three");
        assert_eq!(elsewhere.event("named_session")["how"], "new", "{label}");
    }
    home.wait_for_nothing_left(Duration::from_secs(5));
}

#[test]
fn mcp_servers_reach_sdk_agents_as_their_capabilities_allow() {
    let Some(peers) = interop::peers("mcp_servers_reach_sdk_agents") else {
        return;
    };
    let home = Home::new("sdk-mcp");
    let work = home.work("w");
    std::fs::write(
        work.join("mcp.json"),
        r#"{"mcpServers": {
            "files": {"command": "mcp-files", "args": ["--root", "."], "env": {"LOG": "1"}},
            "search": {"type": "http", "url": "https://mcp.example/search", "headers": {"X-Key": "k"}},
            "events": {"type": "sse", "url": "https://mcp.example/sse"}
        }}"#,
    )
    .unwrap();
    let expected: [Expected; 4] = [
        // v1 TypeScript agent: stdio and HTTP advertised.
        (
            "ts-v1",
            &[("files", "stdio"), ("search", "http")],
            "left out MCP server(s) `events` (sse): the agent did not advertise that transport (ACP v1); kept `files`, `search`",
        ),
        // v2 TypeScript agent: stdio only.
        (
            "ts-v2",
            &[("files", "stdio")],
            "left out MCP server(s) `events` (sse), `search` (http): the agent did not advertise that transport (ACP v2); kept `files`",
        ),
        // v1 Python agent: the baseline, stdio.
        (
            "py-v1",
            &[("files", "stdio")],
            "left out MCP server(s) `events` (sse), `search` (http): the agent did not advertise that transport (ACP v1); kept `files`",
        ),
        // v2 Python agent: no transport advertised at all.
        (
            "py-v2",
            &[],
            "left out MCP server(s) `events` (sse), `files` (stdio), `search` (http): the agent did not advertise that transport (ACP v2); the session gets no MCP servers",
        ),
    ];
    for ((label, sdk, protocol), (name, servers, warning)) in AGENTS.into_iter().zip(expected) {
        assert_eq!(label, name);
        let log = home.dir().join(format!("{label}.log"));
        let ran = client(
            &home,
            &peers,
            &work,
            &log,
            protocol,
            &["--mcp-config", "mcp.json", "--prompt", "hi"],
            &agent(&peers, sdk, protocol),
        )
        .expect(0);
        assert!(ran.stderr.contains(warning), "{label}: {}", ran.stderr);
        let new = records(&log, "session/new");
        assert_eq!(new.len(), 1, "{label}: {new:?}");
        let got: Vec<(String, String)> = new[0]["mcpServers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|server| {
                let kind = server["type"].as_str().unwrap_or("stdio");
                (server["name"].as_str().unwrap().to_owned(), kind.to_owned())
            })
            .collect();
        let want: Vec<(String, String)> = servers
            .iter()
            .map(|(name, kind)| ((*name).to_owned(), (*kind).to_owned()))
            .collect();
        assert_eq!(got, want, "{label}: {}", new[0]);
        // Each in the shape of its version, with its settings.
        for server in new[0]["mcpServers"].as_array().unwrap() {
            match server["name"].as_str().unwrap() {
                "files" => {
                    assert_eq!(server["command"], "mcp-files", "{label}: {server}");
                    assert_eq!(server["args"], serde_json::json!(["--root", "."]));
                    assert_eq!(
                        server["env"],
                        serde_json::json!([{"name": "LOG", "value": "1"}])
                    );
                }
                "search" => {
                    assert_eq!(server["url"], "https://mcp.example/search");
                    assert_eq!(
                        server["headers"],
                        serde_json::json!([{"name": "X-Key", "value": "k"}])
                    );
                }
                other => panic!("{label}: an unexpected server {other}"),
            }
        }
    }
}

#[test]
fn an_owner_serves_queued_prompts_to_an_sdk_agent_in_order() {
    let Some(peers) = interop::peers("an_owner_serves_queued_prompts_to_an_sdk_agent") else {
        return;
    };
    let home = Home::new("sdk-ow");
    let work = home.work("w");
    for (label, sdk, protocol) in [AGENTS[0], AGENTS[3]] {
        let log = home.dir().join(format!("{label}.log"));
        let agent = agent(&peers, sdk, protocol);
        let queue = |prompt: &str| {
            client(
                &home,
                &peers,
                &work,
                &log,
                protocol,
                &[
                    "--session",
                    label,
                    "--no-wait",
                    "--ttl",
                    "3",
                    "--prompt",
                    prompt,
                ],
                &agent,
            )
            .expect(0)
        };
        let first = queue("one");
        assert!(
            first.stderr.contains("queued prompt #1"),
            "{label}: {}",
            first.stderr
        );
        queue("two");
        let status = home
            .sessions(&work, &["status", label, "--format", "json"])
            .expect(0);
        let status: Value = serde_json::from_str(status.stdout.trim()).unwrap();
        assert!(status["owner"]["pid"].is_u64(), "{label}: {status}");
        // Through the owner, streamed back.
        let third = client(
            &home,
            &peers,
            &work,
            &log,
            protocol,
            &["--session", label, "--prompt", "three", "--format", "json"],
            &agent,
        )
        .expect(0);
        assert_eq!(third.event("named_session")["how"], "served", "{label}");
        assert!(
            third.stdout.contains("you said: three"),
            "{label}: {}",
            third.stdout
        );
        let history = home
            .sessions(&work, &["history", label, "--format", "json"])
            .expect(0);
        assert_eq!(prompts(&history), ["one", "two", "three"], "{label}");
        // One agent process served all three: one session/new.
        assert_eq!(records(&log, "session/new").len(), 1, "{label}");
    }
    home.wait_for_nothing_left(Duration::from_secs(15));
    assert!(home.sockets().is_empty());
}

#[test]
fn cancel_and_status_reach_an_sdk_agent_through_its_owner_which_leaves_after_its_ttl() {
    let Some(peers) = interop::peers("cancel_and_status_reach_an_sdk_agent_through_its_owner")
    else {
        return;
    };
    let home = Home::new("sdk-cx");
    let work = home.work("w");
    // `--slow` (v1): a turn streams dots for 30 s unless it is cancelled.
    for (label, sdk, protocol) in [AGENTS[0], AGENTS[2]] {
        let log = home.dir().join(format!("{label}.log"));
        let mut agent = agent(&peers, sdk, protocol);
        agent.push("--slow".to_owned());
        let flags = [
            "--session",
            label,
            "--no-wait",
            "--ttl",
            "1",
            "--prompt",
            "slow",
        ];
        client(&home, &peers, &work, &log, protocol, &flags, &agent).expect(0);
        // From another process: what runs, who serves.
        let status = home.status_until(&work, label, |status| {
            status["owner"]["running"]["ticket"] == 1
        });
        assert_eq!(status["owner"]["running"]["prompt"], "slow", "{label}");
        let pid = status["owner"]["pid"].as_u64().unwrap();
        let cancel = home.sessions(&work, &["cancel", label]).expect(0);
        assert!(
            cancel.stderr.contains(&format!(
                "acp: cancelled the running turn (prompt #1) of session {label}"
            )),
            "{label}: {}",
            cancel.stderr
        );
        // The agent saw `session/cancel` and the turn ended `cancelled`, well before 30 s.
        home.status_until(&work, label, |status| status["owner"]["running"].is_null());
        let turns = home
            .sessions(&work, &["history", label, "--format", "json"])
            .expect(0)
            .json();
        assert_eq!(turns.len(), 1, "{label}: {turns:?}");
        assert_eq!(turns[0]["stopReason"], "cancelled", "{label}: {}", turns[0]);
        assert_eq!(records(&log, "cancelled").len(), 1, "{label}");
        // Idle for its TTL (1 s), the owner exits, and its agent with it.
        assert!(home::gone(pid, Duration::from_secs(15)), "{label}");
    }
    home.wait_for_nothing_left(Duration::from_secs(15));
    assert!(home.sockets().is_empty());
}

#[test]
fn a_named_agent_from_the_config_file_runs_an_sdk_agent_in_a_named_session() {
    let Some(peers) = interop::peers("a_named_agent_from_the_config_file_runs_an_sdk_agent") else {
        return;
    };
    let home = Home::new("sdk-cf");
    let work = home.work("w");
    let log = home.dir().join("ts.log");
    let agent = agent(&peers, Sdk::TypeScript, "1");
    let quoted: Vec<String> = agent[1..]
        .iter()
        .map(|arg| serde_json::to_string(arg).unwrap())
        .collect();
    let config = home.config.join("acp/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "format = \"json\"\n\n[agents.sdk]\ncommand = {}\nargs = [{}]\nenv = {{ ACP_SDK_DIR = {}, ACP_TEST_LOG = {} }}\n",
            serde_json::to_string(&agent[0]).unwrap(),
            quoted.join(", "),
            serde_json::to_string(&peers.node_modules().join("@agentclientprotocol/sdk")).unwrap(),
            serde_json::to_string(&log).unwrap(),
        ),
    )
    .unwrap();
    let run = |prompt: &str| {
        end(
            home.command(
                &work,
                &["client", "sdk", "--session", "cf", "--prompt", prompt],
            )
            .spawn()
            .unwrap(),
            LIMIT,
        )
        .expect(0)
    };
    // The config's default format (json) and the agent's env (its log) both apply.
    let first = run("one");
    assert_eq!(
        first.event("named_session")["how"],
        "new",
        "{}",
        first.stdout
    );
    assert!(first.stdout.contains("you said: one"), "{}", first.stdout);
    let second = run("two");
    assert_eq!(second.event("named_session")["how"], "restarted");
    assert_eq!(records(&log, "session/new").len(), 2);
    let listed = home
        .sessions(&work, &["list", "--format", "json"])
        .expect(0)
        .json();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["agentName"], "sdk", "{}", listed[0]);
    let history = home
        .sessions(&work, &["history", "cf", "--format", "json"])
        .expect(0);
    assert_eq!(prompts(&history), ["one", "two"]);
    home.wait_for_nothing_left(Duration::from_secs(15));
}
