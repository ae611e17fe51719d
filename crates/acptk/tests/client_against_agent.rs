//! The real `acp client` against the real `acp agent` (launched by the client), in v1 and v2:
//! a whole turn in `--format json`, the permission asked before the tool call and its default
//! and `--allow` decisions, `--mode` and `--set shout=true` changing the answer as the agent
//! documents, and bad mode and config ids as usage errors. Each run uses a scratch
//! `--state-dir` and leaves no process behind.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

#[path = "support/acp_agent.rs"]
mod acp_agent;

use acp_agent::{
    Scratch, agent_text, code_reply, first_call, of_type, role_text, shape, tool_statuses,
};
use serde_json::{Value, json};

const VERSIONS: [&str; 2] = ["1", "2"];

/// The tool call of an ordinary prompt.
const COUNT: &str = "Count the words of the prompt";

/// Fails unless `statuses` (of one tool call, in order) go forward through pending,
/// in_progress and completed without repeats, and end with `last`.
fn assert_progress(statuses: &[String], last: &str) {
    let order = ["pending", "in_progress", "completed", "failed"];
    let ranks: Vec<usize> = statuses
        .iter()
        .map(|s| order.iter().position(|o| o == s).unwrap())
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{statuses:?}");
    assert_eq!(
        statuses.last().map(String::as_str),
        Some(last),
        "{statuses:?}"
    );
}

#[test]
fn a_whole_turn_in_json_events() {
    for version in VERSIONS {
        let scratch = Scratch::new("turn-json");
        // A chunk delay keeps the tool call's steps apart, so that its update is an event.
        let events = scratch.turn(
            "hello there",
            &["--protocol", version, "--allow"],
            &["--delay-ms", "30"],
        );
        let v: u64 = version.parse().unwrap();
        let session = &events[0];
        assert_eq!(session["type"], "session", "v{version}");
        assert_eq!(session["protocolVersion"], v);
        assert_eq!(session["proposedVersion"], v);
        assert_eq!(session["agent"], "acp-example-agent");
        assert_eq!(session["loaded"], false);
        assert!(
            session["sessionId"]
                .as_str()
                .is_some_and(|id| !id.is_empty())
        );

        // The user's message once (in v2 the agent echoes it; the echo is not doubled).
        let users = of_type(&events, "message")
            .into_iter()
            .filter(|e| e["role"] == "user")
            .count();
        assert_eq!(users, 1, "v{version}: {events:?}");
        assert_eq!(role_text(&events, "user"), "hello there");
        assert_eq!(
            agent_text(&events),
            format!("{}Done: 2 words, 11 characters.", code_reply(2)),
            "v{version}"
        );

        // One tool call, first as new, then updated to completed with its result.
        let calls = of_type(&events, "tool_call");
        assert!(calls.len() >= 2, "v{version}: {calls:?}");
        assert_eq!(calls[0]["toolCallId"], first_call(&events).as_str());
        assert_eq!(calls[0]["title"], COUNT);
        assert_eq!(calls[0]["status"], "pending");
        assert!(calls[0].get("update").is_none(), "{}", calls[0]);
        assert!(calls[1..].iter().all(|c| c["update"] == true), "{calls:?}");
        assert_progress(&tool_statuses(&events, &first_call(&events)), "completed");
        assert_eq!(
            calls.last().unwrap()["content"],
            json!(["2 words, 11 characters"])
        );

        let stop = events.last().unwrap();
        assert_eq!(stop, &json!({"type": "stop", "stopReason": "end_turn"}));
        assert_eq!(of_type(&events, "stop").len(), 1);
        assert!(of_type(&events, "notice").is_empty(), "{events:?}");
        assert!(of_type(&events, "error").is_empty(), "{events:?}");
        let kinds = shape(&events);
        assert_eq!(
            kinds[..4],
            ["session", "message:user", "message:agent", "tool_call"],
            "v{version}: {kinds:?}"
        );
        assert_eq!(
            kinds[kinds.len() - 2..],
            ["message:agent", "stop"],
            "v{version}: {kinds:?}"
        );
    }
}

/// The one `permission` event of a turn.
fn permission(events: &[Value]) -> Value {
    let asked = of_type(events, "permission");
    assert_eq!(asked.len(), 1, "{events:?}");
    asked[0].clone()
}

#[test]
fn the_permission_is_rejected_by_default_with_prompt() {
    for version in VERSIONS {
        let scratch = Scratch::new("permission-default");
        let events = scratch.turn("hello there", &["--protocol", version], &[]);
        assert_eq!(
            permission(&events),
            json!({
                "type": "permission",
                "title": COUNT,
                "decision": "selected",
                "toolKind": "think",
                "optionId": "reject",
                "optionName": "Reject",
                "kind": "reject_once",
                "allowed": false,
                // No terminal to ask on: the default policy's question is refused.
                "by": "no_terminal",
            }),
            "v{version}"
        );
        assert_progress(&tool_statuses(&events, &first_call(&events)), "failed");
        let last_call = *of_type(&events, "tool_call").last().unwrap();
        assert_eq!(last_call["content"], json!(["Not allowed by the user."]));
        assert_eq!(
            agent_text(&events),
            format!(
                "{}You did not allow the tool call, so I did not count.",
                code_reply(2)
            ),
            "v{version}"
        );
        assert_eq!(events.last().unwrap()["stopReason"], "end_turn");
    }
}

#[test]
fn allow_selects_the_first_allow_option() {
    for version in VERSIONS {
        let scratch = Scratch::new("permission-allow");
        let events = scratch.turn("hello there", &["--protocol", version, "--allow"], &[]);
        assert_eq!(
            permission(&events),
            json!({
                "type": "permission",
                "title": COUNT,
                "decision": "selected",
                "toolKind": "think",
                "optionId": "allow",
                "optionName": "Allow",
                "kind": "allow_once",
                "allowed": true,
                "by": "policy",
            }),
            "v{version}"
        );
        assert_progress(&tool_statuses(&events, &first_call(&events)), "completed");
    }
}

#[test]
fn an_agent_with_no_permission_asks_nothing() {
    for version in VERSIONS {
        let scratch = Scratch::new("permission-none");
        let events = scratch.turn(
            "hello there",
            &["--protocol", version],
            &["--no-permission"],
        );
        assert!(
            of_type(&events, "permission").is_empty(),
            "v{version}: {events:?}"
        );
        assert_progress(&tool_statuses(&events, &first_call(&events)), "completed");
        assert!(agent_text(&events).ends_with("Done: 2 words, 11 characters."));
    }
}

/// The plain-text output of a turn in `--mode MODE` (and `--set` settings) must be `expected`.
struct ModeCase {
    flags: &'static [&'static str],
    prompt: &'static str,
    /// The agent's text (all of it).
    answer: fn() -> String,
    /// Whether the turn runs the tool call.
    tool: bool,
}

const MODE_CASES: &[ModeCase] = &[
    ModeCase {
        flags: &["--mode", "ask"],
        prompt: "one two three",
        answer: || "Your prompt had 3 words.".to_owned(),
        tool: false,
    },
    ModeCase {
        flags: &["--mode", "ask", "--set", "shout=true"],
        prompt: "one two three",
        answer: || "YOUR PROMPT HAD 3 WORDS.".to_owned(),
        tool: false,
    },
    ModeCase {
        flags: &["--mode", "code"],
        prompt: "one two three",
        answer: || format!("{}Done: 3 words, 13 characters.", code_reply(3)),
        tool: true,
    },
    ModeCase {
        flags: &["--set", "shout=true"],
        prompt: "one two three",
        answer: || {
            format!(
                "{}DONE: 3 WORDS, 13 CHARACTERS.",
                code_reply(3).to_uppercase()
            )
        },
        tool: true,
    },
    ModeCase {
        flags: &["--set", "shout=false", "--mode", "ask"],
        prompt: "one two three",
        answer: || "Your prompt had 3 words.".to_owned(),
        tool: false,
    },
];

#[test]
fn modes_and_the_shout_option_change_the_answer() {
    for version in VERSIONS {
        for case in MODE_CASES {
            let scratch = Scratch::new("modes");
            let mut flags = vec!["--protocol", version, "--allow"];
            flags.extend_from_slice(case.flags);
            let events = scratch.turn(case.prompt, &flags, &[]);
            assert_eq!(
                agent_text(&events),
                (case.answer)(),
                "v{version} {:?}",
                case.flags
            );
            assert_eq!(
                !of_type(&events, "tool_call").is_empty(),
                case.tool,
                "v{version} {:?}: {events:?}",
                case.flags
            );
            assert_eq!(events.last().unwrap()["stopReason"], "end_turn");
        }
    }
}

#[test]
fn modes_change_the_plain_text_answer_too() {
    let scratch = Scratch::new("modes-text");
    let ran = scratch.client(&["--prompt", "one two three", "--mode", "ask"], &[]);
    ran.expect(0);
    assert_eq!(
        ran.stdout,
        "You: one two three\nAgent: Your prompt had 3 words.\n-- turn ended: end_turn --\n"
    );
}

/// A bad `--mode`, `--set` or `--auth` (`acp agent` needs no sign-in): exit code 2, this message on standard error, nothing on
/// standard output, and no turn.
struct BadCase {
    flags: &'static [&'static str],
    /// The message, by version.
    message: [&'static str; 2],
}

const BAD_CASES: &[BadCase] = &[
    BadCase {
        flags: &["--auth", "nope"],
        message: [
            "acp: --auth nope: the agent offers no such method; the agent offered no sign-in \
             methods in `initialize`\n",
            "acp: --auth nope: the agent offers no such method; the agent offered no sign-in \
             methods in `initialize`\n",
        ],
    },
    BadCase {
        flags: &["--mode", "fly"],
        message: [
            "acp: --mode fly: the agent's modes are: code, ask\n",
            "acp: --mode fly: the agent's modes are: code, ask (its `mode` option)\n",
        ],
    },
    BadCase {
        flags: &["--set", "loud=true"],
        message: [
            "acp: --set loud: the agent offers no config option `loud`; its options are: shout\n",
            "acp: --set loud: the agent offers no config option `loud`; its options are: mode, shout\n",
        ],
    },
    BadCase {
        flags: &["--set", "shout=maybe"],
        message: [
            "acp: --set shout=maybe: `shout` is on or off; `maybe` is neither (use true or false)\n",
            "acp: --set shout=maybe: `shout` is on or off; `maybe` is neither (use true or false)\n",
        ],
    },
];

#[test]
fn a_bad_mode_config_id_or_sign_in_method_is_a_usage_error() {
    for (index, version) in VERSIONS.iter().enumerate() {
        for case in BAD_CASES {
            let scratch = Scratch::new("bad-controls");
            let mut flags = vec!["--protocol", version, "--prompt", "hello"];
            flags.extend_from_slice(case.flags);
            let ran = scratch.client(&flags, &[]);
            ran.expect(2);
            assert_eq!(
                ran.stderr, case.message[index],
                "v{version} {:?}",
                case.flags
            );
            assert_eq!(ran.stdout, "", "v{version} {:?}", case.flags);

            // In JSON the failure is the last event, with the same exit code.
            let mut flags = flags.clone();
            flags.extend_from_slice(&["--format", "json"]);
            let ran = scratch.client(&flags, &[]);
            ran.expect(2);
            let events = ran.events();
            let last = events.last().unwrap();
            assert_eq!(last["type"], "error", "{events:?}");
            assert_eq!(last["exitCode"], 2);
            assert_eq!(
                format!("acp: {}\n", last["message"].as_str().unwrap()),
                case.message[index]
            );
            assert!(of_type(&events, "message").is_empty(), "{events:?}");
        }
    }
}

#[test]
fn the_agent_runs_while_the_turn_does_and_is_gone_after_it() {
    let scratch = Scratch::new("leftovers");
    // Slow chunks keep the turn (and so the agent) running for a while.
    let child = scratch.spawn_in(
        &scratch.work,
        &["--prompt", "hello there", "--allow"],
        &["--delay-ms", "100"],
    );
    let start = std::time::Instant::now();
    // The client and the agent it launched, both naming the state directory.
    while scratch.running().len() < 2 {
        assert!(
            start.elapsed() < acp_agent::LIMIT,
            "the agent never ran: {:?}",
            scratch.running()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let ran = scratch.finish(child);
    ran.expect(0);
    assert!(
        ran.stdout.ends_with("-- turn ended: end_turn --\n"),
        "{}",
        ran.stdout
    );
}

#[test]
fn ctrl_c_cancels_the_agents_turn_and_exits_130() {
    for version in VERSIONS {
        let scratch = Scratch::new("interrupt");
        let child = scratch.spawn_in(
            &scratch.work,
            &[
                "--protocol",
                version,
                "--prompt",
                "hello there",
                "--format",
                "json",
            ],
            &["--delay-ms", "200"],
        );
        // Wait until the turn streams: the session's history holds the prompt and a piece of
        // the reply.
        let start = std::time::Instant::now();
        while scratch.history_entries() < 2 {
            assert!(start.elapsed() < acp_agent::LIMIT, "the turn never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let status = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let ran = scratch.finish(child);
        ran.expect(130);
        let events = ran.events();
        let stops: Vec<&Value> = of_type(&events, "stop");
        assert_eq!(
            stops,
            [&json!({"type": "stop", "stopReason": "cancelled"})],
            "v{version}: {events:?}"
        );
        let last = events.last().unwrap();
        assert_eq!(last["exitCode"], 130, "v{version}: {events:?}");
        assert_eq!(last["message"], "interrupted (SIGINT); cancelled the turn");
        // The reply was cut short: no tool call ran.
        assert!(!agent_text(&events).contains("Done:"), "v{version}");
    }
}
