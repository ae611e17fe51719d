//! Spawning a process under test with its standard streams set in one call: standard output
//! is always read by the test, standard input piped or closed, standard error as the test
//! wants it; or run to a required success. Include it with
//! `#[path = "support/spawn.rs"] mod spawn;` and `use spawn::Spawn;`.
#![allow(dead_code, clippy::panic)]

use std::io::{self, Write};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Spawning with the test's standard streams.
pub trait Spawn {
    /// Spawns with standard input and output piped, standard error to `stderr`.
    fn spawn_piped(&mut self, stderr: Stdio) -> io::Result<Child>;
    /// Spawns with standard input closed, standard output piped, standard error to `stderr`.
    fn spawn_reading(&mut self, stderr: Stdio) -> io::Result<Child>;
    /// Spawns as [`Spawn::spawn_piped`], writes `input` to standard input and closes it.
    fn spawn_with_input(&mut self, stderr: Stdio, input: &[u8]) -> io::Result<Child>;
    /// Runs to the end and returns what it printed; a panic, with its standard error, when
    /// it fails.
    fn succeeds(&mut self) -> Output;
}

impl Spawn for Command {
    fn spawn_piped(&mut self, stderr: Stdio) -> io::Result<Child> {
        self.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
    }

    fn spawn_reading(&mut self, stderr: Stdio) -> io::Result<Child> {
        self.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
    }

    fn spawn_with_input(&mut self, stderr: Stdio, input: &[u8]) -> io::Result<Child> {
        let mut child = self.spawn_piped(stderr)?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(input)?;
        }
        Ok(child)
    }

    fn succeeds(&mut self) -> Output {
        let output = self
            .output()
            .unwrap_or_else(|e| panic!("{self:?} does not start: {e}"));
        assert!(
            output.status.success(),
            "{self:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }
}

/// How `child` exited, when it does within `wait` (polled every 20 ms); `None` while it still
/// runs after that.
pub fn exited_within(child: &mut Child, wait: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + wait;
    loop {
        if let Some(status) = child.try_wait().unwrap_or_else(|e| panic!("try_wait: {e}")) {
            return Some(status);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Asserts that the run that gave `output` succeeded; a failure's message is `context`
/// followed by how it ended and what it printed.
pub fn assert_succeeded(output: &Output, context: &str) {
    assert!(
        output.status.success(),
        "{context}{}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
