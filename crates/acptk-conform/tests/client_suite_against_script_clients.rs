//! The client suite against a small Python client (`tests/clients/script_client.py`) that
//! keeps every requirement unless told to break one: each requirement catches its broken
//! client, and the unbroken client passes every requirement it exercises, in both versions.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/python.rs"]
mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use acptk_conform::client_suite::{ClientOptions, run_client_suite};
use acptk_conform::requirement::CLIENT;
use acptk_conform::suite::Report;
use acptk_conform::{Outcome, report};

/// Runs the suite with the script client of `version`, broken in `broken`'s way.
fn run(python: &str, version: u16, broken: &str) -> Report {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/script_client.py");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut child = tokio::process::Command::new(python)
            .arg(script)
            .arg(version.to_string())
            .arg(broken)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let reader = child.stdout.take().unwrap();
        let writer = child.stdin.take().unwrap();
        let options = ClientOptions::new().timeout(Duration::from_millis(1000));
        let report = tokio::time::timeout(
            Duration::from_secs(60),
            run_client_suite(reader, writer, &options, std::future::pending()),
        )
        .await
        .expect("the suite ends when the client leaves");
        let _ = child.kill().await;
        report
    })
}

fn outcome<'a>(report: &'a Report, id: &str) -> &'a Outcome {
    &report
        .verdicts
        .iter()
        .find(|v| v.requirement.id == id)
        .unwrap_or_else(|| panic!("no verdict for {id}"))
        .outcome
}

/// Whether `id` was left not exercised in `report`.
fn not_exercised(report: &Report, id: &str) -> bool {
    matches!(outcome(report, id), Outcome::NotExercised { .. })
}

/// Each broken client: its version, how it breaks, and the requirement that must catch it.
const BROKEN: &[(u16, &str, &str)] = &[
    (1, "no-initialize-first", "client.init.first"),
    (1, "bad-capabilities", "client.init.capabilities.types"),
    (2, "bad-capabilities", "client.init.capabilities.types"),
    (1, "bad-prompt", "client.prompt.shape"),
    (1, "answers-probe-ok", "client.rpc.method-not-found"),
    (1, "stringify-ids", "client.rpc.response-ids"),
    (2, "acks-notices", "client.rpc.notification-unanswered"),
    (1, "dies-on-bad-line", "client.rpc.parse-error.survives"),
    (2, "dies-on-unknown-severity", "client.notice.survives"),
    (
        2,
        "dies-on-unknown-kind",
        "client.update.unknown-kind.survives",
    ),
    (2, "bad-permission", "client.permission.answer"),
    (1, "bad-read", "client.fs.read.answer"),
    (1, "bad-write", "client.fs.write.answer"),
    (1, "bad-terminal", "client.terminal.answers"),
    (1, "reuses-released", "client.terminal.released-id"),
    (1, "dies-on-diff", "client.tool-content.survives"),
    (1, "dies-on-replayed-notice", "client.load.replay.survives"),
    (1, "cancel-as-request", "client.cancel.notification"),
];

#[test]
fn every_client_requirement_has_a_broken_client_in_the_table() {
    for r in CLIENT {
        assert!(
            BROKEN.iter().any(|(_, _, id)| *id == r.id),
            "{} has no broken client",
            r.id
        );
    }
}

#[test]
fn each_broken_client_is_caught_by_its_requirement() {
    let Some(python) = support::python() else {
        return;
    };
    for &(version, broken, id) in BROKEN {
        let report = run(python, version, broken);
        assert!(
            matches!(outcome(&report, id), Outcome::Failed { .. }),
            "v{version} {broken}: {id} did not fail:\n{}",
            report::text(&report)
        );
        assert!(report.failed(), "v{version} {broken}: the run did not fail");
    }
}

#[test]
fn the_unbroken_client_passes_what_it_exercises_in_both_versions() {
    let Some(python) = support::python() else {
        return;
    };
    for version in [1, 2] {
        let report = run(python, version, "none");
        let text = report::text(&report);
        assert!(!report.failed(), "v{version}:\n{text}");
        for verdict in &report.verdicts {
            assert!(
                !matches!(verdict.outcome, Outcome::Failed { .. }),
                "v{version}: {}:\n{text}",
                verdict.requirement.id
            );
        }
        assert_eq!(outcome(&report, "client.notice.survives"), &Outcome::Passed);
        assert_eq!(
            outcome(&report, "client.permission.answer"),
            &Outcome::Passed
        );
        if version == 1 {
            for id in [
                "client.fs.read.answer",
                "client.fs.write.answer",
                "client.terminal.answers",
                "client.terminal.released-id",
                "client.tool-content.survives",
            ] {
                assert_eq!(outcome(&report, id), &Outcome::Passed, "{id}:\n{text}");
            }
            assert!(
                not_exercised(&report, "client.load.replay.survives"),
                "a client that never loads leaves the replay not exercised:\n{text}"
            );
            assert!(
                report
                    .to_look_at
                    .iter()
                    .any(|l| l.starts_with("not exercised: a notice during")),
                "{text}"
            );
        }
        assert!(
            not_exercised(&report, "client.cancel.notification"),
            "v{version}: a client that never cancels leaves the cancel requirement not exercised"
        );
        assert!(
            report.runs[0].findings.is_empty(),
            "acp check found something in what the client sent:\n{text}"
        );
        assert!(text.contains("For a person to check"), "{text}");
    }
}

#[test]
fn a_client_that_cancels_passes_the_cancel_requirement_and_the_turn_ends_cancelled() {
    let Some(python) = support::python() else {
        return;
    };
    let report = run(python, 1, "cancel");
    assert_eq!(
        outcome(&report, "client.cancel.notification"),
        &Outcome::Passed
    );
    let transcript = report.runs[0].transcript.join("\n");
    assert!(
        transcript.contains("\"stopReason\":\"cancelled\""),
        "{transcript}"
    );
    assert!(!report.failed(), "{}", report::text(&report));
}

#[test]
fn a_client_that_loads_a_session_passes_the_replay_requirement_and_is_told_to_check_the_notice() {
    let Some(python) = support::python() else {
        return;
    };
    let report = run(python, 1, "load");
    let text = report::text(&report);
    assert_eq!(
        outcome(&report, "client.load.replay.survives"),
        &Outcome::Passed,
        "{text}"
    );
    assert!(!report.failed(), "{text}");
    assert!(
        text.contains("shown as a notice of now, not as part of the history"),
        "{text}"
    );
    let transcript = report.runs[0].transcript.join("\n");
    let notice = transcript
        .find("a notice during the replay")
        .expect("the notice is sent");
    let answer = transcript
        .find("a replayed answer")
        .expect("history replayed");
    assert!(notice < answer, "the notice is interleaved in the replay");
}
