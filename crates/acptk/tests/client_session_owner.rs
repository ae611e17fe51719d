//! The owner of a named session (`acp client --session NAME --no-wait`) against the real
//! `acp agent`: queued prompts served in order by one background process, a run without
//! `--no-wait` served through it, `acp sessions status` and `cancel` from another process,
//! SIGTERM, a run waiting for another run, and nothing left after the owner's TTL.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

#[path = "support/home.rs"]
mod home;

use std::path::Path;
use std::time::{Duration, Instant};

use home::{Home, Ran, end, gone, prompts};
use serde_json::Value;

/// `acp sessions status NAME --format json`.
fn status(home: &Home, cwd: &Path, name: &str) -> Value {
    let ran = home
        .sessions(cwd, &["status", name, "--format", "json"])
        .expect(0);
    serde_json::from_str(ran.stdout.trim()).unwrap()
}

/// The session's recorded turns, once there are `count` of them (waiting up to 20 s).
fn history(home: &Home, cwd: &Path, name: &str, count: usize) -> Ran {
    let start = Instant::now();
    loop {
        let ran = home
            .sessions(cwd, &["history", name, "--format", "json"])
            .expect(0);
        if ran.json().len() >= count {
            return ran;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{} of {count} turns recorded:\n{}",
            ran.json().len(),
            ran.stdout
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn queued_prompts_are_served_in_order_by_one_owner_that_leaves_nothing_after_its_ttl() {
    let home = Home::new("ow-q");
    let work = home.work("w");
    // About 30 chunks of 80 ms: each ordinary turn takes over 2 s.
    let agent = home.agent(&["--delay-ms", "80", "--no-permission"]);
    let queue = |prompt: &str| {
        home.client(
            &work,
            &[
                "--session",
                "q",
                "--no-wait",
                "--ttl",
                "2",
                "--prompt",
                prompt,
            ],
            &agent,
        )
        .expect(0)
    };
    let first = queue("one");
    assert!(
        first
            .stderr
            .contains("acp: queued prompt #1 for session q (owner pid "),
        "{}",
        first.stderr
    );
    queue("two");
    let third = queue("three");
    assert!(
        third.stderr.contains("queued prompt #3"),
        "{}",
        third.stderr
    );

    // From another process: who serves, what runs, what waits.
    let now = status(&home, &work, "q");
    let owner = &now["owner"];
    let pid = owner["pid"].as_u64().unwrap();
    assert!(scripted::alive(u32::try_from(pid).unwrap()));
    assert_eq!(owner["name"], "q");
    assert_eq!(owner["running"]["ticket"], 1, "{now}");
    assert_eq!(owner["running"]["prompt"], "one");
    assert_eq!(owner["queued"], 2, "{now}");
    assert_eq!(owner["lastPrompt"]["prompt"], "one");
    assert!(owner["agent"].as_str().unwrap().contains("--delay-ms 80"));
    // The socket is the owner's alone.
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let socket = std::path::PathBuf::from(now["socket"].as_str().unwrap());
    let metadata = std::fs::metadata(&socket).unwrap();
    assert!(metadata.file_type().is_socket());
    assert_eq!(metadata.mode() & 0o777, 0o600, "{}", socket.display());
    let dir = std::fs::metadata(socket.parent().unwrap()).unwrap();
    assert_eq!(dir.mode() & 0o777, 0o700);

    // A run without --no-wait goes through the owner, after the queue, and streams its turn.
    let four = home
        .client(
            &work,
            &["--session", "q", "--prompt", "four", "--format", "json"],
            &agent,
        )
        .expect(0);
    assert!(
        four.stderr.contains("is served by its owner (pid ")
            && four.stderr.contains("prompt(s) before this one"),
        "{}",
        four.stderr
    );
    assert_eq!(four.event("named_session")["how"], "served");
    let said: String = four
        .json()
        .iter()
        .filter(|event| event["type"] == "message" && event["role"] == "agent")
        .map(|event| event["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(said.contains("your prompt had 1 words"), "{said}");
    assert_eq!(four.event("stop")["stopReason"], "end_turn");

    let turns = history(&home, &work, "q", 4);
    assert_eq!(prompts(&turns), ["one", "two", "three", "four"]);
    let turns = turns.json();
    assert!(turns.iter().all(|turn| turn["stopReason"] == "end_turn"));
    // One owner, one agent, one session for all of them.
    assert!(
        turns
            .iter()
            .all(|turn| turn["sessionId"] == turns[0]["sessionId"])
    );

    // Two seconds without work: the owner ends its agent and itself, and its socket goes.
    home.wait_for_nothing_left(Duration::from_secs(15));
    assert!(gone(pid, Duration::from_secs(5)));
    assert!(home.sockets().is_empty(), "{:?}", home.sockets());
    let after = status(&home, &work, "q");
    assert_eq!(after["owner"], Value::Null);
}

#[test]
fn cancel_and_status_from_another_process() {
    let home = Home::new("ow-c");
    let work = home.work("w");
    // Chunks of 300 ms: a turn of about 10 s, unless cancelled.
    let agent = home.agent(&["--delay-ms", "300", "--no-permission"]);
    home.client(
        &work,
        &[
            "--session",
            "c",
            "--no-wait",
            "--ttl",
            "0",
            "--prompt",
            "a long one",
        ],
        &agent,
    )
    .expect(0);
    home.status_until(&work, "c", |status| {
        status["owner"]["running"]["ticket"] == 1
    });
    let text = home.sessions(&work, &["status", "c"]).expect(0);
    for line in [
        "session     c (",
        "owner       pid ",
        "state       running prompt #1 since ",
        ": a long one",
        "queue       0 prompt(s) waiting",
        "--delay-ms 300",
    ] {
        assert!(text.stdout.contains(line), "{line:?} in\n{}", text.stdout);
    }
    let started = Instant::now();
    let cancel = home.sessions(&work, &["cancel", "c"]).expect(0);
    assert!(
        cancel
            .stderr
            .contains("acp: cancelled the running turn (prompt #1) of session c"),
        "{}",
        cancel.stderr
    );
    let turns = history(&home, &work, "c", 1).json();
    assert_eq!(turns[0]["stopReason"], "cancelled", "{}", turns[0]);
    assert!(started.elapsed() < Duration::from_secs(5));
    // TTL 0: the owner exits once its queue is empty.
    home.wait_for_nothing_left(Duration::from_secs(10));
    let nothing = home.sessions(&work, &["cancel", "c"]).expect(0);
    assert!(
        nothing.stderr.contains("nothing to cancel"),
        "{}",
        nothing.stderr
    );
}

#[test]
fn sigterm_ends_the_owner_and_its_agent_and_a_waiting_run_takes_over() {
    let home = Home::new("ow-t");
    let work = home.work("w");
    let agent = home.agent(&["--delay-ms", "300", "--no-permission"]);
    home.client(
        &work,
        &[
            "--session",
            "t",
            "--no-wait",
            "--ttl",
            "60",
            "--prompt",
            "first",
        ],
        &agent,
    )
    .expect(0);
    let pid = home.status_until(&work, "t", |status| {
        status["owner"]["running"]["ticket"] == 1
    })["owner"]["pid"]
        .as_u64()
        .unwrap();
    // A run waiting behind it (a notice command: a short turn).
    let mut args = vec!["client", "--session", "t", "--prompt", "/notice info Done"];
    args.push("--");
    args.extend(agent.iter().map(String::as_str));
    let waiting = home.spawn(&work, &args);
    home.status_until(&work, "t", |status| status["owner"]["queued"] == 1);
    // And a queued prompt that nobody waits for: dropped, and the owner's log says so.
    home.client(
        &work,
        &["--session", "t", "--no-wait", "--prompt", "never run"],
        &agent,
    )
    .expect(0);
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let waited = end(waiting, Duration::from_secs(20)).expect(0);
    assert!(
        waited.stdout.contains("[notice] Info: Done"),
        "{}\n{}",
        waited.stdout,
        waited.stderr
    );
    assert!(gone(pid, Duration::from_secs(5)));
    let turns = history(&home, &work, "t", 2).json();
    assert_eq!(turns[0]["prompt"], "first");
    assert!(
        turns[0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("ended by SIGTERM"),
        "{}",
        turns[0]
    );
    assert_eq!(turns[1]["prompt"], "/notice info Done");
    assert_eq!(turns[1]["stopReason"], "end_turn");
    // The waiting run took the session over and continued it.
    assert_eq!(turns[1]["sessionId"], turns[0]["sessionId"]);
    home.wait_for_nothing_left(Duration::from_secs(10));
    assert!(home.sockets().is_empty());
    let sessions = home.state.join("acp/client/sessions");
    let log = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .find(|entry| entry.file_name().to_string_lossy().ends_with(".owner.log"))
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
        .expect("the owner's log");
    assert!(log.contains("acp: owner: ended by SIGTERM"), "{log}");
    assert!(
        log.contains("prompt #3 not run (the owner is exiting): never run"),
        "{log}"
    );
    // The records, histories, locks and log are the user's alone, and the times sort as text
    // (always three digits of milliseconds).
    use std::os::unix::fs::MetadataExt;
    for entry in std::fs::read_dir(&sessions).unwrap().flatten() {
        let mode = entry.metadata().unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", entry.path().display());
    }
    for turn in &turns {
        for key in ["startedAt", "endedAt"] {
            let at = turn[key].as_str().unwrap();
            assert_eq!(at.len(), "2026-05-01T10:00:00.000Z".len(), "{at}");
            assert!(at.ends_with('Z') && at.as_bytes()[19] == b'.', "{at}");
        }
    }
}

#[test]
fn a_run_waits_for_another_run_and_cancel_reaches_a_run_in_the_foreground() {
    let home = Home::new("ow-f");
    let work = home.work("w");
    let agent = home.agent(&["--delay-ms", "300", "--no-permission"]);
    let with = |prompt: &'static str| {
        let mut args = vec!["client", "--session", "f", "--prompt", prompt, "--"];
        args.extend(agent.iter().map(String::as_str));
        home.spawn(&work, &args)
    };
    let long = with("a long one");
    let run = home.status_until(&work, "f", |status| status["run"]["role"] == "run");
    assert_eq!(run["owner"], Value::Null);
    assert_eq!(run["run"]["prompt"], "a long one");
    let short = with("/notice info After");
    // The second run waits, saying so.
    std::thread::sleep(Duration::from_millis(500));
    let cancel = home.sessions(&work, &["cancel", "f"]).expect(0);
    assert!(
        cancel.stderr.contains("to cancel its turn"),
        "{}",
        cancel.stderr
    );
    let long = end(long, Duration::from_secs(20));
    assert_eq!(long.code, Some(130), "{}", long.stderr);
    let short = end(short, Duration::from_secs(20)).expect(0);
    assert!(
        short.stderr.contains("acp: session f is busy (pid "),
        "{}",
        short.stderr
    );
    assert!(
        short.stdout.contains("[notice] Info: After"),
        "{}",
        short.stdout
    );
    let turns = history(&home, &work, "f", 2);
    assert_eq!(prompts(&turns), ["a long one", "/notice info After"]);
    home.wait_for_nothing_left(Duration::from_secs(10));
}

#[test]
fn an_owner_that_cannot_start_its_agent_says_so() {
    let home = Home::new("ow-x");
    let work = home.work("w");
    let missing = vec![home.dir().join("no-such-agent").display().to_string()];
    let ran = home
        .client(
            &work,
            &["--session", "x", "--no-wait", "--prompt", "hi"],
            &missing,
        )
        .expect(5);
    assert!(ran.stderr.contains("cannot start"), "{}", ran.stderr);
    home.wait_for_nothing_left(Duration::from_secs(10));
    assert!(home.sockets().is_empty(), "{:?}", home.sockets());
}
