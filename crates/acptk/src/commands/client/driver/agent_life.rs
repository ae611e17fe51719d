//! The terminal UI's agent and its life: launched at the start, watched (when it exits, how
//! it ended: its exit status or signal and its last lines of standard error), and started
//! again on request, with the values typed for an `env_var` sign-in added to its
//! environment (kept in memory only).

use std::process::ExitStatus;
use std::time::Duration;

use acptk_runtime::client::{Client, ClientBuilder};
use acptk_runtime::transport::AgentProcess;

use super::agent_log::AgentLog;
use super::setup::{self, Target};
use crate::commands::client::shared::exit::Failure;
use crate::commands::client::shared::text::terminal_safe;

/// How long the UI waits for a gone agent's exit status.
const STATUS_WAIT: Duration = Duration::from_secs(2);

/// How many of the agent's last standard error lines the exit note shows.
pub const EXIT_LINES: usize = 5;

/// The running agent and what it takes to start it again.
pub(crate) struct Agent {
    /// The connection to it.
    pub(crate) client: Client,
    process: Option<AgentProcess>,
    target: Target,
    builder: Box<dyn Fn() -> ClientBuilder + Send>,
    limit: Option<Duration>,
    /// Variables for the agent's environment, typed for an `env_var` sign-in.
    env: Vec<(String, String)>,
}

impl Agent {
    /// Launches the agent at `target`; `builder` makes the client options each time.
    pub(crate) async fn launch(
        target: Target,
        builder: Box<dyn Fn() -> ClientBuilder + Send>,
        limit: Option<Duration>,
    ) -> Result<Self, Failure> {
        let (client, process) = setup::launch(builder(), &target, limit).await?;
        Ok(Self {
            client,
            process,
            target,
            builder,
            limit,
            env: Vec::new(),
        })
    }

    /// Whether the agent runs as a process of ours (so that it can be given variables).
    pub(crate) fn is_local(&self) -> bool {
        matches!(self.target, Target::Command(_))
    }

    /// Adds (or replaces) variables of the agent's environment, for its next start.
    pub(crate) fn set_env(&mut self, values: Vec<(String, String)>) {
        for (name, value) in values {
            self.env.retain(|(known, _)| *known != name);
            self.env.push((name, value));
        }
    }

    /// Ends the running agent and starts it again (with the variables set so far).
    pub(crate) async fn restart(&mut self) -> Result<(), Failure> {
        self.shutdown().await;
        let target = match &self.target {
            Target::Command(command) => {
                let mut command = command.clone();
                for (name, value) in &self.env {
                    command = command.env(name, value);
                }
                Target::Command(command)
            }
            other => other.clone(),
        };
        let (client, process) = setup::launch((self.builder)(), &target, self.limit).await?;
        self.client = client;
        self.process = process;
        Ok(())
    }

    /// How the agent ended, once its connection closed: its exit status (waited for a
    /// moment) and the last lines of its standard error.
    pub(crate) async fn how_it_ended(&mut self, log: &AgentLog) -> String {
        let mut text = match &mut self.process {
            None => "the connection to the agent closed".to_owned(),
            Some(process) => match tokio::time::timeout(STATUS_WAIT, process.wait()).await {
                Ok(Ok(status)) => format!("the agent {}", describe(status)),
                Ok(Err(error)) => format!("the agent has gone (its status is unknown: {error})"),
                Err(_) => "the agent closed the connection but is still running".to_owned(),
            },
        };
        let tail = log.tail();
        if !tail.is_empty() {
            text.push_str("; its last lines of standard error:");
            for line in &tail[tail.len().saturating_sub(EXIT_LINES)..] {
                text.push_str("\n  ");
                text.push_str(&terminal_safe(line));
            }
        }
        text
    }

    /// Ends the agent (see [`setup::shutdown`]).
    pub(crate) async fn shutdown(&mut self) {
        setup::shutdown(&self.client, &mut self.process).await;
    }
}

/// An exit status in words: `exited with status 3`, `was ended by signal 9 (SIGKILL)`.
#[must_use]
pub fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    match status.signal() {
        Some(signal) => {
            let name = match signal {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                13 => " (SIGPIPE)",
                15 => " (SIGTERM)",
                _ => "",
            };
            format!("was ended by signal {signal}{name}")
        }
        None => format!("ended ({status})"),
    }
}
