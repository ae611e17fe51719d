//! `acp agent --listen 0` in the background for tests: its URL (read from the line it prints
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
    /// Everything else it printed on standard error so far (collected in the background).
    lines: mpsc::Receiver<String>,
}

impl Listening {
    /// Starts `acp agent --listen 0 EXTRA...` with no chunk delay and waits (up to 30 s) for
    /// its URL.
    pub fn start(extra: &[&str], envs: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_acp"));
        command
            .args(["agent", "--listen", "0"])
            .args(extra)
            .env("ACP_AGENT_DELAY_MS", "0")
            .env_remove("ACP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in envs {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut url = None;
        while url.is_none() {
            let line = match lines.recv_timeout(Duration::from_secs(30)) {
                Ok(line) => line,
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("acp agent --listen printed no URL within 30 s");
                }
            };
            url = line
                .strip_prefix("acp agent: listening on ")
                .map(str::to_owned);
        }
        Self {
            child,
            url: url.unwrap(),
            lines,
        }
    }

    /// The `host:port` of the URL.
    pub fn address(&self) -> &str {
        let rest = self
            .url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, rest)| rest);
        rest.split('/').next().unwrap()
    }

    /// The lines printed on standard error since the URL.
    pub fn stderr(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
