//! `acp client --prompt TEXT`: one turn, printed while it streams (see [`TurnOutput`]),
//! then an exit code that says how it ended.
//!
//! `--timeout SECS` bounds each step and the turn: past it, the turn is cancelled
//! (`session/cancel`) and the client exits with 4. SIGINT (Ctrl-C), SIGTERM and SIGHUP send
//! `session/cancel`, wait briefly for the turn to end, and exit with 128 + the signal (130,
//! 143, 129); a second signal does not wait. A closed output (a pipe whose reader left) ends
//! the turn the same way, quietly, with 141.

use std::time::Duration;

use acptk_runtime::agent::StopReason;
use acptk_runtime::client::Client;
use tokio::sync::watch;

use crate::commands::client::driver::turn_output::TurnOutput;
use crate::commands::client::shared::exit::{Exit, Failure};
use crate::commands::signals::Signals;

/// How long a cancelled turn may take to end before the client leaves anyway.
pub const CANCEL_WAIT: Duration = Duration::from_secs(2);

/// How often a one-shot run looks whether its output was closed while nothing else happens.
const OUTPUT_CHECK: Duration = Duration::from_millis(200);

/// SIGTERM, SIGINT and SIGHUP as they arrive: the number of the last one (`None` before the
/// first). From the call on, these signals no longer end the process by themselves.
pub fn interrupts() -> watch::Receiver<Option<i32>> {
    let (tx, rx) = watch::channel(None);
    match Signals::new() {
        Ok(mut signals) => {
            tokio::spawn(async move {
                loop {
                    let signal = signals.recv().await;
                    if tx.send(Some(signal)).is_err() {
                        return;
                    }
                }
            });
        }
        Err(error) => crate::commands::client::shared::exit::say(&format!(
            "acp: cannot catch signals ({error}); SIGTERM and SIGHUP will end the client without cancelling the turn"
        )),
    }
    rx
}

/// The exit for a signal number: 130 for SIGINT, 128 + the signal otherwise.
#[must_use]
pub fn signal_exit(signal: i32) -> Exit {
    if signal == 2 {
        Exit::Interrupted
    } else {
        Exit::Signal(u8::try_from(signal).unwrap_or(127))
    }
}

/// The name of a signal for messages.
#[must_use]
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

/// How a turn ended, for the exit code.
#[derive(Debug)]
pub enum TurnEnd {
    /// The agent ended it.
    Stopped(StopReason),
    /// It failed.
    Failed(Failure),
}

/// One prompt turn to run: where, what to show, and how long it may take.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The client.
    pub client: &'a Client,
    /// The session.
    pub session: &'a str,
    /// `--timeout`.
    pub timeout: Option<Duration>,
    /// Changes to `true` when a permission was needed and nobody could be asked
    /// (`--non-interactive-permissions fail`).
    pub permission_failures: Option<&'a watch::Receiver<bool>>,
}

impl Turn<'_> {
    /// Runs the turn with prompt `text`, printing it to `out` as it streams. Cancels the turn
    /// on timeout, on a signal (a change of `interrupted`), when a permission could not be
    /// asked under `--non-interactive-permissions fail`, and when the output was closed.
    pub async fn run(
        &self,
        text: &str,
        out: &dyn TurnOutput,
        interrupted: &mut watch::Receiver<Option<i32>>,
    ) -> TurnEnd {
        one_turn(self, text, out, interrupted).await
    }
}

async fn one_turn(
    turn_of: &Turn<'_>,
    text: &str,
    out: &dyn TurnOutput,
    interrupted: &mut watch::Receiver<Option<i32>>,
) -> TurnEnd {
    let Turn {
        client,
        session,
        timeout,
        permission_failures,
    } = *turn_of;
    let mut failures = permission_failures.cloned();
    let mut changes = client.changes();
    // Anything the agent sent when the session opened (an MCP server notice, say) first.
    out.catch_up(client);
    let turn = client.prompt(session, text);
    tokio::pin!(turn);
    let deadline = tokio::time::sleep(timeout.unwrap_or(Duration::MAX));
    tokio::pin!(deadline);
    let mut stopping: Option<(Exit, String)> = None;
    let cancel_turn = |deadline: std::pin::Pin<&mut tokio::time::Sleep>| {
        deadline.reset(tokio::time::Instant::now() + CANCEL_WAIT);
        client.cancel(session)
    };
    let outcome = loop {
        if stopping.is_none() && out.failed().is_some() {
            stopping = Some((Exit::OutputClosed, "the output was closed".to_owned()));
            let _ = cancel_turn(deadline.as_mut()).await;
        }
        tokio::select! {
            outcome = &mut turn => break Some(outcome),
            changed = changes.changed() => {
                if changed.is_ok() {
                    out.catch_up(client);
                }
            }
            () = &mut deadline, if timeout.is_some() || stopping.is_some() => {
                if stopping.is_some() {
                    // The cancelled turn did not end in time.
                    break None;
                }
                let seconds = timeout.map_or(0.0, |t| t.as_secs_f64());
                stopping = Some((Exit::Timeout, format!("the turn did not end within {seconds} s (--timeout); cancelled it")));
                let _ = cancel_turn(deadline.as_mut()).await;
            }
            failed = async { failures.as_mut()?.wait_for(|failed| *failed).await.ok().map(|_| ()) }, if failures.is_some() && stopping.is_none() => {
                failures = None;
                if failed.is_some() {
                    stopping = Some((Exit::PermissionNeeded, "the agent needed a permission that the policy leaves to the user, and there is no terminal to ask (--non-interactive-permissions fail); cancelled the turn".to_owned()));
                    let _ = cancel_turn(deadline.as_mut()).await;
                }
            }
            signalled = interrupted.changed() => {
                let signal = (*interrupted.borrow_and_update()).unwrap_or(2);
                let by_signal = stopping
                    .as_ref()
                    .is_some_and(|(exit, _)| matches!(exit, Exit::Interrupted | Exit::Signal(_)));
                if signalled.is_err() || by_signal {
                    // A second signal: leave now.
                    break None;
                }
                stopping = Some((signal_exit(signal), format!("{}; cancelled the turn", interruption(signal))));
                let _ = cancel_turn(deadline.as_mut()).await;
            }
            () = tokio::time::sleep(OUTPUT_CHECK) => {}
        }
    };
    out.catch_up(client);
    if let Some((exit, message)) = stopping {
        if let Some(Ok(stop)) = &outcome {
            out.stop(stop);
        }
        return TurnEnd::Failed(Failure::new(exit, message));
    }
    match outcome {
        Some(Ok(stop)) => {
            out.stop(&stop);
            TurnEnd::Stopped(stop)
        }
        Some(Err(error)) => TurnEnd::Failed(Failure::of("the turn failed", &error, Exit::Failed)),
        None => TurnEnd::Failed(Failure::new(Exit::Failed, "the turn did not end")),
    }
}

/// What a signal means for the message: `interrupted (SIGINT)`, `ended by SIGTERM`, ...
#[must_use]
pub fn interruption(signal: i32) -> String {
    if signal == 2 {
        "interrupted (SIGINT)".to_owned()
    } else {
        format!("ended by {}", signal_name(signal))
    }
}

/// The exit of a turn that ended so.
#[must_use]
pub fn exit_of(end: &TurnEnd) -> Exit {
    match end {
        TurnEnd::Stopped(acptk_runtime::agent::StopReason::EndTurn) => Exit::Ok,
        TurnEnd::Stopped(_) => Exit::Failed,
        TurnEnd::Failed(failure) => failure.exit,
    }
}
