//! `acp client --prompt TEXT`: one turn, printed as plain text while it streams.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use acp_runtime::agent::StopReason;
use acp_runtime::client::{Client, PermissionDecision, PermissionRequest};
use tokio::sync::watch;

use super::app::lock;
use super::follow::Follower;
use super::plain::{PlainPrinter, note_line};
use super::text::terminal_safe;

/// How `--prompt` mode answers permission requests: the first option of the wanted kind
/// (`allow_once` with `allow`, `reject_once` otherwise), falling back to "cancelled". The
/// question and the answer are written to `log` for the printout.
pub fn answer_permission(
    request: &PermissionRequest,
    allow: bool,
    log: &Mutex<Vec<String>>,
) -> PermissionDecision {
    let wanted = if allow { "allow" } else { "reject" };
    let choice = request
        .options
        .iter()
        .find(|option| option.kind.starts_with(wanted));
    let (decision, said) = match choice {
        Some(option) => (
            PermissionDecision::Selected(option.id.clone()),
            terminal_safe(&option.name).into_owned(),
        ),
        None => (PermissionDecision::Cancelled, "cancelled".to_owned()),
    };
    lock(log).push(format!(
        "[permission] {} -> {said}",
        terminal_safe(&request.title).replace('\n', " ")
    ));
    decision
}

/// Runs one prompt turn on `session`, printing it to `out` as it streams (with notices when
/// `notices` is on), then a `-- turn ended: REASON --` line. Returns the exit code: success
/// for a normal end of turn.
pub async fn one_turn<W: Write>(
    client: &Client,
    session: &str,
    text: &str,
    notices: bool,
    permission_log: &Mutex<Vec<String>>,
    out: W,
) -> Result<ExitCode, Box<dyn std::error::Error + Send + Sync>> {
    let mut printer = PlainPrinter::new(out);
    let mut follower = Follower::new(session);
    let mut changes: watch::Receiver<u64> = client.changes();
    let print = |follower: &mut Follower, printer: &mut PlainPrinter<W>| -> io::Result<()> {
        client.with_transcript(|transcript| follower.transcript(transcript, printer))?;
        for line in lock(permission_log).drain(..) {
            printer.line(&line)?;
        }
        if notices {
            client.with_notice_center(|center| follower.notices(center, printer))?;
        }
        printer.get_mut().flush()
    };
    // Anything the agent sent when the session opened (an MCP server notice, say) first.
    print(&mut follower, &mut printer)?;
    let turn = client.prompt(session, text);
    tokio::pin!(turn);
    let outcome = loop {
        tokio::select! {
            outcome = &mut turn => break outcome,
            changed = changes.changed() => {
                if changed.is_ok() {
                    print(&mut follower, &mut printer)?;
                }
            }
        }
    };
    print(&mut follower, &mut printer)?;
    let code = match &outcome {
        Ok(StopReason::EndTurn) => {
            printer.line(&note_line("turn ended: end_turn"))?;
            ExitCode::SUCCESS
        }
        Ok(stop) => {
            printer.line(&note_line(&format!("turn ended: {}", stop)))?;
            ExitCode::FAILURE
        }
        Err(error) => {
            printer.line(&note_line(&format!("turn failed: {error}")))?;
            ExitCode::FAILURE
        }
    };
    printer.finish()?;
    match outcome {
        Ok(StopReason::EndTurn) => {}
        Ok(stop) => eprintln!(
            "acp: the turn did not end normally (stop reason `{}`)",
            stop
        ),
        Err(error) => eprintln!("acp: the turn failed: {error}"),
    }
    Ok(code)
}

/// A shared log for permission answers.
#[must_use]
pub fn permission_log() -> Arc<Mutex<Vec<String>>> {
    Arc::new(Mutex::new(Vec::new()))
}
