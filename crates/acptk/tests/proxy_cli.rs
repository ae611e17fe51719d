//! `acp proxy` as a program, between a scripted client (this test) and a deliberately faulty
//! agent (a shell script): repairs happen, everything else arrives byte-identical and in
//! order, the record is the traffic before repair, and the agent's exit status is ours.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#;
const NEW_OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1"}}"#;
const NOTICE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"notice","severity":"warning","title":"MCP server db unavailable","description":"Continuing without it."}}}"#;
const USER: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"old prompt"}}}}"#;
const REPLAYED: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"notice","severity":"info","title":"Replayed by mistake"}}}"#;
const LOAD_OK: &str = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
const CHUNK: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello \u00e9\u4e16"}}}}"#;
const PROMPT_OK: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#;

/// A faulty v1 agent: it answers each request from a script, sends notices although the
/// client did not advertise them (and one inside the `session/load` replay), and exits with
/// status 3 when its input ends.
fn faulty_agent_script() -> String {
    let reply = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| format!("'{l}'"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        r#"while IFS= read -r line; do
  case "$line" in
    *'"method":"initialize"'*) printf '%s\n' {init} ;;
    *'"method":"session/new"'*) printf '%s\n' {new} ;;
    *'"method":"session/load"'*) printf '%s\n' {load} ;;
    *'"method":"session/prompt"'*) printf '%s\n' {prompt} ;;
  esac
done
exit 3"#,
        init = reply(&[INIT_OK]),
        new = reply(&[NEW_OK, NOTICE]),
        load = reply(&[USER, REPLAYED, LOAD_OK]),
        prompt = reply(&[CHUNK, NOTICE, PROMPT_OK]),
    )
}

struct Proxy {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Proxy {
    fn start(args: &[&str], agent: &[&str]) -> Proxy {
        let mut child = Command::new(env!("CARGO_BIN_EXE_acp"))
            .arg("proxy")
            .args(args)
            .arg("--")
            .args(agent)
            .spawn_piped(Stdio::piped())
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Proxy {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends a request and reads `count` lines: its response and what the agent sends around
    /// it. (Waiting for all of them keeps the order of events on both sides fixed.)
    fn request(&mut self, line: &str, count: usize) -> Vec<String> {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut lines = Vec::new();
        while lines.len() < count {
            let mut answer = String::new();
            assert!(
                self.stdout.read_line(&mut answer).unwrap() > 0,
                "eof after {lines:?}"
            );
            lines.push(answer.strip_suffix('\n').unwrap().to_owned());
        }
        lines
    }

    /// Closes the client's side and returns the exit status and standard error.
    fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        assert_eq!(rest, "");
        let output = self.child.wait_with_output().unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    }
}

fn fallback(line: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    let update = &value["params"]["update"];
    assert_eq!(update["sessionUpdate"], "agent_message_chunk", "{line}");
    assert!(update["messageId"].is_string(), "{line}");
    update["content"]["text"]
        .as_str()
        .unwrap()
        .trim()
        .to_owned()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}}"#;
const NEW: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}"#;
const LOAD: &str = r#"{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"sess_1","cwd":"/p","mcpServers":[]}}"#;
const PROMPT: &str = r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"sess_1","prompt":[{"type":"text","text":"hi"}]}}"#;

fn record_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    dir.join(format!("{name}-{}.ndjson", std::process::id()))
}

#[test]
fn the_proxy_repairs_a_faulty_agent_and_forwards_the_rest_unchanged() {
    let record = record_path("faulty");
    let record_arg = record.to_str().unwrap();
    let script = faulty_agent_script();
    let mut proxy = Proxy::start(&["--record", record_arg], &["sh", "-c", &script]);

    assert_eq!(proxy.request(INIT, 1), [INIT_OK]);
    let new = proxy.request(NEW, 2);
    assert_eq!(new[0], NEW_OK);
    let expected = "Warning: MCP server db unavailable - Continuing without it.";
    assert_eq!(fallback(&new[1]), expected);
    // The replayed notice is removed; the replay is otherwise untouched.
    assert_eq!(proxy.request(LOAD, 2), [USER, LOAD_OK]);
    let prompt = proxy.request(PROMPT, 3);
    assert_eq!(prompt[0], CHUNK);
    assert_eq!(fallback(&prompt[1]), expected);
    assert_eq!(prompt[2], PROMPT_OK);
    let (status, stderr) = proxy.finish();
    assert_eq!(status, 3, "the agent's exit status; stderr: {stderr}");

    // Each finding and repair on standard error, in the check format, naming the record.
    let at_line = |l: &&str| {
        l.strip_prefix(record_arg)
            .and_then(|rest| rest.strip_prefix(':'))
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    let reported: Vec<&str> = stderr.lines().filter(at_line).collect();
    let rules: Vec<String> = reported
        .iter()
        .map(|l| {
            l[record_arg.len()..]
                .split(':')
                .take(3)
                .collect::<Vec<_>>()
                .join(":")
        })
        .collect();
    assert_eq!(
        rules,
        [
            ":6: error[notice-without-capability]",
            ":6: note[repair]",
            ":9: error[notice-without-capability]",
            ":9: warning[notice-in-replay]",
            ":9: note[repair]",
            ":13: error[notice-without-capability]",
            ":13: note[repair]",
        ],
        "{stderr}"
    );

    // The record holds a header, then the traffic as sent, and `acp check` finds the same on
    // the same lines.
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert_eq!(recorded.lines().count(), 14, "{recorded}");
    let header: serde_json::Value = serde_json::from_str(recorded.lines().next().unwrap()).unwrap();
    assert_eq!(header["header"]["proxy"], "acp proxy");
    assert_eq!(header["header"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(header["header"]["agent"][0], "sh");
    assert!(header["header"]["time"].as_str().unwrap().ends_with('Z'));
    assert_eq!(recorded.matches(r#""sessionUpdate":"notice""#).count(), 3);
    let check = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args(["check", record_arg])
        .output()
        .unwrap();
    let check_out = String::from_utf8(check.stdout).unwrap();
    let live: Vec<&&str> = reported
        .iter()
        .filter(|l| !l.contains("[repair]"))
        .collect();
    let offline: Vec<&str> = check_out.lines().filter(at_line).collect();
    assert_eq!(offline, live.into_iter().copied().collect::<Vec<_>>());
    std::fs::remove_file(&record).ok();
}

#[test]
fn with_fallback_drop_notices_are_removed() {
    let script = faulty_agent_script();
    let mut proxy = Proxy::start(&["--fallback", "drop"], &["sh", "-c", &script]);
    assert_eq!(proxy.request(INIT, 1), [INIT_OK]);
    assert_eq!(proxy.request(NEW, 1), [NEW_OK]);
    assert_eq!(proxy.request(PROMPT, 2), [CHUNK, PROMPT_OK]);
    let (status, stderr) = proxy.finish();
    assert_eq!(status, 3);
    assert!(
        stderr.contains("<proxy>:5: error[notice-without-capability]"),
        "{stderr}"
    );
    assert!(stderr.contains("--fallback drop"), "{stderr}");
}

#[test]
fn an_agent_that_cannot_start_is_an_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args(["proxy", "--", "/nonexistent/agent-binary"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("cannot start the agent"), "{stderr}");
}

#[test]
fn the_agent_exiting_ends_the_proxy_even_while_the_client_stays() {
    // The client never closes its side; the agent exits on its own with status 0.
    let mut proxy = Proxy::start(
        &[],
        &["sh", "-c", &format!("printf '%s\\n' '{INIT_OK}'; exit 0")],
    );
    let mut line = String::new();
    proxy.stdout.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), INIT_OK);
    let status = proxy.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}
