//! Running `acp client` against the scripted agent (`tests/agents/scripted.sh`) in a scratch
//! directory, and checks that processes are gone. Include it with
//! `#[path = "support/scripted.rs"] mod scripted;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The `acp` binary.
pub const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// The scripted agent.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/scripted.sh")
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A scratch directory for one test run, removed when dropped.
pub struct Run {
    pub dir: PathBuf,
}

impl Run {
    pub fn new(test: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "{test}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let dir = std::fs::canonicalize(dir).unwrap();
        Self { dir }
    }

    /// The log of what the agent received.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("agent.log")).unwrap_or_default()
    }

    /// The pids of every agent process the run started.
    pub fn agent_pids(&self) -> Vec<u32> {
        std::fs::read_to_string(self.dir.join("agent.pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }

    /// Whether every agent process of the run (and its helper, if it started one) is gone.
    pub fn nothing_left(&self) -> bool {
        let helper = std::fs::read_to_string(self.dir.join("helper.pid"))
            .ok()
            .and_then(|pid| pid.trim().parse::<u32>().ok());
        self.agent_pids()
            .into_iter()
            .chain(helper)
            .all(|pid| !alive(pid))
    }

    /// `acp client FLAGS -- sh scripted.sh MODE`, ready to run.
    pub fn client(&self, mode: &str, flags: &[&str]) -> Command {
        let mut command = Command::new(ACP);
        command
            .arg("client")
            .args(flags)
            .arg("--cwd")
            .arg(&self.dir)
            .arg("--")
            .arg("sh")
            .arg(script())
            .arg(mode)
            .env("ACP_TEST_LOG", self.dir.join("agent.log"))
            .env("ACP_TEST_DIR", &self.dir)
            .env("ACP_TEST_PIDFILE", self.dir.join("helper.pid"))
            // The client's state (the agent's standard-error logs, the prompt history) stays in
            // the scratch space.
            .env("XDG_STATE_HOME", &self.dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        command
    }

    /// Runs the client to its end, within `limit`.
    pub fn run(&self, mode: &str, flags: &[&str], limit: Duration) -> Output {
        let child = self
            .client(mode, flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        finish(child, limit)
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Waits for `child` (killing it past `limit`, which fails the test) and collects its output.
pub fn finish(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}; stdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether process `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// The processes whose command line contains `needle` (from `/proc`).
pub fn processes_with(needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(needle))
        })
        .filter(|pid| alive(*pid))
        .collect()
}

/// The client's answers to the scripted agent's requests (its `ANSWER` log lines).
pub fn answers(run: &Run) -> Vec<serde_json::Value> {
    run.log()
        .lines()
        .filter_map(|line| line.strip_prefix("ANSWER "))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The `initialize` params the client sent to the scripted agent.
pub fn initialize(run: &Run) -> serde_json::Value {
    let line = run
        .log()
        .lines()
        .find(|line| line.contains(r#""method":"initialize""#))
        .unwrap()
        .to_owned();
    serde_json::from_str::<serde_json::Value>(&line).unwrap()["params"].clone()
}

/// How many messages of the client's (`acp: ...` lines) `stderr` holds, not counting the
/// lines that name the session and how to continue it.
pub fn client_messages(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|line| {
            line.starts_with("acp: ")
                && !line.starts_with("acp: session ")
                && !line.starts_with("acp: continue this session")
        })
        .count()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
