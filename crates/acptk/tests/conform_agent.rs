//! `acp conform agent`: our own agent passes every requirement it exercises in both versions; a
//! broken agent makes it exit 1; usage errors exit 2; the JSON report parses and the JUnit
//! report is read by a real JUnit consumer (the PyPI package `junitparser`, installed by
//! `scripts/interop-setup.sh`; without it that test skips, or fails with
//! `ACP_INTEROP_REQUIRED=1`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/interop.rs"]
mod interop;
#[path = "support/json.rs"]
mod json;
#[path = "support/listening.rs"]
mod listening;
#[path = "support/spawn.rs"]
mod spawn;

use json::json_strings;
use spawn::Spawn;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// The Python agent of acptk-conform's tests, broken as `broken` says (`none`: not at all).
/// The wait for each answer of the script agent. Generous: a Python agent started on a loaded
/// machine can take more than a second to answer `initialize`, and a slow answer would fail
/// requirements the test does not break (with 1 s, a CI run under load counted 3 failures where
/// the break makes 2). No requirement of these runs waits the whole timeout out.
const TIMEOUT: &str = "10";

fn script_agent(broken: &str) -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../acptk-conform/tests/agents/script_agent.py");
    vec![
        "python3".to_owned(),
        script.to_string_lossy().into_owned(),
        broken.to_owned(),
    ]
}

fn conform(flags: &[&str], agent: &[String]) -> Output {
    Command::new(ACP)
        .arg("conform")
        .arg("agent")
        .args(flags)
        .arg("--")
        .args(agent)
        .output()
        .unwrap()
}

fn our_agent(state: &tempfile::TempDir) -> Vec<String> {
    let mut agent = streaming_agent(state);
    agent.extend(["--delay-ms".to_owned(), "0".to_owned()]);
    agent
}

/// Our agent streaming its answers at the default pace (40 ms between chunks), which leaves
/// the suite time to cancel a turn while it streams.
fn streaming_agent(state: &tempfile::TempDir) -> Vec<String> {
    vec![
        ACP.to_owned(),
        "agent".to_owned(),
        "--state-dir".to_owned(),
        state.path().to_string_lossy().into_owned(),
    ]
}

fn json_report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON document ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn our_agent_passes_every_requirement_it_exercises_in_both_versions() {
    let state = tempfile::tempdir().unwrap();
    // `/notice` makes our agent send a notice (or its fallback message to a v1 client that did
    // not ask for notices), so the notice requirements are exercised too.
    let output = conform(
        &[
            "--format",
            "json",
            "--prompt",
            "/notice warning Disk almost full -- Free some space",
        ],
        &our_agent(&state),
    );
    let report = json_report(&output);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let requirements = report["requirements"].as_array().unwrap();
    // A `/notice` prompt opens no tool call and asks no permission: the turn requirements
    // are left to the test below; v2 has no session method to leave unadvertised.
    let unexercised = [
        "turn.permission",
        "turn.cancel",
        "turn.cancel.streaming",
        "turn.cancel.tools-closed",
        "turn.tool-call-ids.unique",
        "turn.tool-call-ids.reload",
        "session.methods.unadvertised",
    ];
    for r in requirements {
        assert!(
            r["outcome"] == "passed"
                || r["outcome"] == "not applicable"
                || (r["outcome"] == "not exercised"
                    && unexercised.contains(&r["id"].as_str().unwrap())),
            "{r:#}"
        );
    }
    for version in [1, 2] {
        for id in [
            "notice.well-formed",
            "session.replay.no-notice",
            "session.prompt",
        ] {
            assert!(
                requirements
                    .iter()
                    .any(|r| r["id"] == id && r["version"] == version && r["outcome"] == "passed"),
                "{id} v{version}: {report:#}"
            );
        }
    }
    assert_eq!(
        report["findings"].as_array().unwrap().len(),
        0,
        "{report:#}"
    );
    assert!(report["elapsed_ms"].as_u64().is_some());
}

#[test]
fn our_agent_passes_the_turn_requirements_with_the_default_prompt() {
    let state = tempfile::tempdir().unwrap();
    // The default prompt makes our agent open a tool call and ask permission for it: allowed
    // in the main run (twice, around a reload of its session), rejected, answered `cancelled`
    // and cancelled in the runs beside it; at its default pace it is still streaming when the
    // interrupting run cancels its turn.
    let output = conform(&["--format", "json"], &streaming_agent(&state));
    let report = json_report(&output);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let requirements = report["requirements"].as_array().unwrap();
    let passed = |id: &str, version: u64| {
        requirements
            .iter()
            .any(|r| r["id"] == id && r["version"] == version && r["outcome"] == "passed")
    };
    for version in [1, 2] {
        for id in [
            "turn.permission",
            "turn.cancel",
            "turn.cancel.streaming",
            "turn.cancel.tools-closed",
            "turn.tool-call-ids.reload",
            "requests.advertised-only",
            "session.methods.advertised",
            "session.list",
            "session.close",
            "session.delete",
        ] {
            assert!(passed(id, version), "{id} v{version}: {report:#}");
        }
    }
    // With a state directory our agent advertises every session method (v1 `loadSession`
    // too): `session.methods.unadvertised` is not exercised.
    for id in ["turn.stop-reason", "turn.tool-call-ids.unique"] {
        assert!(passed(id, 1), "{id} v1: {report:#}");
    }
    let runs: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(runs.contains(&"v2-cancel.jsonl"), "{runs:?}");
}

#[test]
fn the_text_report_prints_the_time_and_ends_with_zero() {
    let state = tempfile::tempdir().unwrap();
    let output = conform(&["--protocol", "1"], &our_agent(&state));
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.contains("0 failed") && last.ends_with(" s"), "{last}");
    assert!(!text.contains(" v2 "), "--protocol 1 tests v1 only: {text}");
}

#[test]
fn a_broken_agent_makes_conform_exit_1_with_evidence_in_the_recorded_transcript() {
    let record = tempfile::tempdir().unwrap();
    let output = conform(
        &[
            "--timeout",
            TIMEOUT,
            "--record",
            record.path().to_str().unwrap(),
        ],
        &script_agent("notice-gate"),
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{text}");
    let evidence = text
        .lines()
        .find(|l| l.trim_start().starts_with("v1-main.jsonl:"))
        .unwrap_or_else(|| panic!("no evidence line: {text}"));
    // FILE:LINE names the notice in the recorded transcript.
    let line: usize = evidence.trim_start()["v1-main.jsonl:".len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let transcript = std::fs::read_to_string(record.path().join("v1-main.jsonl")).unwrap();
    let entry = transcript.lines().nth(line - 1).unwrap();
    assert!(entry.contains("\"sessionUpdate\": \"notice\""), "{entry}");
    // acp check's own rule sees the same mistake in the recorded run.
    assert!(
        text.contains("v1-main.jsonl:") && text.contains("notice-without-capability"),
        "{text}"
    );
}

#[test]
fn a_failed_should_alone_does_not_fail_the_run() {
    let output = conform(&["--timeout", TIMEOUT], &script_agent("parse-silent"));
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.contains("failed         SHOULD v1 rpc.parse-error.code"),
        "{text}"
    );
}

#[test]
fn only_keeps_the_named_requirements_and_an_unknown_id_is_a_usage_error() {
    let output = conform(
        &[
            "--format",
            "json",
            "--only",
            "rpc.id.string",
            "--only",
            "session.new",
        ],
        &script_agent("none"),
    );
    let report = json_report(&output);
    let ids: Vec<&str> = json_strings(&report["requirements"], "id");
    assert_eq!(
        ids,
        [
            "rpc.id.string",
            "session.new",
            "rpc.id.string",
            "session.new"
        ]
    );

    let output = conform(&["--only", "no.such.requirement"], &script_agent("none"));
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no.such.requirement"));
    let output = Command::new(ACP)
        .args(["conform", "agent"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "no agent command");
}

#[test]
fn the_junit_report_is_read_by_xml_etree_and_by_junitparser() {
    let output = conform(
        &["--format", "junit", "--timeout", TIMEOUT],
        &script_agent("unknown-id"),
    );
    let xml = output.stdout;
    // Python's own XML parser: well-formed, and the counts agree with the cases.
    let checked = Command::new("python3")
        .args([
            "-c",
            "import sys, xml.etree.ElementTree as ET\n\
             root = ET.fromstring(sys.stdin.buffer.read())\n\
             assert root.tag == 'testsuites'\n\
             for suite in root:\n\
             \x20   cases = suite.findall('testcase')\n\
             \x20   assert int(suite.get('tests')) == len(cases)\n\
             \x20   assert int(suite.get('failures')) == sum(1 for c in cases if c.find('failure') is not None)\n\
             print(sum(1 for c in root.iter('failure')))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&xml)?;
            child.wait_with_output()
        })
        .unwrap();
    spawn::assert_succeeded(&checked, "");
    assert_eq!(
        String::from_utf8_lossy(&checked.stdout).trim(),
        "2",
        "one failure per version"
    );

    let Some(peers) = interop::peers("the_junit_report_is_read_by_junitparser") else {
        return;
    };
    // Peers installed before junitparser joined scripts/interop/requirements.txt lack it:
    // rerunning scripts/interop-setup.sh installs it.
    let has_it = Command::new(peers.python())
        .args(["-c", "import junitparser"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_it {
        let message = format!(
            "junitparser is not installed in {} (run ./scripts/interop-setup.sh)",
            peers.dir().display()
        );
        assert!(
            std::env::var("ACP_INTEROP_REQUIRED").as_deref() != Ok("1"),
            "{message}; ACP_INTEROP_REQUIRED=1 makes this a failure"
        );
        eprintln!("skipped: {message}");
        return;
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &xml).unwrap();
    let parsed = Command::new(peers.python())
        .args([
            "-c",
            "import sys\n\
             from junitparser import JUnitXml, Failure, Skipped\n\
             xml = JUnitXml.fromfile(sys.argv[1])\n\
             failed = [c.name for s in xml for c in s if any(isinstance(r, Failure) for r in c.result)]\n\
             print(' '.join(sorted(failed)))",
        ])
        .arg(file.path())
        .succeeds();
    assert_eq!(
        String::from_utf8_lossy(&parsed.stdout).trim(),
        "session.unknown-id [SHOULD] session.unknown-id [SHOULD]"
    );
}

#[test]
fn a_remote_agent_is_judged_over_its_url_and_a_refused_token_names_the_url() {
    // `acp agent --listen 0` with a token; ended when `agent` is dropped.
    let agent = listening::Listening::start(&["--ephemeral", "--token", "open-sesame"], &[]);
    let output = Command::new(ACP)
        .args(["conform", "agent", "--format", "json", "--url", &agent.url])
        .args(["--token", "open-sesame"])
        .output()
        .unwrap();
    let report = json_report(&output);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let requirements = report["requirements"].as_array().unwrap();
    for version in [1, 2] {
        for id in ["session.prompt", "turn.cancel", "rpc.parse-error.code"] {
            assert!(
                requirements
                    .iter()
                    .any(|r| r["id"] == id && r["version"] == version && r["outcome"] == "passed"),
                "{id} v{version}: {report:#}"
            );
        }
    }
    for token in [None, Some("wrong")] {
        let mut command = Command::new(ACP);
        command.args(["conform", "agent", "--url", &agent.url]);
        if let Some(token) = token {
            command.args(["--token", token]);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{token:?}: {stderr}");
        assert!(
            stderr.contains(&agent.url) && stderr.contains("401"),
            "{token:?}: {stderr}"
        );
    }
    // Nothing listens on a port that was just free: the URL is named too.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}/acp", free.local_addr().unwrap());
    drop(free);
    let output = Command::new(ACP)
        .args(["conform", "agent", "--url", &url])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
    // An agent command and --url together are a usage error.
    let output = Command::new(ACP)
        .args(["conform", "agent", "--url", &url, "--", ACP, "agent"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
