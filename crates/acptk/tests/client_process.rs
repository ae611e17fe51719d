//! `acp client --prompt` driving `acp agent` as a child process, for v1 with and without
//! notices and v2, asserting on what is printed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::process::{Command, Output};

const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// Runs `acp client` with `flags` and `--prompt prompt` against `acp agent` (no delays).
fn client(flags: &[&str], prompt: &str) -> Output {
    Command::new(ACP)
        .arg("client")
        .args(flags)
        .args(["--prompt", prompt, "--", ACP, "agent", "--ephemeral"])
        .env("ACP_AGENT_DELAY_MS", "0")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// One process run and what its output must and must not contain.
struct Case {
    name: &'static str,
    flags: &'static [&'static str],
    prompt: &'static str,
    present: &'static [&'static str],
    absent: &'static [&'static str],
}

const DISK: &str = "/notice warning Disk almost full -- 95% used";

const CASES: &[Case] = &[
    Case {
        name: "v1 with notices: a notice line from the notice center",
        flags: &["--protocol", "1"],
        prompt: DISK,
        present: &[
            "You: /notice warning Disk almost full -- 95% used\n",
            "[notice] Warning: Disk almost full - 95% used\n",
            "-- turn ended: end_turn --\n",
        ],
        absent: &["Agent: Warning: Disk almost full"],
    },
    Case {
        name: "v1 without notices: the agent's fallback message in the conversation",
        flags: &["--protocol", "1", "--no-notices"],
        prompt: DISK,
        present: &[
            "Agent: Warning: Disk almost full - 95% used\n",
            "-- turn ended: end_turn --\n",
        ],
        absent: &["[notice]"],
    },
    Case {
        name: "v2: a notice line, no capability needed",
        flags: &["--protocol", "2"],
        prompt: DISK,
        present: &[
            "[notice] Warning: Disk almost full - 95% used\n",
            "-- turn ended: end_turn --\n",
        ],
        absent: &["Agent: Warning"],
    },
    Case {
        name: "v2 without a notice center: the notice is not shown at all",
        flags: &["--protocol", "2", "--no-notices"],
        prompt: DISK,
        present: &["-- turn ended: end_turn --\n"],
        absent: &["[notice]", "Disk almost full - 95% used"],
    },
    Case {
        name: "an extension severity is shown with the neutral word",
        flags: &["--protocol", "2"],
        prompt: "/notice _acme_quota Quota low",
        present: &["[notice] Notice: Quota low\n"],
        absent: &["_acme_quota:"],
    },
    Case {
        name: "v1: an ordinary prompt streams a reply and a tool call",
        flags: &["--allow"],
        prompt: "hello there",
        present: &[
            "You: hello there\n",
            "Agent: Hello! I am the example agent",
            "[tool] Count the words of the prompt (completed)\n",
            "-- turn ended: end_turn --\n",
        ],
        absent: &["[notice]"],
    },
    Case {
        name: "v2: an ordinary prompt streams a reply and a tool call",
        flags: &["--protocol", "2", "--allow"],
        prompt: "hello there",
        present: &[
            "Agent: Hello! I am the example agent",
            "[tool] Count the words of the prompt (completed)\n",
            "-- turn ended: end_turn --\n",
        ],
        absent: &["[notice]"],
    },
];

#[test]
fn prompt_mode_prints_the_turn() {
    for case in CASES {
        let output = client(case.flags, case.prompt);
        let out = stdout(&output);
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{}: exit {:?}\nstdout:\n{out}\nstderr:\n{err}",
            case.name,
            output.status
        );
        for needle in case.present {
            assert!(
                out.contains(needle),
                "{}: {needle:?} missing in:\n{out}",
                case.name
            );
        }
        for needle in case.absent {
            assert!(
                !out.contains(needle),
                "{}: {needle:?} present in:\n{out}",
                case.name
            );
        }
    }
}

#[test]
fn a_notice_is_printed_once() {
    let out = stdout(&client(&[], DISK));
    assert_eq!(
        out.matches("Disk almost full - 95% used").count(),
        1,
        "{out}"
    );
}

#[test]
fn an_agent_that_cannot_start_fails_with_a_message() {
    let output = Command::new(ACP)
        .args([
            "client",
            "--prompt",
            "hi",
            "--",
            "/nonexistent/acp-test-agent",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("acp: cannot start `/nonexistent/acp-test-agent`"),
        "{err}"
    );
}

#[test]
fn an_agent_that_exits_at_once_fails_with_a_message() {
    let output = Command::new(ACP)
        .args(["client", "--prompt", "hi", "--", "true"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("acp: "), "{err}");
}

#[test]
fn the_agent_command_is_required() {
    let output = Command::new(ACP)
        .args(["client", "--prompt", "hi"])
        .output()
        .unwrap();
    assert!(!output.status.success());
}
