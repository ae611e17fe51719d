//! A scratch home for `acp client` and `acp sessions` runs: the client's state
//! (`XDG_STATE_HOME`), the owners' sockets (`XDG_RUNTIME_DIR`), the config
//! (`XDG_CONFIG_HOME`), the example agent's sessions and working directories, all inside one
//! scratch directory that is removed when dropped, after checking that no process of it is
//! left. Include it (after `scripted`) with `#[path = "support/home.rs"] mod home;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::scripted::{ACP, Run, finish, processes_with, text};

/// How long one run may take before the test fails.
pub const LIMIT: Duration = Duration::from_secs(30);

/// A scratch home.
pub struct Home {
    run: Run,
    /// `XDG_STATE_HOME`.
    pub state: PathBuf,
    /// `XDG_RUNTIME_DIR` (owner-only, as a login session's is).
    pub runtime: PathBuf,
    /// `XDG_CONFIG_HOME`.
    pub config: PathBuf,
    /// The example agent's `--state-dir`.
    pub agent_state: PathBuf,
}

/// How a run ended and what it printed.
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn of(output: &Output) -> Ran {
        Ran {
            code: output.status.code(),
            stdout: text(&output.stdout),
            stderr: text(&output.stderr),
        }
    }

    /// Fails unless the run exited with `code`.
    pub fn expect(self, code: i32) -> Ran {
        assert_eq!(
            self.code,
            Some(code),
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// The JSON objects of standard output, one per line.
    pub fn json(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("not JSON ({error}): {line}\n{}", self.stdout))
            })
            .collect()
    }

    /// The first JSON object of `type`.
    pub fn event(&self, kind: &str) -> Value {
        self.json()
            .into_iter()
            .find(|event| event["type"] == kind)
            .unwrap_or_else(|| panic!("no `{kind}` event in\n{}\n{}", self.stdout, self.stderr))
    }
}

impl Home {
    /// A new scratch home (`name` short: socket paths must stay short).
    pub fn new(name: &str) -> Home {
        let run = Run::new(name);
        let home = Home {
            state: run.dir.join("state"),
            runtime: run.dir.join("rt"),
            config: run.dir.join("config"),
            agent_state: run.dir.join("agent"),
            run,
        };
        for dir in [&home.state, &home.config, &home.agent_state] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::create_dir_all(&home.runtime).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&home.runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        home
    }

    /// The scratch directory.
    pub fn dir(&self) -> &Path {
        &self.run.dir
    }

    /// A working directory `name` (created), canonical.
    pub fn work(&self, name: &str) -> PathBuf {
        let dir = self.run.dir.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::canonicalize(dir).unwrap()
    }

    /// `acp ARGS` in `cwd` with this home's environment (no agent delays unless the agent
    /// is given `--delay-ms`).
    pub fn command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(ACP);
        command
            .args(args)
            .current_dir(cwd)
            .env("XDG_STATE_HOME", &self.state)
            .env("XDG_RUNTIME_DIR", &self.runtime)
            .env("XDG_CONFIG_HOME", &self.config)
            .env("ACP_AGENT_DELAY_MS", "0")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// `acp ARGS` in `cwd`, started.
    pub fn spawn(&self, cwd: &Path, args: &[&str]) -> Child {
        self.command(cwd, args).spawn().unwrap()
    }

    /// `acp ARGS` in `cwd`, run to its end (within [`LIMIT`]).
    pub fn run(&self, cwd: &Path, args: &[&str]) -> Ran {
        Ran::of(&finish(self.spawn(cwd, args), LIMIT))
    }

    /// The example agent's command line (sessions kept in this home), with `flags`.
    pub fn agent(&self, flags: &[&str]) -> Vec<String> {
        let mut line = vec![
            ACP.to_owned(),
            "agent".to_owned(),
            "--state-dir".to_owned(),
            self.agent_state.display().to_string(),
        ];
        line.extend(flags.iter().map(|flag| (*flag).to_owned()));
        line
    }

    /// `acp client FLAGS -- AGENT...` in `cwd`, run to its end.
    pub fn client(&self, cwd: &Path, flags: &[&str], agent: &[String]) -> Ran {
        let mut args: Vec<&str> = vec!["client"];
        args.extend_from_slice(flags);
        args.push("--");
        args.extend(agent.iter().map(String::as_str));
        self.run(cwd, &args)
    }

    /// `acp sessions ARGS` in `cwd`, run to its end.
    pub fn sessions(&self, cwd: &Path, args: &[&str]) -> Ran {
        let mut all = vec!["sessions"];
        all.extend_from_slice(args);
        self.run(cwd, &all)
    }

    /// `acp sessions status NAME --format json` in `cwd`, repeated until the session is known
    /// and `check` holds for its status (the test fails after [`LIMIT`]).
    pub fn status_until(&self, cwd: &Path, name: &str, check: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let ran = self.sessions(cwd, &["status", name, "--format", "json"]);
            let status = if ran.code == Some(0) {
                serde_json::from_str(ran.stdout.trim()).unwrap()
            } else {
                Value::Null
            };
            if check(&status) {
                return status;
            }
            assert!(
                start.elapsed() < LIMIT,
                "the status never came: {status}\n{}",
                ran.stderr
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The processes of this home (clients, owners, agents and what they started): those
    /// whose command line or environment (`XDG_STATE_HOME`, inherited) names it.
    pub fn running(&self) -> Vec<u32> {
        let needle = self.run.dir.to_str().unwrap();
        let mut pids = processes_with(needle);
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return pids;
        };
        let me = std::process::id();
        for pid in entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        {
            if pid == me || pids.contains(&pid) || !super::scripted::alive(pid) {
                continue;
            }
            if std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| String::from_utf8_lossy(&environ).contains(needle))
            {
                pids.push(pid);
            }
        }
        pids
    }

    /// Waits (up to `limit`) until no process of this home is left; fails otherwise.
    pub fn wait_for_nothing_left(&self, limit: Duration) {
        let start = Instant::now();
        loop {
            let left = self.running();
            if left.is_empty() {
                return;
            }
            if start.elapsed() > limit {
                panic!("still running after {limit:?}: {left:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The files in the owners' socket directory.
    pub fn sockets(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.runtime.join("acp"))
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default()
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        // Whatever a failed test left running goes (the owners would otherwise wait out
        // their TTL).
        for pid in self.running() {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    }
}

/// Whether process `pid` is gone within `limit` (a process that is exiting may still show a
/// moment after its command line is gone).
pub fn gone(pid: u64, limit: Duration) -> bool {
    let pid = u32::try_from(pid).unwrap();
    let start = Instant::now();
    while super::scripted::alive(pid) {
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The prompts of `acp sessions history --format json` lines, in order.
pub fn prompts(history: &Ran) -> Vec<String> {
    history
        .json()
        .iter()
        .map(|turn| turn["prompt"].as_str().unwrap().to_owned())
        .collect()
}

/// Fails unless `child` ends within `limit`; its output.
pub fn end(child: Child, limit: Duration) -> Ran {
    Ran::of(&finish(child, limit))
}
