//! `acp conform client` under our own `acp client` (one-shot, both versions): every
//! requirement it exercises passes, the report is written when the client disconnects (text
//! and JSON), and a client that cancels the turn exercises the cancel requirement.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/conform_report.rs"]
mod conform_report;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::process::{Command, Output};

use conform_report::{ACP, outcome, read_report};
use serde_json::Value;

/// `acp client` with its state in `dir`.
fn client(dir: &tempfile::TempDir) -> Command {
    let mut command = Command::new(ACP);
    command.env("XDG_STATE_HOME", dir.path().join("state"));
    command.arg("client");
    command
}

/// Runs `acp client` with `client_flags` against `acp conform client`, whose reports go into
/// `dir`; returns the client's output and the JSON report.
fn run(dir: &tempfile::TempDir, client_flags: &[&str]) -> (Output, Value) {
    let text = dir.path().join("report.txt");
    let json = dir.path().join("report.json");
    let output = client(dir)
        .args(client_flags)
        .arg("--")
        .args(conform_report::conform_client("10", &json))
        .arg("--report")
        .arg(&text)
        .output()
        .unwrap();
    let report = read_report(&json, "acp client", &output);
    let text = std::fs::read_to_string(&text).unwrap();
    assert!(text.contains("passed"), "{text}");
    (output, report)
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
        spawn::assert_succeeded(&output, &format!("v{version}: "));
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
    spawn::assert_succeeded(&output, "");
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

/// `acp conform client --listen 127.0.0.1:0` started with its reports in `dir`; returns the
/// process and the URL it printed on standard error.
fn listening(dir: &tempfile::TempDir) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = Command::new(ACP)
        .args([
            "conform",
            "client",
            "--timeout",
            "10",
            "--listen",
            "127.0.0.1:0",
        ])
        .arg("--report")
        .arg(dir.path().join("report.txt"))
        .arg("--json")
        .arg(dir.path().join("report.json"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    while let Some(Ok(line)) = lines.next() {
        if let Some(at) = line.find("ws://") {
            // The rest of its standard error is read, so that its last words find a reader.
            std::thread::spawn(move || lines.for_each(drop));
            return (child, line[at..].trim().to_owned());
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("no URL printed by acp conform client --listen");
}

#[test]
fn over_the_network_the_first_client_is_judged_and_the_report_written_when_it_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = listening(&dir);
    let output = client(&dir)
        .args([
            "--url",
            &url,
            "--approve-all",
            "--prompt",
            "Run the scenarios.",
        ])
        .succeeds();
    // The server ends by itself once the client has gone.
    let status = spawn::exited_within(&mut server, std::time::Duration::from_secs(30));
    let status = status.expect("still serving");
    assert!(status.success(), "{status:?}");
    let report = read_report(&dir.path().join("report.json"), "acp client --url", &output);
    assert_eq!(report["failed"], 0, "{report}");
    for id in [
        "client.init.first",
        "client.notice.survives",
        "client.permission.answer",
        "client.tool-content.survives",
    ] {
        assert_eq!(outcome(&report, id), "passed", "{id}: {report}");
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("acp conform: a repeated notice"),
        "{stdout}"
    );
}

#[test]
fn a_busy_or_bad_listen_address_is_a_clear_error() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = busy.local_addr().unwrap().to_string();
    let output = Command::new(ACP)
        .args(["conform", "client", "--listen", &address])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {address}")),
        "{stderr}"
    );
    let output = Command::new(ACP)
        .args(["conform", "client", "--listen", "no-such-address"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not PORT, IP:PORT"), "{stderr}");
}
