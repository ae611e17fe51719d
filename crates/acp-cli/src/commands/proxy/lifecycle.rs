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

use acp_check::proxy::{Control, ProxyReport};
use acp_runtime::transport::AgentProcess;

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
/// kills the group at once. The first signal seen is kept in `ended_by`.
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
                status = &mut shutdown => return status,
                number = signals.recv() => {
                    if ended_by.is_some() {
                        break;
                    }
                    *ended_by = Some(number);
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
