//! `LocalTerminals`: commands with arguments, environment and directory, merged output kept
//! within the byte limit at a character boundary, exit codes and signals, kill and release,
//! and nothing left running afterwards.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client_support;

use std::time::Duration;

use acptk_runtime::client::{
    CreateTerminal, LocalTerminals, SessionScope, TerminalExit, TerminalRef, Terminals,
};
use client_support::{Scratch, gone_within};

fn scope(dir: &Scratch) -> SessionScope {
    SessionScope::new("s1", dir.path())
}

/// A scratch directory named after `name`, the session `s1` in it, and fresh terminals.
fn setup(name: &str) -> (Scratch, SessionScope, LocalTerminals) {
    let dir = Scratch::new(name);
    let scope = scope(&dir);
    (dir, scope, LocalTerminals::new())
}

/// Asserts that a terminal call failed with a message that says `words`.
fn refused<T: std::fmt::Debug>(result: Result<T, acptk_runtime::ErrorObject>, words: &str) {
    let error = result.unwrap_err();
    assert!(error.message.contains(words), "{}", error.message);
}

async fn run(terminals: &LocalTerminals, request: CreateTerminal) -> String {
    tokio::time::timeout(Duration::from_secs(10), terminals.create(request))
        .await
        .unwrap()
        .unwrap()
}

/// `sh -c SCRIPT`, approved (as the runtime marks it once the user agreed).
fn sh(scope: SessionScope, script: &str) -> CreateTerminal {
    CreateTerminal::new(scope, "sh")
        .args(["-c", script])
        .approve()
}

async fn wait(terminals: &LocalTerminals, scope: &SessionScope, id: &str) -> TerminalExit {
    tokio::time::timeout(
        Duration::from_secs(10),
        terminals.wait_for_exit(TerminalRef::new(scope.clone(), id)),
    )
    .await
    .unwrap()
    .unwrap()
}

async fn output(terminals: &LocalTerminals, scope: &SessionScope, id: &str) -> (String, bool) {
    let output = terminals
        .output(TerminalRef::new(scope.clone(), id))
        .await
        .unwrap();
    (output.output, output.truncated)
}

/// Reads the output until it holds a line ending (the command printed its first line).
async fn first_line(terminals: &LocalTerminals, scope: &SessionScope, id: &str) -> String {
    for _ in 0..500 {
        let (text, _) = output(terminals, scope, id).await;
        if let Some((line, _)) = text.split_once('\n') {
            return line.to_owned();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no output line");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_runs_with_its_arguments_environment_and_directory() {
    let (dir, scope, terminals) = setup("term-env");
    let id = run(
        &terminals,
        sh(
            scope.clone(),
            "echo \"$GREETING\"; pwd; echo oops >&2; exit 3",
        )
        .env("GREETING", "hi there"),
    )
    .await;
    assert_eq!(wait(&terminals, &scope, &id).await, TerminalExit::code(3));
    // Wait for the pipes to drain (they may close a moment after the exit).
    let mut text = String::new();
    for _ in 0..200 {
        text = output(&terminals, &scope, &id).await.0;
        if text.contains("oops") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Standard error shares the pipe of standard output, so the order is the command's own.
    assert_eq!(
        text,
        format!("hi there\n{}\noops\n", dir.path().display()),
        "standard error is merged in order"
    );

    // A directory of its own, inside the session's.
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let id = run(&terminals, sh(scope.clone(), "pwd").cwd(&sub)).await;
    wait(&terminals, &scope, &id).await;
    assert_eq!(
        first_line(&terminals, &scope, &id).await,
        sub.display().to_string()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_runs_unapproved_or_outside_the_session() {
    let (dir, scope, terminals) = setup("term-consent");
    let marker = dir.join("marker");
    let script = format!("touch {}", marker.display());
    let unapproved = CreateTerminal::new(scope.clone(), "sh").args(["-c", script.as_str()]);
    refused(terminals.create(unapproved).await, "was not approved");
    let other = Scratch::new("term-outside");
    for cwd in [other.path().to_owned(), std::path::PathBuf::from("/")] {
        refused(
            terminals.create(sh(scope.clone(), &script).cwd(&cwd)).await,
            "outside the session's directories",
        );
    }
    // A link inside that leads outside is outside too.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(other.path(), dir.join("link")).unwrap();
        refused(
            terminals
                .create(sh(scope.clone(), &script).cwd(dir.join("link")))
                .await,
            "resolves to",
        );
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!marker.exists(), "a refused command ran");
    assert_eq!(terminals.count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_is_cut_from_the_front_at_a_character_boundary() {
    let (_dir, scope, terminals) = setup("term-limit");
    // 300 two-byte characters, then an end marker; keep 10 bytes (the cut falls inside a character).
    let script = "i=0; while [ $i -lt 300 ]; do printf 'é'; i=$((i+1)); done; printf 'END'";
    let id = run(&terminals, sh(scope.clone(), script).output_byte_limit(10)).await;
    wait(&terminals, &scope, &id).await;
    let mut last = (String::new(), false);
    for _ in 0..200 {
        last = output(&terminals, &scope, &id).await;
        if last.0.ends_with("END") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (text, truncated) = last;
    assert!(truncated, "{text:?}");
    assert!(text.len() <= 10, "{} bytes: {text:?}", text.len());
    assert!(text.ends_with("END"), "{text:?}");
    assert!(
        !text.contains('\u{FFFD}'),
        "cut inside a character: {text:?}"
    );
    assert_eq!(
        text.trim_end_matches("END").chars().collect::<String>(),
        "ééé"
    );

    let id = run(&terminals, sh(scope.clone(), "printf short")).await;
    wait(&terminals, &scope, &id).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        output(&terminals, &scope, &id).await,
        ("short".to_owned(), false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_by_signal_kill_and_release() {
    let (_dir, scope, terminals) = setup("term-kill");
    let id = run(&terminals, sh(scope.clone(), "kill -TERM $$")).await;
    assert_eq!(
        wait(&terminals, &scope, &id).await,
        TerminalExit::signal("SIGTERM")
    );

    let id = run(&terminals, sh(scope.clone(), "echo started; exec sleep 30")).await;
    assert_eq!(first_line(&terminals, &scope, &id).await, "started");
    terminals
        .kill(TerminalRef::new(scope.clone(), &id))
        .await
        .unwrap();
    assert_eq!(
        wait(&terminals, &scope, &id).await,
        TerminalExit::signal("SIGKILL")
    );
    // Killed, not released: the output is still there.
    assert!(output(&terminals, &scope, &id).await.0.contains("started"));
    terminals
        .release(TerminalRef::new(scope.clone(), &id))
        .await
        .unwrap();
    refused(
        terminals.output(TerminalRef::new(scope.clone(), &id)).await,
        "unknown terminal",
    );
    assert_eq!(terminals.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_and_drop_end_what_the_command_started() {
    let (_dir, scope, terminals) = setup("term-group");
    // A grandchild that ignores SIGTERM, in the background.
    let script = "(trap '' TERM; exec sleep 60) & echo $!; wait";
    let first = run(&terminals, sh(scope.clone(), script)).await;
    let second = run(&terminals, sh(scope.clone(), script)).await;
    let first_pid: u32 = first_line(&terminals, &scope, &first)
        .await
        .parse()
        .unwrap();
    let second_pid: u32 = first_line(&terminals, &scope, &second)
        .await
        .parse()
        .unwrap();
    assert!(client_support::alive(first_pid));

    terminals
        .release(TerminalRef::new(scope.clone(), &first))
        .await
        .unwrap();
    assert!(gone_within(first_pid, Duration::from_secs(3)), "released");
    assert!(client_support::alive(second_pid));

    drop(terminals);
    assert!(gone_within(second_pid, Duration::from_secs(3)), "dropped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminals_belong_to_their_session_and_bad_commands_fail() {
    let (dir, scope, terminals) = setup("term-session");
    let id = run(&terminals, sh(scope.clone(), "true")).await;
    let other = SessionScope::new("s2", dir.path());
    assert!(
        terminals
            .output(TerminalRef::new(other.clone(), &id))
            .await
            .is_err()
    );
    assert!(
        terminals
            .release(TerminalRef::new(other, &id))
            .await
            .is_err()
    );

    refused(
        terminals
            .create(CreateTerminal::new(scope.clone(), "/nonexistent/acp-test-command").approve())
            .await,
        "cannot run",
    );
    refused(
        terminals
            .create(sh(scope.clone(), "true").cwd("relative/dir"))
            .await,
        "not an absolute path",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_the_output_stays_on_show_after_release() {
    use acptk_runtime::client::{RELEASED_KEPT, RELEASED_TAIL_BYTES};
    let (_dir, scope, terminals) = setup("term-tail");
    // Far more output than a released terminal keeps, in numbered lines.
    let id = run(
        &terminals,
        sh(
            scope.clone(),
            "i=0; while [ $i -lt 20000 ]; do echo line $i; i=$((i+1)); done; exit 3",
        ),
    )
    .await;
    assert_eq!(wait(&terminals, &scope, &id).await, TerminalExit::code(3));
    let (received, ended) = terminals.progress(&id).unwrap();
    assert!(ended && received > RELEASED_TAIL_BYTES as u64, "{received}");
    let live = terminals.tail(&id, 12).unwrap();
    assert_eq!(live.text, "line 19999\n");
    assert!(live.truncated && !live.released);
    assert_eq!(live.exit, Some(TerminalExit::code(3)));

    terminals
        .release(TerminalRef::new(scope.clone(), &id))
        .await
        .unwrap();
    let kept = terminals.tail(&id, usize::MAX).unwrap();
    assert!(kept.released && kept.truncated);
    assert_eq!(kept.exit, Some(TerminalExit::code(3)));
    assert!(kept.text.len() <= RELEASED_TAIL_BYTES);
    assert!(kept.text.starts_with("line "), "cut at a line start");
    assert!(kept.text.ends_with("line 19999\n"));
    assert_eq!(terminals.progress(&id), Some((received, true)));

    // Only the latest released terminals are kept.
    for _ in 0..RELEASED_KEPT {
        let other = run(&terminals, sh(scope.clone(), "echo x")).await;
        wait(&terminals, &scope, &other).await;
        terminals
            .release(TerminalRef::new(scope.clone(), &other))
            .await
            .unwrap();
    }
    assert!(terminals.tail(&id, 100).is_none());
    assert!(terminals.progress("no-such-terminal").is_none());
}
