//! `acp client` against the agents people use (codex-acp from two publishers, claude-agent-acp,
//! gemini-cli), with no credentials in an empty home directory: initialization works, every
//! sign-in method the agent offers is named, errors keep their code and data, the exit code
//! says what happened, and no process of the agent is left. Installed by
//! `scripts/interop-setup.sh`; without them the test skips (and fails with
//! `ACP_INTEROP_REQUIRED=1`).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/interop.rs"]
mod interop;
#[path = "support/scripted.rs"]
mod scripted;

use std::ffi::OsStr;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use scripted::{ACP, Run, finish, processes_with, text};

/// One run against a real agent.
struct Case {
    /// What identifies the agent's processes (part of their command lines).
    process: &'static str,
    /// The agent command, relative to the interop `node_modules`.
    command: &'static [&'static str],
    /// Extra `acp client` flags.
    flags: &'static [&'static str],
    /// The exit codes that are right (the agents' behaviour without credentials differs
    /// between environments, for example when run as root).
    codes: &'static [i32],
    /// Texts that must be on standard error.
    stderr: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        process: "codex-acp",
        command: &["node", "@zed-industries/codex-acp/bin/codex-acp.js"],
        flags: &[],
        codes: &[3],
        stderr: &[
            "the agent could not create a session: Authentication required (code -32000)",
            "\n  chatgpt  Login with ChatGPT",
            "\n  codex-api-key  Use CODEX_API_KEY",
            "[set CODEX_API_KEY for the agent]",
            "\n  openai-api-key  Use OPENAI_API_KEY",
            "pick one with --auth METHOD_ID",
        ],
    },
    Case {
        process: "codex-acp",
        command: &["node", "@zed-industries/codex-acp/bin/codex-acp.js"],
        flags: &["--auth", "openai-api-key"],
        codes: &[3],
        // An `env_var` method: its unset variable is named before anything is tried.
        stderr: &["--auth openai-api-key: set OPENAI_API_KEY for the agent"],
    },
    Case {
        process: "codex-acp",
        command: &[".bin/codex-acp"],
        flags: &[],
        codes: &[3],
        stderr: &[
            "Authentication required (code -32000)",
            "\n  api-key  API Key",
            "\n  chat-gpt  ChatGPT",
        ],
    },
    Case {
        process: "claude-agent-acp",
        command: &[".bin/claude-agent-acp"],
        flags: &[],
        codes: &[1, 3],
        stderr: &["acp: the agent could not create a session: ", "(code -32"],
    },
    Case {
        process: "gemini",
        command: &[".bin/gemini", "--experimental-acp"],
        flags: &[],
        codes: &[3],
        stderr: &[
            "(code -32000)",
            "\n  oauth-personal  Log in with Google",
            "\n  gemini-api-key  Gemini API key",
            "pick one with --auth METHOD_ID",
        ],
    },
];

/// codex-acp's sign-in methods in `--format json`: the `error` event lists them, with the
/// variables of its `env_var` methods.
#[test]
fn codex_lists_its_sign_in_methods_in_json() {
    let Some(peers) = interop::peers("codex_lists_its_sign_in_methods_in_json") else {
        return;
    };
    let run = Run::new("codex-json");
    let script = peers
        .node_modules()
        .join("@zed-industries/codex-acp/bin/codex-acp.js");
    let agent = [peers.node().into_os_string(), script.into_os_string()];
    let command = client_command(&run, &["--format", "json"], &agent);
    let output = finish_isolated(command, &run);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    let last: serde_json::Value =
        serde_json::from_str(text(&output.stdout).lines().last().unwrap_or("{}")).unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["code"], -32000);
    assert_eq!(last["exitCode"], 3);
    let methods = last["authMethods"].as_array().unwrap();
    let key = methods
        .iter()
        .find(|method| method["id"] == "openai-api-key")
        .unwrap_or_else(|| panic!("{methods:?}"));
    assert_eq!(key["kind"], "env_var");
    assert_eq!(key["vars"], serde_json::json!(["OPENAI_API_KEY"]));
    let left = left_in("codex", &run.dir);
    assert!(left.is_empty(), "codex-acp left {left:?} running");
}

/// The processes whose command line names `process` and whose working directory is `dir`
/// (the agents a run in `dir` started, not another test's).
fn left_in(process: &str, dir: &std::path::Path) -> Vec<u32> {
    processes_with(process)
        .into_iter()
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .collect()
}

/// Credentials that would change what the agents do.
const CREDENTIALS: &[&str] = &[
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
];

/// `acp client FLAGS --prompt hello` with a 60 s timeout and a 1 s grace period, in `run`'s
/// directory (also its `--cwd`), for the `agent` command.
fn client_command(run: &Run, flags: &[&str], agent: &[impl AsRef<OsStr>]) -> Command {
    let mut command = Command::new(ACP);
    command
        .arg("client")
        .args(flags)
        .args([
            "--prompt",
            "hello",
            "--timeout",
            "60",
            "--grace",
            "1",
            "--cwd",
        ])
        .arg(&run.dir)
        .arg("--")
        .args(agent)
        // The agent inherits this directory: it tells this run's processes from those of
        // the other test, which runs at the same time.
        .current_dir(&run.dir);
    command
}

/// Runs `command` (an `acp client` of a real agent) to its end within three minutes, with
/// `run`'s directory as its home and none of the [`CREDENTIALS`]; its output captured.
fn finish_isolated(mut command: Command, run: &Run) -> Output {
    command
        .env("HOME", &run.dir)
        .env("XDG_CONFIG_HOME", run.dir.join(".config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in CREDENTIALS {
        command.env_remove(name);
    }
    finish(command.spawn().unwrap(), Duration::from_secs(180))
}

#[test]
fn real_agents_initialize_name_their_sign_in_methods_and_leave_nothing_running() {
    let Some(peers) = interop::peers("real_agents_initialize_name_their_sign_in_methods") else {
        return;
    };
    for case in CASES {
        let run = Run::new("real-agent");
        let mut agent = Vec::new();
        for (index, part) in case.command.iter().enumerate() {
            agent.push(if index == 0 && *part == "node" {
                peers.node().display().to_string()
            } else if part.contains('/') {
                peers.node_modules().join(part).display().to_string()
            } else {
                (*part).to_owned()
            });
        }
        let mut command = client_command(&run, case.flags, &agent);
        command.env("NO_COLOR", "1");
        let output = finish_isolated(command, &run);
        let err = text(&output.stderr);
        let code = output.status.code().unwrap_or(-1);
        assert!(
            case.codes.contains(&code),
            "{:?} {:?}: exit {code}\nstdout:\n{}\nstderr:\n{err}",
            case.command,
            case.flags,
            text(&output.stdout)
        );
        for needle in case.stderr {
            assert!(
                err.contains(needle),
                "{:?} {:?}: {needle:?} missing in:\n{err}",
                case.command,
                case.flags
            );
        }
        // One message of ours, with no doubled prefixes (besides the session lines).
        let ours = scripted::client_messages(&err);
        assert_eq!(ours, 1, "{err}");
        let left = left_in(case.process, &run.dir);
        assert!(left.is_empty(), "{:?} left {left:?} running", case.command);
    }
}
