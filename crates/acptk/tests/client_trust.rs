//! The client's trust boundary against a hostile agent (`tests/agents/scripted.sh hostile`
//! and `setsid`): no command runs without consent (the default policy, `--deny-all`, a policy
//! file), over stdio and over `--url` (where `terminal` is not even advertised unless
//! `--allow-remote-terminal`); a terminal's directory must lie inside the session's; with
//! consent the command runs; and a child that left its process group with `setsid` is gone
//! once the client has exited.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/listening.rs"]
mod listening;
#[path = "support/scripted.rs"]
mod scripted;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use scripted::{ACP, Run, alive, answers, finish, initialize, script, text};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);

fn answer(run: &Run, id: u64) -> Value {
    answers(run)
        .into_iter()
        .find(|answer| answer["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id}:\n{}", run.log()))
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    text(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn no_command_runs_without_consent() {
    let policy_dir = Run::new("policy-file");
    let policy = policy_dir.dir.join("policy.json");
    std::fs::write(
        &policy,
        r#"{"rules": [{"run": "sh -c touch*", "decision": "deny"}], "default": "allow"}"#,
    )
    .unwrap();
    let cases: [(&str, Vec<&str>); 4] = [
        ("the default policy", vec![]),
        ("--deny-all", vec!["--deny-all"]),
        (
            "--non-interactive-permissions fail",
            vec!["--non-interactive-permissions", "fail"],
        ),
        ("a policy file", vec!["--policy", policy.to_str().unwrap()]),
    ];
    for (name, flags) in cases {
        let run = Run::new("hostile");
        let mut all = vec!["--prompt", "go", "--format", "json"];
        all.extend(&flags);
        let output = run.run("hostile", &all, LIMIT);
        let refused = answer(&run, 200);
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("running `sh` was refused"),
            "{name}: {refused}"
        );
        assert!(
            !run.dir.join("marker").exists(),
            "{name}: the command ran without consent"
        );
        let events = json_lines(&output.stdout);
        let terminal = events
            .iter()
            .find(|event| event["type"] == "terminal")
            .unwrap_or_else(|| panic!("{name}: no terminal event: {events:?}"));
        assert_eq!(terminal["allowed"], false, "{name}");
        assert_eq!(terminal["command"], "sh", "{name}");
        assert!(terminal["reason"].is_string(), "{name}: {terminal}");
        assert!(run.nothing_left(), "{name}");
        if name.contains("fail") {
            assert_eq!(output.status.code(), Some(6), "{name}");
            assert!(
                text(&output.stderr).contains("--non-interactive-permissions"),
                "{name}: {}",
                text(&output.stderr)
            );
        } else {
            assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        }
    }
}

#[test]
fn with_consent_the_command_runs_but_only_inside_the_session() {
    let run = Run::new("hostile-allowed");
    let output = run.run("hostile", &["--prompt", "go", "--approve-all"], LIMIT);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(run.dir.join("marker").exists(), "the approved command ran");
    assert_eq!(answer(&run, 201)["result"]["exitCode"], 0);
    // Its directory outside the session's is refused whatever the policy.
    let outside = answer(&run, 202);
    let message = outside["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("outside the session's directories"),
        "{outside}"
    );
    assert!(!run.dir.join("marker-root").exists());
    let out = text(&output.stdout);
    assert!(
        out.contains(&format!(
            "[terminal] sh -c 'touch {}/marker'",
            run.dir.display()
        )),
        "{out}"
    );
    assert!(out.contains("(in /) refused: `/` is outside"), "{out}");
}

#[test]
fn over_url_no_terminal_is_offered_unless_the_flag_says_so() {
    let run = Run::new("hostile-url");
    let script = script();
    let envs = [
        ("ACP_TEST_LOG", run.dir.join("agent.log")),
        ("ACP_TEST_DIR", run.dir.clone()),
    ];
    let envs: Vec<(&str, &str)> = envs
        .iter()
        .map(|(name, value)| (*name, value.to_str().unwrap()))
        .collect();
    let server =
        listening::Listening::proxy(&[], &["sh", script.to_str().unwrap(), "hostile"], &envs);
    let client = |flags: &[&str]| {
        let output = Command::new(ACP)
            .args(["client", "--url", &server.url, "--prompt", "go", "--cwd"])
            .arg(&run.dir)
            .args(flags)
            .spawn_reading(Stdio::piped())
            .unwrap();
        finish(output, LIMIT)
    };
    let output = client(&["--approve-all"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let caps = &initialize(&run)["clientCapabilities"];
    assert_eq!(caps["terminal"], false, "{caps}");
    assert_eq!(
        caps["fs"],
        serde_json::json!({"readTextFile": false, "writeTextFile": false})
    );
    assert_eq!(answer(&run, 200)["error"]["code"], -32601);
    assert!(!run.dir.join("marker").exists());

    // Named risks: offered, and then consent still decides.
    std::fs::remove_file(run.dir.join("agent.log")).unwrap();
    let output = client(&["--allow-remote-terminal", "--allow-remote-fs"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let caps = &initialize(&run)["clientCapabilities"];
    assert_eq!(caps["terminal"], true, "{caps}");
    assert_eq!(caps["fs"]["readTextFile"], true, "{caps}");
    let refused = answer(&run, 200);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("was refused"),
        "{refused}"
    );
    assert!(!run.dir.join("marker").exists());
}

#[test]
fn a_setsid_child_is_gone_after_the_client_exits() {
    let run = Run::new("setsid");
    let output = run.run("setsid", &["--prompt", "go", "--approve-all"], LIMIT);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let pid: u32 = std::fs::read_to_string(run.dir.join("setsid.pid"))
        .unwrap_or_else(|_| panic!("the setsid child did not start: {}", run.log()))
        .trim()
        .parse()
        .unwrap();
    // The client has exited: its descendants are already gone (a moment for the kernel).
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive(pid);
    if survived {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(!survived, "the setsid child {pid} outlived the client");
    assert!(run.nothing_left());
}
