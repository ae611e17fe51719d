//! `acp conform` against real software (the table of docs/src/conformance.md): the official
//! SDKs' example agents of our interop tests, codex-acp from both publishers, claude-agent-acp
//! and gemini-cli as agents (no credentials), and the SDKs' clients and acpx launching
//! `acp conform client`. The SDK peers are pinned by `scripts/interop/`, so what each fails
//! is asserted exactly: a change in a peer or in the suite shows here and in the guide's
//! table together. Without the peers the tests skip (fail with `ACP_INTEROP_REQUIRED=1`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/conform_report.rs"]
mod conform_report;
#[path = "support/interop.rs"]
mod interop;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Output};

use conform_report::{ACP, ids_with, read_report};
use interop::Peers;
use serde_json::Value;

fn script(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A command with the peers' environment: the TypeScript SDK's place, an empty home.
fn command(peers: &Peers, home: &tempfile::TempDir, program: &str) -> Command {
    let mut command = Command::new(program);
    command
        .env(
            "ACP_SDK_DIR",
            peers.node_modules().join("@agentclientprotocol/sdk"),
        )
        .env("HOME", home.path())
        .env("NO_COLOR", "1");
    command
}

fn report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON document ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Runs `acp conform agent` against `agent` in `protocol`; checks the exit code agrees with
/// the report and returns the report.
/// The wait for each response: long enough for a real agent's cold start on a busy machine.
const TIMEOUT: &str = "30";

fn conform_agent(peers: &Peers, protocol: &str, agent: &[String]) -> Value {
    let home = tempfile::tempdir().unwrap();
    let output = command(peers, &home, ACP)
        .args(["conform", "agent", "--format", "json", "--timeout", TIMEOUT])
        .args(["--protocol", protocol, "--"])
        .args(agent)
        .output()
        .unwrap();
    let report = report(&output);
    let code = i32::from(report["failed_must"].as_u64().unwrap() > 0);
    assert_eq!(output.status.code(), Some(code), "{report}");
    report
}

fn strings(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn the_sdk_agents_fail_what_the_guide_says() {
    let Some(peers) = interop::peers("the_sdk_agents_fail_what_the_guide_says") else {
        return;
    };
    let python = peers.python().to_string_lossy().into_owned();
    let ts = |p: &str| {
        strings(&[
            "node",
            &script("ts_agent.mjs"),
            "--protocol",
            p,
            "--notices",
        ])
    };
    let py = |p: &str| {
        strings(&[
            &python,
            &script("py_agent.py"),
            "--protocol",
            p,
            "--notices",
        ])
    };
    // The example agents list one canned session (never the one just made), and in v2 answer
    // `session/close` with -32601 though v2 has no capability for it (every v2 agent has it).
    let v2_sessions = [
        "session.unknown-id",
        "session.methods.advertised",
        "session.list",
        "session.close",
    ];
    let cases: [(&str, Vec<String>, &str, Vec<&str>); 4] = [
        (
            "1",
            ts("1"),
            "TypeScript v1",
            vec!["session.unknown-id", "session.list"],
        ),
        ("2", ts("2"), "TypeScript v2", v2_sessions.to_vec()),
        (
            "1",
            py("1"),
            "Python v1",
            vec!["rpc.parse-error.code", "session.unknown-id", "session.list"],
        ),
        (
            "2",
            py("2"),
            "Python v2",
            [
                &[
                    "init.version.newer",
                    "init.version.older",
                    "rpc.parse-error.code",
                ][..],
                &v2_sessions[..],
            ]
            .concat(),
        ),
    ];
    for (protocol, agent, name, failing) in cases {
        let report = conform_agent(&peers, protocol, &agent);
        let expected: BTreeSet<String> = failing.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(ids_with(&report, "failed"), expected, "{name}: {report}");
        // With --notices the notice requirements are exercised.
        assert!(
            ids_with(&report, "passed").contains("notice.well-formed"),
            "{name}: {report}"
        );
    }
}

#[test]
fn agents_without_credentials_are_judged_on_what_runs_without_them() {
    let Some(peers) =
        interop::peers("agents_without_credentials_are_judged_on_what_runs_without_them")
    else {
        return;
    };
    let zed_codex = peers
        .node_modules()
        .join("@zed-industries/codex-acp/bin/codex-acp.js")
        .to_string_lossy()
        .into_owned();
    let report = conform_agent(&peers, "1", &strings(&["node", &zed_codex]));
    assert!(
        ids_with(&report, "failed").contains("rpc.notification.unknown-ignored"),
        "{report}"
    );
    let bin = |name: &str| peers.npm_bin(name).to_string_lossy().into_owned();
    for agent in [
        vec![bin("codex-acp")],
        vec![bin("gemini"), "--experimental-acp".to_owned()],
        vec![bin("claude-agent-acp")],
    ] {
        let report = conform_agent(&peers, "1", &agent);
        // Initialization works without credentials everywhere.
        assert!(
            ids_with(&report, "passed").contains("init.version.same"),
            "{agent:?}: {report}"
        );
    }
    // An agent that asks for a sign-in leaves the sessions unexercised, never failed.
    let report = conform_agent(&peers, "1", &[bin("codex-acp")]);
    assert!(
        ids_with(&report, "not exercised").contains("session.new"),
        "{report}"
    );
}

#[test]
fn the_sdk_clients_pass_the_client_suite_in_both_versions() {
    let Some(peers) = interop::peers("the_sdk_clients_pass_the_client_suite_in_both_versions")
    else {
        return;
    };
    let python = peers.python().to_string_lossy().into_owned();
    for version in ["1", "2"] {
        for (program, client_script) in
            [("node", "ts_client.mjs"), (python.as_str(), "py_client.py")]
        {
            let home = tempfile::tempdir().unwrap();
            let json = home.path().join("report.json");
            let output = command(&peers, &home, program)
                .arg(script(client_script))
                .args([
                    "--protocol",
                    version,
                    "--prompt",
                    "Run the scenarios.",
                    "--",
                ])
                .args(conform_report::conform_client("15", &json))
                .output()
                .unwrap();
            let report = read_report(&json, &format!("{client_script} v{version}"), &output);
            assert_eq!(report["failed"], 0, "{client_script} v{version}: {report}");
            for id in [
                "client.init.first",
                "client.notice.survives",
                "client.permission.answer",
                "client.rpc.response-ids",
            ] {
                assert!(
                    ids_with(&report, "passed").contains(id),
                    "{client_script} v{version} {id}: {report}"
                );
            }
        }
    }
}

/// acpx (a headless CLI client, pinned in `scripts/interop/package.json`) launching
/// `acp conform client` through its raw `--agent` command, one-shot (`exec`). It speaks v1
/// only. Skipped when acpx is not among the installed peers (an older install); a failure when
/// it is installed and the run breaks.
#[test]
fn acpx_passes_the_client_suite() {
    let Some(peers) = interop::peers("acpx_passes_the_client_suite") else {
        return;
    };
    let acpx = peers.node_modules().join("acpx/dist/cli.js");
    if !acpx.exists() {
        eprintln!(
            "skipping acpx_passes_the_client_suite: acpx is not installed in {} (run scripts/interop-setup.sh)",
            peers.dir().display()
        );
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let json = home.path().join("report.json");
    let agent = conform_report::conform_client("15", &json)
        .iter()
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let output = command(&peers, &home, "node")
        .arg(&acpx)
        .arg("--agent")
        .arg(&agent)
        .args(["--approve-all", "--cwd"])
        .arg(home.path())
        .args(["exec", "Run the scenarios."])
        .output()
        .unwrap();
    let report = read_report(&json, "acpx", &output);
    assert_eq!(report["failed"], 0, "acpx: {report}");
    let passed = ids_with(&report, "passed");
    for id in [
        "client.init.first",
        "client.permission.answer",
        "client.rpc.response-ids",
        "client.fs.read.answer",
        "client.fs.write.answer",
        "client.terminal.answers",
        "client.terminal.released-id",
        "client.tool-content.survives",
    ] {
        assert!(passed.contains(id), "acpx {id}: {report}");
    }
    // acpx does not advertise `session.notices`: the agent-message fallback stands in.
    assert!(
        ids_with(&report, "not exercised").contains("client.notice.survives"),
        "{report}"
    );
}
