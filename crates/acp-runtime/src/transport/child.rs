//! Launching an agent as a child process and talking to it over its standard input/output.

use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The command line of an agent to launch.
///
/// ```
/// use acp_runtime::transport::AgentCommand;
/// let command = AgentCommand::new("acp").arg("agent");
/// assert_eq!(command.program(), "acp");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentCommand {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    inherit_stderr: bool,
}

impl AgentCommand {
    /// The program to run (looked up on `PATH` when it has no slash).
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            inherit_stderr: true,
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

    /// Whether the agent's standard error goes to ours (default) or is discarded.
    #[must_use]
    pub fn inherit_stderr(mut self, inherit: bool) -> Self {
        self.inherit_stderr = inherit;
        self
    }

    /// The program name.
    pub fn program(&self) -> &std::ffi::OsStr {
        &self.program
    }

    /// Starts the agent with piped standard input and output.
    pub fn spawn(&self) -> std::io::Result<AgentProcess> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if self.inherit_stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        match (stdin, stdout) {
            (Some(stdin), Some(stdout)) => Ok(AgentProcess {
                child,
                stdin: Some(stdin),
                stdout: Some(stdout),
            }),
            _ => Err(std::io::Error::other(
                "the agent's pipes could not be opened",
            )),
        }
    }
}

/// A running agent child process. It is killed when this value is dropped.
#[derive(Debug)]
pub struct AgentProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
}

impl AgentProcess {
    /// Takes the pipes to build a connection: (agent's stdout = our reader, agent's stdin =
    /// our writer). Returns `None` when they were already taken.
    pub fn take_pipes(&mut self) -> Option<(ChildStdout, ChildStdin)> {
        Some((self.stdout.take()?, self.stdin.take()?))
    }

    /// The operating system's process id, while the process runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits for the agent to exit and reports its exit status.
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        drop(self.stdin.take());
        self.child.wait().await
    }

    /// The exit status if the agent has already exited.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// Kills the agent and waits for it; reports its exit status.
    pub async fn kill(&mut self) -> std::io::Result<ExitStatus> {
        self.child.kill().await?;
        self.child.wait().await
    }
}
