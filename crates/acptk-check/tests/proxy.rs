//! The proxy's forwarding core over in-memory pipes: repairs of a deliberately faulty agent,
//! byte-identical forwarding of everything else, the record, long lines and end of input.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_check::proxy::ProxyOptions;
use acptk_check::repair::Fallback;
use acptk_check::{CheckOptions, Rule, check_bytes};
use support::{Run, run};

const SESSION: &str = "sess_1";

fn init_v1(notices: bool) -> String {
    let caps = if notices {
        r#"{"session":{"notices":{}}}"#
    } else {
        "{}"
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":1,"clientCapabilities":{caps}}}}}"#
    )
}
const INIT_V1_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#;
const INIT_V2: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"1"}}}"#;
const INIT_V2_OK: &str =
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"1"}}}"#;
const NEW: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}"#;
const NEW_OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1"}}"#;
const LOAD: &str = r#"{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"sess_1","cwd":"/p","mcpServers":[]}}"#;
const LOAD_OK: &str = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
const RESUME: &str = r#"{"jsonrpc":"2.0","id":2,"method":"session/resume","params":{"sessionId":"sess_1","cwd":"/p","replayFrom":{"type":"start"}}}"#;
const REPLAY_COMPLETE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"replay_complete"}}}"#;
const RESUME_OK: &str = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
const USER: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"old prompt"}}}}"#;
const USER_V2: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"user_message_chunk","messageId":"u1","content":{"type":"text","text":"old prompt"}}}}"#;
const CHUNK: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello."}}}}"#;

fn notice(severity: &str, title: &str, description: Option<&str>) -> String {
    let description = description.map_or(String::new(), |d| format!(r#","description":"{d}""#));
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{SESSION}","update":{{"sessionUpdate":"notice","severity":"{severity}","title":"{title}"{description}}}}}}}"#
    )
}

fn lines(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect()
}

/// The text of the agent message in a replaced line, without the blank lines that set it
/// apart; the line is an agent message of its own (its own `messageId`).
fn fallback_text(line: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(value["method"], "session/update");
    assert_eq!(value["params"]["sessionId"], SESSION);
    let update = &value["params"]["update"];
    assert_eq!(update["sessionUpdate"], "agent_message_chunk");
    assert!(
        update["messageId"]
            .as_str()
            .unwrap()
            .starts_with("acp-proxy-"),
        "{line}"
    );
    let text = update["content"]["text"].as_str().unwrap();
    text.strip_prefix("\n\n")
        .and_then(|t| t.strip_suffix("\n\n"))
        .unwrap_or_else(|| panic!("not set apart: {text:?}"))
        .to_owned()
}

fn rules(run: &Run) -> Vec<(u64, Rule)> {
    run.findings.iter().map(|f| (f.line, f.rule)).collect()
}

/// A v1 client without `session.notices`, and an agent that sends notices anyway, one of
/// them inside a `session/load` replay.
fn faulty_v1_session(notices: bool) -> (Vec<String>, Vec<Vec<String>>) {
    let warning = notice(
        "warning",
        "MCP server db unavailable",
        Some("Continuing without it."),
    );
    let client = vec![init_v1(notices), NEW.to_owned(), LOAD.to_owned()];
    let agent = vec![
        vec![INIT_V1_OK.to_owned()],
        vec![NEW_OK.to_owned(), warning.clone(), CHUNK.to_owned()],
        vec![
            USER.to_owned(),
            notice("info", "Replayed by mistake", None),
            CHUNK.to_owned(),
            LOAD_OK.to_owned(),
            warning,
        ],
    ];
    (client, agent)
}

#[tokio::test]
async fn notices_to_a_v1_client_without_the_capability_become_agent_messages() {
    let (client, agent) = faulty_v1_session(false);
    let run = run(&client, &agent, ProxyOptions::new().timestamps(false)).await;

    // The agent got exactly what the client sent.
    assert_eq!(
        run.agent_received,
        lines(&client.iter().map(String::as_str).collect::<Vec<_>>())
    );
    let received = String::from_utf8(run.client_received.clone()).unwrap();
    let got: Vec<&str> = received.lines().collect();
    assert_eq!(got.len(), 8, "{received}");
    assert_eq!(got[0], INIT_V1_OK);
    assert_eq!(got[1], NEW_OK);
    let expected = acptk_runtime::Notice::warning("MCP server db unavailable")
        .description("Continuing without it.")
        .fallback_text();
    assert_eq!(fallback_text(got[2]), expected);
    assert_eq!(
        expected,
        "Warning: MCP server db unavailable - Continuing without it."
    );
    assert_eq!(got[3], CHUNK);
    // The replayed notice is gone; the rest of the replay is untouched.
    assert_eq!(&got[4..6], &[USER, CHUNK]);
    assert_eq!(got[6], LOAD_OK);
    // The live notice after the replay falls back like the first one.
    assert_eq!(fallback_text(got[7]), expected);

    assert_eq!(
        rules(&run),
        vec![
            (5, Rule::NoticeWithoutCapability),
            (5, Rule::Repair),
            (9, Rule::NoticeWithoutCapability),
            (9, Rule::NoticeInReplay),
            (9, Rule::Repair),
            (12, Rule::NoticeWithoutCapability),
            (12, Rule::Repair),
        ]
    );
}

#[tokio::test]
async fn with_fallback_drop_the_notices_are_removed() {
    let (client, agent) = faulty_v1_session(false);
    let run = run(
        &client,
        &agent,
        ProxyOptions::new().fallback(Fallback::Drop),
    )
    .await;
    let expected = lines(&[INIT_V1_OK, NEW_OK, CHUNK, USER, CHUNK, LOAD_OK]);
    assert_eq!(run.client_received, expected);
    assert_eq!(run.summary_repairs(), 3);
}

#[tokio::test]
async fn a_client_with_the_capability_gets_the_notices_byte_for_byte_except_in_replays() {
    let (client, agent) = faulty_v1_session(true);
    let run = run(&client, &agent, ProxyOptions::new()).await;
    let warning = notice(
        "warning",
        "MCP server db unavailable",
        Some("Continuing without it."),
    );
    let expected = lines(&[
        INIT_V1_OK, NEW_OK, &warning, CHUNK, USER, CHUNK, LOAD_OK, &warning,
    ]);
    assert_eq!(run.client_received, expected);
    assert_eq!(
        rules(&run),
        vec![(9, Rule::NoticeInReplay), (9, Rule::Repair)]
    );
}

#[tokio::test]
async fn v2_notices_pass_except_inside_a_resume_replay() {
    let live = notice("warning", "Still degraded", None);
    let client = vec![INIT_V2.to_owned(), RESUME.to_owned()];
    let agent = vec![
        vec![INIT_V2_OK.to_owned()],
        vec![
            USER_V2.to_owned(),
            notice("info", "Replayed", None),
            REPLAY_COMPLETE.to_owned(),
            RESUME_OK.to_owned(),
            live.clone(),
        ],
    ];
    let run = run(&client, &agent, ProxyOptions::new()).await;
    assert_eq!(
        run.client_received,
        lines(&[INIT_V2_OK, USER_V2, REPLAY_COMPLETE, RESUME_OK, &live])
    );
    assert_eq!(
        rules(&run),
        vec![(5, Rule::NoticeInReplay), (5, Rule::Repair)]
    );
}

#[tokio::test]
async fn the_record_is_the_traffic_before_repair_and_checks_the_same() {
    let (client, agent) = faulty_v1_session(false);
    let run = run(&client, &agent, ProxyOptions::new()).await;
    let record = String::from_utf8(run.record.clone()).unwrap();
    assert_eq!(record.lines().count(), 12, "{record}");
    for line in record.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(entry["timestamp"].as_str().unwrap().ends_with('Z'));
        assert!(entry["from"] == "client" || entry["from"] == "agent");
    }
    // The notices are in the record as the agent sent them.
    assert_eq!(record.matches(r#""sessionUpdate":"notice""#).count(), 3);
    // Checking the record finds what the proxy found live, on the same lines.
    let (findings, _) = check_bytes(record.as_bytes(), &CheckOptions::new());
    let offline: Vec<(u64, Rule)> = findings.iter().map(|f| (f.line, f.rule)).collect();
    let live: Vec<(u64, Rule)> = rules(&run)
        .into_iter()
        .filter(|(_, r)| *r != Rule::Repair)
        .collect();
    assert_eq!(offline, live);
}

#[tokio::test]
async fn lines_over_the_limit_stream_through_unchanged() {
    let long = format!(
        r#"{{"jsonrpc":"2.0","method":"_big","params":"{}"}}"#,
        "y".repeat(300_000)
    );
    let client = vec![init_v1(false), long.clone(), NEW.to_owned()];
    let agent = vec![
        vec![INIT_V1_OK.to_owned()],
        vec![long.clone()],
        vec![NEW_OK.to_owned()],
    ];
    let run = run(
        &client,
        &agent,
        ProxyOptions::new().max_line(1024).timestamps(false),
    )
    .await;
    assert_eq!(run.agent_received, lines(&[&init_v1(false), &long, NEW]));
    assert_eq!(run.client_received, lines(&[INIT_V1_OK, &long, NEW_OK]));
    let too_long: Vec<u64> = run
        .findings
        .iter()
        .filter(|f| f.rule == Rule::LineTooLong)
        .map(|f| f.line)
        .collect();
    assert_eq!(too_long.len(), 2);
    assert!(
        String::from_utf8(run.record)
            .unwrap()
            .contains(r#""too_long":1024"#)
    );
}

#[tokio::test]
async fn odd_lines_pass_byte_for_byte() {
    let client: Vec<Vec<u8>> = vec![
        b"not json at all\r\n".to_vec(),
        b"\n".to_vec(),
        b"   \t \n".to_vec(),
        b"{\"bytes\":\"\xff\xfe\"}\n".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}  \n".to_vec(),
        b"no newline at the end".to_vec(),
    ];
    let run = support::run_raw(&client, &[]).await;
    assert_eq!(run.agent_received, client.concat());
    assert!(run.client_received.is_empty());
    let invalid = run
        .findings
        .iter()
        .filter(|f| f.rule == Rule::InvalidMessage)
        .count();
    assert_eq!(invalid, 3, "{:?}", run.findings);
}

#[tokio::test]
async fn the_record_is_written_while_the_connection_is_open() {
    use tokio::io::AsyncWriteExt;

    // All four ends stay open: nobody ends the connection.
    let mut pipes = support::start(4096, ProxyOptions::new());
    let record = pipes.proxy.record.clone();
    pipes
        .client_writer
        .write_all(format!("{}\n", init_v1(true)).as_bytes())
        .await
        .unwrap();
    // Nobody ends the connection: the entry must reach the record anyway.
    let recorded = async {
        loop {
            if record.0.lock().unwrap().ends_with(b"\n") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), recorded)
        .await
        .expect("the record stayed empty while the connection was open");
    assert!(!pipes.proxy.task.is_finished());
    let record = String::from_utf8(record.0.lock().unwrap().clone()).unwrap();
    assert!(record.contains(r#""method":"initialize""#), "{record}");
    pipes.proxy.task.abort();
}

#[tokio::test]
async fn every_line_is_in_the_record_before_the_peer_can_read_it() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let pipes = support::start(4096, ProxyOptions::new().timestamps(false));
    let record = pipes.proxy.record.clone();
    let mut agent_writer = pipes.agent_writer;
    let lines: Vec<String> = (0..3000)
        .map(|i| CHUNK.replace("Hello.", &format!("chunk {i}")))
        .collect();
    let stream: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let writer = tokio::spawn(async move {
        // Bursts of varied sizes, so that batches end in every kind of place.
        for piece in stream.as_bytes().chunks(1777) {
            agent_writer.write_all(piece).await.unwrap();
        }
        drop(agent_writer);
    });
    let mut reader = BufReader::new(pipes.client_reader);
    let mut line = String::new();
    // Entries are in order: each is searched after the previous one.
    let mut from = 0;
    for expected in &lines {
        line.clear();
        assert!(reader.read_line(&mut line).await.unwrap() > 0);
        assert_eq!(line.trim_end(), expected);
        let recorded = record.0.lock().unwrap();
        let recorded = std::str::from_utf8(&recorded[from..]).unwrap();
        let entry = format!(r#""message":{expected}}}"#);
        let at = recorded
            .find(&entry)
            .unwrap_or_else(|| panic!("forwarded before it was recorded: {expected}"));
        from += at + entry.len();
    }
    writer.await.unwrap();
    drop(pipes.client_writer);
    pipes.proxy.task.await.unwrap().unwrap();
}

/// A record that fails once `room` bytes are written.
struct Failing {
    room: usize,
}

impl std::io::Write for Failing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.room {
            return Err(std::io::Error::other("disk full"));
        }
        self.room -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_failing_record_is_reported_at_once_and_forwarding_goes_on() {
    use acptk_check::proxy::{self, Hooks};
    use std::sync::{Arc, Mutex};
    use tokio::io::{AsyncReadExt, AsyncWriteExt, duplex};

    let (client_writer, client_in) = duplex(4096);
    let (client_out, mut client_reader) = duplex(64 * 1024);
    let (agent_in, _agent_reader) = duplex(4096);
    let (mut agent_writer, agent_out) = duplex(4096);
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    let hooks = Hooks::new(|_| {})
        .record(Failing { room: 1000 })
        .on_record_error(move |e| sink.lock().unwrap().push(e.to_string()));
    let proxy = tokio::spawn(proxy::run(
        client_in,
        client_out,
        agent_in,
        agent_out,
        ProxyOptions::new(),
        hooks,
    ));
    // Line by line, so that each is a batch of its own.
    for i in 0..20 {
        let line = CHUNK.replace("Hello.", &format!("chunk {i}"));
        agent_writer
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        let mut got = vec![0u8; line.len() + 1];
        client_reader.read_exact(&mut got).await.unwrap();
        assert_eq!(got, format!("{line}\n").into_bytes());
        if i == 10 {
            // Told once, as soon as it happened (about the fifth line).
            assert_eq!(*errors.lock().unwrap(), ["disk full"]);
        }
    }
    drop(agent_writer);
    drop(client_writer);
    let report = proxy.await.unwrap().unwrap();
    assert_eq!(errors.lock().unwrap().len(), 1);
    assert_eq!(report.record_error.unwrap().to_string(), "disk full");
    assert!(
        report.recorded > 0 && report.recorded < 20,
        "{}",
        report.recorded
    );
    assert_eq!(report.summary.messages, 20);
}
