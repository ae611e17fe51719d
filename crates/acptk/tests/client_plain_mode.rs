//! `acp client --plain` end to end: prompts read line by line (and between `"""` lines),
//! every event one line, notices as their spoken sentence, questions answered by number.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::process::{Command, Stdio};
use std::time::Duration;

use scripted::{ACP, Run, finish, text};

/// Runs `acp client --plain` with `input` on its standard input; returns stdout, stderr and
/// whether it succeeded.
fn plain(mut command: Command, input: &str) -> (String, String, bool) {
    let child = command.spawn_with_input(Stdio::piped(), input.as_bytes());
    let output = finish(child.unwrap(), Duration::from_secs(20));
    (
        text(&output.stdout),
        text(&output.stderr),
        output.status.success(),
    )
}

#[test]
fn prompts_of_one_and_several_lines_and_one_line_per_event() {
    let run = Run::new("plain-mode");
    let mut command = run.client("rich", &["--plain"]);
    command.stdin(Stdio::null());
    // `1` answers the agent's question whether to run its command.
    let (out, err, ok) = plain(command, "hello\n1\n\"\"\"\nline a\nline b\n\"\"\"\n/quit\n");
    assert!(ok, "{out}\n{err}");
    for line in [
        "-- connected to scripted, session s1.",
        "You: hello",
        "Thinking: Planning: **read** the file, then edit it.",
        "Agent: # The plan",
        "[tool] Edit main.rs (completed)",
        "-- turn ended: end_turn --",
        "You: line a",
    ] {
        assert!(
            out.lines().any(|printed| printed.starts_with(line)),
            "{line:?} missing:\n{out}"
        );
    }
    // No escape sequence reaches the output: no boxes, no colours, no cursor moves.
    assert!(!out.contains('\u{1b}'), "{out:?}");
    // The second prompt was sent as one prompt of two lines.
    let log = run.log();
    assert!(log.contains(r#""text":"line a\nline b""#), "{log}");
    assert!(run.nothing_left());
}

#[test]
fn notices_are_announced_and_questions_answered_by_number() {
    let dir = Run::new("plain-notice");
    let mut command = Command::new(ACP);
    command
        .args(["client", "--plain", "--cwd"])
        .arg(&dir.dir)
        .args(["--", ACP, "agent", "--ephemeral", "--delay-ms", "0"])
        .env("XDG_STATE_HOME", dir.dir.join("state"));
    let (out, err, ok) = plain(
        command,
        "/notice warning Disk almost full -- 95% used\ncount these words\n1\n/notices\n/quit\n",
    );
    assert!(ok, "{out}\n{err}");
    // The notice center's sentence, once; then again in the list.
    assert!(
        out.contains("[notice] Warning: Disk almost full. 95% used"),
        "{out}"
    );
    assert!(
        out.contains("[notice] Warning: Disk almost full - 95% used"),
        "{out}"
    );
    // The permission question as numbered choices, answered with 1 (allow).
    assert!(
        out.contains("[question] Count the words of the prompt"),
        "{out}"
    );
    assert!(out.contains("  1. "), "{out}");
    assert!(out.contains("answer with a number from 1 to"), "{out}");
    assert!(out.contains("Done: 3 words"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
}

#[test]
fn a_permission_answer_is_printed_where_it_was_given() {
    let run = Run::new("plain-permission-order");
    let mut command = run.client("perm-tool", &["--plain"]);
    command.stdin(Stdio::null());
    // The agent announces a tool call, asks permission for it, and once it has the answer
    // completes the call and says a message at once: `1` allows it.
    let (out, err, ok) = plain(command, "write the report\n1\n/quit\n");
    assert!(ok, "{out}\n{err}");
    let at = |line: &str| {
        out.lines()
            .position(|printed| printed.starts_with(line))
            .unwrap_or_else(|| panic!("{line:?} missing:\n{out}"))
    };
    let order = [
        at("[tool] Write the report (pending)"),
        at("[question] Write the report"),
        at("[permission] Write the report [edit] -> Yes, write it (allow_once), by user"),
        at("[tool] Write the report (completed)"),
        at("  report.md written"),
        at("Agent: The report is ready."),
        at("-- turn ended: end_turn --"),
    ];
    assert!(order.is_sorted(), "{order:?} out of order:\n{out}");
    assert_eq!(
        out.matches("[permission]").count(),
        1,
        "the answer is printed once:\n{out}"
    );
    assert!(run.nothing_left());
}

#[test]
fn a_message_streamed_in_pieces_is_one_line() {
    // The example agent streams its answer a few words at a time.
    let mut command = Command::new(ACP);
    command.args([
        "client",
        "--plain",
        "--",
        ACP,
        "agent",
        "--ephemeral",
        "--no-permission",
        "--delay-ms",
        "5",
    ]);
    let (out, err, ok) = plain(command, "hello there\n/quit\n");
    assert!(ok, "{out}\n{err}");
    let answers: Vec<&str> = out.lines().filter(|l| l.starts_with("Agent: ")).collect();
    assert_eq!(answers.len(), 2, "a first message and the result:\n{out}");
    assert!(
        answers[0].contains("the example agent") && answers[0].contains("your prompt had 2 words"),
        "the first message is not whole on its line:\n{out}"
    );
}

#[test]
fn slash_help_lists_the_commands_and_sends_no_prompt() {
    let run = Run::new("plain-help");
    let mut command = run.client("ok", &["--plain"]);
    command.stdin(Stdio::null());
    let (out, err, ok) = plain(command, "/help\n/quit\n");
    assert!(ok, "{out}\n{err}");
    for line in [
        "-- /quit: leave --",
        "-- /mode ID: switch the session's mode --",
        "-- /help: list the keys and the commands --",
    ] {
        assert!(
            out.lines().any(|printed| printed == line),
            "{line:?} missing:\n{out}"
        );
    }
    assert!(!run.log().contains("session/prompt"), "{}", run.log());
    assert!(run.nothing_left());
}
