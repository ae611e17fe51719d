//! The terminal UI end to end, in a pseudo-terminal: the sign-in picker when the agent asks
//! for authentication, a turn, the write confirmation, leaving with Ctrl-Q, and the prompt
//! editor (pasting, new lines, the history of an earlier run).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::pty::{Winsize, openpty};
use scripted::{Run, finish};

/// A client running in a pseudo-terminal, and what it drew so far.
struct Screen {
    master: File,
    child: Option<Child>,
    seen: String,
    run: Option<Run>,
}

impl Screen {
    fn start(run: Run, mode: &str) -> Self {
        Self::start_with(run, mode, &[])
    }

    fn start_with(run: Run, mode: &str, client_flags: &[&str]) -> Self {
        let size = Winsize {
            ws_row: 30,
            ws_col: 110,
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
        let child = run
            .client(mode, client_flags)
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .spawn()
            .unwrap();
        Self {
            master: File::from(pty.master),
            child: Some(child),
            seen: String::new(),
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
