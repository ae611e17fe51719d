//! How `acp proxy` ends, and that its record loses nothing: killed with SIGTERM, SIGINT or
//! SIGHUP, or left by its client, in the middle of a stream, every message the client got is in
//! the record, the record is complete, and the agent and what it started are gone. Also:
//! `--append` adds a run with its own header, and a record that cannot be written is reported
//! at once while forwarding goes on.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/shell_agents.rs"]
mod shell_agents;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const ACP: &str = env!("CARGO_BIN_EXE_acp");

fn temp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()))
}

/// Sends `SIG<signal>` to `pid` (with the shell's `kill`).
fn send(signal: &str, pid: u32) {
    let sent = Command::new("sh")
        .args(["-c", &format!("kill -{signal} {pid}")])
        .status()
        .unwrap();
    assert!(sent.success());
}

fn streaming_proxy(record: &Path, pids: &Path) -> Child {
    let record = format!("--record={}", record.to_str().unwrap());
    shell_agents::streaming_proxy(&record, pids)
}

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(") ").map(|(_, rest)| &rest[..1]);
            !matches!(state, Some("Z" | "X"))
        }
        Err(_) => false,
    }
}

fn assert_gone(pids_file: &Path) {
    let pids: Vec<u32> = std::fs::read_to_string(pids_file)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "the agent and its grandchild");
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|pid| alive(*pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in pids {
        assert!(
            !alive(pid),
            "process {pid} of the agent's group is still running"
        );
    }
}

/// Waits until the agent has written `path` so far that `written` holds (within 10 s).
fn wait_for(path: &Path, written: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(path).is_ok_and(|s| written(&s)) {
        assert!(Instant::now() < deadline, "the agent never started");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until the agent has written both process ids to `pids`.
fn wait_for_file(pids: &Path) {
    wait_for(pids, |s| s.lines().count() >= 2);
}

/// Waits until the agent has written `started` (it runs, so the proxy that started it already
/// handles signals). A fixed sleep could be too short on a loaded machine.
fn wait_for_start(started: &Path) {
    wait_for(started, |s| s == "started\n");
}

/// The agent messages of the record, after checking that it is whole: a header, then one
/// complete entry per line.
fn recorded_agent_messages(record: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(record).unwrap();
    assert!(text.ends_with('\n'), "the record ends mid-line");
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["header"]["proxy"], "acp proxy");
    lines
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|entry| entry["from"] == "agent")
        .map(|entry| entry["message"].to_string())
        .collect()
}

fn normalize(line: &str) -> String {
    serde_json::from_str::<serde_json::Value>(line)
        .unwrap()
        .to_string()
}

/// The numbers of the streamed chunks, which must run 1, 2, 3, ... with no gap.
fn assert_contiguous(messages: &[String]) {
    for (k, message) in messages.iter().enumerate() {
        let value: serde_json::Value = serde_json::from_str(message).unwrap();
        let n: usize = value["params"]["update"]["content"]["text"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(n, k + 1, "the record skipped a message");
    }
}

/// The first `count` lines that the [`streaming_proxy`] forwards (normalized), and the rest
/// of its output to read, once its agent wrote its `pids`.
fn read_first(
    proxy: &mut Child,
    count: usize,
    pids: &Path,
) -> (BufReader<ChildStdout>, Vec<String>) {
    let mut stdout = BufReader::new(proxy.stdout.take().unwrap());
    let mut received = Vec::new();
    for _ in 0..count {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0);
        received.push(normalize(&line));
    }
    wait_for_file(pids);
    (stdout, received)
}

#[test]
fn a_signal_mid_stream_ends_the_proxy_with_a_complete_record_and_no_process_left() {
    for (signal, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let record = temp(&format!("signal-{signal}.ndjson"));
        let pids = temp(&format!("signal-{signal}.pids"));
        let mut proxy = streaming_proxy(&record, &pids);
        let (stdout, mut received) = read_first(&mut proxy, 300, &pids);
        send(signal, proxy.id());
        // Keep reading: the agent's output is forwarded until the agent is gone.
        for line in stdout.lines() {
            received.push(normalize(&line.unwrap()));
        }
        let status = proxy.wait().unwrap();
        assert_eq!(status.code(), Some(128 + number), "SIG{signal}");

        let recorded = recorded_agent_messages(&record);
        assert_contiguous(&recorded);
        // Everything the client got is in the record, in order, and nothing else was
        // forwarded (the client read to the end).
        assert_eq!(received, recorded, "SIG{signal}");
        assert!(recorded.len() > 300);
        assert_gone(&pids);
        std::fs::remove_file(&record).ok();
        std::fs::remove_file(&pids).ok();
    }
}

#[test]
fn the_client_leaving_mid_stream_ends_the_proxy_with_a_complete_record() {
    let record = temp("client-exit.ndjson");
    let pids = temp("client-exit.pids");
    let mut proxy = streaming_proxy(&record, &pids);
    let (stdout, received) = read_first(&mut proxy, 500, &pids);
    // The client goes away: both of its pipes close at once.
    drop(proxy.stdin.take());
    drop(stdout);
    let status = proxy.wait().unwrap();
    // The agent ignored the end of its input and was ended with SIGTERM after the grace
    // period; the proxy exits with its status.
    assert_eq!(status.code(), Some(128 + 15));

    let recorded = recorded_agent_messages(&record);
    assert_contiguous(&recorded);
    assert!(recorded.len() >= received.len());
    assert_eq!(&recorded[..received.len()], &received[..]);
    assert_gone(&pids);
    std::fs::remove_file(&record).ok();
    std::fs::remove_file(&pids).ok();
}

/// `acp proxy --grace-period 20` (input piped) for an agent that writes `started` to its
/// second file when it runs and `closed` to its first (the marker) once its input ends; with
/// those two files (named after `name`).
fn input_closing_proxy(name: &str) -> (Child, PathBuf, PathBuf) {
    let marker = temp(name);
    let running = temp(&format!("{name}-started"));
    let script = r#"echo started > "$2"; while read -r line; do :; done; echo closed > "$1""#;
    let proxy = Command::new(ACP)
        .args([
            "proxy",
            "--grace-period",
            "20",
            "--",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(&marker)
        .arg(&running)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (proxy, marker, running)
}

/// Fails unless the agent of [`input_closing_proxy`] saw its input close; removes its files.
fn assert_closed(marker: &Path, running: &Path) {
    assert_eq!(std::fs::read_to_string(marker).unwrap(), "closed\n");
    std::fs::remove_file(marker).ok();
    std::fs::remove_file(running).ok();
}

#[test]
fn on_a_signal_the_agent_sees_its_input_close_and_may_exit_by_itself() {
    let (mut proxy, marker, running) = input_closing_proxy("input-closed");
    // Wait until the agent runs (the proxy listens for signals from before it starts the
    // agent), then ask the proxy to end.
    wait_for_start(&running);
    send("TERM", proxy.id());
    let started = Instant::now();
    let status = proxy.wait().unwrap();
    assert_eq!(status.code(), Some(128 + 15));
    // Within the 20 s grace period: it was the end of its input that ended the agent.
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_closed(&marker, &running);
}

/// One request to stop often comes two or three times at once (Ctrl-C reaches the whole
/// foreground group; supervisors signal a process and its group): it still ends the agent
/// politely. A later second signal would kill it at once.
#[test]
fn a_signal_repeated_at_once_still_lets_the_agent_exit_by_itself() {
    let (mut proxy, marker, running) = input_closing_proxy("input-closed-twice");
    wait_for_start(&running);
    let pid = proxy.id();
    let sent = Command::new("sh")
        .args([
            "-c",
            &format!("kill -TERM {pid}; kill -INT {pid}; kill -TERM {pid}"),
        ])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = proxy.wait().unwrap();
    // Pending signals are delivered lowest number first, so either may be the one counted.
    assert!(
        matches!(status.code(), Some(130 | 143)),
        "exit status {status:?}"
    );
    assert_closed(&marker, &running);
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#;
const LOAD: &str = r#"{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s1","cwd":"/p","mcpServers":[]}}"#;
const USER: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"old"}}}}"#;
const NOTICE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"info","title":"Replayed"}}}"#;
const PROMPT: &str = r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}"#;
const CHUNK: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hi."}}}}"#;
const CRITICAL: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"critical","title":"Live"}}}"#;
const PROMPT_OK: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}"#;

/// An agent that answers `initialize`, replays a notice on `session/load` (and never answers
/// it), and answers `session/prompt` with a chunk, a notice of a reserved severity and its
/// response.
fn scripted_agent() -> String {
    format!(
        r#"while IFS= read -r line; do
  case "$line" in
    *'"method":"initialize"'*) printf '%s\n' '{INIT_OK}' ;;
    *'"method":"session/load"'*) printf '%s\n' '{USER}' '{NOTICE}' ;;
    *'"method":"session/prompt"'*) printf '%s\n' '{CHUNK}' '{CRITICAL}' '{PROMPT_OK}' ;;
  esac
done"#
    )
}

/// Runs the proxy with `flags`, sends `requests` (reading `answers[k]` lines after each), ends
/// the client's input, and returns standard error.
fn proxy_run(flags: &[&str], requests: &[(&str, usize)]) -> String {
    let mut proxy = Command::new(ACP)
        .arg("proxy")
        .args(flags)
        .args(["--", "sh", "-c", &scripted_agent()])
        .spawn_piped(Stdio::piped())
        .unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    let mut stdout = BufReader::new(proxy.stdout.take().unwrap());
    for (request, answers) in requests {
        stdin.write_all(format!("{request}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        for _ in 0..*answers {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0);
        }
    }
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let output = proxy.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn append_adds_a_run_with_its_own_header_and_check_starts_fresh_at_each() {
    let record = temp("append.ndjson");
    std::fs::remove_file(&record).ok();
    let path = record.to_str().unwrap();
    // Run 1 leaves the replay of s1 open (the agent never answers the load).
    let first = proxy_run(&["--record", path], &[(INIT, 1), (LOAD, 1)]);
    assert!(
        first.contains(&format!("{path}:6: warning[notice-in-replay]")),
        "{first}"
    );
    // Run 2, appended: a fresh connection, where the same session is live.
    let second = proxy_run(&["--record", path, "--append"], &[(INIT, 1), (PROMPT, 3)]);
    // Its findings are numbered like the lines of the whole file.
    assert_eq!(
        second
            .lines()
            .filter(|l| {
                l.strip_prefix(path)
                    .and_then(|r| r.strip_prefix(':'))
                    .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            })
            .map(|l| l[path.len()..]
                .split(':')
                .take(3)
                .collect::<Vec<_>>()
                .join(":"))
            .collect::<Vec<_>>(),
        [":12: info[reserved-severity]"],
        "{second}"
    );
    let text = std::fs::read_to_string(&record).unwrap();
    let headers = text
        .lines()
        .filter(|l| l.starts_with(r#"{"header":"#))
        .count();
    assert_eq!(headers, 2, "{text}");
    assert_eq!(text.lines().count(), 13, "{text}");

    let check = Command::new(ACP).args(["check", path]).output().unwrap();
    let out = String::from_utf8(check.stdout).unwrap();
    let expected = format!(
        "{path}:6: warning[notice-in-replay]: notice \"Replayed\" inside the replay of session \"s1\" (before the `session/load` response): notices are never history\n\
         {path}:12: info[reserved-severity]: notice \"Live\" has severity \"critical\", which is reserved for future ACP versions (known: info, warning, error; extensions start with `_`)\n\
         {path}: 11 messages in 2 runs, 2 findings: 0 errors, 1 warning, 1 info, 0 notes\n  notice-in-replay: 1\n  reserved-severity: 1\n"
    );
    assert_eq!(out, expected);
    std::fs::remove_file(&record).ok();
}

#[test]
fn append_ends_a_last_line_cut_short_before_the_new_run() {
    let record = temp("append-cut.ndjson");
    std::fs::write(
        &record,
        format!("{{\"from\":\"client\",\"message\":{INIT}}}\n{{\"from\":\"agent\",\"mess"),
    )
    .unwrap();
    let path = record.to_str().unwrap();
    proxy_run(&["--record", path, "--append"], &[(INIT, 1)]);
    let text = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[1], r#"{"from":"agent","mess"#);
    assert!(lines[2].starts_with(r#"{"header":"#));
    std::fs::remove_file(&record).ok();
}

#[test]
fn a_record_that_cannot_be_written_is_reported_at_once_and_forwarding_goes_on() {
    let mut proxy = Command::new(ACP)
        .args([
            "proxy",
            "--record",
            "/dev/full",
            "--",
            "sh",
            "-c",
            &scripted_agent(),
        ])
        .spawn_piped(Stdio::piped())
        .unwrap();
    let stderr = proxy.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    let mut stdin = proxy.stdin.take().unwrap();
    let mut stdout = BufReader::new(proxy.stdout.take().unwrap());
    stdin.write_all(format!("{INIT}\n").as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), INIT_OK, "forwarding goes on");
    // Reported while the proxy still runs.
    let report = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(
        report.starts_with("acp proxy: cannot write the record /dev/full:")
            && report.ends_with("forwarding goes on without it"),
        "{report}"
    );
    assert!(proxy.try_wait().unwrap().is_none());
    stdin.write_all(format!("{PROMPT}\n").as_bytes()).unwrap();
    stdin.flush().unwrap();
    for expected in [CHUNK, CRITICAL, PROMPT_OK] {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line.trim_end(), expected);
    }
    drop(stdin);
    let status = proxy.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    reader.join().unwrap();
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(
        rest.iter()
            .any(|l| l.contains("the record /dev/full stopped early, after 0 entries")),
        "{rest:?}"
    );
}
