//! `acp client --session NAME`: a session known by name, agent and working directory, whose
//! id the client keeps (see [`super::named::store`]).
//!
//! One process at a time talks to the agent for a named session: it holds the session's
//! lock. A run with a prompt goes through the session's owner when it has one (its output
//! streamed back); otherwise it takes the lock (waiting while another run has it) and runs
//! the turn itself. With `--no-wait` the prompt goes to the owner, which is started in the
//! background when there is none. Whoever holds the lock continues the session (v1
//! `session/resume`, else `session/load`; v2 `session/resume`) or, when the agent cannot,
//! opens a new one and says so, and records each turn in the session's history.

use std::process::ExitCode;
use std::time::Duration;

use super::named::claim::{Claim, prepare};
use super::named::store::Holder;
use super::named::submit::{self, Submitted};
use super::oneshot::{self, Opening};
use super::prompt::{self, signal_exit};
use super::turn_output::Renderer;
use crate::commands::client::Args;
use crate::commands::client::shared::exit::{Exit, Failure, report, say};

/// How often a run waiting for a busy session looks again.
const RETRY_EVERY: Duration = Duration::from_millis(100);

/// `acp client --session NAME` with prompt `text`: through the session's owner when it has
/// one, else in this process, once no other run has the session, printed as `renderer` makes
/// outputs.
pub async fn run(args: &Args, text: &str, renderer: &'static dyn Renderer) -> ExitCode {
    let (store, scope) = match prepare(args) {
        Ok(pair) => pair,
        Err(failure) => return report(&failure),
    };
    let key = scope.key();
    let mut interrupted = prompt::interrupts();
    let waiting_since = tokio::time::Instant::now();
    let mut said = false;
    loop {
        match submit::owner(&store, &key).await {
            Ok(Some(stream)) => {
                match submit::prompt(stream, args, text, &scope.name, true, &mut interrupted).await
                {
                    Submitted::Exit(code) => return code,
                    Submitted::Retry => continue,
                }
            }
            Ok(None) => {}
            Err(message) => return report(&Failure::new(Exit::Failed, message)),
        }
        match store.try_lock(&key, "lock", &Holder::me("run", Some(text))) {
            Ok(Ok(lock)) => {
                let claim = match Claim::take(store, &scope, lock) {
                    Ok(claim) => claim,
                    Err(failure) => return report(&failure),
                };
                return oneshot::run(args, text, Opening::Named(Box::new(claim)), renderer).await;
            }
            Ok(Err(holder)) => {
                if !said {
                    said = true;
                    say(&format!(
                        "acp: session {} is busy ({}); waiting for it",
                        scope.name,
                        holder.map_or_else(
                            || "another run has it".to_owned(),
                            |h| format!("pid {} since {}", h.pid, h.since)
                        )
                    ));
                }
            }
            Err(message) => return report(&Failure::new(Exit::Failed, message)),
        }
        if let Some(limit) = args.timeout
            && waiting_since.elapsed() > limit
        {
            return report(&Failure::new(
                Exit::Timeout,
                format!(
                    "session {} stayed busy for {} s (--timeout)",
                    scope.name,
                    limit.as_secs_f64()
                ),
            ));
        }
        tokio::select! {
            () = tokio::time::sleep(RETRY_EVERY) => {}
            _ = interrupted.changed() => {
                let signal = (*interrupted.borrow()).unwrap_or(2);
                return report(&Failure::new(signal_exit(signal), format!("{} while waiting for session {}", prompt::interruption(signal), scope.name)));
            }
        }
    }
}

/// `acp client --session NAME --no-wait` with prompt `text`: hands it to the session's
/// owner, starting one when there is none, and returns once it is queued.
pub async fn queue(args: &Args, text: &str) -> ExitCode {
    let (store, scope) = match prepare(args) {
        Ok(pair) => pair,
        Err(failure) => return report(&failure),
    };
    let key = scope.key();
    let mut interrupted = prompt::interrupts();
    for _ in 0..5 {
        let stream = match submit::owner(&store, &key).await {
            Ok(Some(stream)) => stream,
            Ok(None) => match submit::start_owner(&store, &key).await {
                Ok(stream) => stream,
                Err(failure) => return report(&failure),
            },
            Err(message) => return report(&Failure::new(Exit::Failed, message)),
        };
        match submit::prompt(stream, args, text, &scope.name, false, &mut interrupted).await {
            Submitted::Exit(code) => return code,
            Submitted::Retry => tokio::time::sleep(RETRY_EVERY).await,
        }
    }
    report(&Failure::new(
        Exit::Failed,
        format!("session {}: its owner kept refusing the prompt", scope.name),
    ))
}
