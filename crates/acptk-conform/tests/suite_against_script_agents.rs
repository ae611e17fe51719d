//! The suite against a small Python agent (`tests/agents/script_agent.py`) that keeps every
//! requirement unless told to break one: each requirement catches its broken agent, and the
//! unbroken agent passes every requirement it exercises, in both versions.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/python.rs"]
mod support;

use std::path::Path;
use std::time::Duration;

use acptk_conform::suite::{Options, Report, run_agent_suite};
use acptk_conform::{Outcome, requirement};
use acptk_runtime::transport::AgentCommand;

fn run(python: &str, broken: &str) -> Report {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/script_agent.py");
    let agent = AgentCommand::new(python)
        .arg(script)
        .arg(broken)
        .grace_period(Duration::from_millis(500));
    let options = Options::new()
        .timeout(Duration::from_millis(2000))
        .cwd(std::env::temp_dir());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run_agent_suite(&agent, &options)).unwrap()
}

fn outcomes(report: &Report, id: &str) -> Vec<(u16, Outcome)> {
    report
        .verdicts
        .iter()
        .filter(|v| v.requirement.id == id)
        .map(|v| (v.version, v.outcome.clone()))
        .collect()
}

#[test]
fn the_unbroken_script_agent_passes_every_requirement_in_both_versions() {
    let Some(python) = support::python() else {
        return;
    };
    let report = run(python, "none");
    for verdict in &report.verdicts {
        let (id, version) = (verdict.requirement.id, verdict.version);
        match (id, version) {
            // v1: the script agent advertises every session method, so none can be tried
            // unadvertised; v2: it does not advertise `session/delete`.
            ("session.methods.unadvertised", 1) => assert!(
                matches!(verdict.outcome, Outcome::NotExercised { .. }),
                "{:?}",
                verdict.outcome
            ),
            ("session.delete", 2) => assert!(
                matches!(verdict.outcome, Outcome::NotApplicable { .. }),
                "{:?}",
                verdict.outcome
            ),
            _ => assert_eq!(verdict.outcome, Outcome::Passed, "v{version} {id}"),
        }
    }
    assert_eq!(
        report.verdicts.len(),
        requirement::ALL
            .iter()
            .map(|r| r.versions.len())
            .sum::<usize>()
    );
    assert!(!report.failed());
    // Every frame is recorded, and acp check finds nothing in what the agent sent.
    assert!(
        report
            .runs
            .iter()
            .all(|r| !r.transcript.is_empty() && r.findings.is_empty())
    );
}

/// A requirement id and the versions in which it must fail.
type Fails = &'static [(&'static str, &'static [u16])];

/// Each broken agent and the requirements (and versions) it must fail.
const CASES: &[(&str, Fails)] = &[
    ("version-type", &[("init.version.same", &[1, 2])]),
    (
        "echo-version",
        &[
            ("init.version.newer", &[1, 2]),
            ("init.version.older", &[1, 2]),
        ],
    ),
    ("caps-types", &[("init.capabilities.types", &[1, 2])]),
    ("auth-methods", &[("init.auth-methods", &[1, 2])]),
    ("parse-crash", &[("rpc.parse-error.survives", &[1, 2])]),
    ("parse-silent", &[("rpc.parse-error.code", &[1, 2])]),
    ("method-not-found", &[("rpc.method-not-found", &[1, 2])]),
    ("invalid-params", &[("rpc.invalid-params", &[1, 2])]),
    ("id-string", &[("rpc.id.string", &[1, 2])]),
    ("id-number", &[("rpc.id.number", &[1, 2])]),
    (
        "answer-notifications",
        &[
            ("rpc.notification.unanswered", &[1, 2]),
            ("rpc.notification.unknown-ignored", &[1, 2]),
        ],
    ),
    ("session-new", &[("session.new", &[1, 2])]),
    ("prompt-stop", &[("session.prompt", &[1, 2])]),
    ("unknown-id", &[("session.unknown-id", &[1, 2])]),
    // In v1 the replay is made by the client without `session.notices`: the gate fails too.
    (
        "replay-notice",
        &[
            ("session.replay.no-notice", &[1, 2]),
            ("notice.v1.gate", &[1]),
        ],
    ),
    ("notice-gate", &[("notice.v1.gate", &[1])]),
    (
        "caps-lie",
        &[
            ("session.methods.advertised", &[1, 2]),
            ("session.list", &[1, 2]),
        ],
    ),
    (
        "unadvertised-answered",
        &[("session.methods.unadvertised", &[2])],
    ),
    ("list-missing", &[("session.list", &[1, 2])]),
    ("close-error", &[("session.close", &[1, 2])]),
    ("delete-error", &[("session.delete", &[1])]),
    ("stop-reason", &[("turn.stop-reason", &[1])]),
    ("cancel-ignored", &[("turn.cancel", &[1, 2])]),
    (
        "cancel-tools-open",
        &[("turn.cancel.tools-closed", &[1, 2])],
    ),
    ("tool-id-reuse", &[("turn.tool-call-ids.unique", &[1])]),
    ("tool-id-reload", &[("turn.tool-call-ids.reload", &[1, 2])]),
    (
        "cancel-streaming-ignored",
        &[("turn.cancel.streaming", &[1, 2])],
    ),
    ("fork-same-id", &[("session.fork", &[1, 2])]),
    ("reject-error", &[("turn.permission", &[1, 2])]),
    ("fs-request", &[("requests.advertised-only", &[1, 2])]),
    ("notice-malformed", &[("notice.well-formed", &[1, 2])]),
];

#[test]
fn every_requirement_has_a_broken_agent_in_the_table() {
    for requirement in requirement::ALL {
        assert!(
            CASES
                .iter()
                .any(|(_, fails)| fails.iter().any(|(id, _)| *id == requirement.id)),
            "no broken agent for {}",
            requirement.id
        );
    }
}

#[test]
fn each_broken_agent_is_caught_by_its_requirement() {
    let Some(python) = support::python() else {
        return;
    };
    for (broken, fails) in CASES {
        let report = run(python, broken);
        for (id, versions) in *fails {
            for version in *versions {
                let found = outcomes(&report, id);
                let outcome = found.iter().find(|(v, _)| v == version).map(|(_, o)| o);
                let Some(Outcome::Failed { evidence }) = outcome else {
                    panic!("{broken}: expected {id} to fail in v{version}, got {found:?}");
                };
                // The evidence names a line of a recorded run.
                for e in evidence {
                    let run = report
                        .runs
                        .iter()
                        .find(|r| r.name == e.run)
                        .expect("the run is recorded");
                    assert!(
                        e.line >= 1 && e.line as usize <= run.transcript.len(),
                        "{broken}: {e:?}"
                    );
                }
            }
        }
        let must = fails
            .iter()
            .any(|(id, _)| requirement::find(id).unwrap().level == acptk_conform::Level::Must);
        assert_eq!(
            report.failed(),
            must,
            "{broken}: a failed MUST fails the run, a SHOULD does not"
        );
    }
}

#[test]
fn an_agent_that_sends_no_notice_leaves_notice_requirements_not_exercised() {
    let Some(python) = support::python() else {
        return;
    };
    // In the notice-gate case the v1 client without the capability gets notices; with
    // `version-type` nothing at all can run: every other requirement is not exercised.
    let report = run(python, "version-type");
    for (version, outcome) in outcomes(&report, "notice.well-formed") {
        assert!(
            matches!(outcome, Outcome::NotExercised { .. }),
            "v{version}: {outcome:?}"
        );
    }
}

#[test]
fn an_agent_that_wants_a_sign_in_leaves_the_session_requirements_not_exercised() {
    let Some(python) = support::python() else {
        return;
    };
    // Agents without credentials answer `session/new` with -32000: no breach.
    let report = run(python, "needs-auth");
    for id in ["session.new", "session.prompt"] {
        for (version, outcome) in outcomes(&report, id) {
            let Outcome::NotExercised { why } = outcome else {
                panic!("v{version} {id}: expected not exercised, got {outcome:?}");
            };
            assert!(why.contains("-32000"), "{why}");
        }
    }
    assert!(!report.failed(), "{}", acptk_conform::report::text(&report));
}
