//! Launching an agent as a child process, talking to it over its standard input/output, and
//! ending it together with everything it started.
//!
//! On Unix the agent runs in a process group of its own, so that the processes it starts
//! (helpers, a native binary behind a launcher script) can be ended with it: they stay in that
//! group unless they leave it on purpose (`setsid`, `setpgid`). [`AgentProcess::shutdown`] ends
//! the group politely: the agent's input is closed (the end of a stdio conversation), then after
//! a grace period the group gets `SIGTERM`, and after another grace period `SIGKILL`. Dropping an
//! [`AgentProcess`] that was not shut down sends `SIGKILL` to the group at once.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long an agent gets to exit after its input closed, and again after `SIGTERM`, by default.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);

/// How often the process group is looked at while waiting for it to empty.
const POLL: Duration = Duration::from_millis(20);

/// How long to wait for the group to disappear after `SIGKILL` (processes being torn down by
/// the kernel, or zombies waiting for a parent to reap them).
const AFTER_KILL: Duration = Duration::from_secs(1);

/// Where the lines an agent writes to its standard error go (see
/// [`AgentCommand::stderr_lines`]).
#[derive(Clone)]
pub struct StderrSink(std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for StderrSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StderrSink")
    }
}

/// The longest standard-error line handed on whole; longer ones are cut into pieces.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// Reads `pipe` line by line (lines cut at [`MAX_STDERR_LINE`]) into `sink` until it ends.
async fn pump_stderr(pipe: tokio::process::ChildStderr, sink: StderrSink) {
    use tokio::io::AsyncReadExt;
    let mut pipe = pipe;
    let mut pending: Vec<u8> = Vec::new();
    let mut buffer = vec![0u8; 8192];
    loop {
        let read = match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        pending.extend_from_slice(&buffer[..read]);
        while let Some(end) = pending.iter().position(|byte| *byte == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            (sink.0)(String::from_utf8_lossy(&line[..end]).trim_end_matches('\r'));
        }
        if pending.len() > MAX_STDERR_LINE {
            (sink.0)(&String::from_utf8_lossy(&pending));
            pending.clear();
        }
    }
    if !pending.is_empty() {
        (sink.0)(&String::from_utf8_lossy(&pending));
    }
}

/// The command line of an agent to launch.
///
/// ```
/// use acptk_runtime::transport::AgentCommand;
/// let command = AgentCommand::new("acp").arg("agent");
/// assert_eq!(command.program(), "acp");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentCommand {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
    inherit_stderr: bool,
    stderr_sink: Option<StderrSink>,
    grace: Duration,
}

impl AgentCommand {
    /// The program to run (looked up on `PATH` when it has no slash).
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            inherit_stderr: true,
            stderr_sink: None,
            grace: DEFAULT_GRACE,
        }
    }

    /// Adds one argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    #[must_use]
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the agent.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The working directory of the agent (default: ours).
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Whether the agent's standard error goes to ours (default) or is discarded.
    #[must_use]
    pub fn inherit_stderr(mut self, inherit: bool) -> Self {
        self.inherit_stderr = inherit;
        self
    }

    /// Hands each line the agent writes to its standard error to `sink` (from a task on the
    /// current tokio runtime, as the lines come, without the line break) instead of letting it
    /// reach ours; overrides [`AgentCommand::inherit_stderr`]. For a log file, a pane in a
    /// terminal UI, or a prefixed copy on the client's standard error.
    #[must_use]
    pub fn stderr_lines(mut self, sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.stderr_sink = Some(StderrSink(std::sync::Arc::new(sink)));
        self
    }

    /// How long [`AgentProcess::shutdown`] waits after closing the agent's input, and again
    /// after `SIGTERM` (default [`DEFAULT_GRACE`]).
    #[must_use]
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The program name.
    pub fn program(&self) -> &std::ffi::OsStr {
        &self.program
    }

    /// The arguments.
    pub fn arguments(&self) -> &[OsString] {
        &self.args
    }

    /// The environment variables set for the agent (name, value), in the order given.
    pub fn environment(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    /// The working directory set for the agent, if one was.
    pub fn working_dir(&self) -> Option<&std::path::Path> {
        self.cwd.as_deref()
    }

    /// The grace period of [`AgentProcess::shutdown`].
    pub fn grace(&self) -> Duration {
        self.grace
    }

    /// The command line as one string for messages and records (arguments separated by
    /// spaces, not quoted).
    pub fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|part| part.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Starts the agent with piped standard input and output, in a process group of its own.
    pub fn spawn(&self) -> std::io::Result<AgentProcess> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if self.stderr_sink.is_some() {
                Stdio::piped()
            } else if self.inherit_stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|error| {
            std::io::Error::new(
                error.kind(),
                format!("cannot start `{}`: {error}", self.program.to_string_lossy()),
            )
        })?;
        let group = child.id();
        if let (Some(sink), Some(stderr)) = (&self.stderr_sink, child.stderr.take()) {
            tokio::spawn(pump_stderr(stderr, sink.clone()));
        }
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        #[cfg(unix)]
        if let Some(stdout) = &stdout {
            super::pipe_capacity::widen(stdout);
        }
        let mut process = AgentProcess {
            child,
            group,
            stdin,
            stdout,
            grace: self.grace,
            status: None,
        };
        if process.stdin.is_none() || process.stdout.is_none() {
            process.kill_group();
            return Err(std::io::Error::other(
                "the agent's pipes could not be opened",
            ));
        }
        Ok(process)
    }
}

/// A running agent child process and its process group.
///
/// End it with [`AgentProcess::shutdown`] (polite) or [`AgentProcess::kill`]; when dropped
/// without either, its whole group is killed at once.
#[derive(Debug)]
pub struct AgentProcess {
    child: Child,
    /// The process group id (the agent's pid), while the group may still have members.
    group: Option<u32>,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    grace: Duration,
    status: Option<ExitStatus>,
}

impl AgentProcess {
    /// Takes the pipes to build a connection: (agent's stdout = our reader, agent's stdin =
    /// our writer). Returns `None` when they were already taken.
    ///
    /// Whoever holds the writer closes the agent's input by dropping or shutting it down (a
    /// connection does so when it closes); do that before [`Self::shutdown`], which otherwise
    /// has to wait out the grace period.
    pub fn take_pipes(&mut self) -> Option<(ChildStdout, ChildStdin)> {
        Some((self.stdout.take()?, self.stdin.take()?))
    }

    /// The operating system's process id, while the process runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// The process group of the agent and what it started (Unix), until it was ended.
    pub fn process_group(&self) -> Option<u32> {
        self.group
    }

    /// The grace period used by [`Self::shutdown`].
    pub fn grace_period(&self) -> Duration {
        self.grace
    }

    /// Waits for the agent itself to exit (closing its input first) and reports its exit
    /// status. Processes it started are left alone; use [`Self::shutdown`] to end them too.
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        drop(self.stdin.take());
        self.reap().await
    }

    /// The exit status if the agent has already exited.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let status = self.child.try_wait()?;
        self.status = status;
        Ok(status)
    }

    /// Ends the agent and every process of its group, politely, and reports the agent's exit
    /// status:
    ///
    /// 1. its input is closed (if we still hold it) and it gets the grace period to exit;
    /// 2. the group gets `SIGTERM` and the grace period again, to empty;
    /// 3. whatever is left gets `SIGKILL`.
    ///
    /// The group is signalled even when the agent itself exited, since what it started may
    /// live on. Returns within about twice the grace period plus one second.
    pub async fn shutdown(&mut self) -> std::io::Result<ExitStatus> {
        drop(self.stdin.take());
        let grace = self.grace;
        if let Ok(status) = tokio::time::timeout(grace, self.reap()).await {
            let status = status?;
            if !self.group_alive() {
                self.group = None;
                return Ok(status);
            }
        }
        self.signal_group(Signal::Term);
        let deadline = tokio::time::Instant::now() + grace;
        let status = match tokio::time::timeout_at(deadline, self.reap()).await {
            Ok(status) => Some(status?),
            Err(_) => None,
        };
        self.wait_group_until(deadline).await;
        if status.is_some() && !self.group_alive() {
            self.group = None;
            return status.ok_or_else(|| std::io::Error::other("no exit status"));
        }
        self.kill().await
    }

    /// Kills the agent and its whole group at once (`SIGKILL`) and reports the agent's exit
    /// status.
    pub async fn kill(&mut self) -> std::io::Result<ExitStatus> {
        drop(self.stdin.take());
        self.kill_group();
        let status = self.reap().await;
        self.wait_group_until(tokio::time::Instant::now() + AFTER_KILL)
            .await;
        self.group = None;
        status
    }

    /// Waits for the agent's own exit and keeps its status.
    async fn reap(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        let status = self.child.wait().await?;
        self.status = Some(status);
        Ok(status)
    }

    /// Waits until the group has no process left, or until `deadline`.
    async fn wait_group_until(&self, deadline: tokio::time::Instant) {
        while self.group_alive() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
    }

    /// `SIGKILL` to the group, or to the agent where there are no groups.
    fn kill_group(&mut self) {
        if !self.signal_group(Signal::Kill) {
            let _ = self.child.start_kill();
        }
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        if self.group.is_some() {
            self.kill_group();
        }
    }
}

/// The signals sent to an agent's group.
#[derive(Debug, Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
impl AgentProcess {
    /// Sends `signal` to the agent's process group; `false` when there is no group to send to.
    fn signal_group(&self, signal: Signal) -> bool {
        use nix::sys::signal::{Signal as Nix, killpg};
        let Some(group) = self.group_pid() else {
            return false;
        };
        let signal = match signal {
            Signal::Term => Nix::SIGTERM,
            Signal::Kill => Nix::SIGKILL,
        };
        killpg(group, signal).is_ok()
    }

    /// Whether any process of the group is left. On Linux zombies do not count (a process
    /// whose parent died is reaped by init, which some containers never do); elsewhere a
    /// zombie counts until it is reaped.
    fn group_alive(&self) -> bool {
        let Some(group) = self.group_pid() else {
            return false;
        };
        if nix::sys::signal::killpg(group, None).is_err() {
            return false;
        }
        #[cfg(target_os = "linux")]
        if let Some(live) = linux::live_members(group.as_raw()) {
            return live;
        }
        true
    }

    fn group_pid(&self) -> Option<nix::unistd::Pid> {
        let group = i32::try_from(self.group?).ok()?;
        // Never signal group 0 (our own) or a negative id (every process we may signal).
        (group > 1).then(|| nix::unistd::Pid::from_raw(group))
    }
}

#[cfg(target_os = "linux")]
mod linux {
    /// Whether a process that is not a zombie belongs to process group `group`, from
    /// `/proc`; `None` when `/proc` cannot be read.
    pub(super) fn live_members(group: i32) -> Option<bool> {
        let entries = std::fs::read_dir("/proc").ok()?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // `pid (command) state ppid pgrp ...`; the command may contain spaces and `)`.
            let Some((_, rest)) = stat.rsplit_once(") ") else {
                continue;
            };
            let mut fields = rest.split(' ');
            let state = fields.next().unwrap_or("");
            let pgrp = fields.nth(1).and_then(|field| field.parse::<i32>().ok());
            if pgrp == Some(group) && state != "Z" && state != "X" {
                return Some(true);
            }
        }
        Some(false)
    }
}

#[cfg(not(unix))]
impl AgentProcess {
    fn signal_group(&self, _signal: Signal) -> bool {
        false
    }

    fn group_alive(&self) -> bool {
        self.status.is_none()
    }
}
