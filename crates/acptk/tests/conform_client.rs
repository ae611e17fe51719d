//! `acp conform client` under our own `acp client` (one-shot, both versions): every
//! requirement it exercises passes, the report is written when the client disconnects (text
//! and JSON), and a client that cancels the turn exercises the cancel requirement.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

use serde_json::Value;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// Runs `acp client` with `client_flags` against `acp conform client`, whose reports go into
/// `dir`; returns the client's output and the JSON report.
fn run(dir: &tempfile::TempDir, client_flags: &[&str]) -> (Output, Value) {
    let text = dir.path().join("report.txt");
    let json = dir.path().join("report.json");
    let output = Command::new(ACP)
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .arg("client")
        .args(client_flags)
        .arg("--")
        .arg(ACP)
        .args(["conform", "client", "--timeout", "10", "--report"])
        .arg(&text)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let report = std::fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); client stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let text = std::fs::read_to_string(&text).unwrap();
    assert!(text.contains("passed"), "{text}");
    (output, serde_json::from_str(&report).unwrap())
}

fn outcome<'a>(report: &'a Value, id: &str) -> &'a str {
    report["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {report}"))["outcome"]
        .as_str()
        .unwrap()
}

#[test]
fn our_client_passes_every_requirement_it_exercises_in_both_versions() {
    for version in ["1", "2"] {
        let dir = tempfile::tempdir().unwrap();
        let (output, report) = run(
            &dir,
            &[
                "--protocol",
                version,
                "--approve-all",
                "--prompt",
                "Run the scenarios.",
            ],
        );
        assert!(
            output.status.success(),
            "v{version}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(report["ok"], true, "v{version}: {report}");
        assert_eq!(report["failed"], 0, "v{version}: {report}");
        assert_eq!(report["subject"], "client");
        for id in [
            "client.init.first",
            "client.notice.survives",
            "client.permission.answer",
            "client.rpc.parse-error.survives",
            "client.rpc.response-ids",
        ] {
            assert_eq!(outcome(&report, id), "passed", "v{version} {id}: {report}");
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("acp conform: a repeated notice"),
            "v{version}: the notices reach the user:\n{stdout}"
        );
        assert!(
            !report["to_look_at"].as_array().unwrap().is_empty(),
            "{report}"
        );
        // The conformance agent advertises `loadSession` (v1; v2 agents always resume), so
        // `--load` is offered on leaving.
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--load conform-session-1"), "{stderr}");
        if version == "1" {
            for id in [
                "client.fs.read.answer",
                "client.fs.write.answer",
                "client.terminal.answers",
                "client.terminal.released-id",
                "client.tool-content.survives",
            ] {
                assert_eq!(outcome(&report, id), "passed", "v1 {id}: {report}");
            }
            assert_eq!(
                outcome(&report, "client.load.replay.survives"),
                "not exercised",
                "{report}"
            );
        }
    }
}

#[test]
fn a_refused_permission_still_passes_and_is_answered_with_an_offered_option() {
    let dir = tempfile::tempdir().unwrap();
    let (output, report) = run(&dir, &["--deny-all", "--prompt", "Run the scenarios."]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        outcome(&report, "client.permission.answer"),
        "passed",
        "{report}"
    );
}

#[test]
fn reopening_the_session_with_load_replays_history_with_a_notice_and_is_judged() {
    let dir = tempfile::tempdir().unwrap();
    let flags = [
        "--protocol",
        "1",
        "--approve-all",
        "--prompt",
        "Run the scenarios.",
    ];
    let (output, _) = run(&dir, &flags);
    assert!(output.status.success());
    let mut again = vec!["--load", "conform-session-1"];
    again.extend(flags);
    let (output, report) = run(&dir, &again);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        outcome(&report, "client.load.replay.survives"),
        "passed",
        "{report}\n{stderr}"
    );
    let look = report["to_look_at"].to_string();
    assert!(look.contains("not as part of the history"), "{look}");
    // The replayed history is shown, and the notice that came during it is not part of it.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let history = stdout
        .split_once("history of the session")
        .and_then(|(_, rest)| rest.split_once("end of history"))
        .map(|(history, _)| history)
        .unwrap_or_else(|| panic!("no replayed history:\n{stdout}"));
    assert!(history.contains("a replayed answer"), "{stdout}");
    assert!(
        !history.contains("a notice during the replay"),
        "the notice shows as history:\n{stdout}"
    );
}
