//! Named sessions against the real `acp agent`: `acp client --session NAME` continues a
//! session per name, agent and directory (and never across them), `acp sessions` lists,
//! shows, prints, exports and forgets them from the client's own record, and an agent that
//! cannot continue a session gets a new one with a note.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

#[path = "support/home.rs"]
mod home;

use std::time::Duration;

use home::{Home, prompts};
use serde_json::Value;

/// `--session NAME --prompt PROMPT --format json`, which must succeed; its `named_session`
/// event.
fn turn(home: &Home, cwd: &std::path::Path, name: &str, prompt: &str, agent: &[String]) -> Value {
    home.client(
        cwd,
        &["--session", name, "--prompt", prompt, "--format", "json"],
        agent,
    )
    .expect(0)
    .event("named_session")
}

#[test]
fn a_named_session_continues_per_name_agent_and_directory() {
    let home = Home::new("ns-scope");
    let (a, b) = (home.work("a"), home.work("b"));
    let agent = home.agent(&[]);
    let first = turn(&home, &a, "work", "one two", &agent);
    assert_eq!(first["how"], "new", "{first}");
    let id = first["sessionId"].as_str().unwrap().to_owned();
    // The same name, agent and directory: the same session, continued.
    let second = turn(&home, &a, "work", "three", &agent);
    assert_eq!(second["how"], "resumed", "{second}");
    assert_eq!(second["sessionId"], id.as_str());
    // Another directory, or another agent: another session.
    let elsewhere = turn(&home, &b, "work", "four", &agent);
    assert_eq!(elsewhere["how"], "new", "{elsewhere}");
    assert_ne!(elsewhere["sessionId"], id.as_str());
    let other_agent = turn(&home, &a, "work", "five", &home.agent(&["--no-permission"]));
    assert_eq!(other_agent["how"], "new", "{other_agent}");
    assert_ne!(other_agent["sessionId"], id.as_str());
    // Back in the first scope, still the first session.
    assert_eq!(
        turn(&home, &a, "work", "six", &agent)["sessionId"],
        id.as_str()
    );

    let list = home.sessions(&a, &["list", "--format", "json"]).expect(0);
    let records = list.json();
    assert_eq!(records.len(), 3, "{}", list.stdout);
    assert!(records.iter().all(|record| record["name"] == "work"));
    let text = home.sessions(&a, &["list"]).expect(0);
    assert!(text.stdout.starts_with("NAME\tTURNS"), "{}", text.stdout);

    // Two records of the name in `a` (two agents): picked by key.
    let ambiguous = home.sessions(&a, &["history", "work"]).expect(2);
    assert!(
        ambiguous
            .stderr
            .contains("named sessions are called `work`"),
        "{}",
        ambiguous.stderr
    );
    let key = records
        .iter()
        .find(|record| record["sessionId"] == id.as_str())
        .unwrap()["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let history = home
        .sessions(&a, &["history", &key, "--format", "json"])
        .expect(0);
    assert_eq!(prompts(&history), ["one two", "three", "six"]);
    let turns = history.json();
    assert!(turns.iter().all(|turn| turn["sessionId"] == id.as_str()));
    assert!(turns.iter().all(|turn| turn["stopReason"] == "end_turn"));
    let replies: Vec<&Value> = turns[0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["type"] == "message" && entry["role"] == "agent")
        .collect();
    assert!(
        replies[0]["text"]
            .as_str()
            .unwrap()
            .contains("your prompt had 2 words"),
        "{}",
        history.stdout
    );
    let last = home
        .sessions(&b, &["history", "work", "--limit", "1"])
        .expect(0);
    assert!(last.stdout.contains("You: four"), "{}", last.stdout);
    let show = home
        .sessions(&a, &["show", &key, "--format", "json"])
        .expect(0);
    let shown: Value = serde_json::from_str(show.stdout.trim()).unwrap();
    assert_eq!(shown["sessionId"], id.as_str());
    assert_eq!(shown["turns"], 3);
    assert_eq!(shown["cwd"], a.to_str().unwrap());
    assert_eq!(shown["owner"], Value::Null);

    // Exports: Markdown and JSON Lines, by the file's extension.
    let markdown = a.join("work.md");
    home.sessions(
        &a,
        &["export", &key, "--output", markdown.to_str().unwrap()],
    )
    .expect(0);
    let markdown = std::fs::read_to_string(markdown).unwrap();
    assert!(markdown.starts_with("# Session `work`"), "{markdown}");
    for heading in [
        "## Turn 1 ",
        "## Turn 2 ",
        "## Turn 3 ",
        "> one two",
        "> six",
    ] {
        assert!(markdown.contains(heading), "{heading:?} in\n{markdown}");
    }
    let lines = home
        .sessions(&a, &["export", &key, "--format", "jsonl"])
        .expect(0)
        .json();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["sessionId"], id.as_str());
    assert!(lines[1..].iter().all(|line| line["type"] == "turn"));

    // Forgotten: the next run starts over.
    home.sessions(&a, &["forget", &key]).expect(0);
    assert_eq!(
        home.sessions(&a, &["list", "--format", "json"])
            .expect(0)
            .json()
            .len(),
        2
    );
    let again = turn(&home, &a, "work", "seven", &agent);
    assert_eq!(again["how"], "new");
    assert_ne!(again["sessionId"], id.as_str());
    home.wait_for_nothing_left(Duration::from_secs(5));
}

#[test]
fn an_agent_that_cannot_continue_gets_a_new_session_with_a_note() {
    let home = Home::new("ns-eph");
    let work = home.work("w");
    // `--ephemeral`: the agent forgets its sessions when it exits.
    let agent: Vec<String> = [scripted::ACP, "agent", "--ephemeral"]
        .map(str::to_owned)
        .to_vec();
    for protocol in ["1", "2"] {
        let name = format!("eph{protocol}");
        let flags = |prompt: &'static str| {
            vec![
                "--protocol".to_owned(),
                protocol.to_owned(),
                "--session".to_owned(),
                name.clone(),
                "--prompt".to_owned(),
                prompt.to_owned(),
            ]
        };
        let run = |prompt: &'static str| {
            let flags = flags(prompt);
            let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
            home.client(&work, &flags, &agent).expect(0)
        };
        let first = run("first");
        assert!(
            first.stderr.contains(&format!("acp: session {name} ("))
                && first.stderr.contains(", new)"),
            "{}",
            first.stderr
        );
        let second = run("second");
        assert!(second.stderr.contains(", restarted)"), "{}", second.stderr);
        assert!(
            second.stderr.contains("started a new session")
                && second
                    .stderr
                    .contains(&format!("`acp sessions history {name}`")),
            "{}",
            second.stderr
        );
        // The client's own record has both turns, across the two sessions.
        let history = home
            .sessions(&work, &["history", &name, "--format", "json"])
            .expect(0);
        assert_eq!(prompts(&history), ["first", "second"]);
        let turns = history.json();
        assert_ne!(turns[0]["sessionId"], turns[1]["sessionId"]);
        let shown: Value = serde_json::from_str(
            home.sessions(&work, &["show", &name, "--format", "json"])
                .expect(0)
                .stdout
                .trim(),
        )
        .unwrap();
        assert_eq!(shown["earlierSessionIds"][0], turns[0]["sessionId"]);
    }
    home.wait_for_nothing_left(Duration::from_secs(5));
}

#[test]
fn bad_names_and_unknown_sessions_are_usage_errors() {
    let home = Home::new("ns-bad");
    let work = home.work("w");
    let agent = home.agent(&[]);
    for name in ["", "../up", "a b", "_under", &"x".repeat(65)] {
        let ran = home
            .client(&work, &["--session", name, "--prompt", "hi"], &agent)
            .expect(2);
        assert!(
            ran.stderr.contains("is not a session name"),
            "{}",
            ran.stderr
        );
    }
    for command in ["show", "history", "export", "forget", "cancel", "status"] {
        let ran = home.sessions(&work, &[command, "nosuch"]).expect(2);
        assert!(
            ran.stderr.contains("no named session `nosuch`"),
            "{command}: {}",
            ran.stderr
        );
    }
}
