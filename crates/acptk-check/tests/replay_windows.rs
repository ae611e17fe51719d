//! Exact replay windows: a notice is removed as replayed only when the traffic shows for certain
//! that the agent sent it while serving a `session/load` (v1) or a `session/resume` with replay
//! (v2) of its session. Each case is a conversation in the order the proxy sees it; the checker
//! judges it, and the proxy, run with a pipelining client and an agent that serves one request
//! at a time, sees the same order, finds the same, and removes exactly the notices the checker
//! judged replayed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use std::collections::HashMap;

use acptk_check::proxy::ProxyOptions;
use acptk_check::transcript::Side;
use acptk_check::{Checker, Rule};

const C: Side = Side::Client;
const A: Side = Side::Agent;

fn init_v1() -> String {
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}}"#.to_owned()
}
fn init_v1_ok() -> String {
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#.to_owned()
}
fn init_v2() -> String {
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"1"}}}"#.to_owned()
}
fn init_v2_ok() -> String {
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"1"}}}"#
        .to_owned()
}
fn new(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"session/new","params":{{"cwd":"/p","mcpServers":[]}}}}"#
    )
}
fn new_ok(id: u32, session: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"sessionId":"{session}"}}}}"#)
}
fn prompt(id: u32, session: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"session/prompt","params":{{"sessionId":"{session}","prompt":[{{"type":"text","text":"go"}}]}}}}"#
    )
}
fn prompt_ok(id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"stopReason":"end_turn"}}}}"#)
}
fn prompt_ok_v2(id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"messageId":"u{id}"}}}}"#)
}
fn load(id: u32, session: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"session/load","params":{{"sessionId":"{session}","cwd":"/p","mcpServers":[]}}}}"#
    )
}
fn resume(id: u32, session: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"session/resume","params":{{"sessionId":"{session}","cwd":"/p","replayFrom":{{"type":"start"}}}}}}"#
    )
}
fn ok(id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
}
fn update(session: &str, update: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{update}}}}}"#
    )
}
/// A user message chunk (v1 shape; v2 needs a `messageId`, which v1 accepts too).
fn user(session: &str) -> String {
    update(
        session,
        r#"{"sessionUpdate":"user_message_chunk","messageId":"m0","content":{"type":"text","text":"old prompt"}}"#,
    )
}
fn chunk(session: &str) -> String {
    update(
        session,
        r#"{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"Working."}}"#,
    )
}
fn commands(session: &str) -> String {
    update(
        session,
        r#"{"sessionUpdate":"available_commands_update","availableCommands":[]}"#,
    )
}
fn notice(session: &str, title: &str) -> String {
    update(
        session,
        &format!(r#"{{"sessionUpdate":"notice","severity":"info","title":"{title}"}}"#),
    )
}
fn replay_complete(session: &str) -> String {
    update(session, r#"{"sessionUpdate":"replay_complete"}"#)
}
fn idle(session: &str) -> String {
    update(
        session,
        r#"{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}"#,
    )
}

/// A conversation in the order the proxy sees it, what the checker must find (besides nothing
/// else), and the titles of the notices it must judge replayed.
struct Case {
    name: &'static str,
    lines: Vec<(Side, String)>,
    findings: Vec<(u64, Rule)>,
    replayed: Vec<&'static str>,
    /// The proxy harness can produce this order (its client waits for all responses of a
    /// batch before the next one; its agent answers a request all at once).
    proxy: bool,
}

fn cases() -> Vec<Case> {
    let s = "sess_1";
    vec![
        Case {
            name: "the issue's pipelined order: initialize, new, prompt and load without waiting",
            lines: vec![
                (C, init_v1()),
                (C, new(1)),
                (C, prompt(2, s)),
                (C, load(3, s)),
                (A, init_v1_ok()),
                (A, new_ok(1, "sess_new")),
                (A, chunk(s)),
                (A, notice(s, "live from the prompt")),
                (A, prompt_ok(2)),
                (A, user(s)),
                (A, notice(s, "replayed")),
                (A, ok(3)),
            ],
            findings: vec![(8, Rule::NoticeReplayUncertain), (11, Rule::NoticeInReplay)],
            replayed: vec!["replayed"],
            proxy: true,
        },
        Case {
            name: "a load of one session while another session's prompt streams notices",
            lines: vec![
                (C, init_v1()),
                (A, init_v1_ok()),
                (C, prompt(1, "sess_a")),
                (C, load(2, "sess_b")),
                (A, chunk("sess_a")),
                (A, notice("sess_a", "live in a")),
                (A, prompt_ok(1)),
                (A, user("sess_b")),
                (A, notice("sess_a", "late but live in a")),
                (A, notice("sess_b", "replayed in b")),
                (A, ok(2)),
            ],
            findings: vec![(10, Rule::NoticeInReplay)],
            replayed: vec!["replayed in b"],
            proxy: true,
        },
        Case {
            name: "notices before, during and after a v1 replay",
            lines: vec![
                (C, init_v1()),
                (A, init_v1_ok()),
                (A, notice(s, "before")),
                (C, load(1, s)),
                (A, notice(s, "during, before any history")),
                (A, commands(s)),
                (A, notice(s, "during, after only state")),
                (A, user(s)),
                (A, notice(s, "during")),
                (A, chunk(s)),
                (A, notice(s, "during again")),
                (A, ok(1)),
                (A, notice(s, "after")),
            ],
            findings: vec![
                (5, Rule::NoticeReplayUncertain),
                (7, Rule::NoticeReplayUncertain),
                (9, Rule::NoticeInReplay),
                (11, Rule::NoticeInReplay),
            ],
            replayed: vec!["during", "during again"],
            proxy: true,
        },
        Case {
            name: "a prompt sent while the load is served makes the rest of the replay uncertain",
            lines: vec![
                (C, init_v1()),
                (A, init_v1_ok()),
                (C, load(1, s)),
                (A, user(s)),
                (A, notice(s, "replayed")),
                (C, prompt(2, s)),
                (A, notice(s, "who sent this?")),
                (A, ok(1)),
                (A, notice(s, "live")),
                (A, prompt_ok(2)),
            ],
            findings: vec![(5, Rule::NoticeInReplay), (7, Rule::NoticeReplayUncertain)],
            replayed: vec!["replayed"],
            proxy: false,
        },
        Case {
            name: "two pipelined loads of the same session",
            lines: vec![
                (C, init_v1()),
                (A, init_v1_ok()),
                (C, load(1, s)),
                (C, load(2, s)),
                (A, user(s)),
                (A, notice(s, "first replay")),
                (A, ok(1)),
                (A, notice(s, "second, not started")),
                (A, user(s)),
                (A, notice(s, "second replay")),
                (A, ok(2)),
            ],
            findings: vec![
                (6, Rule::NoticeReplayUncertain),
                (8, Rule::NoticeReplayUncertain),
                (10, Rule::NoticeInReplay),
            ],
            replayed: vec!["second replay"],
            proxy: true,
        },
        Case {
            name: "v2: notices before, during and after a resume replay",
            lines: vec![
                (C, init_v2()),
                (A, init_v2_ok()),
                (A, notice(s, "before")),
                (C, resume(1, s)),
                (A, notice(s, "during, before any history")),
                (A, user(s)),
                (A, notice(s, "during")),
                (A, replay_complete(s)),
                (A, notice(s, "after replay_complete")),
                (A, idle(s)),
                (A, ok(1)),
                (A, notice(s, "after")),
            ],
            findings: vec![(5, Rule::NoticeReplayUncertain), (7, Rule::NoticeInReplay)],
            replayed: vec!["during"],
            proxy: true,
        },
        Case {
            name: "v2: a turn still running after its prompt response makes the replay uncertain",
            lines: vec![
                (C, init_v2()),
                (A, init_v2_ok()),
                (C, prompt(1, s)),
                (A, prompt_ok_v2(1)),
                (A, chunk(s)),
                (C, resume(2, s)),
                (A, chunk(s)),
                (A, notice(s, "from the running turn")),
                // Inside the window an idle state may be replayed history itself: the turn
                // counts as running until the replay is over.
                (A, idle(s)),
                (A, user(s)),
                (A, notice(s, "maybe replayed")),
                (A, replay_complete(s)),
                (A, idle(s)),
                (A, ok(2)),
            ],
            findings: vec![
                (8, Rule::NoticeReplayUncertain),
                (11, Rule::NoticeReplayUncertain),
            ],
            replayed: vec![],
            proxy: true,
        },
        Case {
            name: "v2: a turn that ended before the resume leaves the replay certain",
            lines: vec![
                (C, init_v2()),
                (A, init_v2_ok()),
                (C, prompt(1, s)),
                (A, prompt_ok_v2(1)),
                (A, chunk(s)),
                (A, notice(s, "live from the turn")),
                (A, idle(s)),
                (C, resume(2, s)),
                (A, user(s)),
                (A, notice(s, "replayed")),
                (A, replay_complete(s)),
                (A, idle(s)),
                (A, ok(2)),
                (A, notice(s, "live again")),
            ],
            findings: vec![(10, Rule::NoticeInReplay)],
            replayed: vec!["replayed"],
            proxy: true,
        },
        Case {
            name: "v2: the issue's pipelined order with a resume",
            lines: vec![
                (C, init_v2()),
                (C, new(1)),
                (C, prompt(2, s)),
                (C, resume(3, s)),
                (A, init_v2_ok()),
                (A, new_ok(1, "sess_new")),
                (A, prompt_ok_v2(2)),
                (A, chunk(s)),
                (A, notice(s, "live from the prompt")),
                // The idle state comes inside the window: it may be replayed history, so the
                // turn may still run, and the replay stays uncertain to its end.
                (A, idle(s)),
                (A, user(s)),
                (A, notice(s, "maybe replayed")),
                (A, replay_complete(s)),
                (A, ok(3)),
            ],
            findings: vec![
                (9, Rule::NoticeReplayUncertain),
                (12, Rule::NoticeReplayUncertain),
            ],
            replayed: vec![],
            proxy: true,
        },
    ]
}

/// The titles of the notices the checker judged replayed, and every finding.
fn judge(lines: &[(Side, String)]) -> (Vec<String>, Vec<(u64, Rule)>) {
    let mut checker = Checker::new();
    let mut replayed = Vec::new();
    let mut findings = Vec::new();
    for (n, (side, line)) in lines.iter().enumerate() {
        let obs = checker.observe(n as u64 + 1, Some(*side), line);
        findings.extend(obs.findings.iter().map(|f| (f.line, f.rule)));
        if let Some(event) = obs.notice.filter(|e| e.in_replay) {
            replayed.push(event.notice.unwrap().title);
        }
    }
    (replayed, findings)
}

#[test]
fn the_checker_judges_replays_exactly() {
    for case in cases() {
        let (replayed, findings) = judge(&case.lines);
        assert_eq!(findings, case.findings, "{}", case.name);
        assert_eq!(replayed, case.replayed, "{}", case.name);
    }
}

/// The client's batches (consecutive client lines) and the agent's answers: the agent lines
/// up to each response belong to the first request still unanswered; lines after the last
/// response of a batch go with the request answered last.
fn script(lines: &[(Side, String)]) -> (Vec<Vec<String>>, HashMap<String, Vec<String>>) {
    let mut batches: Vec<Vec<String>> = Vec::new();
    let mut answers: HashMap<String, Vec<String>> = HashMap::new();
    let mut unanswered: Vec<String> = Vec::new();
    let mut last_answered: Option<String> = None;
    let mut client_turn = false;
    for (side, line) in lines {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if *side == Side::Client {
            if !client_turn {
                batches.push(Vec::new());
            }
            client_turn = true;
            batches.last_mut().unwrap().push(line.clone());
            unanswered.push(value["id"].to_string());
            continue;
        }
        client_turn = false;
        let is_response = value.get("method").is_none();
        let owner = if is_response {
            let id = value["id"].to_string();
            unanswered.retain(|u| *u != id);
            last_answered = Some(id.clone());
            id
        } else {
            unanswered
                .first()
                .cloned()
                .or_else(|| last_answered.clone())
                .unwrap()
        };
        answers.entry(owner).or_default().push(line.clone());
    }
    (batches, answers)
}

#[tokio::test]
async fn the_proxy_sees_the_same_order_finds_the_same_and_removes_exactly_the_replayed() {
    for case in cases().into_iter().filter(|c| c.proxy) {
        // Agent lines before the first client line have no request to answer: not in these
        // cases (the agent speaks only when asked).
        assert_eq!(case.lines[0].0, Side::Client, "{}", case.name);
        let (batches, answers) = script(&case.lines);
        let run = support::run_pipelined(&batches, &answers, ProxyOptions::new()).await;

        // The record is the conversation in the order the case gives.
        let record = String::from_utf8(run.record.clone()).unwrap();
        let recorded: Vec<(Side, String)> = record
            .lines()
            .filter_map(|l| {
                let entry: serde_json::Value = serde_json::from_str(l).unwrap();
                let side = match entry["from"].as_str()? {
                    "client" => Side::Client,
                    _ => Side::Agent,
                };
                Some((side, entry["message"].to_string()))
            })
            .collect();
        let normalized: Vec<(Side, String)> = case
            .lines
            .iter()
            .map(|(side, l)| {
                (
                    *side,
                    serde_json::from_str::<serde_json::Value>(l)
                        .unwrap()
                        .to_string(),
                )
            })
            .collect();
        assert_eq!(
            recorded, normalized,
            "{}: the proxy saw another order",
            case.name
        );

        // Live findings are the checker's, plus one repair per removed notice.
        let live: Vec<(u64, Rule)> = run
            .findings
            .iter()
            .filter(|f| f.rule != Rule::Repair)
            .map(|f| (f.line, f.rule))
            .collect();
        let (replayed, offline) = judge(&case.lines);
        assert_eq!(live, offline, "{}", case.name);
        let repairs = run
            .findings
            .iter()
            .filter(|f| f.rule == Rule::Repair)
            .count();
        assert_eq!(repairs, replayed.len(), "{}", case.name);

        // The client got every notice but the replayed ones, and everything else unchanged.
        let received = String::from_utf8(run.client_received.clone()).unwrap();
        let expected: Vec<String> = case
            .lines
            .iter()
            .filter(|(side, _)| *side == Side::Agent)
            .filter(|(_, l)| {
                !replayed
                    .iter()
                    .any(|t| l.contains(&format!("\"title\":\"{t}\"")))
            })
            .map(|(_, l)| l.clone())
            .collect();
        let got: Vec<&str> = received.lines().collect();
        assert_eq!(got, expected, "{}", case.name);
    }
}
