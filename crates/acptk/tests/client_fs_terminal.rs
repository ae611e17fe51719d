//! `acp client --prompt` serving the agent's file and terminal requests: reads inside the
//! session's directory, writes refused unless `--allow-write` (no terminal to ask on), paths
//! outside refused, commands refused without consent and run with it, and reported; `--no-fs` and `--no-terminal` take them away (and out of `initialize`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

use std::time::Duration;

use scripted::{Run, answers, initialize, text};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);

fn answer(answers: &[Value], id: u64) -> &Value {
    answers
        .iter()
        .find(|answer| answer["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id}: {answers:?}"))
}

#[test]
fn writes_are_refused_without_allow_write() {
    let run = Run::new("fs-refused");
    std::fs::write(run.dir.join("in.txt"), "one\ntwo\nthree\n").unwrap();
    let output = run.run("fs", &["--prompt", "go"], LIMIT);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let answers = answers(&run);
    assert_eq!(answer(&answers, 100)["result"]["content"], "two\n");
    let refused = answer(&answers, 101)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(refused.contains("no terminal to ask on"), "{refused}");
    assert!(!run.dir.join("out.txt").exists());
    let outside = answer(&answers, 102)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        outside.contains("outside the session's directories"),
        "{outside}"
    );
    // The command needs consent too, and nobody could be asked.
    let command = answer(&answers, 103)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(command.contains("running `sh` was refused"), "{command}");
    let out = text(&output.stdout);
    for needle in [
        "(20 bytes) refused: the permission policy asks the user and there is no terminal to ask on",
        "[terminal] sh -c 'echo from the terminal; exit 4' (in ",
    ] {
        assert!(out.contains(needle), "{needle:?} missing:\n{out}");
    }
    let caps = &initialize(&run)["clientCapabilities"];
    assert_eq!(
        caps["fs"],
        serde_json::json!({"readTextFile": true, "writeTextFile": true})
    );
    assert_eq!(caps["terminal"], true);
}

#[test]
fn approve_all_writes_runs_and_json_reports_it() {
    let run = Run::new("fs-allowed");
    std::fs::write(run.dir.join("in.txt"), "one\ntwo\n").unwrap();
    let output = run.run(
        "fs",
        &["--prompt", "go", "--approve-all", "--format", "json"],
        LIMIT,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        std::fs::read_to_string(run.dir.join("out.txt")).unwrap(),
        "written by the agent"
    );
    let events: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let write = events.iter().find(|e| e["type"] == "file_write").unwrap();
    assert_eq!(write["allowed"], true);
    assert_eq!(write["bytes"], 20);
    let terminal = events.iter().find(|e| e["type"] == "terminal").unwrap();
    assert_eq!(terminal["command"], "sh");
    assert_eq!(terminal["allowed"], true);
    assert_eq!(answer(&answers(&run), 104)["result"]["exitCode"], 4);
    assert_eq!(events.last().unwrap()["type"], "stop");
}

#[test]
fn no_fs_and_no_terminal_take_the_services_away() {
    let run = Run::new("fs-off");
    std::fs::write(run.dir.join("in.txt"), "one\ntwo\n").unwrap();
    let output = run.run("fs", &["--prompt", "go", "--no-fs", "--no-terminal"], LIMIT);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let caps = &initialize(&run)["clientCapabilities"];
    assert_eq!(
        caps["fs"],
        serde_json::json!({"readTextFile": false, "writeTextFile": false})
    );
    assert_eq!(caps["terminal"], false);
    let answers = answers(&run);
    for id in [100, 101, 103] {
        assert_eq!(answer(&answers, id)["error"]["code"], -32601, "{id}");
    }
}

#[test]
fn a_loaded_session_prints_its_history_as_history_without_notices() {
    let run = Run::new("load");
    let output = run.run("load", &["--load", "s1", "--prompt", "and now?"], LIMIT);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(
        out.starts_with(
            "-- history of the session --\nYou: old question\nAgent: old answer\n-- end of history --\nYou: and now?\nAgent: Done.\n"
        ),
        "{out}"
    );
    assert!(!out.contains("Stale notice"), "{out}");
    assert!(run.log().contains(r#""method":"session/load""#));

    let run = Run::new("load-json");
    let output = run.run(
        "load",
        &["--load", "s1", "--prompt", "and now?", "--format", "json"],
        LIMIT,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let events: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(events[0]["loaded"], true);
    let history: Vec<&Value> = events.iter().filter(|e| e["history"] == true).collect();
    assert_eq!(history.len(), 2, "{events:?}");
    assert_eq!(history[0]["text"], "old question");
    assert!(events.iter().all(|e| e["type"] != "notice"), "{events:?}");
}
