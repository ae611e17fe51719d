//! `acp client --prompt` against agents that misbehave or need something: the exit code, one
//! clear message, and no process left running.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

use std::process::Command;
use std::time::Duration;

use scripted::{ACP, Run, finish, text};

const LIMIT: Duration = Duration::from_secs(30);

/// One run: mode, flags, expected exit code, texts expected on stderr.
struct Case {
    mode: &'static str,
    flags: &'static [&'static str],
    code: i32,
    stderr: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        mode: "ok",
        flags: &["--prompt", "hi"],
        code: 0,
        stderr: &[],
    },
    Case {
        mode: "garbage",
        flags: &["--prompt", "hi"],
        code: 5,
        stderr: &[
            "exited before it answered `initialize`",
            "skipped a line that is not JSON: this is not JSON",
        ],
    },
    Case {
        mode: "huge",
        flags: &["--prompt", "hi"],
        code: 5,
        stderr: &[
            "exited before it answered `initialize`",
            "message of 17000000 bytes exceeds the limit",
        ],
    },
    Case {
        mode: "exit-mid-turn",
        flags: &["--prompt", "hi"],
        code: 5,
        stderr: &["the turn failed: the agent exited or closed the connection"],
    },
    Case {
        mode: "silent",
        flags: &["--prompt", "hi", "--timeout", "0.5"],
        code: 4,
        stderr: &["did not end within 0.5 s (--timeout); cancelled it"],
    },
    Case {
        mode: "auth",
        flags: &["--prompt", "hi"],
        code: 3,
        stderr: &[
            "the agent could not create a session: Authentication required (code -32000)",
            "browser  Sign in with a browser - Opens a browser",
            "api-key  Use API_KEY [set API_KEY for the agent]",
            "pick one with --auth METHOD_ID",
        ],
    },
    Case {
        mode: "auth",
        flags: &["--prompt", "hi", "--auth", "nope"],
        code: 2,
        stderr: &["--auth nope: the agent offers no such method", "browser"],
    },
    Case {
        mode: "auth",
        flags: &["--prompt", "hi", "--auth", "browser"],
        code: 0,
        stderr: &[],
    },
    Case {
        mode: "ok",
        flags: &["--prompt", "hi", "--mode", "fly"],
        code: 2,
        stderr: &["--mode fly: the agent offers no modes for this session"],
    },
    Case {
        mode: "ok",
        flags: &["--prompt", "hi", "--set", "model=large"],
        code: 2,
        stderr: &["--set model: the agent offers no config option `model`"],
    },
    Case {
        mode: "ok",
        flags: &["--list-sessions"],
        code: 2,
        stderr: &["the agent cannot list sessions"],
    },
    Case {
        mode: "ok",
        flags: &["--prompt", "hi", "--load", "old"],
        code: 2,
        stderr: &["--load: the agent cannot load sessions"],
    },
];

#[test]
fn exit_codes_and_messages() {
    for case in CASES {
        let run = Run::new("exit");
        let output = run.run(case.mode, case.flags, LIMIT);
        let err = text(&output.stderr);
        let out = text(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(case.code),
            "{} {:?}\nstdout:\n{out}\nstderr:\n{err}",
            case.mode,
            case.flags
        );
        for needle in case.stderr {
            assert!(
                err.contains(needle),
                "{} {:?}: {needle:?} missing in:\n{err}",
                case.mode,
                case.flags
            );
        }
        // One message, no doubled prefixes (besides the lines naming the session).
        assert!(!err.contains("acp: acp:"), "{err}");
        let messages = scripted::client_messages(&err);
        assert!(messages <= 1, "{} {:?}:\n{err}", case.mode, case.flags);
        assert!(
            !run.agent_pids().is_empty() || case.mode == "none",
            "{}: no agent ran",
            case.mode
        );
        assert!(
            run.nothing_left(),
            "{}: a process of the agent is still there",
            case.mode
        );
    }
}

#[test]
fn signing_in_happens_before_the_session_is_created() {
    let run = Run::new("auth-order");
    let output = run.run("auth", &["--prompt", "hi", "--auth", "browser"], LIMIT);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let log = run.log();
    let auth = log.find(r#""method":"authenticate","params":{"methodId":"browser"}"#);
    let new = log.find(r#""method":"session/new""#);
    assert!(auth.is_some() && new.is_some() && auth < new, "{log}");
}

#[test]
fn ctrl_c_cancels_the_turn_and_exits_130() {
    let run = Run::new("interrupt");
    let child = run
        .client("cancel", &["--prompt", "wait for me"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the turn runs.
    let start = std::time::Instant::now();
    while !run.log().contains("session/prompt") {
        assert!(start.elapsed() < LIMIT, "the prompt never arrived");
        std::thread::sleep(Duration::from_millis(20));
    }
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let output = finish(child, LIMIT);
    assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
    assert!(
        run.log().contains(r#""method":"session/cancel""#),
        "{}",
        run.log()
    );
    assert!(
        text(&output.stdout).contains("-- turn ended: cancelled --"),
        "{}",
        text(&output.stdout)
    );
    assert!(text(&output.stderr).contains("interrupted (SIGINT); cancelled the turn"));
}

#[test]
fn json_output_reports_the_failure_as_an_event() {
    let run = Run::new("json-error");
    let output = run.run("auth", &["--prompt", "hi", "--format", "json"], LIMIT);
    assert_eq!(output.status.code(), Some(3));
    let last = text(&output.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    let event: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(event["type"], "error");
    assert_eq!(event["exitCode"], 3);
}

#[test]
fn bad_flags_are_usage_errors() {
    for flags in [
        &["client", "--prompt", "hi"][..],
        &["client", "--set", "novalue", "--", "true"],
        &["client", "--timeout", "soon", "--", "true"],
        &["client", "--allow-remote-terminal", "--", "true"],
        &["client", "--deny-all", "--approve-all", "--", "true"],
    ] {
        let output = Command::new(ACP).args(flags).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{flags:?}: {}",
            text(&output.stderr)
        );
    }
}
