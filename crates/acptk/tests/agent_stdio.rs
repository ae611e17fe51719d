//! `acp agent` on standard streams that are pipes (driven by the reactor) and that are plain
//! files (tokio's blocking-thread streams): the same answers either way.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::path::PathBuf;
use std::process::{Command, Stdio};

use spawn::Spawn;

#[path = "support/spawn.rs"]
mod spawn;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

const INPUT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#,
    "\n",
);

/// The ids of the responses in `output`, in order.
fn answered_ids(output: &str) -> Vec<i64> {
    output
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m.get("result").is_some())
        .filter_map(|m| m["id"].as_i64())
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("agent-stdio-{name}-{}", std::process::id()))
}

#[test]
fn pipes() {
    let child = Command::new(ACP)
        .args(["agent", "--ephemeral"])
        .env("ACP_AGENT_DELAY_MS", "0")
        .spawn_with_input(Stdio::inherit(), INPUT.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(
        answered_ids(&String::from_utf8(output.stdout).unwrap()),
        [0, 1]
    );
}

#[test]
fn plain_files() {
    let input = scratch("in");
    let output = scratch("out");
    std::fs::write(&input, INPUT).unwrap();
    let status = Command::new(ACP)
        .args(["agent", "--ephemeral"])
        .env("ACP_AGENT_DELAY_MS", "0")
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&output).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    let written = std::fs::read_to_string(&output).unwrap();
    assert_eq!(answered_ids(&written), [0, 1], "{written}");
    std::fs::remove_file(input).ok();
    std::fs::remove_file(output).ok();
}
