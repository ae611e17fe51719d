//! The terminal UI end to end, in a pseudo-terminal: the sign-in picker when the agent asks
//! for authentication, a turn, the write confirmation, a permission answer shown where it was
//! given, leaving with Ctrl-Q, the prompt
//! editor (pasting, new lines, the history of an earlier run), SIGTERM and SIGHUP during a
//! turn, and an agent that dies mid-turn started again with its session.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/conform_report.rs"]
mod conform_report;
#[path = "support/scripted.rs"]
mod scripted;
#[path = "support/vt.rs"]
mod vt;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::pty::{Winsize, openpty};
use scripted::{Run, finish};

/// The size of the pseudo-terminal.
const ROWS: u16 = 30;
const COLS: u16 = 110;

/// A client running in a pseudo-terminal, and what it drew so far.
struct Screen {
    master: File,
    child: Option<Child>,
    seen: String,
    /// Everything drawn, escape sequences included.
    raw: Vec<u8>,
    run: Option<Run>,
}

impl Screen {
    fn start(run: Run, mode: &str) -> Self {
        Self::start_with(run, mode, &[])
    }

    fn start_with(run: Run, mode: &str, client_flags: &[&str]) -> Self {
        let command = run.client(mode, client_flags);
        Self::spawn(run, command)
    }

    /// Runs `command` (an `acp client` of the caller's making) on the terminal.
    fn spawn(run: Run, mut command: std::process::Command) -> Self {
        let size = Winsize {
            ws_row: ROWS,
            ws_col: COLS,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = openpty(Some(&size), None).unwrap();
        // The child must not inherit the master: holding it, it would block on a full terminal
        // forever if the test stops reading.
        fcntl(pty.master.as_fd(), FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).unwrap();
        let flags =
            OFlag::from_bits_truncate(fcntl(pty.master.as_fd(), FcntlArg::F_GETFL).unwrap());
        fcntl(
            pty.master.as_fd(),
            FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK),
        )
        .unwrap();
        let slave: OwnedFd = pty.slave;
        let child = command
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .spawn()
            .unwrap();
        Self {
            master: File::from(pty.master),
            child: Some(child),
            seen: String::new(),
            raw: Vec::new(),
            run: Some(run),
        }
    }

    /// Reads what was drawn, without the escape sequences and spaces (drawing moves the
    /// cursor between words).
    fn pump(&mut self) {
        let mut buffer = [0u8; 65536];
        loop {
            match self.master.read(&mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(read) => {
                    self.raw.extend_from_slice(&buffer[..read]);
                    let text = String::from_utf8_lossy(&buffer[..read]).into_owned();
                    self.seen.push_str(&strip(&text));
                }
            }
        }
    }

    /// Waits until `needle` (spaces removed) has been drawn. (Only text drawn in one piece can
    /// be found: the terminal is redrawn by differences.)
    fn wait_for(&mut self, needle: &str) {
        let needle: String = needle.chars().filter(|c| !c.is_whitespace()).collect();
        self.wait_until(&format!("{needle:?} drawn"), |screen, _| {
            screen.seen.contains(&needle)
        });
    }

    /// Waits until `done` holds for the screen and the run (the agent's log shows the
    /// protocol's side), drawing meanwhile; then lets the UI settle.
    fn wait_until(&mut self, what: &str, mut done: impl FnMut(&Screen, &Run) -> bool) {
        let run = self.run.take().unwrap();
        let start = Instant::now();
        while !done(self, &run) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "never {what}; drawn:\n{}\nagent log:\n{}",
                self.seen,
                run.log()
            );
            std::thread::sleep(Duration::from_millis(20));
            self.pump();
        }
        self.run = Some(run);
        std::thread::sleep(Duration::from_millis(300));
        self.pump();
    }

    /// Waits for the client to exit and collects its output.
    fn end(&mut self) -> std::process::Output {
        finish(self.child.take().unwrap(), Duration::from_secs(20))
    }

    fn press(&mut self, keys: &[u8]) {
        self.master.write_all(keys).unwrap();
    }
}

impl Drop for Screen {
    /// A failed test must not leave the client running (its agent then sees the end of its
    /// input and exits).
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Text without CSI escape sequences and whitespace.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() || c == '~' {
                        break;
                    }
                }
            }
            continue;
        }
        if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

fn count(run: &Run, needle: &str) -> usize {
    run.log().matches(needle).count()
}

#[test]
fn sign_in_picker_then_a_turn_then_quit() {
    let mut screen = Screen::start(Run::new("tui-auth"), "auth");
    screen.wait_until("refused the first session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.wait_for("The agent needs you to sign in");
    screen.press(b"\r");
    screen.wait_until("signed in and opened the session", |_, run| {
        count(
            run,
            r#""method":"authenticate","params":{"methodId":"browser"}"#,
        ) == 1
            && count(run, r#""method":"session/new""#) == 2
    });
    screen.press(b"hello\r");
    screen.wait_until("prompted", |_, run| {
        count(run, r#""method":"session/prompt""#) == 1
    });
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert!(run.nothing_left());
}

#[test]
fn a_write_is_confirmed_in_the_dialog() {
    let run = Run::new("tui-write");
    std::fs::write(run.dir.join("in.txt"), "one\ntwo\n").unwrap();
    let out = run.dir.join("out.txt");
    let mut screen = Screen::start(run, "fs");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(b"go\r");
    screen.wait_until("read the file", |_, run| {
        count(run, r#"ANSWER {"jsonrpc":"2.0","id":100"#) == 1
    });
    screen.wait_for("Write a file?");
    // Deny is highlighted: Up to "Allow", then Enter.
    screen.press(b"\x1b[A");
    std::thread::sleep(Duration::from_millis(200));
    screen.press(b"\r");
    screen.wait_until("wrote the file", |_, _| out.is_file());
    // Then the command: its dialog shows the command line and directory; Enter on the
    // highlighted "Do not run it" refuses it.
    screen.wait_for("Run a command?");
    screen.wait_for("$ sh -c 'echo from the terminal; exit 4'");
    screen.press(b"\r");
    screen.wait_until("refused the command", |_, run| {
        run.log()
            .contains(r#"ANSWER {"jsonrpc":"2.0","id":103,"error""#)
    });
    screen.wait_until("ended the turn", |_, run| count(run, r#""id":105"#) == 1);
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "written by the agent"
    );
    assert!(run.nothing_left());
}

/// The row of the screen where `needle` is drawn first.
fn row_of(rows: &[String], needle: &str) -> usize {
    rows.iter()
        .position(|row| row.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not on the screen:\n{}", rows.join("\n")))
}

#[test]
fn a_permission_answer_is_shown_where_it_was_given_before_what_followed() {
    // The agent announces a tool call, asks permission for it, and once answered at once
    // completes the call and says its next message: all of that reaches the client before
    // the UI's loop next looks at the conversation.
    let mut screen = Screen::start(Run::new("tui-permission-order"), "perm-tool");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(b"write the report\r");
    screen.wait_for("Yes, write it");
    // The first choice is highlighted: Enter allows.
    screen.press(b"\r");
    screen.wait_until("answered the permission request", |_, run| {
        run.log()
            .contains(r#"ANSWER {"jsonrpc":"2.0","id":402,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}"#)
    });
    screen.wait_for("turn ended: end_turn");
    let rows = vt::screen(&screen.raw, usize::from(ROWS), usize::from(COLS));
    let tool = row_of(&rows, "[tool] Write the report (completed)");
    let permission = row_of(
        &rows,
        "[permission] Write the report [edit] -> Yes, write it",
    );
    let result = row_of(&rows, "report.md written");
    let message = row_of(&rows, "Agent: The report is ready.");
    let screen_text = rows.join("\n");
    assert!(
        tool < permission && permission < result && result < message,
        "the answer must come under the tool call's header, before its result and the next \
         message:\n{screen_text}"
    );
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert!(run.nothing_left());
}

#[test]
fn a_terminal_login_runs_in_the_foreground_then_the_session_opens() {
    let run = Run::new("tui-login");
    let marker = run.dir.join("logged-in");
    let mut screen = Screen::start(run, "auth-terminal");
    screen.wait_until("refused the first session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    // The client advertised that it can run terminal logins.
    screen.wait_until("advertised auth.terminal", |_, run| {
        run.log().contains(r#""auth":{"terminal":true}"#)
    });
    screen.press(b"\r");
    screen.wait_for("Logging in for the test...");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 2
    });
    assert!(marker.is_file());
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    // A terminal method is never sent to the agent.
    assert!(
        !run.log().contains(r#""method":"authenticate""#),
        "{}",
        run.log()
    );
}

#[test]
fn with_prompt_a_terminal_login_runs_in_the_terminal_too() {
    let mut screen = Screen::start_with(
        Run::new("prompt-login"),
        "auth-terminal",
        &["--auth", "tui", "--prompt", "hi"],
    );
    screen.wait_for("Logging in for the test...");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert_eq!(count(&run, r#""method":"session/new""#), 1, "{}", run.log());
    assert!(!run.log().contains(r#""method":"authenticate""#));
}

/// The prompt texts the agent received, in order (as JSON-escaped text).
fn prompts(run: &Run) -> Vec<String> {
    run.log()
        .lines()
        .filter(|line| line.contains(r#""method":"session/prompt""#))
        .filter_map(|line| {
            let start = line.find(r#""text":""#)? + 8;
            let end = line[start..].find('"')?;
            Some(line[start..start + end].to_owned())
        })
        .collect()
}

/// Sends `keys` to a new client, which shows `shown` and sends nothing; then Enter sends the
/// agent one prompt, `expected` (as JSON-escaped text).
fn sent_only_by_enter(test: &str, keys: &[u8], shown: &str, expected: &str) {
    let mut screen = Screen::start(Run::new(test), "ok");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(keys);
    screen.wait_for(shown);
    std::thread::sleep(Duration::from_millis(300));
    let run = screen.run.take().unwrap();
    assert_eq!(
        count(&run, r#""method":"session/prompt""#),
        0,
        "{}",
        run.log()
    );
    screen.run = Some(run);
    screen.press(b"\r");
    screen.wait_until("sent the prompt", |_, run| {
        count(run, r#""method":"session/prompt""#) == 1
    });
    let run = screen.run.take().unwrap();
    assert_eq!(prompts(&run), [expected]);
    screen.run = Some(run);
    screen.press(b"\x11");
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
}

#[test]
fn a_pasted_three_line_text_is_inserted_and_sent_only_by_enter() {
    // A bracketed paste, with the line breaks a terminal sends for a paste (CR).
    sent_only_by_enter(
        "tui-paste",
        b"\x1b[200~first line\rsecond line\rthird line\x1b[201~",
        "third line",
        r"first line\nsecond line\nthird line",
    );
}

#[test]
fn alt_enter_and_ctrl_j_add_lines_to_the_prompt() {
    // Alt-Enter is ESC CR; Ctrl-J is LF.
    sent_only_by_enter(
        "tui-newline",
        b"one\x1b\rtwo\nthree",
        "three",
        r"one\ntwo\nthree",
    );
}

#[test]
fn up_recalls_the_prompt_of_an_earlier_run() {
    let run = Run::new("tui-history");
    let state = run.dir.clone();
    let mut screen = Screen::start(run, "ok");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(b"remember me\r");
    screen.wait_until("sent the prompt", |_, run| {
        count(run, r#""method":"session/prompt""#) == 1
    });
    screen.wait_for("turn ended");
    screen.press(b"\x11");
    assert!(screen.end().status.success());
    // The history file is in the state directory given to the client.
    let files: Vec<_> = std::fs::read_dir(state.join("acp/client/history"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1);

    // A second run of the same agent, same state directory: Up, then Enter.
    let run = screen.run.take().unwrap();
    let mut again = Screen::start(run, "ok");
    again.wait_until("opened the session again", |_, run| {
        count(run, r#""method":"session/new""#) == 2
    });
    again.press(b"\x1b[A");
    again.wait_for("remember me");
    again.press(b"\r");
    again.wait_until("sent the recalled prompt", |_, run| {
        count(run, r#""method":"session/prompt""#) == 2
    });
    let run = again.run.take().unwrap();
    assert_eq!(prompts(&run), ["remember me", "remember me"]);
    again.run = Some(run);
    again.press(b"\x11");
    assert!(again.end().status.success());
}

/// Sends `signal` to the client.
fn signal(screen: &Screen, signal: &str) {
    let pid = screen.child.as_ref().unwrap().id().to_string();
    let status = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Whether the terminal was given back: the alternate screen left, bracketed paste and
/// focus reports off, the cursor shown, after the last frame.
fn restored(raw: &[u8]) -> bool {
    let text = String::from_utf8_lossy(raw);
    let last = |needle: &str| text.rfind(needle);
    let left = last("\u{1b}[?1049l");
    left.is_some()
        && last("\u{1b}[?2004l").is_some()
        && last("\u{1b}[?1004l").is_some()
        && last("\u{1b}[?25h") >= last("\u{1b}[?25l")
        && last("\u{1b}[?1049h") < left
}

fn ended_by_a_signal_during_a_turn(sig: &str, code: i32) {
    let mut screen = Screen::start(Run::new(&format!("tui-signal{sig}")), "silent");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(b"hello\r");
    screen.wait_until("prompted", |_, run| {
        count(run, r#""method":"session/prompt""#) == 1
    });
    screen.wait_for("agent is working");
    signal(&screen, sig);
    let run = screen.run.take().unwrap();
    let output = screen.end();
    screen.pump();
    assert_eq!(output.status.code(), Some(code), "{sig}");
    assert!(
        restored(&screen.raw),
        "{sig}: the terminal was not restored"
    );
    let start = Instant::now();
    while !run.nothing_left() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{sig}: the agent is left"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The turn was cancelled before leaving.
    assert_eq!(
        count(&run, r#""method":"session/cancel""#),
        1,
        "{}",
        run.log()
    );
    // The session is named once the terminal is back; this agent does not advertise
    // `loadSession`, so no `--load` is offered (see the restart test for an agent that does).
    assert!(
        screen
            .seen
            .contains("acp:sessions1endswiththisrun(theagentcannotloadsessions)")
            && !continues_s1(&screen.seen),
        "{}",
        screen.seen
    );
}

/// Whether the screen (blanks removed) said how to continue session `s1`: the continue
/// command names the run's directory, then the session.
fn continues_s1(seen: &str) -> bool {
    seen.split("continueitwith:acpclient")
        .skip(1)
        .any(|rest| rest.starts_with("--cwd") && rest.contains("--loads1--"))
}

#[test]
fn sigterm_during_a_turn_cancels_it_restores_the_terminal_and_leaves_no_process() {
    ended_by_a_signal_during_a_turn("-TERM", 143);
}

#[test]
fn sighup_during_a_turn_cancels_it_restores_the_terminal_and_leaves_no_process() {
    ended_by_a_signal_during_a_turn("-HUP", 129);
}

#[test]
fn an_agent_that_dies_mid_turn_is_started_again_and_the_session_continues() {
    let mut screen = Screen::start(Run::new("tui-restart"), "restart");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(b"first\r");
    screen.wait_for("Done: first");
    screen.press(b"die\r");
    // How it ended: the exit status and its last standard error line.
    screen.wait_for("the agent exited with status 7");
    // Drawn in the same frame as the offer to start it again.
    screen.wait_for("dying on purpose");
    let first = screen.run.as_ref().unwrap().agent_pids();
    assert_eq!(first.len(), 1);
    screen.press(b"\x12");
    screen.wait_until("loaded the session in a new agent", |_, run| {
        count(run, r#""method":"session/load""#) == 1 && run.agent_pids().len() == 2
    });
    screen.wait_for("loaded session s1 with its history");
    screen.press(b"again\r");
    screen.wait_for("Done: again");
    screen.wait_until("the new agent got the prompt", |_, run| {
        std::fs::read_to_string(run.dir.join("store")).unwrap_or_default() == "first\ndie\nagain\n"
    });
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert!(run.nothing_left());
    screen.pump();
    assert!(
        screen
            .seen
            .contains("acp:sessions1;continueitwith:acpclient")
            && continues_s1(&screen.seen),
        "{}",
        screen.seen
    );
}

#[test]
fn a_prompt_refused_for_want_of_a_sign_in_opens_the_picker_and_is_sent_again() {
    let mut screen = Screen::start(Run::new("tui-auth-prompt"), "auth-prompt");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(b"hello\r");
    screen.wait_until("prompted", |_, run| {
        count(run, r#""method":"session/prompt""#) == 1
    });
    screen.wait_for("The agent needs you to sign in");
    screen.press(b"\r");
    screen.wait_until("signed in and sent the prompt again", |_, run| {
        count(
            run,
            r#""method":"authenticate","params":{"methodId":"browser"}"#,
        ) == 1
            && count(run, r#""method":"session/prompt""#) == 2
    });
    // The scripted agent refuses again: the picker is back, and Esc only closes it.
    screen.press(b"\x1b");
    std::thread::sleep(Duration::from_millis(300));
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert!(run.nothing_left());
    // A new session was never needed.
    assert_eq!(count(&run, r#""method":"session/new""#), 1);
}

#[test]
fn an_env_var_sign_in_asks_for_the_value_and_starts_the_agent_again_with_it() {
    let mut screen = Screen::start(Run::new("tui-env-var"), "auth");
    screen.wait_until("refused the first session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.wait_for("The agent needs you to sign in");
    screen.press(b"2\r");
    screen.wait_for("the value of API_KEY");
    screen.press(b"sk-test-42\r");
    screen.wait_until("signed in with the value in a new agent", |_, run| {
        run.log().contains("API_KEY has 10 characters")
            && count(run, r#""method":"session/new""#) == 2
            && run.agent_pids().len() == 2
    });
    let first = screen.run.as_ref().unwrap().agent_pids()[0];
    assert!(!scripted::alive(first), "the first agent was ended");
    assert!(!screen.seen.contains("sk-test"), "{}", screen.seen);
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert!(run.nothing_left());
}

#[test]
fn ctrl_c_ends_a_terminal_login_and_brings_back_the_picker() {
    let run = Run::new("tui-login-cancel");
    let pid_file = run.dir.join("login.pid");
    let mut screen = Screen::start(run, "auth-hang");
    screen.wait_for("The agent needs you to sign in");
    let pickers = |screen: &Screen| screen.seen.matches("Theagentneedsyoutosignin").count();
    let before = pickers(&screen);
    screen.press(b"\r");
    screen.wait_for("Waiting for the login...");
    screen.wait_until("the login started", |_, _| pid_file.is_file());
    let login: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Ctrl-C in a terminal signals its foreground processes; this pseudo-terminal is not the
    // client's controlling terminal, so the client gets the SIGINT directly (the login does
    // not get it: the client ends it itself after a moment).
    signal(&screen, "-INT");
    screen.wait_until("the picker came back", |screen, _| pickers(screen) > before);
    assert!(!scripted::alive(login), "the login is still running");
    screen.wait_for("the login was cancelled");
    // Leaving without signing in says so, with exit code 3.
    screen.press(b"\x11");
    let run = screen.run.take().unwrap();
    let output = screen.end();
    assert_eq!(output.status.code(), Some(3));
    screen.pump();
    assert!(
        screen.seen.contains("leftwithoutsigningin"),
        "{}",
        screen.seen
    );
    assert!(run.nothing_left());
}

/// `acp client`'s terminal UI launching `acp conform client`, which writes its JSON report to
/// `report`.
fn conform_screen(run: Run, report: &std::path::Path) -> Screen {
    let mut command = std::process::Command::new(scripted::ACP);
    command
        .arg("client")
        .arg("--cwd")
        .arg(&run.dir)
        .arg("--")
        .args(conform_report::conform_client("20", report))
        .env("XDG_STATE_HOME", &run.dir)
        .env("NO_COLOR", "1");
    Screen::spawn(run, command)
}

#[test]
fn the_terminal_ui_passes_the_conform_client_suite() {
    let run = Run::new("tui-conform");
    let report = run.dir.join("report.json");
    let mut screen = conform_screen(run, &report);
    // The status line names the session once it is open.
    screen.wait_for("session:conform-sess");
    screen.press(b"go\r");
    screen.wait_for("Permission requested");
    // "Allow once" is highlighted.
    screen.press(b"\r");
    // The terminal probe: "Do not run it" is highlighted; Up chooses "Run it".
    screen.wait_for("Run a command?");
    screen.press(b"\x1b[A\r");
    screen.wait_for("the scenarios are over");
    screen.press(b"\x11");
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    let report = conform_report::read_report(&report, "the terminal UI", &output);
    for id in [
        "client.terminal.answers",
        "client.terminal.released-id",
        "client.tool-content.survives",
        "client.notice.survives",
        "client.permission.answer",
        "client.rpc.response-ids",
        "client.rpc.parse-error.survives",
    ] {
        assert_eq!(conform_report::outcome(&report, id), "passed", "{id}");
    }
    assert_eq!(
        conform_report::outcome(&report, "client.cancel.notification"),
        "not exercised"
    );
}

#[test]
fn ctrl_c_at_a_permission_dialog_cancels_the_turn_and_answers_cancelled() {
    let run = Run::new("tui-conform-cancel");
    let report = run.dir.join("report.json");
    let mut screen = conform_screen(run, &report);
    // The status line names the session once it is open.
    screen.wait_for("session:conform-sess");
    screen.press(b"go\r");
    screen.wait_for("Permission requested");
    screen.press(b"\x03");
    screen.wait_for("turn ended: cancelled");
    screen.press(b"\x11");
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    let report = conform_report::read_report(&report, "the terminal UI", &output);
    // The permission request was answered (cancelled) and the cancel was a notification.
    assert_eq!(
        conform_report::outcome(&report, "client.permission.answer"),
        "passed"
    );
    assert_eq!(
        conform_report::outcome(&report, "client.rpc.response-ids"),
        "passed"
    );
    assert_eq!(
        conform_report::outcome(&report, "client.cancel.notification"),
        "passed"
    );
}

#[test]
fn slash_help_lists_the_keys_and_the_clients_commands_and_sends_nothing() {
    let mut screen = Screen::start(Run::new("tui-help"), "ok");
    screen.wait_until("opened the session", |_, run| {
        count(run, r#""method":"session/new""#) == 1
    });
    screen.press(b"/help\r");
    screen.wait_for("Ctrl-G: open or close the agent pane");
    screen.wait_for("/set CONFIG_ID VALUE: set one of the session's config options");
    let run = screen.run.take().unwrap();
    assert_eq!(
        count(&run, r#""method":"session/prompt""#),
        0,
        "{}",
        run.log()
    );
    screen.press(b"\x11");
    let output = screen.end();
    assert!(output.status.success(), "{:?}", output.status);
    assert!(run.nothing_left());
}
