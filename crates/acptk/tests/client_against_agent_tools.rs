//! The real `acp client` serving the real `acp agent`'s `/read PATH` (through the client's
//! files) and `/run COMMAND` (in a client terminal): a file inside the working directory is
//! read, a path outside it, a link leading outside and `--no-fs` are refused with the texts the
//! client and the agent document; a command runs and its output comes back, `--no-terminal`
//! gets the agent's "not advertised" reply; v2, which has neither method, gets the agent's
//! reply saying so. No process is left behind.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

#[path = "support/acp_agent.rs"]
mod acp_agent;

use acp_agent::{Scratch, agent_text, first_call, of_type, tool_statuses};
use serde_json::json;

/// The agent's whole answer to `prompt` (a one-turn JSON run that must end normally).
fn answer(scratch: &Scratch, prompt: &str, flags: &[&str]) -> String {
    let events = scratch.turn(prompt, flags, &[]);
    assert_eq!(
        events.last().unwrap()["stopReason"],
        "end_turn",
        "{events:?}"
    );
    agent_text(&events)
}

#[test]
fn a_file_inside_the_working_directory_is_read() {
    let scratch = Scratch::new("read-inside");
    std::fs::write(scratch.work.join("notes.txt"), "alpha\nbeta gamma\n").unwrap();
    let path = scratch.work.join("notes.txt");
    let path = path.display();
    // Relative to the session's directory, and absolute.
    for asked in ["notes.txt".to_owned(), path.to_string()] {
        assert_eq!(
            answer(&scratch, &format!("/read {asked}"), &[]),
            format!("{path} has 2 lines and 17 characters. It starts with: alpha\nbeta gamma\n")
        );
    }
    // A file in a subdirectory is inside too.
    std::fs::create_dir(scratch.work.join("sub")).unwrap();
    std::fs::write(scratch.work.join("sub/deep.txt"), "deep").unwrap();
    assert_eq!(
        answer(&scratch, "/read sub/deep.txt", &[]),
        format!(
            "{}/sub/deep.txt has 1 lines and 4 characters. It starts with: deep",
            scratch.work.display()
        )
    );
}

/// The agent's reply when the client refused to read `path` because it is outside.
fn refused_outside(scratch: &Scratch, path: &str, resolves: Option<&str>) -> String {
    let how = resolves.map_or(String::new(), |to| format!(" (it resolves to `{to}`)"));
    format!(
        "Reading {path} failed: invalid params: `{path}` is outside the session's \
         directories{how}; allowed: `{}` (code -32602)",
        scratch.work.display()
    )
}

#[test]
fn a_path_outside_and_a_link_leading_outside_are_refused() {
    let scratch = Scratch::new("read-outside");
    let secret = scratch.outside.join("secret.txt");
    std::fs::write(&secret, "do not read me").unwrap();
    let secret = secret.to_str().unwrap();
    let text = answer(&scratch, &format!("/read {secret}"), &[]);
    assert_eq!(text, refused_outside(&scratch, secret, None));
    assert!(!text.contains("do not read me"));

    // `..` out of the working directory.
    let dotted = format!("{}/../outside/secret.txt", scratch.work.display());
    let text = answer(&scratch, "/read ../outside/secret.txt", &[]);
    assert_eq!(text, refused_outside(&scratch, &dotted, Some(secret)));

    // A link inside the working directory that leads outside.
    let link = scratch.work.join("link.txt");
    std::os::unix::fs::symlink(secret, &link).unwrap();
    let link = link.to_str().unwrap();
    let text = answer(&scratch, "/read link.txt", &[]);
    assert_eq!(text, refused_outside(&scratch, link, Some(secret)));
    assert!(!text.contains("do not read me"));
}

#[test]
fn no_fs_gets_the_agents_not_advertised_reply() {
    let scratch = Scratch::new("read-no-fs");
    std::fs::write(scratch.work.join("notes.txt"), "alpha\n").unwrap();
    assert_eq!(
        answer(&scratch, "/read notes.txt", &["--no-fs"]),
        "I cannot read notes.txt: the client did not advertise \
         `clientCapabilities.fs.readTextFile`, so `fs/read_text_file` cannot be used (nothing \
         was sent)."
    );
}

#[test]
fn v2_has_no_files_or_terminals_and_the_agent_says_so() {
    let scratch = Scratch::new("tools-v2");
    std::fs::write(scratch.work.join("notes.txt"), "alpha\n").unwrap();
    assert_eq!(
        answer(&scratch, "/read notes.txt", &["--protocol", "2"]),
        "I cannot read notes.txt: ACP v2 has no `fs/read_text_file`; nothing was sent."
    );
    assert_eq!(
        answer(&scratch, "/run echo hi", &["--protocol", "2", "--allow"]),
        "I cannot run `echo hi`: ACP v2 has no client terminals (`terminal/*`); nothing was sent."
    );
}

#[test]
fn a_command_runs_in_a_client_terminal() {
    let scratch = Scratch::new("run");
    let events = scratch.turn("/run echo hello world", &["--allow"], &[]);
    assert_eq!(
        of_type(&events, "terminal"),
        [
            &json!({"type": "terminal", "command": "echo", "args": ["hello", "world"], "cwd": scratch.work.display().to_string(), "allowed": true, "reason": null})
        ]
    );
    let asked = of_type(&events, "permission");
    assert_eq!(asked.len(), 1, "{events:?}");
    assert_eq!(asked[0]["title"], "Run `echo hello world`");
    assert_eq!(asked[0]["optionId"], "allow");
    assert_eq!(
        tool_statuses(&events, &first_call(&events))
            .last()
            .map(String::as_str),
        Some("completed")
    );
    let call = *of_type(&events, "tool_call").last().unwrap();
    assert_eq!(call["title"], "Run `echo hello world`");
    assert_eq!(
        agent_text(&events),
        "`echo hello world` exited with code 0. Output: hello world\n"
    );

    // The command runs in the session's directory; a failing one is reported with its code.
    std::fs::write(scratch.work.join("here.txt"), "").unwrap();
    assert_eq!(
        answer(&scratch, "/run ls", &["--allow"]),
        "`ls` exited with code 0. Output: here.txt\n"
    );
    assert_eq!(
        answer(&scratch, "/run sh -c exit", &["--allow"]),
        "`sh -c exit` exited with code 0. Output: "
    );
    let text = answer(&scratch, "/run ls no-such-file", &["--allow"]);
    assert!(
        text.starts_with("`ls no-such-file` exited with code 2. Output: ls: "),
        "{text}"
    );
}

#[test]
fn a_command_is_not_run_without_permission() {
    let scratch = Scratch::new("run-rejected");
    let events = scratch.turn("/run touch made.txt", &[], &[]);
    assert!(of_type(&events, "terminal").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "permission")[0]["optionId"], "reject");
    assert_eq!(
        agent_text(&events),
        "You did not allow me to run `touch made.txt`."
    );
    assert!(!scratch.work.join("made.txt").exists());
}

#[test]
fn no_terminal_gets_the_agents_not_advertised_reply() {
    let scratch = Scratch::new("run-no-terminal");
    let events = scratch.turn("/run touch made.txt", &["--no-terminal", "--allow"], &[]);
    assert_eq!(
        agent_text(&events),
        "I cannot run `touch made.txt`: the client did not advertise \
         `clientCapabilities.terminal`, so client terminals (`terminal/*`) cannot be used \
         (nothing was sent)."
    );
    // The agent checked before asking: no tool call, no permission, nothing run.
    assert!(of_type(&events, "tool_call").is_empty(), "{events:?}");
    assert!(of_type(&events, "permission").is_empty(), "{events:?}");
    assert!(!scratch.work.join("made.txt").exists());
}

#[test]
fn a_command_still_running_when_the_turn_times_out_is_ended() {
    let scratch = Scratch::new("run-timeout");
    // A duration no other process on the machine is likely to sleep for.
    let seconds = format!("29.{}7", std::process::id());
    let prompt = format!("/run sleep {seconds}");
    let child = scratch.spawn_in(
        &scratch.work,
        &[
            "--prompt",
            &prompt,
            "--allow",
            "--timeout",
            "1",
            "--format",
            "json",
        ],
        &[],
    );
    let command = format!("sleep\0{seconds}");
    let start = std::time::Instant::now();
    while scripted::processes_with(&command).is_empty() {
        assert!(start.elapsed() < acp_agent::LIMIT, "the command never ran");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let ran = scratch.finish(child);
    ran.expect(4);
    let events = ran.events();
    assert_eq!(
        of_type(&events, "terminal"),
        [
            &json!({"type": "terminal", "command": "sleep", "args": [seconds], "cwd": scratch.work.display().to_string(), "allowed": true, "reason": null})
        ]
    );
    let last = events.last().unwrap();
    assert_eq!(last["type"], "error", "{events:?}");
    assert_eq!(last["exitCode"], 4);
    assert_eq!(
        last["message"],
        "the turn did not end within 1 s (--timeout); cancelled it"
    );
    assert!(
        scripted::processes_with(&command).is_empty(),
        "the command outlived the client"
    );
}

#[test]
fn add_dir_is_left_out_for_this_agent_and_a_file_that_is_not_text_is_refused() {
    let scratch = Scratch::new("read-add-dir");
    let extra = scratch.outside.join("extra.txt");
    std::fs::write(&extra, "from the further directory").unwrap();
    let extra = extra.to_str().unwrap();
    let outside = scratch.outside.to_str().unwrap();
    // `acp agent` does not advertise `additionalDirectories`: the client sends none, and its
    // files stay confined to the session's one directory.
    assert_eq!(
        answer(&scratch, &format!("/read {extra}"), &["--add-dir", outside]),
        refused_outside(&scratch, extra, None)
    );

    std::fs::write(scratch.work.join("binary.dat"), b"ab\xff\xfecd").unwrap();
    let binary = format!("{}/binary.dat", scratch.work.display());
    assert_eq!(
        answer(&scratch, "/read binary.dat", &[]),
        format!(
            "Reading {binary} failed: internal error: `{binary}` is not UTF-8 text (invalid \
             byte at offset 2 of the part read) (code -32603)"
        )
    );
}
