//! How a proxy run ends, whatever ends it, with a complete record and no process left.
//!
//! * The agent's output ends: the agent and its process group are ended
//!   ([`AgentProcess::shutdown`]: its input is closed, then after the grace period the group
//!   gets SIGTERM, then SIGKILL).
//! * The agent exits: its last output gets [`DRAIN_AFTER_EXIT`] to arrive (unless something
//!   else holds its output open), then what it started is ended the same way.
//! * The client's input ends (the client exited or closed it), or SIGTERM, SIGINT or SIGHUP
//!   arrives: the proxy stops reading the client, closes the agent's input, and shuts the agent
//!   down while still recording and forwarding its output, until that output ends.
//! * A second signal during the shutdown kills the group at once (a first one, during a
//!   shutdown that the client's leaving started, joins it). Signals that come within
//!   [`REPEAT_WINDOW`] of the one before count as that one: a terminal's Ctrl-C reaches the
//!   whole foreground group, and supervisors signal a process and its group, so one request
//!   to stop often arrives two or three times at once.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::ExitStatus;
use std::time::Duration;

use acptk_check::proxy::{Control, ProxyReport};
use acptk_runtime::transport::AgentProcess;

#[cfg(doc)]
use crate::commands::signals::REPEAT_WINDOW;
use crate::commands::signals::Signals;

/// How long the agent's remaining output may take to arrive once the agent has exited (or
/// been shut down), before the proxy stops waiting for whoever else holds it open.
pub(super) const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// How the run ended.
pub(super) struct Ending {
    /// The proxy's report, unless forwarding failed to finish.
    pub(super) report: Option<io::Result<ProxyReport>>,
    /// The agent's exit status.
    pub(super) status: io::Result<ExitStatus>,
    /// The signal that ended the run, if one did.
    pub(super) signal: Option<i32>,
}

type Forward<'a> = Pin<&'a mut (dyn Future<Output = io::Result<ProxyReport>> + Send)>;

/// Drives `forward` and `agent` until both are done.
pub(super) async fn drive<F>(
    agent: &mut AgentProcess,
    mut forward: Pin<&mut F>,
    control: &Control,
    signals: &mut Signals,
) -> Ending
where
    F: Future<Output = io::Result<ProxyReport>> + Send,
{
    enum First {
        Forwarded(io::Result<ProxyReport>),
        Exited(io::Result<ExitStatus>),
        ClientDone,
        Signal(i32),
    }
    // Not biased: a flooding agent would use up the task's budget in `forward` first on every
    // poll, and nothing after it would be seen. A signal that comes with the client's leaving
    // is still counted by `end_agent`.
    let first = tokio::select! {
        report = forward.as_mut() => First::Forwarded(report),
        status = agent.wait() => First::Exited(status),
        () = control.client_done() => First::ClientDone,
        number = signals.recv() => First::Signal(number),
    };
    let mut ended_by = None;
    let forward: Forward<'_> = forward;
    match first {
        First::Forwarded(report) => {
            // The agent's output ended; its input is closed with the forwarding.
            let status = end_agent(agent, signals, &mut ended_by).await;
            Ending {
                report: Some(report),
                status,
                signal: ended_by,
            }
        }
        First::Exited(status) => {
            let report = drain(forward, control).await;
            // The agent is reaped; end what it started.
            let ended = end_agent(agent, signals, &mut ended_by).await;
            Ending {
                report: Some(report),
                status: status.and(ended),
                signal: ended_by,
            }
        }
        First::ClientDone => wind_down(agent, forward, control, signals, None).await,
        First::Signal(number) => {
            control.close_client();
            wind_down(agent, forward, control, signals, Some(number)).await
        }
    }
}

/// The client's side is done: end the agent while its output is still recorded and forwarded.
async fn wind_down(
    agent: &mut AgentProcess,
    mut forward: Forward<'_>,
    control: &Control,
    signals: &mut Signals,
    mut ended_by: Option<i32>,
) -> Ending {
    let mut report = None;
    let status = {
        let shutdown = end_agent(agent, signals, &mut ended_by);
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                result = forward.as_mut(), if report.is_none() => report = Some(result),
                status = &mut shutdown => break status,
            }
        }
    };
    let report = match report {
        Some(report) => report,
        None => drain(forward, control).await,
    };
    Ending {
        report: Some(report),
        status,
        signal: ended_by,
    }
}

/// Shuts the agent and its group down politely. A signal meanwhile is a request to stop: the
/// first one (when no signal started this shutdown) joins the polite shutdown, a further one
/// kills the group at once. The first signal seen is kept in `ended_by`, also one that came
/// as the agent exited (the driver may have noticed both in one turn).
async fn end_agent(
    agent: &mut AgentProcess,
    signals: &mut Signals,
    ended_by: &mut Option<i32>,
) -> io::Result<ExitStatus> {
    {
        let shutdown = agent.shutdown();
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                biased;
                number = signals.recv() => {
                    if ended_by.is_some() {
                        break;
                    }
                    *ended_by = Some(number);
                }
                status = &mut shutdown => {
                    if ended_by.is_none() {
                        *ended_by = signals.already_come().await;
                    }
                    return status;
                }
            }
        }
    }
    agent.kill().await
}

/// Lets the agent's last output through, unless something else holds the output open past
/// [`DRAIN_AFTER_EXIT`]; then stops forwarding (the record is completed either way).
async fn drain(mut forward: Forward<'_>, control: &Control) -> io::Result<ProxyReport> {
    match tokio::time::timeout(DRAIN_AFTER_EXIT, forward.as_mut()).await {
        Ok(report) => report,
        Err(_) => {
            control.stop();
            forward.await
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use acptk_runtime::transport::AgentCommand;
    use nix::sys::signal::{Signal, raise};

    use super::*;

    /// A signal that came while the agent was exiting counts, even when the runtime notices
    /// both in one turn (the select used to pick either at random, and the run then ended
    /// with the agent's status as if nobody had asked it to stop).
    #[test]
    fn a_signal_that_came_as_the_agent_exited_is_the_one_that_ended_the_run() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // Each round the runtime may notice the exit and the signal in one turn; a choice
        // between them left to chance would lose some rounds.
        for round in 0..20 {
            runtime.block_on(async {
                let mut signals = Signals::new().unwrap();
                let mut agent = AgentCommand::new("sh")
                    .args(["-c", "exit 0"])
                    .spawn()
                    .unwrap();
                // The agent is gone before the shutdown starts; the signal's handler has run,
                // but the runtime has not looked at either yet.
                std::thread::sleep(Duration::from_millis(50));
                raise(Signal::SIGHUP).unwrap();
                let mut ended_by = None;
                let status = end_agent(&mut agent, &mut signals, &mut ended_by).await;
                assert!(status.unwrap().success());
                assert_eq!(ended_by, Some(Signal::SIGHUP as i32), "round {round}");
            });
        }
    }
}
