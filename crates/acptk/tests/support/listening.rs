//! `acp agent --listen 0` (or `acp proxy --listen 0 -- AGENT`) in the background for tests: its URL (read from the line it prints
//! on standard error), ended when dropped. Include it with
//! `#[path = "support/listening.rs"] mod listening;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A listening example agent.
pub struct Listening {
    child: Child,
    /// Its `ws://` (or `wss://`) URL.
    pub url: String,
    /// What it printed on standard error before the URL.
    pub before: Vec<String>,
    /// Everything else it printed on standard error so far (collected in the background).
    lines: mpsc::Receiver<String>,
}

impl Listening {
    /// Starts `acp agent --listen 0 EXTRA...` with no chunk delay and waits (up to 30 s) for
    /// its URL.
    pub fn start(extra: &[&str], envs: &[(&str, &str)]) -> Self {
        let mut args = vec!["agent", "--listen", "0"];
        args.extend_from_slice(extra);
        Self::launch(&args, envs, "acp agent")
    }

    /// Starts `acp proxy --listen 0 FLAGS... -- AGENT...` and waits (up to 30 s) for its URL.
    pub fn proxy(flags: &[&str], agent: &[&str], envs: &[(&str, &str)]) -> Self {
        let mut args = vec!["proxy", "--listen", "0"];
        args.extend_from_slice(flags);
        args.push("--");
        args.extend_from_slice(agent);
        Self::launch(&args, envs, "acp proxy")
    }

    /// Starts `acp agent --listen 0 EXTRA...` with at most `descriptors` open files (`ulimit
    /// -n`, through `sh`) and waits for its URL.
    pub fn start_limited(descriptors: u32, extra: &[&str]) -> Self {
        let mut command = Command::new("sh");
        command.args([
            "-c",
            &format!("ulimit -n {descriptors} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_acp"),
            "agent",
            "--listen",
            "0",
        ]);
        command.args(extra);
        Self::spawn(command, &[], "acp agent")
    }

    /// Starts `acp ARGS...`, which prints `NAME: listening on URL`, and waits for the URL.
    fn launch(args: &[&str], envs: &[(&str, &str)], name: &str) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_acp"));
        command.args(args);
        Self::spawn(command, envs, name)
    }

    /// Runs `command` (`acp ...`, which prints `NAME: listening on URL`) and waits for the URL.
    fn spawn(mut command: Command, envs: &[(&str, &str)], name: &str) -> Self {
        command
            .env("ACP_AGENT_DELAY_MS", "0")
            .env_remove("ACP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in envs {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let lines = lines_of(child.stderr.take().unwrap());
        let mut url = None;
        let mut before = Vec::new();
        while url.is_none() {
            let line = match lines.recv_timeout(Duration::from_secs(30)) {
                Ok(line) => line,
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("{name} --listen printed no URL within 30 s");
                }
            };
            url = line
                .strip_prefix(&format!("{name}: listening on "))
                .map(str::to_owned);
            if url.is_none() {
                before.push(line);
            }
        }
        Self {
            child,
            url: url.unwrap(),
            before,
            lines,
        }
    }

    /// Whether a line it printed before its URL contains `needle`.
    pub fn said_before(&self, needle: &str) -> bool {
        self.before.iter().any(|line| line.contains(needle))
    }

    /// The `host:port` of the URL.
    pub fn address(&self) -> &str {
        let rest = self
            .url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, rest)| rest);
        rest.split('/').next().unwrap()
    }

    /// Sends SIGTERM and waits (up to 30 s) for the exit; the exit code.
    pub fn terminate(&mut self) -> Option<i32> {
        self.signal("TERM")
    }

    /// Sends the signal `name` (`TERM`, `INT`, `HUP`, ...) and waits (up to 30 s) for the
    /// exit; the exit code (`None` when the signal itself ended the process).
    pub fn signal(&mut self, name: &str) -> Option<i32> {
        let _ = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no exit within 30 s of SIG{name}");
    }

    /// The lines printed on standard error since the URL.
    pub fn stderr(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }

    /// The lines printed on standard error since the URL, read until their text (joined by
    /// newlines) satisfies `wanted` or `wait` has passed, whichever comes first. The process
    /// writes its log as it goes and a thread reads it: what it logged for an answer may still
    /// be on its way when the answer has come.
    pub fn stderr_until(&self, wanted: impl Fn(&str) -> bool, wait: Duration) -> String {
        let deadline = std::time::Instant::now() + wait;
        let mut text = self.stderr().join("\n");
        while !wanted(&text) {
            let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) else {
                break;
            };
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    text.push('\n');
                    text.push_str(&line);
                }
                Err(_) => break,
            }
        }
        text
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits (up to `wait`) for a line on standard error that contains `needle`; the lines
    /// that came before it are dropped.
    pub fn wait_for(&self, needle: &str, wait: Duration) -> bool {
        wait_for_line(&self.lines, needle, wait)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines of `stream`, read on a thread of its own, as they come.
pub fn lines_of(stream: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// Waits (up to `wait`) for one of `lines` that contains `needle`; the lines that came before
/// it are dropped.
pub fn wait_for_line(lines: &mpsc::Receiver<String>, needle: &str, wait: Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(needle) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}

/// The status and the `Acp-Connection-Id` of a raw HTTP/1.1 answer (0 when it has no status
/// line).
pub fn status_and_connection(raw: &str) -> (u16, Option<String>) {
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let id = raw.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case("acp-connection-id")
            .then(|| value.trim().to_owned())
    });
    (status, id)
}

/// The JSON lines a client printed (`--format json`).
pub fn events(output: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A current-thread runtime for a test's async clients.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}
