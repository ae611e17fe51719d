//! Running the real `acp client` against the real `acp agent`, which the client launches as
//! its agent command, in a scratch directory under the target directory: a working directory
//! for the session (`work/`), a directory outside it (`outside/`) and the agent's
//! `--state-dir` (`state/`). Every run is bounded in time, and [`Scratch::assert_nothing_left`]
//! checks that no process of the client or the agent survived it. Include it (after
//! `scripted`) with `#[path = "support/acp_agent.rs"] mod acp_agent;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::scripted::{ACP, Run, finish, processes_with, text};

/// How long one client run may take before the test fails.
pub const LIMIT: Duration = Duration::from_secs(30);

/// The example agent's reply to an ordinary prompt of `words` words in the code mode, before
/// its tool call (the agent's `reply_text`).
pub fn code_reply(words: usize) -> String {
    format!(
        "Hello! I am the example agent of the ACP toolkit. I have no language model, so I \
         answer every prompt the same way: your prompt had {words} words. Let me count them \
         with a small tool call. Type /notice SEVERITY TITLE -- DESCRIPTION to make me send \
         a notice. "
    )
}

/// A scratch directory with a session directory, a directory outside it and a state
/// directory; removed when dropped.
pub struct Scratch {
    run: Run,
    /// The session's working directory (`--cwd`), canonical.
    pub work: PathBuf,
    /// A directory next to the working directory, outside the session.
    pub outside: PathBuf,
    /// The agent's `--state-dir`.
    pub state: PathBuf,
}

/// What one client run printed and how it ended.
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    fn of(output: &Output) -> Ran {
        Ran {
            code: output.status.code(),
            stdout: text(&output.stdout),
            stderr: text(&output.stderr),
        }
    }

    /// The JSON events of `--format json`, one per line.
    pub fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("not JSON ({error}): {line}\n{}", self.stdout))
            })
            .collect()
    }

    /// Fails unless the client exited with `code`.
    pub fn expect(&self, code: i32) -> &Ran {
        assert_eq!(
            self.code,
            Some(code),
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

impl Scratch {
    pub fn new(test: &str) -> Scratch {
        let run = Run::new(test);
        let work = run.dir.join("work");
        let outside = run.dir.join("outside");
        let state = run.dir.join("state");
        for dir in [&work, &outside, &state] {
            std::fs::create_dir_all(dir).unwrap();
        }
        Scratch {
            run,
            work,
            outside,
            state,
        }
    }

    /// A further session directory `name` inside the scratch directory.
    pub fn dir(&self, name: &str) -> PathBuf {
        let dir = self.run.dir.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `acp client FLAGS --cwd CWD -- acp agent --state-dir STATE AGENT_FLAGS`, started.
    pub fn spawn_in(&self, cwd: &PathBuf, flags: &[&str], agent_flags: &[&str]) -> Child {
        std::process::Command::new(ACP)
            .arg("client")
            .args(flags)
            .arg("--cwd")
            .arg(cwd)
            .args(["--grace", "1", "--"])
            .args([ACP, "agent", "--state-dir"])
            .arg(&self.state)
            .args(agent_flags)
            .env("NO_COLOR", "1")
            // The client's state (the agent's standard-error logs) stays in the scratch space.
            .env("XDG_STATE_HOME", &self.state)
            // No delay between reply chunks, unless AGENT_FLAGS has `--delay-ms`.
            .env("ACP_AGENT_DELAY_MS", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Waits for a client [`Scratch::spawn_in`] started (within [`LIMIT`]), then checks
    /// that nothing of it is left.
    pub fn finish(&self, child: Child) -> Ran {
        let ran = Ran::of(&finish(child, LIMIT));
        self.assert_nothing_left();
        ran
    }

    /// [`Scratch::spawn_in`], run to its end within [`LIMIT`]; nothing of it may be left.
    pub fn client_in(&self, cwd: &PathBuf, flags: &[&str], agent_flags: &[&str]) -> Ran {
        self.finish(self.spawn_in(cwd, flags, agent_flags))
    }

    /// [`Scratch::client_in`] the working directory.
    pub fn client(&self, flags: &[&str], agent_flags: &[&str]) -> Ran {
        self.client_in(&self.work, flags, agent_flags)
    }

    /// `--prompt PROMPT --format json FLAGS`, which must exit with 0; its events.
    pub fn turn(&self, prompt: &str, flags: &[&str], agent_flags: &[&str]) -> Vec<Value> {
        let mut all = vec!["--prompt", prompt, "--format", "json"];
        all.extend_from_slice(flags);
        self.client(&all, agent_flags).expect(0).events()
    }

    /// Fails when a process whose command line names this scratch directory (the client or
    /// the agent it launched) is still running.
    pub fn assert_nothing_left(&self) {
        let left = self.running();
        assert!(left.is_empty(), "still running after the client: {left:?}");
    }

    /// The most history entries of one session in the agent's session database
    /// (`STATE/sessions.sqlite3`, read-only): 0 before a session exists or anything happened
    /// in it.
    pub fn history_entries(&self) -> usize {
        let Ok(db) = rusqlite::Connection::open_with_flags(
            self.state.join("sessions.sqlite3"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        ) else {
            return 0;
        };
        let _ = db.busy_timeout(std::time::Duration::from_secs(5));
        db.query_row(
            "SELECT COALESCE(MAX(next_seq), 0) FROM acp_sessions",
            [],
            |row| row.get::<_, i64>(0),
        )
        .map_or(0, |entries| usize::try_from(entries).unwrap_or(0))
    }

    /// The processes whose command line names this scratch directory's state directory: the
    /// client and the agent it launched.
    pub fn running(&self) -> Vec<u32> {
        processes_with(self.state.to_str().unwrap())
    }
}

/// The events of `type`.
pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The text of the agent's messages (the `message` events of role `agent`), pieces joined;
/// fails on a `replace`, which these tests do not expect.
pub fn agent_text(events: &[Value]) -> String {
    role_text(events, "agent")
}

/// The text of the `message` events of `role`, pieces joined.
pub fn role_text(events: &[Value], role: &str) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "message" && e["role"] == role)
        .map(|e| {
            assert_eq!(e["replace"], false, "{e}");
            e["text"].as_str().unwrap()
        })
        .collect()
}

/// The id of the turn's first tool call (the agent gives each a fresh `call_...` id).
pub fn first_call(events: &[Value]) -> String {
    let id = events
        .iter()
        .find(|e| e["type"] == "tool_call")
        .and_then(|e| e["toolCallId"].as_str())
        .unwrap_or_else(|| panic!("no tool call: {events:?}"));
    assert!(id.starts_with("call_"), "{id}");
    id.to_owned()
}

/// The statuses of the `tool_call` events of call `id`, in order.
pub fn tool_statuses(events: &[Value], id: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "tool_call" && e["toolCallId"] == id)
        .map(|e| e["status"].as_str().unwrap().to_owned())
        .collect()
}

/// The `type` of every event, in order, with runs of agent message pieces shown once as
/// `message:agent` (how many pieces a reply streams in is the agent's business).
pub fn shape(events: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for event in events {
        let kind = match event["type"].as_str().unwrap() {
            "message" => format!("message:{}", event["role"].as_str().unwrap()),
            "tool_call" if event["update"] == true => "tool_call:update".to_owned(),
            other => other.to_owned(),
        };
        if kind == "message:agent" && kinds.last().is_some_and(|last| *last == kind) {
            continue;
        }
        kinds.push(kind);
    }
    kinds
}
