//! `acp client --prompt` as scripts use it: signals during a streaming turn (SIGTERM,
//! SIGHUP, SIGINT: the turn cancelled, exit 143/129/130, nothing left) against `acp agent`
//! and against agents written with the official TypeScript and Python SDKs; a closed pipe
//! (exit 141, no panic, nothing left); flowing text with the permission where it was decided
//! and the tool call's result; `--format quiet`; `--prompt -`, `--prompt-file` and a piped
//! prompt; permission policies by tool kind and title; sign-in needed by the prompt; the
//! session id and how to continue it; an agent that writes lines that are not JSON; the
//! agent's standard error in a log file per run.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/acp_agent.rs"]
mod acp_agent;
#[path = "support/interop.rs"]
mod interop;
#[path = "support/scripted.rs"]
mod scripted;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use acp_agent::Scratch;
use scripted::{ACP, Run, alive, finish, text};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);

/// Reads JSON lines from `child`'s standard output until one satisfies `found`.
fn read_until(
    child: &mut Child,
    found: impl Fn(&Value) -> bool,
) -> BufReader<std::process::ChildStdout> {
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let start = Instant::now();
    loop {
        assert!(start.elapsed() < LIMIT, "the awaited event never came");
        let mut line = String::new();
        assert!(
            lines.read_line(&mut line).unwrap() > 0,
            "the output ended early"
        );
        if serde_json::from_str::<Value>(&line).is_ok_and(|event| found(&event)) {
            return lines;
        }
    }
}

fn streaming(event: &Value) -> bool {
    event["type"] == "message" && event["role"] == "agent"
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Sends SIG`name` to `child` mid-turn, reads the rest of its output (`rest`), waits for it
/// and checks that it exited with `code` (failures say `label`); returns the rest of the output.
fn interrupt(
    child: Child,
    mut rest: BufReader<std::process::ChildStdout>,
    name: &str,
    code: i32,
    label: &str,
) -> String {
    signal(&child, name);
    let mut tail = String::new();
    rest.read_to_string(&mut tail).unwrap();
    let ran = finish(child, LIMIT);
    assert_eq!(
        ran.status.code(),
        Some(code),
        "{label}: {}",
        text(&ran.stderr)
    );
    tail
}

#[test]
fn signals_cancel_the_turn_and_leave_nothing() {
    for (name, code) in [("TERM", 143), ("HUP", 129), ("INT", 130)] {
        let scratch = Scratch::new("signal");
        let mut child = scratch.spawn_in(
            &scratch.work,
            &["--prompt", "hello there", "--format", "json"],
            &["--delay-ms", "300"],
        );
        let rest = read_until(&mut child, streaming);
        let tail = interrupt(child, rest, name, code, &format!("SIG{name}"));
        assert!(
            tail.contains(r#"{"type":"stop","stopReason":"cancelled"}"#),
            "SIG{name}: the turn was not cancelled: {tail}"
        );
        scratch.assert_nothing_left();
    }
}

#[test]
fn signals_with_sdk_agents_cancel_and_leave_nothing() {
    let Some(peers) = interop::peers("signals_with_sdk_agents") else {
        return;
    };
    let scripts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
    let agents = [
        ("TypeScript", peers.node(), scripts.join("ts_agent.mjs")),
        ("Python", peers.python(), scripts.join("py_agent.py")),
    ];
    for (sdk, program, script) in agents {
        for (name, code) in [("TERM", 143), ("HUP", 129)] {
            let run = Run::new("sdk-signal");
            let mut child = Command::new(ACP)
                .args([
                    "client", "--prompt", "hello", "--format", "json", "--grace", "1", "--cwd",
                ])
                .arg(&run.dir)
                .arg("--")
                .arg(&program)
                .arg(&script)
                .arg("--slow")
                .env(
                    "ACP_SDK_DIR",
                    peers.node_modules().join("@agentclientprotocol/sdk"),
                )
                .env("ACP_TEST_LOG", run.dir.join("agent.log"))
                .spawn_reading(Stdio::piped())
                .unwrap();
            let rest = read_until(&mut child, |event| streaming(event) && event["text"] == ".");
            let pid: u32 = run
                .log()
                .lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .find(|record| record["event"] == "streaming")
                .and_then(|record| record["pid"].as_u64())
                .unwrap()
                .try_into()
                .unwrap();
            let tail = interrupt(child, rest, name, code, &format!("{sdk} SIG{name}"));
            assert!(
                run.log().contains(r#""event": "cancelled""#)
                    || run.log().contains(r#""event":"cancelled""#),
                "{sdk} SIG{name}: the agent saw no cancel: {}",
                run.log()
            );
            assert!(
                tail.contains(r#""stopReason":"cancelled""#),
                "{sdk}: {tail}"
            );
            assert!(
                !alive(pid),
                "{sdk} SIG{name}: the agent {pid} is still running"
            );
        }
    }
}

#[test]
fn a_closed_output_ends_the_run_quietly() {
    // Standard output closed after the first line (`| head -1`).
    let scratch = Scratch::new("pipe");
    let mut child = scratch.spawn_in(
        &scratch.work,
        &["--prompt", "hello there", "--format", "json"],
        &["--delay-ms", "50"],
    );
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    drop(stdout);
    let ran = finish(child, LIMIT);
    let err = text(&ran.stderr);
    assert_eq!(ran.status.code(), Some(141), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
    scratch.assert_nothing_left();

    // Both closed at once (`2>&1 | head -1`): no panic either.
    let scratch = Scratch::new("pipe-both");
    let mut child = scratch.spawn_in(
        &scratch.work,
        &["--prompt", "hello there"],
        &["--delay-ms", "50"],
    );
    drop(child.stderr.take());
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    drop(stdout);
    let ran = finish(child, LIMIT);
    assert_eq!(ran.status.code(), Some(141));
    scratch.assert_nothing_left();
}

#[test]
fn text_flows_in_the_order_it_happened() {
    let scratch = Scratch::new("flow");
    let ran = scratch.client(
        &["--prompt", "hello there", "--approve-all"],
        &["--delay-ms", "2"],
    );
    ran.expect(0);
    let out = ran.stdout.clone();
    // One label per message, however many chunks it came in.
    assert_eq!(out.matches("Agent: ").count(), 2, "{out}");
    let permission = out.find("[permission] Count the words").unwrap();
    // (The call's states between may come as one update: only `completed` is certain.)
    let running = out
        .find("Count the words of the prompt (completed)")
        .unwrap();
    assert!(
        permission < running,
        "the permission was printed late:\n{out}"
    );
    // The tool call's result, under it.
    assert!(
        out.contains(
            "[tool] Count the words of the prompt (completed)\n  2 words, 11 characters\n"
        ),
        "{out}"
    );
    // The session, when it starts and with how to continue it.
    let err = ran.stderr.clone();
    assert!(err.starts_with("acp: session sess_"), "{err}");
    // (With the `--cwd` of this run, so that the session is continued in its directory.)
    assert!(
        err.contains(&format!(
            "acp: continue this session with: acp client --cwd {} --load sess_",
            scratch.work.display()
        )),
        "{err}"
    );
    assert!(err.contains(" -- "), "{err}");
}

#[test]
fn quiet_prints_the_final_message_only() {
    let scratch = Scratch::new("quiet");
    let ran = scratch.client(
        &[
            "--prompt",
            "hello there",
            "--approve-all",
            "--format",
            "quiet",
        ],
        &[],
    );
    ran.expect(0);
    assert_eq!(ran.stdout, "Done: 2 words, 11 characters.\n");
    assert_eq!(ran.stderr, "");
}

/// `acp client FLAGS -- scripted ok` with `input` on standard input.
fn with_input(run: &Run, flags: &[&str], input: &str) -> std::process::Output {
    let mut child = run.client("ok", flags);
    finish(
        child
            .spawn_with_input(Stdio::piped(), input.as_bytes())
            .unwrap(),
        LIMIT,
    )
}

fn prompt_sent(run: &Run) -> Value {
    let line = run
        .log()
        .lines()
        .find(|line| line.contains(r#""method":"session/prompt""#))
        .unwrap()
        .to_owned();
    serde_json::from_str::<Value>(&line).unwrap()["params"]["prompt"][0]["text"].clone()
}

#[test]
fn prompts_come_from_stdin_and_files() {
    let run = Run::new("prompt-stdin");
    let output = with_input(&run, &["--prompt", "-"], "from standard input\n");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(prompt_sent(&run), "from standard input");

    let run = Run::new("prompt-file");
    let file = run.dir.join("prompt.txt");
    std::fs::write(&file, "two\nlines\n").unwrap();
    let output = with_input(&run, &["--prompt-file", file.to_str().unwrap()], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(prompt_sent(&run), "two\nlines");

    // Piped without --prompt: read as the prompt.
    let run = Run::new("prompt-piped");
    let output = with_input(&run, &[], "hi\n");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(prompt_sent(&run), "hi");

    // No terminal and no prompt: a usage error naming --prompt, and no agent started.
    let run = Run::new("prompt-none");
    let output = with_input(&run, &[], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--prompt"),
        "{}",
        text(&output.stderr)
    );
    assert!(run.agent_pids().is_empty());
}

#[test]
fn policies_decide_by_kind_and_title() {
    let policy_run = Run::new("policy");
    let file = policy_run.dir.join("policy.json");
    std::fs::write(
        &file,
        r#"{"rules": [{"title": "Edit *", "decision": "allow"}, {"kind": "read", "decision": "deny"}]}"#,
    )
    .unwrap();
    let cases: [(&[&str], &str, &str); 4] = [
        (&[], "yes", "no"),
        (&["--deny-all"], "no", "no"),
        (&["--approve-all"], "yes", "yes"),
        (&["--policy", file.to_str().unwrap()], "no", "yes"),
    ];
    for (flags, read, edit) in cases {
        let run = Run::new("perm");
        let mut all = vec!["--prompt", "go", "--format", "json"];
        all.extend(flags);
        let output = run.run("perm", &all, LIMIT);
        assert!(
            output.status.success(),
            "{flags:?}: {}",
            text(&output.stderr)
        );
        let answers: Vec<Value> = run
            .log()
            .lines()
            .filter_map(|line| line.strip_prefix("ANSWER "))
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let chosen = |id: u64| {
            answers.iter().find(|a| a["id"] == id).unwrap()["result"]["outcome"]["optionId"].clone()
        };
        assert_eq!(chosen(400), read, "{flags:?}: read");
        assert_eq!(chosen(401), edit, "{flags:?}: edit");
        let events: Vec<Value> = text(&output.stdout)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let kinds: Vec<&Value> = events
            .iter()
            .filter(|event| event["type"] == "permission")
            .map(|event| &event["toolKind"])
            .collect();
        assert_eq!(
            kinds,
            [&Value::from("read"), &Value::from("edit")],
            "{flags:?}"
        );
    }
}

#[test]
fn a_prompt_that_needs_a_sign_in_lists_the_methods() {
    let run = Run::new("auth-prompt");
    let output = run.run("auth-prompt", &["--prompt", "go"], LIMIT);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    let err = text(&output.stderr);
    for needle in [
        "Authentication required (code -32000): Log in first",
        "\n  browser  Sign in with a browser - Opens a browser",
        "\n  api-key  Use API_KEY [set API_KEY for the agent]",
        "pick one with --auth METHOD_ID",
    ] {
        assert!(err.contains(needle), "{needle:?} missing:\n{err}");
    }

    let run = Run::new("auth-prompt-json");
    let output = run.run(
        "auth-prompt",
        &["--prompt", "go", "--format", "json"],
        LIMIT,
    );
    assert_eq!(output.status.code(), Some(3));
    let last: Value = serde_json::from_str(text(&output.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["code"], -32000);
    assert_eq!(last["data"], serde_json::json!({"message": "Log in first"}));
    assert_eq!(last["authMethods"][1]["id"], "api-key");
    assert_eq!(
        last["authMethods"][1]["vars"],
        serde_json::json!(["API_KEY"])
    );

    // An `env_var` method whose variable is not set is named before anything is tried.
    let run = Run::new("auth-env");
    let output = run
        .client(
            "auth-prompt",
            &["--prompt", "go", "--auth", "api-key", "--format", "json"],
        )
        .env_remove("API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(
        text(&output.stderr).contains("--auth api-key: set API_KEY for the agent"),
        "{}",
        text(&output.stderr)
    );
    assert!(!run.log().contains(r#""method":"authenticate""#));
    let last: Value = serde_json::from_str(text(&output.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(last["missingVars"], serde_json::json!(["API_KEY"]));
}

#[test]
fn lines_that_are_not_json_are_skipped_and_never_answered() {
    let run = Run::new("junk");
    let output = run.run("junk", &["--prompt", "go", "--verbose"], LIMIT);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("Agent: Done."));
    // The agent's log holds every line the client sent: no error answer among them.
    let log = run.log();
    assert!(!log.contains("-32700"), "a junk line was answered:\n{log}");
    assert!(!log.contains(r#""id":null"#), "{log}");
    let err = text(&output.stderr);
    assert!(
        err.contains("Enter the authorization code:"),
        "--verbose shows the agent's junk lines: {err}"
    );
}

#[test]
fn the_agents_standard_error_goes_to_a_log_file_named_when_the_run_fails() {
    let run = Run::new("stderr-log");
    let output = run
        .client("exit-mid-turn", &["--prompt", "go"])
        .env("ACP_TEST_STDERR", "boom from the agent")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5), "{}", text(&output.stderr));
    let err = text(&output.stderr);
    let logs = run.dir.join("acp/client/logs");
    assert!(
        err.contains(&format!(
            "the agent's standard error is in {}/agent-",
            logs.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("its last lines:\n  boom from the agent"),
        "{err}"
    );
    // Not on our standard error by itself.
    assert!(!err.contains("agent: boom"), "{err}");
    let files: Vec<_> = std::fs::read_dir(&logs).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    assert_eq!(
        std::fs::read_to_string(files[0].path()).unwrap(),
        "boom from the agent\n"
    );

    // --verbose streams it, prefixed.
    let output = run
        .client("ok", &["--prompt", "go", "--verbose"])
        .env("ACP_TEST_STDERR", "hello on stderr")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        text(&output.stderr).contains("agent: hello on stderr\n"),
        "{}",
        text(&output.stderr)
    );

    // Only the last runs are kept.
    for _ in 0..25 {
        let output = run.client("ok", &["--prompt", "go"]).output().unwrap();
        assert!(output.status.success());
    }
    let kept = std::fs::read_dir(&logs).unwrap().count();
    assert_eq!(kept, 20, "the logs of the last 20 runs are kept");
}
