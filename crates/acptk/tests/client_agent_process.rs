//! The agent's process: its own process group, ended after the client closes its input, with
//! SIGTERM and then SIGKILL for what ignores both; and the relaunch as v1 when a v2 request
//! meets a v1 agent.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

use std::time::{Duration, Instant};

use scripted::{Run, alive, text};

#[test]
fn nothing_of_the_agent_survives_the_client() {
    let run = Run::new("group");
    let start = Instant::now();
    let output = run.run(
        "grandchild",
        &["--prompt", "hi", "--grace", "0.3"],
        Duration::from_secs(30),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let helper: u32 = std::fs::read_to_string(run.dir.join("helper.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The agent ignores SIGTERM and the end of its input; so does its helper. Both are gone
    // once the client has exited, after about twice the grace period.
    assert!(!alive(helper), "the helper {helper} survived the client");
    assert_eq!(run.agent_pids().len(), 1);
    assert!(run.nothing_left(), "a process of the agent survived");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_v1_agent_asked_for_v2_is_relaunched_and_learns_the_v1_capabilities() {
    let run = Run::new("fallback");
    let output = run.run(
        "v1only",
        &[
            "--protocol",
            "2",
            "--prompt",
            "/notice info x",
            "--format",
            "json",
        ],
        Duration::from_secs(30),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let initializes: Vec<serde_json::Value> = run
        .log()
        .lines()
        .filter(|line| line.contains(r#""method":"initialize""#))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(initializes.len(), 2, "{}", run.log());
    assert_eq!(run.agent_pids().len(), 2, "the agent was launched twice");
    assert!(run.nothing_left(), "both agent processes are gone");
    assert_eq!(initializes[0]["params"]["protocolVersion"], 2);
    let second = &initializes[1]["params"];
    assert_eq!(second["protocolVersion"], 1);
    assert_eq!(
        second["clientCapabilities"]["session"]["notices"],
        serde_json::json!({})
    );
    assert!(second.get("capabilities").is_none(), "{second}");
    let session = text(&output.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let session: serde_json::Value = serde_json::from_str(&session).unwrap();
    assert_eq!(session["protocolVersion"], 1);
    assert_eq!(session["proposedVersion"], 2);
}
