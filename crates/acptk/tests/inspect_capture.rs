//! `acp proxy --capture`: what the client received was written ahead (even when the proxy is
//! killed with SIGKILL mid-stream, its spool has it and `acp inspect` moves it into the
//! database), several proxies capture into one database at once,
//! a repaired notice is on the notice lane with what the client got instead, and `--listen`
//! captures each connection on its own.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a failing test may panic

#[path = "support/listening.rs"]
mod listening;

#[path = "support/scratch.rs"]
mod scratch;
#[path = "support/shell_agents.rs"]
mod shell_agents;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use acptk_inspect::{Outcome, Store};
use scratch::scratch;
use shell_agents::{NOTICING_AGENT, streaming_proxy};

const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// An agent that streams `$1` numbered chunks and exits.
const FINITE_AGENT: &str = r#"i=0
while [ $i -lt "$1" ]; do
  i=$((i+1))
  printf '%s%d%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"' "$i" '"}}}}'
done"#;

/// The chunk number of a streamed update.
fn number(line: &str) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    value["params"]["update"]["content"]["text"]
        .as_str()?
        .parse()
        .ok()
}

/// The chunk numbers the agent's frames of capture `id` hold, in order.
fn captured(store: &Store, id: i64) -> Vec<u64> {
    let mut numbers = Vec::new();
    store
        .each_frame(id, |frame, raw| {
            assert_eq!(frame.side, acptk_check::Side::Agent);
            numbers.push(number(std::str::from_utf8(raw).unwrap()).unwrap());
            Ok(())
        })
        .unwrap();
    numbers
}

fn kill_group(pids: &Path) {
    let text = std::fs::read_to_string(pids).unwrap_or_default();
    if let Some(agent) = text.lines().next() {
        // The agent leads a process group of its own: end it and the grandchild.
        let _ = Command::new("sh")
            .args(["-c", &format!("kill -KILL -{} 2>/dev/null", agent.trim())])
            .status();
    }
}

#[test]
fn a_proxy_killed_mid_stream_lost_no_forwarded_frame() {
    let scratch = scratch("capture-kill");
    let db = scratch.path().join("captures.db");
    let pids = scratch.path().join("pids");
    let mut proxy = streaming_proxy(&format!("--capture={}", db.display()), &pids);
    let mut out = BufReader::new(proxy.stdout.take().unwrap());
    let mut received = Vec::new();
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while received.len() < 3000 && Instant::now() < deadline {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        received.push(number(&line).unwrap());
    }
    // Killed at once, in the middle of the stream: no chance to finish anything.
    proxy.kill().unwrap();
    proxy.wait().unwrap();
    // What was forwarded before the kill and is still in the pipe was received too.
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let complete = rest.ends_with('\n');
    let mut tail: Vec<&str> = rest.lines().collect();
    if !complete {
        tail.pop();
    }
    received.extend(tail.iter().map(|l| number(l).unwrap()));
    kill_group(&pids);
    assert!(received.len() >= 1000, "the stream barely started");

    // What the proxy had not moved into the database yet is in its spool; `acp inspect`
    // moves it when it opens the database.
    let listed = Command::new(ACP)
        .args(["inspect", "--db"])
        .arg(&db)
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    assert!(listed.stderr.is_empty(), "{listed:?}");
    let left: Vec<_> = std::fs::read_dir(scratch.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("-spool-"))
        .collect();
    assert!(left.is_empty(), "spools left behind: {left:?}");
    let store = Store::open_read_only(&db).unwrap();
    let capture = &store.captures(10, 0).unwrap()[0];
    assert_eq!(capture.ended_at, None, "the run never ended");
    assert_eq!(
        capture.frames,
        captured(&store, capture.id).len() as i64,
        "the counts follow the frames"
    );
    assert!(!capture.live, "its proxy is gone");
    let stored = captured(&store, capture.id);
    assert_eq!(
        stored,
        (1..=stored.len() as u64).collect::<Vec<_>>(),
        "frames are contiguous"
    );
    assert!(
        stored.len() >= received.len(),
        "the client received {} frames, the database has {}",
        received.len(),
        stored.len()
    );
    assert_eq!(&stored[..received.len()], &received[..]);
}

#[test]
fn several_proxies_capture_into_one_database_at_once() {
    let scratch = scratch("capture-concurrent");
    let db = scratch.path().join("captures.db");
    const EACH: usize = 3000;
    let proxies: Vec<_> = (0..3)
        .map(|_| {
            Command::new(ACP)
                .arg("proxy")
                .arg(format!("--capture={}", db.display()))
                .args(["--", "sh", "-c", FINITE_AGENT, "sh", &EACH.to_string()])
                .spawn_piped(Stdio::piped())
                .unwrap()
        })
        .collect();
    let mut stderr = String::new();
    for mut proxy in proxies {
        // The client stays until the agent is done.
        let mut stdin = proxy.stdin.take().unwrap();
        let mut out = String::new();
        proxy
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out.lines().count(), EACH);
        stdin.write_all(b"").unwrap();
        drop(stdin);
        let status = proxy.wait().unwrap();
        proxy
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(status.success(), "{status}: {stderr}");
    }
    assert!(!stderr.contains("cannot write the capture"), "{stderr}");
    let store = Store::open_read_only(&db).unwrap();
    let captures = store.captures(10, 0).unwrap();
    assert_eq!(captures.len(), 3);
    for capture in &captures {
        assert!(capture.ended_at.is_some());
        assert_eq!(capture.frames, EACH as i64);
        let numbers = captured(&store, capture.id);
        assert_eq!(numbers, (1..=EACH as u64).collect::<Vec<_>>());
    }
}

#[test]
fn a_notice_the_proxy_turned_into_a_message_is_on_the_lane() {
    let scratch = scratch("capture-fallback");
    // `--capture` alone: the user's database, under $XDG_DATA_HOME.
    let db = scratch.path().join("acp/captures.db");
    let agent = r#"read line
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"noisy","version":"1"}}}'
read line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"Quota low"}}}'
cat > /dev/null"#;
    let mut proxy = Command::new(ACP)
        .args(["proxy", "--capture", "--", "sh", "-c", agent])
        .env("XDG_DATA_HOME", scratch.path())
        .spawn_piped(Stdio::piped())
        .unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":{}}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/tmp\",\"mcpServers\":[]}}\n")
        .unwrap();
    let mut out = BufReader::new(proxy.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        lines.push(line);
    }
    drop(stdin);
    proxy.wait().unwrap();
    assert!(lines[2].contains("agent_message_chunk"), "{}", lines[2]);
    let store = Store::open_read_only(&db).unwrap();
    let id = store.captures(1, 0).unwrap()[0].id;
    let notices = store.notices(id).unwrap();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].outcome, Outcome::Fallback);
    assert_eq!(notices[0].advertised, Some(false));
    assert_eq!(notices[0].title.as_deref(), Some("Quota low"));
    assert_eq!(
        notices[0].delivered_as.as_deref(),
        Some(lines[2].trim_end())
    );
    // The frame holds the notice as the agent sent it; its findings say what was done.
    let frame = store.frame(id, notices[0].seq).unwrap();
    assert!(frame.text().contains("\"notice\""));
    let rules: Vec<&str> = frame.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["notice-without-capability", "repair"]);
    assert_eq!(
        store.capture(id).unwrap().agent.name.as_deref(),
        Some("noisy")
    );
}

#[test]
fn listen_captures_each_connection_on_its_own() {
    let scratch = scratch("capture-listen");
    let db = scratch.path().join("captures.db");
    let capture = format!("--capture={}", db.display());
    let mut proxy = listening::Listening::proxy(&[&capture], &["sh", "-c", NOTICING_AGENT], &[]);
    for flags in [&[][..], &["--no-notices"][..]] {
        let out = Command::new(ACP)
            .args([
                "client",
                "--url",
                &proxy.url,
                "--prompt",
                "hi",
                "--timeout",
                "30",
            ])
            .args(flags)
            .env_remove("ACP_TOKEN")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    assert_eq!(proxy.terminate(), Some(0));
    let store = Store::open_read_only(&db).unwrap();
    let mut captures = store.captures(10, 0).unwrap();
    captures.sort_by_key(|c| c.id);
    assert_eq!(captures.len(), 2, "one capture per connection");
    let outcomes: Vec<Outcome> = captures
        .iter()
        .map(|c| {
            assert!(c.ended_at.is_some());
            assert_eq!(c.agent.name.as_deref(), Some("noticing"));
            store.notices(c.id).unwrap()[0].outcome
        })
        .collect();
    assert_eq!(outcomes, [Outcome::Delivered, Outcome::Fallback]);
}
