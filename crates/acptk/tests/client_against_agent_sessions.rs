//! The real `acp client` listing and loading the real `acp agent`'s sessions across agent
//! restarts (each client run launches and ends its own agent on one `--state-dir`), in v1
//! (`session/load`) and v2 (`session/resume` with replay): titles, working directories and
//! order of `--list-sessions`; `--load` showing the replayed history as history and none of
//! its notices; an unknown id as a usage error that names it. No process is left behind.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

#[path = "support/acp_agent.rs"]
mod acp_agent;

use acp_agent::{Scratch, agent_text, code_reply, of_type, role_text};
use serde_json::Value;

const VERSIONS: [&str; 2] = ["1", "2"];

const NOTICE: &str = "/notice warning Disk low -- 5% left";
const LONG: &str = "a first prompt that is longer than forty characters";

/// The session id of a `--format json` run (its first event).
fn session_id(events: &[Value]) -> String {
    assert_eq!(events[0]["type"], "session", "{events:?}");
    events[0]["sessionId"].as_str().unwrap().to_owned()
}

/// The `--list-sessions --format json` lines: (id, cwd, title).
fn listed(scratch: &Scratch, version: &str) -> Vec<(String, String, Value)> {
    let ran = scratch.client(
        &["--protocol", version, "--list-sessions", "--format", "json"],
        &[],
    );
    ran.expect(0);
    assert_eq!(ran.stderr, "");
    ran.events()
        .iter()
        .map(|e| {
            assert_eq!(e["type"], "session_info", "{e}");
            let updated = e["updatedAt"].as_str().unwrap();
            // RFC 3339, UTC.
            assert!(
                updated.len() >= 20 && updated.ends_with('Z') && &updated[10..11] == "T",
                "{updated}"
            );
            (
                e["sessionId"].as_str().unwrap().to_owned(),
                e["cwd"].as_str().unwrap().to_owned(),
                e["title"].clone(),
            )
        })
        .collect()
}

#[test]
fn sessions_are_listed_with_titles_and_directories_most_recent_first() {
    for version in VERSIONS {
        let scratch = Scratch::new("list");
        let other = scratch.dir("other");
        let v = ["--protocol", version];

        // No sessions yet: nothing on standard output, a note on standard error.
        let ran = scratch.client(&["--protocol", version, "--list-sessions"], &[]);
        ran.expect(0);
        assert_eq!(ran.stdout, "");
        assert_eq!(ran.stderr, "acp: the agent has no sessions\n");

        let first = session_id(&scratch.turn(NOTICE, &v, &[]));
        let events = scratch
            .client_in(
                &other,
                &["--protocol", version, "--prompt", LONG, "--format", "json"],
                &[],
            )
            .expect(0)
            .events();
        let second = session_id(&events);
        assert_ne!(first, second);

        let work = scratch.work.to_str().unwrap().to_owned();
        let other = other.to_str().unwrap().to_owned();
        let title = "a first prompt that is longer than forty…";
        assert_eq!(title.chars().count(), 41);
        assert_eq!(
            listed(&scratch, version),
            [
                (second.clone(), other.clone(), Value::from(title)),
                (first.clone(), work.clone(), Value::from(NOTICE)),
            ],
            "v{version}"
        );

        // A turn in the first session makes it the most recent; its title stays.
        scratch
            .client(
                &["--protocol", version, "--load", &first, "--prompt", "again"],
                &[],
            )
            .expect(0);
        assert_eq!(
            listed(&scratch, version),
            [
                (first.clone(), work.clone(), Value::from(NOTICE)),
                (second.clone(), other.clone(), Value::from(title)),
            ],
            "v{version}"
        );

        // The plain form: id, directory, title, last update, separated by tabs.
        let ran = scratch.client(&["--protocol", version, "--list-sessions"], &[]);
        ran.expect(0);
        let lines: Vec<Vec<&str>> = ran
            .stdout
            .lines()
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(lines.len(), 2, "{}", ran.stdout);
        assert_eq!(lines[0][..3], [first.as_str(), work.as_str(), NOTICE]);
        assert_eq!(lines[1][..3], [second.as_str(), other.as_str(), title]);
        assert!(lines.iter().all(|l| l.len() == 4 && l[3].ends_with('Z')));
    }
}

#[test]
fn sessions_are_listed_to_clients_of_their_own_version() {
    let scratch = Scratch::new("list-versions");
    let one = session_id(&scratch.turn("in v1", &["--protocol", "1"], &[]));
    let two = session_id(&scratch.turn("in v2", &["--protocol", "2"], &[]));
    let ids = |version| -> Vec<String> {
        listed(&scratch, version)
            .into_iter()
            .map(|(id, _, _)| id)
            .collect()
    };
    assert_eq!(ids("1"), [one]);
    assert_eq!(ids("2"), [two]);
}

/// Two turns in one session, by two client runs (and two agent processes): a notice, then an
/// ordinary prompt. The session's id.
fn session_with_history(scratch: &Scratch, version: &str) -> String {
    let events = scratch.turn(NOTICE, &["--protocol", version], &[]);
    assert_eq!(of_type(&events, "notice").len(), 1, "{events:?}");
    let id = session_id(&events);
    let events = scratch.turn(
        "hello there",
        &["--protocol", version, "--load", &id, "--allow"],
        &[],
    );
    assert_eq!(events[0]["loaded"], true);
    assert!(agent_text(&events).ends_with("Done: 2 words, 11 characters."));
    id
}

#[test]
fn a_loaded_session_shows_its_history_as_history_without_its_notice() {
    for version in VERSIONS {
        let scratch = Scratch::new("load-json");
        let id = session_with_history(&scratch, version);
        let events = scratch.turn(
            "and now?",
            &["--protocol", version, "--load", &id, "--mode", "ask"],
            &[],
        );
        let v: u64 = version.parse().unwrap();
        assert_eq!(events[0]["type"], "session");
        assert_eq!(events[0]["sessionId"], id.as_str());
        assert_eq!(events[0]["loaded"], true);
        assert_eq!(events[0]["protocolVersion"], v);
        assert!(events[0].get("history").is_none());

        // The replay is all history, and comes before anything new.
        let split = events[1..]
            .iter()
            .position(|e| e.get("history").is_none())
            .map_or(events.len(), |at| at + 1);
        let (history, live) = events.split_at(split);
        let history = &history[1..];
        assert!(history.iter().all(|e| e["history"] == true), "{events:?}");
        assert!(
            live.iter().all(|e| e.get("history").is_none()),
            "{events:?}"
        );

        // Both earlier prompts, once each, and the earlier answer; never the notice.
        assert_eq!(role_text(history, "user"), format!("{NOTICE}hello there"));
        let users = of_type(history, "message")
            .iter()
            .filter(|e| e["role"] == "user")
            .count();
        assert_eq!(users, 2, "v{version}: {history:?}");
        assert_eq!(
            agent_text(history),
            format!("{}Done: 2 words, 11 characters.", code_reply(2)),
            "v{version}"
        );
        let calls = of_type(history, "tool_call");
        assert_eq!(calls[0]["title"], "Count the words of the prompt");
        assert_eq!(calls.last().unwrap()["status"], "completed");
        assert!(
            of_type(&events, "notice").is_empty(),
            "v{version}: {events:?}"
        );
        assert!(
            !events.iter().any(|e| {
                e.to_string().contains("Disk low -- 5% left") && e["type"] != "message"
            })
        );
        assert!(!agent_text(&events).contains("Disk low"), "v{version}");

        // The new turn: the prompt once, the answer in the mode asked for.
        assert_eq!(role_text(live, "user"), "and now?", "v{version}: {live:?}");
        assert_eq!(agent_text(live), "Your prompt had 2 words.");
        assert_eq!(live.last().unwrap()["stopReason"], "end_turn");
    }
}

#[test]
fn a_loaded_session_in_plain_text() {
    for version in VERSIONS {
        let scratch = Scratch::new("load-text");
        let id = session_with_history(&scratch, version);
        let ran = scratch.client(
            &[
                "--protocol",
                version,
                "--load",
                &id,
                "--prompt",
                "and now?",
                "--mode",
                "ask",
            ],
            &[],
        );
        ran.expect(0);
        assert_eq!(
            ran.stdout,
            format!(
                "-- history of the session --\n\
                 You: {NOTICE}\n\
                 You: hello there\n\
                 Agent: {}\n\
                 [tool] Count the words of the prompt (completed)\n\
                 \x20 2 words, 11 characters\n\
                 Agent: Done: 2 words, 11 characters.\n\
                 -- end of history --\n\
                 You: and now?\n\
                 Agent: Your prompt had 2 words.\n\
                 -- turn ended: end_turn --\n",
                code_reply(2)
            ),
            "v{version}"
        );
        assert!(!ran.stdout.contains("[notice]"));
    }
}

#[test]
fn an_unknown_session_id_is_a_usage_error_that_names_it() {
    for version in VERSIONS {
        let scratch = Scratch::new("load-unknown");
        let ran = scratch.client(
            &[
                "--protocol",
                version,
                "--load",
                "no-such-session",
                "--prompt",
                "hi",
            ],
            &[],
        );
        ran.expect(2);
        assert_eq!(ran.stdout, "");
        assert_eq!(
            ran.stderr,
            "acp: the agent could not load session `no-such-session`: session \
             `no-such-session` not found (code -32002): {\"sessionId\":\"no-such-session\"}\n",
            "v{version}"
        );
    }
}

#[test]
fn a_loaded_session_keeps_its_mode_and_options() {
    for version in VERSIONS {
        let scratch = Scratch::new("load-controls");
        let events = scratch.turn(
            "one two",
            &[
                "--protocol",
                version,
                "--mode",
                "ask",
                "--set",
                "shout=true",
            ],
            &[],
        );
        assert_eq!(agent_text(&events), "YOUR PROMPT HAD 2 WORDS.");
        let id = session_id(&events);
        // A new agent process: the session is still in the ask mode, and shouting.
        let events = scratch.turn(
            "three four five",
            &["--protocol", version, "--load", &id],
            &[],
        );
        let live: Vec<Value> = events
            .iter()
            .filter(|e| e.get("history").is_none())
            .cloned()
            .collect();
        assert_eq!(agent_text(&live), "YOUR PROMPT HAD 3 WORDS.", "v{version}");
    }
}

#[test]
fn a_session_is_loaded_only_over_the_version_it_was_created_with() {
    for (created, asked) in [("1", "2"), ("2", "1")] {
        let scratch = Scratch::new("load-other-version");
        let id = session_id(&scratch.turn("hello", &["--protocol", created], &[]));
        let ran = scratch.client(&["--protocol", asked, "--load", &id, "--prompt", "hi"], &[]);
        ran.expect(1);
        assert_eq!(ran.stdout, "");
        assert_eq!(
            ran.stderr,
            format!(
                "acp: the agent could not load session `{id}`: invalid params: session `{id}` \
                 was created with protocol version {created}, not {asked} (code -32602)\n"
            )
        );
    }
}
