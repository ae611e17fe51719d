//! `acp proxy -- acp agent`: our own agent follows the notice rules, so the proxy finds
//! nothing, repairs nothing, and what the client receives is what the agent sent, byte for
//! byte (the record holds the agent's side as sent).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn init(protocol: u16, notices: bool) -> String {
    match (protocol, notices) {
        (2, _) => r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"test","version":"1"}}}"#.to_owned(),
        (_, true) => r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}}"#.to_owned(),
        _ => r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#.to_owned(),
    }
}

fn session(protocol: u16) -> Vec<(u64, String)> {
    let new = r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#;
    let prompt = r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"SESSION","prompt":[{"type":"text","text":"/notice warning Disk low -- 5% left"}]}}"#;
    let reload = if protocol == 2 {
        r#"{"jsonrpc":"2.0","id":3,"method":"session/resume","params":{"sessionId":"SESSION","cwd":"/tmp","replayFrom":{"type":"start"}}}"#
    } else {
        r#"{"jsonrpc":"2.0","id":3,"method":"session/load","params":{"sessionId":"SESSION","cwd":"/tmp","mcpServers":[]}}"#
    };
    vec![
        (1, new.to_owned()),
        (2, prompt.to_owned()),
        (3, reload.to_owned()),
    ]
}

#[test]
fn the_proxy_is_transparent_for_an_agent_that_follows_the_rules() {
    for (protocol, notices) in [(1, true), (1, false), (2, false)] {
        let record = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "acp-agent-v{protocol}-{notices}-{}.ndjson",
            std::process::id()
        ));
        let state = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "acp-agent-state-v{protocol}-{notices}-{}",
            std::process::id()
        ));
        let acp = env!("CARGO_BIN_EXE_acp");
        let mut child = Command::new(acp)
            .args([
                "proxy",
                "--record",
                record.to_str().unwrap(),
                "--",
                acp,
                "agent",
                "--delay-ms",
                "0",
                "--state-dir",
                state.to_str().unwrap(),
            ])
            .spawn_piped(Stdio::piped())
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut received = Vec::new();
        let mut requests = vec![(0, init(protocol, notices))];
        requests.extend(session(protocol));
        let mut session_id = String::new();
        for (id, request) in requests {
            let request = request.replace("SESSION", &session_id);
            stdin.write_all(format!("{request}\n").as_bytes()).unwrap();
            stdin.flush().unwrap();
            // In v2 a turn goes on after the `session/prompt` response, until an idle state.
            let mut turn_open = protocol == 2 && request.contains("session/prompt");
            let mut answered = false;
            while !answered || turn_open {
                let mut line = String::new();
                assert!(stdout.read_line(&mut line).unwrap() > 0, "v{protocol}: eof");
                let value: serde_json::Value = serde_json::from_str(&line).unwrap();
                received.push(line);
                if value.get("method").is_none() && value["id"] == id {
                    assert!(value.get("result").is_some(), "v{protocol}: {value}");
                    answered = true;
                    if let Some(new_id) = value["result"]["sessionId"].as_str() {
                        new_id.clone_into(&mut session_id);
                    }
                }
                if value["params"]["update"]["state"] == "idle" {
                    turn_open = false;
                }
            }
        }
        drop(stdin);
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).unwrap();
        received.extend(rest.lines().map(|l| format!("{l}\n")));
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(0), "v{protocol}: {stderr}");
        assert!(
            !stderr.contains('['),
            "v{protocol} notices={notices}: the proxy found something: {stderr}\n{}",
            std::fs::read_to_string(&record).unwrap()
        );

        // The notice (or the agent's own fallback) reached the client.
        let all = received.concat();
        let shown = if protocol == 1 && !notices {
            r#""text":"Warning: Disk low - 5% left""#
        } else {
            r#""sessionUpdate":"notice","severity":"warning","title":"Disk low""#
        };
        assert!(all.contains(shown), "v{protocol} notices={notices}: {all}");

        // What the client received is exactly what the agent sent.
        let recorded = std::fs::read_to_string(&record).unwrap();
        let sent_by_agent: Vec<String> = recorded
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|entry| entry["from"] == "agent")
            .map(|entry| format!("{}\n", entry["message"]))
            .collect();
        let normalized: Vec<String> = received
            .iter()
            .map(|l| {
                format!(
                    "{}\n",
                    serde_json::from_str::<serde_json::Value>(l).unwrap()
                )
            })
            .collect();
        assert_eq!(normalized, sent_by_agent, "v{protocol} notices={notices}");
        std::fs::remove_file(&record).ok();
        std::fs::remove_dir_all(&state).ok();
    }
}
