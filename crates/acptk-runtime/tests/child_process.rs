//! Agents launched as child processes end with everything they started: closing the input,
//! then `SIGTERM` to the group, then `SIGKILL`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use acptk_runtime::transport::AgentCommand;

/// How long an agent has to exit after its input ends. The first test asserts that an agent
/// exiting by itself does so within it: long enough that a loaded two-core CI machine does not
/// take it for an agent that ignored its input.
const GRACE: Duration = Duration::from_secs(1);

/// A shell agent; `script` runs with `$1` = a file to write pids into.
fn shell(script: &str, pids: &Path) -> AgentCommand {
    AgentCommand::new("sh")
        .arg("-c")
        .arg(script)
        .arg("agent")
        .arg(pids)
        .grace_period(GRACE)
}

/// Whether `pid` is a live process (not gone, not a zombie).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// Waits until the agent wrote `count` pids into `file`.
async fn pids(file: &Path, count: usize) -> Vec<u32> {
    for _ in 0..500 {
        if let Ok(text) = std::fs::read_to_string(file) {
            let pids: Vec<u32> = text
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect();
            if pids.len() >= count {
                return pids;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "the agent did not write {count} pids into {}",
        file.display()
    );
}

/// A path for one test's pid file named `name`, in a new scratch directory that is removed
/// when the returned value is dropped (also when the test fails).
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("acp-child-")
        .tempdir()
        .unwrap();
    let file = dir.path().join(name);
    (dir, file)
}

#[tokio::test]
async fn an_agent_that_exits_at_end_of_input_is_not_signalled() {
    let (_dir, file) = scratch("eof");
    let mut agent = shell("echo $$ > \"$1\"; cat > /dev/null; exit 7", &file)
        .spawn()
        .unwrap();
    let pid = pids(&file, 1).await[0];
    let started = Instant::now();
    let status = agent.shutdown().await.unwrap();
    assert_eq!(
        status.code(),
        Some(7),
        "it exited by itself, with its own status"
    );
    assert!(started.elapsed() < GRACE, "took {:?}", started.elapsed());
    assert!(!running(pid));
}

#[tokio::test]
async fn an_agent_that_ignores_end_of_input_gets_sigterm() {
    let (_dir, file) = scratch("term");
    // Ignores its input; `sleep` in the foreground keeps it from reading.
    let mut agent = shell("echo $$ > \"$1\"; exec sleep 1000", &file)
        .spawn()
        .unwrap();
    let pid = pids(&file, 1).await[0];
    let started = Instant::now();
    let status = agent.shutdown().await.unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(15), "ended by SIGTERM: {status:?}");
    assert!(started.elapsed() >= GRACE);
    assert!(!running(pid));
}

#[tokio::test]
async fn a_grandchild_that_ignores_sigterm_and_input_does_not_survive() {
    let (_dir, file) = scratch("grandchild");
    // The agent starts a helper that ignores SIGTERM and never reads, records both pids, and
    // exits at the end of its input, leaving the helper behind.
    let script = r#"
        sh -c 'trap "" TERM; exec sleep 1000' < /dev/null &
        echo $$ $! > "$1"
        cat > /dev/null
    "#;
    let mut agent = shell(script, &file).spawn().unwrap();
    let found = pids(&file, 2).await;
    let (pid, helper) = (found[0], found[1]);
    assert!(running(helper));
    let started = Instant::now();
    let status = agent.shutdown().await.unwrap();
    assert!(status.success(), "{status:?}");
    assert!(!running(pid));
    assert!(
        !running(helper),
        "the helper {helper} survived the shutdown"
    );
    assert!(started.elapsed() < 2 * GRACE + Duration::from_secs(2));
    assert_eq!(agent.process_group(), None);
}

#[tokio::test]
async fn dropping_the_process_kills_its_group() {
    let (_dir, file) = scratch("drop");
    let script = r#"
        trap "" TERM
        sh -c 'trap "" TERM; exec sleep 1000' < /dev/null &
        echo $$ $! > "$1"
        exec sleep 1000
    "#;
    let agent = shell(script, &file).spawn().unwrap();
    let found = pids(&file, 2).await;
    drop(agent);
    for _ in 0..200 {
        if found.iter().all(|pid| !running(*pid)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("processes {found:?} survived the drop");
}

#[tokio::test]
async fn a_missing_program_is_named_in_the_error() {
    let error = AgentCommand::new("/nonexistent/acp-agent-xyz")
        .spawn()
        .unwrap_err();
    assert!(
        error.to_string().contains("/nonexistent/acp-agent-xyz"),
        "{error}"
    );
}
