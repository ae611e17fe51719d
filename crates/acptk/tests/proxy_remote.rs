//! `acp proxy` on remote connections. `--listen`: `acp client --url` through the proxy in
//! front of a stdio agent (the proxy's notice repair works remotely), one agent process per
//! connection (both ended when their connections close), a record of two concurrent
//! connections that `acp check` reads cleanly, and SIGTERM ending open connections. `--url`:
//! a stdio client (`acp client -- acp proxy --url ...`) using `acp agent --listen`, and the
//! exit code for an agent that cannot be reached.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/listening.rs"]
mod listening;
#[path = "support/scratch.rs"]
mod scratch;
#[path = "support/scripted.rs"]
mod scripted;
#[path = "support/shell_agents.rs"]
mod shell_agents;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use acptk_runtime::transport::remote::{ClientOptions, connect};
use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};
use listening::{Listening, events, runtime};
use serde_json::Value;
use shell_agents::NOTICING_AGENT;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

fn client(url: &str, flags: &[&str]) -> Output {
    Command::new(ACP)
        .args(["client", "--url", url])
        .args(flags)
        .args(["--timeout", "30", "--format", "json"])
        .env_remove("ACP_TOKEN")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The notices and the agent's message text of a client's run.
fn notices_and_text(output: &Output) -> (Vec<Value>, String) {
    let events = events(output);
    let notices = events
        .iter()
        .filter(|e| e["type"] == "notice")
        .cloned()
        .collect();
    let text = events
        .iter()
        .filter(|e| e["type"] == "message" && e["role"] == "agent")
        .filter_map(|e| e["text"].as_str())
        .collect::<String>();
    (notices, text)
}

fn scratch(name: &str) -> PathBuf {
    scratch::fresh_dir(&format!("proxy-remote-{name}"))
}

/// The pids the scripted agents of `dir` wrote, once there are `count` (waits up to 10 s).
fn pids(dir: &std::path::Path, count: usize) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let pids: Vec<u32> = std::fs::read_to_string(dir.join("agent.pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect();
        if pids.len() >= count || Instant::now() > deadline {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_gone(pids: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while pids.iter().any(|pid| scripted::alive(*pid)) {
        assert!(Instant::now() < deadline, "agent processes left: {pids:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;

/// The next message of `reader` as JSON (10 s at most).
async fn next(reader: &mut impl MessageReader) -> Value {
    match tokio::time::timeout(Duration::from_secs(10), reader.read())
        .await
        .expect("an answer within 10 s")
        .unwrap()
    {
        Frame::Message(message) => serde_json::from_slice(&message).unwrap(),
        other => panic!("expected a message, got {other:?}"),
    }
}

/// A WebSocket connection to `url` on which `initialize` has been answered.
async fn initialized(url: &str) -> (impl MessageReader, impl MessageWriter) {
    let (mut reader, mut writer) = connect(url, &ClientOptions::new()).await.unwrap();
    writer.write(INIT.as_bytes()).await.unwrap();
    writer.flush().await.unwrap();
    assert_eq!(next(&mut reader).await["id"], 0);
    (reader, writer)
}

#[test]
fn a_remote_client_gets_notices_or_the_proxys_repair() {
    let proxy = Listening::proxy(&[], &["sh", "-c", NOTICING_AGENT], &[]);
    let prompt = ["--protocol", "1", "--prompt", "hi"];
    let with = client(&proxy.url, &prompt);
    spawn::assert_succeeded(&with, "");
    let (notices, text) = notices_and_text(&with);
    assert_eq!(notices.len(), 1, "{:?}", events(&with));
    assert_eq!(notices[0]["title"], "Disk almost full");
    assert!(text.is_empty(), "{text}");

    let mut flags = prompt.to_vec();
    flags.push("--no-notices");
    let without = client(&proxy.url, &flags);
    spawn::assert_succeeded(&without, "");
    let (notices, text) = notices_and_text(&without);
    assert!(notices.is_empty(), "{:?}", events(&without));
    assert!(text.contains("Disk almost full"), "{text}");
    // The repair is reported on the proxy's standard error, in the check format.
    let stderr = proxy.stderr_until(|text| text.contains("[repair]"), Duration::from_secs(10));
    assert!(stderr.contains("[repair]"), "no repair reported: {stderr}");
}

/// `acp proxy --listen FLAGS...` in front of the scripted agent (`ok`), which keeps its files
/// in `dir`.
fn scripted_proxy(flags: &[&str], dir: &std::path::Path) -> Listening {
    let script = scripted::script();
    Listening::proxy(
        flags,
        &["sh", script.to_str().unwrap(), "ok"],
        &[("ACP_TEST_DIR", dir.to_str().unwrap())],
    )
}

#[test]
fn each_connection_gets_its_own_agent_and_both_end_with_their_connections() {
    let dir = scratch("two");
    let proxy = scripted_proxy(&[], &dir);
    let url = proxy.url.clone();
    let agents = runtime().block_on(async {
        let options = ClientOptions::new();
        let (mut first_in, mut first_out) = connect(&url, &options).await.unwrap();
        let (mut second_in, mut second_out) = connect(&url, &options).await.unwrap();
        for writer in [&mut first_out, &mut second_out] {
            writer.write(INIT.as_bytes()).await.unwrap();
            writer.flush().await.unwrap();
        }
        assert_eq!(next(&mut first_in).await["id"], 0);
        assert_eq!(next(&mut second_in).await["id"], 0);
        let agents = pids(&dir, 2);
        assert_eq!(agents.len(), 2, "{agents:?}");
        assert_ne!(agents[0], agents[1]);
        assert!(agents.iter().all(|pid| scripted::alive(*pid)));
        // Closing one connection ends its agent only.
        first_out.close().await.unwrap();
        drop((first_in, first_out));
        let deadline = Instant::now() + Duration::from_secs(15);
        while agents.iter().all(|pid| scripted::alive(*pid)) {
            assert!(Instant::now() < deadline, "the first agent is still running");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(
            agents.iter().filter(|pid| scripted::alive(**pid)).count(),
            1
        );
        // The second connection still works.
        second_out
            .write(br#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#)
            .await
            .unwrap();
        second_out.flush().await.unwrap();
        assert_eq!(next(&mut second_in).await["result"]["sessionId"], "s1");
        // Vanishing without a close frame ends the other one.
        drop((second_in, second_out));
        agents
    });
    wait_gone(&agents);
    drop(proxy);
}

#[test]
fn a_record_of_two_concurrent_connections_checks_cleanly() {
    let dir = scratch("record");
    let record = dir.join("remote.ndjson");
    let mut proxy = scripted_proxy(&["--record", record.to_str().unwrap()], &dir);
    let url = proxy.url.clone();
    let agents = runtime().block_on(async {
        let options = ClientOptions::new();
        let (mut first_in, mut first_out) = connect(&url, &options).await.unwrap();
        let (mut second_in, mut second_out) = connect(&url, &options).await.unwrap();
        // Interleaved: one message of each, in turn.
        let steps = [
            INIT,
            r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}"#,
        ];
        for (id, step) in steps.iter().enumerate() {
            for (reader, writer) in [
                (&mut first_in, &mut first_out),
                (&mut second_in, &mut second_out),
            ] {
                writer.write(step.as_bytes()).await.unwrap();
                writer.flush().await.unwrap();
                loop {
                    let message = next(reader).await;
                    if message["id"] == id as u64 {
                        break;
                    }
                }
            }
        }
        let agents = pids(&dir, 2);
        first_out.close().await.unwrap();
        second_out.close().await.unwrap();
        agents
    });
    wait_gone(&agents);
    // Each run is added once its connection has ended; SIGTERM waits for that.
    assert_eq!(proxy.terminate(), Some(0));
    let text = std::fs::read_to_string(&record).unwrap();
    let headers = text
        .lines()
        .filter(|l| l.starts_with(r#"{"header""#))
        .count();
    assert_eq!(headers, 2, "{text}");
    // No run's lines between another run's header and its end.
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let second_header = lines
        .iter()
        .skip(1)
        .position(|l| l.get("header").is_some())
        .unwrap()
        + 1;
    let inits = |part: &[Value]| {
        part.iter()
            .filter(|l| l["message"]["method"] == "initialize")
            .count()
    };
    assert_eq!(inits(&lines[..second_header]), 1, "{text}");
    assert_eq!(inits(&lines[second_header..]), 1, "{text}");
    assert_eq!(
        part_files(&dir),
        Vec::<PathBuf>::new(),
        "a connection's part file was left"
    );
    let report = check_cleanly(&record);
    assert!(report.contains("in 2 runs"), "{report}");
}

/// The `.part` files in `dir`.
fn part_files(dir: &std::path::Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".part"))
        .collect()
}

/// `acp check RECORD`'s report, which must have found nothing (exit code 0).
fn check_cleanly(record: &std::path::Path) -> String {
    let check = Command::new(ACP)
        .args(["check", record.to_str().unwrap()])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout).into_owned();
    assert_eq!(check.status.code(), Some(0), "{report}");
    report
}

#[test]
fn sigterm_ends_the_open_connections_and_their_agents() {
    let dir = scratch("sigterm");
    let mut proxy = scripted_proxy(&[], &dir);
    let url = proxy.url.clone();
    let rt = runtime();
    let (mut reader, writer) = rt.block_on(initialized(&url));
    let agents = pids(&dir, 1);
    assert_eq!(agents.len(), 1);
    assert_eq!(proxy.terminate(), Some(0));
    wait_gone(&agents);
    // The client sees its connection end.
    let end = rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(10), reader.read())
            .await
            .expect("the connection ends")
    });
    assert!(matches!(end, Ok(Frame::End) | Err(_)), "{end:?}");
    drop(writer);
}

#[test]
fn the_run_of_a_killed_proxy_is_kept_and_added_by_the_next_one_with_append() {
    let dir = scratch("killed");
    let record = dir.join("remote.ndjson");
    let script = scripted::script();
    let agent = ["sh", script.to_str().unwrap(), "ok"];
    let envs = [("ACP_TEST_DIR", dir.to_str().unwrap())];
    let replace = ["--record", record.to_str().unwrap()];
    let append = ["--append", "--record", record.to_str().unwrap()];

    let mut killed = Listening::proxy(&replace, &agent, &envs);
    let url = killed.url.clone();
    let rt = runtime();
    let connection = rt.block_on(initialized(&url));
    let agents = pids(&dir, 1);
    assert_eq!(killed.signal("KILL"), None);
    // Its agent's input closed with it.
    wait_gone(&agents);
    drop(connection);
    let parts = part_files(&dir);
    assert_eq!(parts.len(), 1, "{parts:?}");

    // Replacing the record: the part is kept, and named.
    let mut replacing = Listening::proxy(&replace, &agent, &envs);
    let shown = parts[0].display().to_string();
    assert!(
        replacing
            .before
            .iter()
            .any(|line| line.contains("warning") && line.contains(&shown)),
        "{:?}",
        replacing.before
    );
    assert_eq!(replacing.terminate(), Some(0));
    assert_eq!(part_files(&dir), parts);

    // Appending: the part becomes a run of the record, and is removed.
    let mut appending = Listening::proxy(&append, &agent, &envs);
    assert!(
        appending.said_before("added the run of connection 1"),
        "{:?}",
        appending.before
    );
    assert_eq!(appending.terminate(), Some(0));
    assert_eq!(part_files(&dir), Vec::<PathBuf>::new());
    let text = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(lines[0].get("header").is_some(), "{text}");
    assert!(
        lines.iter().any(|l| l["message"]["method"] == "initialize"),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["message"]["id"] == 0 && l["message"].get("result").is_some()),
        "{text}"
    );
    // Added once: by the appending proxy, not by the replacing one.
    let report = check_cleanly(&record);
    assert!(report.contains("in 1 run"), "{report}");
}

#[test]
fn a_stdio_client_uses_a_remote_agent_through_proxy_url() {
    let agent = Listening::start(&["--ephemeral"], &[]);
    for no_notices in [false, true] {
        let mut command = Command::new(ACP);
        command
            .args([
                "client",
                "--protocol",
                "1",
                "--format",
                "json",
                "--timeout",
                "30",
            ])
            .args(["--prompt", "/notice warning Disk almost full -- 95% used"]);
        if no_notices {
            command.arg("--no-notices");
        }
        let output = command
            .args(["--", ACP, "proxy", "--url", &agent.url])
            .env_remove("ACP_TOKEN")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        spawn::assert_succeeded(&output, "");
        let (notices, text) = notices_and_text(&output);
        if no_notices {
            assert!(notices.is_empty(), "{:?}", events(&output));
            assert_eq!(text, "Warning: Disk almost full - 95% used");
        } else {
            assert_eq!(notices.len(), 1, "{:?}", events(&output));
            assert!(text.is_empty(), "{text}");
        }
    }
}

#[test]
fn proxy_url_records_and_ends_on_end_of_input() {
    let agent = Listening::start(&["--ephemeral"], &[]);
    let dir = scratch("url-record");
    let record = dir.join("url.ndjson");
    let mut child = Command::new(ACP)
        .args([
            "proxy",
            "--record",
            record.to_str().unwrap(),
            "--url",
            &agent.url,
        ])
        .spawn_piped(Stdio::piped())
        .unwrap();
    {
        use std::io::{BufRead, BufReader, Write};
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{INIT}").unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], 0, "{line}");
        assert_eq!(answer["result"]["protocolVersion"], 1, "{line}");
    }
    // Standard input closed: the proxy closes the connection and exits 0.
    let Some(status) = spawn::exited_within(&mut child, Duration::from_secs(15)) else {
        let _ = child.kill();
        panic!("acp proxy --url did not end after its input closed");
    };
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    let check = Command::new(ACP)
        .args(["check", record.to_str().unwrap()])
        .output()
        .unwrap();
    spawn::assert_succeeded(&check, "");
}

#[test]
fn proxy_url_exits_5_when_the_agent_cannot_be_reached() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let output = Command::new(ACP)
        .args(["proxy", "--url", &format!("ws://127.0.0.1:{port}/acp")])
        .env_remove("ACP_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(&port.to_string()),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_session_and_idle_limits_are_flags_of_both_listeners() {
    let script = scripted::script();
    let proxy = Listening::proxy(
        &["--max-sessions", "1"],
        &["sh", script.to_str().unwrap(), "ok"],
        &[],
    );
    let agent = Listening::start(&["--ephemeral", "--idle-timeout", "0.3"], &[]);
    let (proxy_url, agent_url) = (proxy.url.clone(), agent.url.clone());
    runtime().block_on(async {
        let new = br#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#;
        let again = br#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#;
        let (mut reader, mut writer) = connect(&proxy_url, &ClientOptions::new()).await.unwrap();
        let mut answers = Vec::new();
        for message in [INIT.as_bytes(), new, again] {
            writer.write(message).await.unwrap();
            writer.flush().await.unwrap();
            answers.push(next(&mut reader).await);
        }
        assert_eq!(answers[0]["id"], 0);
        assert_eq!(answers[1]["result"]["sessionId"], "s1");
        let refused = &answers[2];
        assert_eq!(refused["id"], 2, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("1 sessions"),
            "{refused}"
        );

        let (mut reader, mut writer) = connect(&agent_url, &ClientOptions::new()).await.unwrap();
        writer.write(INIT.as_bytes()).await.unwrap();
        writer.flush().await.unwrap();
        assert_eq!(next(&mut reader).await["id"], 0);
        let started = Instant::now();
        let end = tokio::time::timeout(Duration::from_secs(10), reader.read())
            .await
            .expect("the idle connection is closed");
        assert!(matches!(end, Ok(Frame::End)), "{end:?}");
        assert!(started.elapsed() >= Duration::from_millis(200));
    });
    // The refusal is logged on the proxy's standard error.
    let refused = |text: &str| text.contains("refused `session/new`");
    let stderr = proxy.stderr_until(refused, Duration::from_secs(10));
    assert!(refused(&stderr), "no refusal logged: {stderr}");
}

/// One HTTP/1.1 request to `address`: the status, the `Acp-Connection-Id` and the body.
fn http(
    address: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Option<String>, String) {
    use std::io::{Read, Write};
    let mut text = format!("{method} /acp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(text.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let (status, id) = listening::status_and_connection(head);
    (status, id, body.to_owned())
}

#[test]
fn a_streamable_http_connection_gets_its_own_agent_ended_by_delete() {
    let dir = scratch("http");
    let proxy = scripted_proxy(&[], &dir);
    let address = proxy.address().to_owned();
    let json = ("Content-Type", "application/json");
    let (status, id, body) = http(&address, "POST", &[json], INIT);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""protocolVersion":1"#), "{body}");
    let id = id.expect("a connection id");
    let agents = pids(&dir, 1);
    assert_eq!(agents.len(), 1);
    assert!(scripted::alive(agents[0]));
    let (status, _, _) = http(&address, "DELETE", &[("Acp-Connection-Id", &id)], "");
    assert_eq!(status, 202);
    wait_gone(&agents);
    let (status, _, _) = http(&address, "POST", &[json, ("Acp-Connection-Id", &id)], INIT);
    assert_eq!(status, 404);
}
