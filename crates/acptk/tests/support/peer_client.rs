//! What the interop tests expect when an SDK's client (`tests/interop/ts_ws_client.mjs`,
//! `tests/interop/py_remote_client.py`, which print the same JSON shape) talks to
//! `acp agent --listen`, and `acp client --url` run for its JSON events. Include it with
//! `#[path = "support/peer_client.rs"] mod peer_client;` (it needs `scripted` as well).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::scripted::{ACP, finish, text};

/// The first prompt: the example agent answers it with a notice only.
pub const NOTICE_PROMPT: &str = "/notice warning Disk almost full -- 95% used";
/// The second prompt: the example agent answers it with a tool call it asks permission for.
pub const COUNT_PROMPT: &str = "count these words";
const FALLBACK: &str = "Warning: Disk almost full - 95% used";
const DONE: &str = "Done: 3 words, 17 characters.";
const REFUSED: &str = "You did not allow the tool call, so I did not count.";

/// How a peer client runs: the version it asks for, whether it advertises `session.notices`
/// (v1), whether it allows the permission request, and whether it reconnects to continue the
/// session.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub protocol: u16,
    pub notices: bool,
    pub allow: bool,
    pub reconnect: bool,
}

/// The cases every peer client runs, over every transport: v1 with notices (allowing, then
/// reconnecting), v1 without `session.notices` (rejecting), v2 (allowing, then resuming).
pub const CASES: [Case; 3] = [
    Case {
        protocol: 1,
        notices: true,
        allow: true,
        reconnect: true,
    },
    Case {
        protocol: 1,
        notices: false,
        allow: false,
        reconnect: false,
    },
    Case {
        protocol: 2,
        notices: true,
        allow: true,
        reconnect: true,
    },
];

/// Checks that the agent's warning `notice` (its title, and the fallback text a v1 agent says
/// instead) came as a notice when the client takes notices (`as_notice`: v2, or v1 with
/// `session.notices`), else as the fallback in what the agent `said`; failures show `label`
/// and `context`.
fn assert_notice(
    as_notice: bool,
    notices: &[&Value],
    said: &str,
    (title, fallback): (&str, &str),
    label: &str,
    context: &str,
) {
    if as_notice {
        assert_eq!(notices.len(), 1, "{label}: {context}");
        assert_eq!(notices[0]["title"], title, "{label}");
        assert_eq!(notices[0]["severity"], "warning", "{label}");
        assert!(!said.contains(fallback), "{label}: {context}");
    } else {
        assert!(notices.is_empty(), "{label}: {context}");
        assert!(said.contains(fallback), "{label}: {context}");
    }
}

/// The text of a content field: one block or an array of blocks.
fn content_text(content: &Value) -> String {
    match content {
        Value::Array(blocks) => blocks.iter().map(content_text).collect(),
        block => block["text"].as_str().unwrap_or_default().to_owned(),
    }
}

/// The texts of the updates of kinds `kinds`, concatenated.
fn texts(updates: &[Value], kinds: &[&str]) -> String {
    updates
        .iter()
        .filter(|u| kinds.contains(&u["sessionUpdate"].as_str().unwrap_or_default()))
        .map(|u| content_text(&u["content"]))
        .collect()
}

impl Case {
    /// The script's flags for this case (after the URL).
    pub fn flags(&self) -> Vec<String> {
        let mut flags = vec!["--protocol".to_owned(), self.protocol.to_string()];
        if !self.notices {
            flags.push("--no-notices".to_owned());
        }
        if self.allow {
            flags.push("--allow".to_owned());
        }
        if self.reconnect {
            flags.push("--reconnect".to_owned());
        }
        for prompt in [NOTICE_PROMPT, COUNT_PROMPT] {
            flags.push("--prompt".to_owned());
            flags.push(prompt.to_owned());
        }
        flags
    }

    /// Checks what the peer client saw: the version, both turns, the notice (or its v1
    /// fallback), the permission request and its effect, and the replay after reconnecting
    /// (the prompts and answers, never a notice).
    pub fn check(&self, seen: &Value, label: &str) {
        assert!(seen.get("error").is_none(), "{label}: {seen}");
        assert_eq!(seen["protocolVersion"], self.protocol, "{label}: {seen}");
        assert_eq!(seen["agent"], "acp-example-agent", "{label}");
        assert_eq!(
            seen["stopReasons"],
            serde_json::json!(["end_turn", "end_turn"]),
            "{label}: {seen}"
        );
        let updates = seen["updates"].as_array().unwrap();
        let notices: Vec<&Value> = updates
            .iter()
            .filter(|u| u["sessionUpdate"] == "notice")
            .collect();
        let said = texts(updates, &["agent_message_chunk"]);
        let as_notice = self.protocol == 2 || self.notices;
        let notice = ("Disk almost full", FALLBACK);
        assert_notice(as_notice, &notices, &said, notice, label, &seen.to_string());
        // Only the second prompt asks permission; the answer decides what the agent does.
        let permissions = seen["permissions"].as_array().unwrap();
        assert_eq!(permissions.len(), 1, "{label}: {seen}");
        let offered = permissions[0]["options"].as_array().unwrap();
        assert!(
            offered.contains(&Value::from("allow")) && offered.contains(&Value::from("reject")),
            "{label}: {seen}"
        );
        let (answered, outcome, status) = if self.allow {
            ("allow", DONE, "completed")
        } else {
            ("rejected", REFUSED, "failed")
        };
        assert_eq!(permissions[0]["answered"], answered, "{label}");
        assert!(said.contains(outcome), "{label}: {seen}");
        assert!(
            updates
                .iter()
                .any(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == status),
            "{label}: the tool call ends {status}: {seen}"
        );
        if !self.reconnect {
            return;
        }
        let replayed = seen["replayed"].as_array().unwrap();
        if self.protocol == 1 {
            assert_eq!(seen["loadSession"], true, "{label}: {seen}");
        } else {
            assert!(
                replayed
                    .iter()
                    .any(|u| u["sessionUpdate"] == "replay_complete"),
                "{label}: a v2 replay ends with replay_complete: {seen}"
            );
        }
        let asked = texts(replayed, &["user_message_chunk", "user_message"]);
        assert_eq!(
            asked,
            format!("{NOTICE_PROMPT}{COUNT_PROMPT}"),
            "{label}: the replay has both prompts: {seen}"
        );
        assert!(
            texts(replayed, &["agent_message_chunk"]).contains(outcome),
            "{label}: the replay has the answers: {seen}"
        );
        assert!(
            replayed.iter().all(|u| u["sessionUpdate"] != "notice"),
            "{label}: never a notice in a replay: {seen}"
        );
    }
}

/// Runs `command` with no input and its output captured, to its end within `limit`.
fn finish_piped(command: &mut Command, limit: Duration) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, limit)
}

/// Runs `command` (a peer client, stdout piped) within `limit` and parses the one JSON
/// object it prints.
pub fn run_json(mut command: Command, limit: Duration, label: &str) -> Value {
    let output = finish_piped(&mut command, limit);
    let out = text(&output.stdout);
    assert!(
        output.status.success(),
        "{label}: {out}\n{}",
        text(&output.stderr)
    );
    serde_json::from_str(out.trim())
        .unwrap_or_else(|_| panic!("{label}: not JSON: {out}\n{}", text(&output.stderr)))
}

/// `acp client --url URL --format json FLAGS...` to its end (exit 0 expected): its events.
pub fn acp_client(url: &str, flags: &[&str], limit: Duration) -> Vec<Value> {
    let mut command = Command::new(ACP);
    command
        .args([
            "client",
            "--url",
            url,
            "--format",
            "json",
            "--timeout",
            "60",
        ])
        .args(flags)
        .env_remove("ACP_TOKEN");
    let output = finish_piped(&mut command, limit);
    assert_eq!(
        output.status.code(),
        Some(0),
        "acp client {flags:?}: {}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// How `acp client --url` runs against an SDK's agent (`py_remote_agent.py`,
/// `ts_ws_agent.mjs --ask`), which answers each prompt with a greeting, asks permission for a
/// tool call, says whether it was allowed, and sends a notice (v1: only to a client that
/// advertised `session.notices`, else the fallback message).
#[derive(Debug, Clone, Copy)]
pub struct OurCase {
    pub protocol: u16,
    pub notices: bool,
    pub allow: bool,
}

/// v1 with notices (allowing, then loading the session), v1 without `session.notices`
/// (rejecting), v2 (allowing, then resuming).
pub const OUR_CASES: [OurCase; 3] = [
    OurCase {
        protocol: 1,
        notices: true,
        allow: true,
    },
    OurCase {
        protocol: 1,
        notices: false,
        allow: false,
    },
    OurCase {
        protocol: 2,
        notices: true,
        allow: true,
    },
];

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The agent's words, live (not replayed) or replayed.
fn agent_words(events: &[Value], history: bool) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "message" && e["role"] == "agent")
        .filter(|e| (e["history"] == true) == history)
        .filter_map(|e| e["text"].as_str())
        .collect()
}

impl OurCase {
    /// Runs one turn against the agent `name` at `url` (whose answers start with
    /// `greeting`), checks it, and when the tool call was allowed continues the session from a
    /// new connection (`--load`: v1 load, v2 resume), checking the replay.
    pub fn run(&self, url: &str, name: &str, greeting: &str, limit: Duration) {
        let fallback = "Warning: Quota almost used - 90% of today's quota";
        let protocol = self.protocol.to_string();
        let label = format!("acp client against {name}: {self:?}");
        let mut flags = vec!["--protocol", &protocol, "--prompt", "count my words"];
        if !self.notices {
            flags.push("--no-notices");
        }
        if self.allow {
            flags.push("--allow");
        }
        let events = acp_client(url, &flags, limit);
        let session = of_type(&events, "session")[0];
        assert_eq!(session["agent"], name, "{label}");
        assert_eq!(session["protocolVersion"], self.protocol, "{label}");
        let said = agent_words(&events, false);
        assert!(
            said.starts_with(&format!("{greeting}, you said: count my words")),
            "{label}: {events:?}"
        );
        let notices = of_type(&events, "notice");
        let as_notice = self.protocol == 2 || self.notices;
        let notice = ("Quota almost used", fallback);
        assert_notice(
            as_notice,
            &notices,
            &said,
            notice,
            &label,
            &format!("{events:?}"),
        );
        // The agent asked permission for its tool call; the client's answer decided.
        let permissions = of_type(&events, "permission");
        assert_eq!(permissions.len(), 1, "{label}: {events:?}");
        let verdict = if self.allow {
            assert_eq!(permissions[0]["optionId"], "allow", "{label}: {events:?}");
            "Counted 3 words."
        } else {
            assert_ne!(permissions[0]["optionId"], "allow", "{label}: {events:?}");
            "Not allowed, so I did not count."
        };
        assert!(said.contains(verdict), "{label}: {events:?}");
        assert_eq!(
            of_type(&events, "stop").last().unwrap()["stopReason"],
            "end_turn",
            "{label}"
        );
        if !self.allow {
            return;
        }
        // A new connection continues the session: the first turn comes back as history,
        // without its notice; the live turn after it has its notice again.
        let id = session["sessionId"].as_str().unwrap();
        let events = acp_client(
            url,
            &[
                "--protocol",
                &protocol,
                "--allow",
                "--load",
                id,
                "--prompt",
                "again",
            ],
            limit,
        );
        assert_eq!(of_type(&events, "session")[0]["loaded"], true, "{label}");
        let asked: String = events
            .iter()
            .filter(|e| e["history"] == true && e["type"] == "message" && e["role"] == "user")
            .filter_map(|e| e["text"].as_str())
            .collect();
        assert_eq!(asked, "count my words", "{label}: {events:?}");
        let replayed = agent_words(&events, true);
        assert!(
            replayed.starts_with(&format!("{greeting}, you said: count my words"))
                && replayed.contains("Counted 3 words."),
            "{label}: {events:?}"
        );
        assert!(
            events
                .iter()
                .filter(|e| e["type"] == "notice")
                .all(|e| e["history"] != true),
            "{label}: no notice in a replay: {events:?}"
        );
        assert_eq!(of_type(&events, "notice").len(), 1, "{label}: {events:?}");
        assert!(
            agent_words(&events, false).contains("you said: again"),
            "{label}: {events:?}"
        );
    }
}
