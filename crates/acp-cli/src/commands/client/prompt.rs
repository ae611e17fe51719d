//! `acp client --prompt TEXT`: one turn, printed while it streams, as plain text or as JSON
//! lines (`--format json`), then an exit code that says how it ended.
//!
//! `--timeout SECS` bounds each step and the turn: past it, the turn is cancelled
//! (`session/cancel`) and the client exits with 4. Ctrl-C sends `session/cancel`, waits
//! briefly for the turn to end, and exits with 130 (a second Ctrl-C does not wait).

use std::io::{self, Write};
use std::time::Duration;

use acp_notice_center::Entry as NoticeEntry;
use acp_runtime::agent::StopReason;
use acp_runtime::client::Client;
use acp_runtime::client::transcript::{Message, PlanItem, ToolCall};
use acp_runtime::rpc;
use serde_json::json;
use tokio::sync::watch;

use super::events::{ClientEvent, EventLog};
use super::exit::{Exit, Failure};
use super::follow::{Follower, Sink};
use super::json::JsonPrinter;
use super::plain::PlainPrinter;

/// How long a cancelled turn may take to end before the client leaves anyway.
pub const CANCEL_WAIT: Duration = Duration::from_secs(2);

/// The output format of `--prompt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Plain lines for a person (`You: ...`, `Agent: ...`, `[notice] ...`).
    #[default]
    Text,
    /// One JSON object per line per event (documented in the README).
    Json,
}

/// The printer of either format.
#[derive(Debug)]
pub enum Output<W: Write> {
    /// Plain lines.
    Text(PlainPrinter<W>),
    /// JSON lines.
    Json(JsonPrinter<W>),
}

impl<W: Write> Output<W> {
    /// A printer of `format` writing to `out`.
    pub fn new(format: Format, out: W) -> Self {
        match format {
            Format::Text => Output::Text(PlainPrinter::new(out)),
            Format::Json => Output::Json(JsonPrinter::new(out)),
        }
    }

    /// Marks what follows as replayed history (JSON: `"history": true`; text: a heading).
    pub fn history(&mut self, history: bool) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.line(&super::plain::note_line(if history {
                "history of the session"
            } else {
                "end of history"
            })),
            Output::Json(printer) => {
                printer.set_history(history);
                Ok(())
            }
        }
    }

    /// The session line (JSON only: text mode says nothing here).
    pub fn session(&mut self, client: &Client, session: &str, loaded: bool) -> io::Result<()> {
        if let Output::Json(printer) = self {
            let agent = client.agent();
            printer.write(&[
                ("type", json!("session")),
                ("sessionId", json!(session)),
                ("protocolVersion", json!(agent.protocol_version.get())),
                ("proposedVersion", json!(agent.proposed.get())),
                ("agent", json!(agent.name)),
                ("loaded", json!(loaded)),
            ])?;
        }
        Ok(())
    }

    /// How the turn ended.
    pub fn stop(&mut self, stop: &StopReason) -> io::Result<()> {
        match self {
            Output::Text(printer) => {
                printer.line(&super::plain::note_line(&format!("turn ended: {stop}")))
            }
            Output::Json(printer) => printer.write(&[
                ("type", json!("stop")),
                ("stopReason", json!(stop.as_str())),
            ]),
        }
    }

    /// A failure (text mode prints it to standard error only, later).
    pub fn failure(
        &mut self,
        failure: &Failure,
        error: Option<&acp_runtime::Error>,
    ) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.finish(),
            Output::Json(printer) => {
                let object = error.and_then(acp_runtime::Error::rpc);
                printer.write(&[
                    ("type", json!("error")),
                    ("code", json!(object.map(|o| o.code))),
                    (
                        "message",
                        json!(
                            object.map_or_else(|| failure.message.clone(), |o| o.message.clone())
                        ),
                    ),
                    ("detail", json!(object.and_then(rpc::detail))),
                    ("exitCode", json!(failure.exit.code())),
                ])
            }
        }
    }

    /// Ends the open line and flushes.
    pub fn finish(&mut self) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.finish(),
            Output::Json(printer) => printer.flush(),
        }
    }

    /// Gives the writer back.
    pub fn into_inner(self) -> W {
        match self {
            Output::Text(printer) => printer.into_inner(),
            Output::Json(printer) => printer.into_inner(),
        }
    }
}

impl<W: Write> Sink for Output<W> {
    fn message(
        &mut self,
        key: usize,
        message: &Message,
        text: &str,
        whole: bool,
    ) -> io::Result<()> {
        match self {
            Output::Text(p) => Sink::message(p, key, message, text, whole),
            Output::Json(p) => p.message(key, message, text, whole),
        }
    }
    fn tool_call(&mut self, call: &ToolCall, first: bool) -> io::Result<()> {
        match self {
            Output::Text(p) => p.tool_call(call, first),
            Output::Json(p) => p.tool_call(call, first),
        }
    }
    fn plan(&mut self, plan: &[PlanItem]) -> io::Result<()> {
        match self {
            Output::Text(p) => p.plan(plan),
            Output::Json(p) => p.plan(plan),
        }
    }
    fn notice(&mut self, entry: &NoticeEntry) -> io::Result<()> {
        match self {
            Output::Text(p) => p.notice(entry),
            Output::Json(p) => p.notice(entry),
        }
    }
    fn client(&mut self, event: &ClientEvent) -> io::Result<()> {
        match self {
            Output::Text(p) => p.client(event),
            Output::Json(p) => p.client(event),
        }
    }
    fn note(&mut self, text: &str) -> io::Result<()> {
        match self {
            Output::Text(p) => p.note(text),
            Output::Json(p) => p.note(text),
        }
    }
}

/// Prints what is new: the transcript, the client's own events, and the notices.
pub fn print_new<W: Write>(
    client: &Client,
    follower: &mut Follower,
    events: &EventLog,
    notices: bool,
    out: &mut Output<W>,
) -> io::Result<()> {
    client.with_transcript(|transcript| follower.transcript(transcript, out))?;
    for event in events.take() {
        out.client(&event)?;
    }
    if notices {
        client.with_notice_center(|center| follower.notices(center, out))?;
    }
    out.finish()
}

/// Interrupts (Ctrl-C presses) as a counter that changes with each press.
pub fn interrupts() -> watch::Receiver<u32> {
    let (tx, rx) = watch::channel(0);
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            tx.send_modify(|presses| *presses += 1);
        }
    });
    rx
}

/// How a turn ended, for the exit code.
#[derive(Debug)]
pub enum TurnEnd {
    /// The agent ended it.
    Stopped(StopReason),
    /// It failed.
    Failed(Failure, Option<acp_runtime::Error>),
}

/// One prompt turn to run: where, what to show, and how long it may take.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The client.
    pub client: &'a Client,
    /// The session.
    pub session: &'a str,
    /// Whether notices are shown.
    pub notices: bool,
    /// The client's own events, printed in order with the conversation.
    pub events: &'a EventLog,
    /// `--timeout`.
    pub timeout: Option<Duration>,
    /// Changes to `true` when a permission was needed and nobody could be asked
    /// (`--non-interactive-permissions fail`).
    pub permission_failures: Option<&'a watch::Receiver<bool>>,
}

impl Turn<'_> {
    /// Runs the turn with prompt `text`, printing it to `out` as it streams. Cancels the turn
    /// on timeout or Ctrl-C (a change of `interrupted`).
    pub async fn run<W: Write>(
        &self,
        text: &str,
        follower: &mut Follower,
        out: &mut Output<W>,
        interrupted: &mut watch::Receiver<u32>,
    ) -> io::Result<TurnEnd> {
        one_turn(self, text, follower, out, interrupted).await
    }
}

async fn one_turn<W: Write>(
    turn_of: &Turn<'_>,
    text: &str,
    follower: &mut Follower,
    out: &mut Output<W>,
    interrupted: &mut watch::Receiver<u32>,
) -> io::Result<TurnEnd> {
    let Turn {
        client,
        session,
        notices,
        events,
        timeout,
        permission_failures,
    } = *turn_of;
    let mut failures = permission_failures.cloned();
    let mut changes = client.changes();
    // Anything the agent sent when the session opened (an MCP server notice, say) first.
    print_new(client, follower, events, notices, out)?;
    let turn = client.prompt(session, text);
    tokio::pin!(turn);
    let deadline = tokio::time::sleep(timeout.unwrap_or(Duration::MAX));
    tokio::pin!(deadline);
    let mut stopping: Option<(Exit, String)> = None;
    let outcome = loop {
        tokio::select! {
            outcome = &mut turn => break Some(outcome),
            changed = changes.changed() => {
                if changed.is_ok() {
                    print_new(client, follower, events, notices, out)?;
                }
            }
            () = &mut deadline, if timeout.is_some() || stopping.is_some() => {
                if stopping.is_some() {
                    // The cancelled turn did not end in time.
                    break None;
                }
                let seconds = timeout.map_or(0.0, |t| t.as_secs_f64());
                stopping = Some((Exit::Timeout, format!("the turn did not end within {seconds} s (--timeout); cancelled it")));
                let _ = client.cancel(session).await;
                deadline.as_mut().reset(tokio::time::Instant::now() + CANCEL_WAIT);
            }
            failed = async { failures.as_mut()?.wait_for(|failed| *failed).await.ok().map(|_| ()) }, if failures.is_some() && stopping.is_none() => {
                failures = None;
                if failed.is_some() {
                    stopping = Some((Exit::PermissionNeeded, "the agent needed a permission that the policy leaves to the user, and there is no terminal to ask (--non-interactive-permissions fail); cancelled the turn".to_owned()));
                    let _ = client.cancel(session).await;
                    deadline.as_mut().reset(tokio::time::Instant::now() + CANCEL_WAIT);
                }
            }
            pressed = interrupted.changed() => {
                if pressed.is_err() || stopping.as_ref().is_some_and(|(exit, _)| *exit == Exit::Interrupted) {
                    // A second Ctrl-C: leave now.
                    break None;
                }
                stopping = Some((Exit::Interrupted, "interrupted; cancelled the turn".to_owned()));
                let _ = client.cancel(session).await;
                deadline.as_mut().reset(tokio::time::Instant::now() + CANCEL_WAIT);
            }
        }
    };
    print_new(client, follower, events, notices, out)?;
    if let Some((exit, message)) = stopping {
        if let Some(Ok(stop)) = &outcome {
            out.stop(stop)?;
        }
        return Ok(TurnEnd::Failed(Failure::new(exit, message), None));
    }
    Ok(match outcome {
        Some(Ok(stop)) => {
            out.stop(&stop)?;
            TurnEnd::Stopped(stop)
        }
        Some(Err(error)) => TurnEnd::Failed(
            Failure::of("the turn failed", &error, Exit::Failed),
            Some(error),
        ),
        None => TurnEnd::Failed(Failure::new(Exit::Failed, "the turn did not end"), None),
    })
}
