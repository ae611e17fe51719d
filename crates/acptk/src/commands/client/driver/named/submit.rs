//! The client's side of an owner's socket: finding the owner of a session, starting one
//! (`--no-wait`), handing it a prompt (and streaming the turn back), and asking it to cancel,
//! report or stop.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use tokio::io::BufReader;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, watch};

use super::protocol::{Phase, Reply, Request};
use super::socket;
use super::store::Store;
use crate::commands::client::Args;
use crate::commands::client::driver::prompt::{CANCEL_WAIT, interruption, signal_exit};
use crate::commands::client::shared::exit::{Exit, Failure, say};
use crate::commands::client::shared::format::Format;

/// How long a new owner may take to listen.
pub const OWNER_START: Duration = Duration::from_secs(10);

/// How a prompt handed to an owner ended.
#[derive(Debug)]
pub enum Submitted {
    /// The client exits with this code.
    Exit(ExitCode),
    /// The owner did not take it (it is exiting): try again.
    Retry,
}

/// A connection to the owner of session `key`, if it has one.
pub async fn owner(store: &Store, key: &str) -> Result<Option<UnixStream>, String> {
    socket::connect(&socket::path(store.dir(), key)?).await
}

/// Starts the owner of session `key` (this program again, with the same arguments and
/// `--serve-as-owner`; its standard error goes to `KEY.owner.log`) and connects to it once
/// it listens.
pub async fn start_owner(store: &Store, key: &str) -> Result<UnixStream, Failure> {
    let failed = |message: String| Failure::new(Exit::AgentGone, message);
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if argv.first().is_none_or(|word| word != "client") {
        return Err(failed(
            "cannot start the session's owner: this is not `acp client`".to_owned(),
        ));
    }
    argv.insert(1, "--serve-as-owner".into());
    let program = std::env::current_exe()
        .map_err(|error| failed(format!("cannot start the session's owner: {error}")))?;
    let log_path = store.path(key, "owner.log");
    let log = super::store::private_file()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&log_path)
        .map_err(|error| failed(format!("cannot write {}: {error}", log_path.display())))?;
    let mut child = std::process::Command::new(program)
        .args(argv)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|error| failed(format!("cannot start the session's owner: {error}")))?;
    let path = socket::path(store.dir(), key).map_err(failed)?;
    let start = tokio::time::Instant::now();
    loop {
        if let Some(stream) = socket::connect(&path).await.map_err(failed)? {
            return Ok(stream);
        }
        if let Ok(Some(status)) = child.try_wait() {
            // Another owner may have won the race; it listens soon.
            if status.success() && start.elapsed() < OWNER_START {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if let Some(stream) = socket::connect(&path).await.map_err(failed)? {
                    return Ok(stream);
                }
                continue;
            }
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            return Err(failed(format!(
                "the session's owner exited ({status}) before it listened{}",
                if log.trim().is_empty() {
                    String::new()
                } else {
                    format!(":\n{}", log.trim_end())
                }
            )));
        }
        if start.elapsed() > OWNER_START {
            return Err(failed(format!(
                "the session's owner (pid {}) did not listen within {} s; see {}",
                child.id(),
                OWNER_START.as_secs(),
                log_path.display()
            )));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Reads the owner's replies in a task of their own (a reply is never lost to a `select!`).
fn replies(read: tokio::net::unix::OwnedReadHalf) -> mpsc::Receiver<Result<Option<Reply>, String>> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let mut read = BufReader::new(read);
        loop {
            let reply = socket::receive::<_, Reply>(&mut read)
                .await
                .map_err(|error| error.to_string());
            let last = !matches!(reply, Ok(Some(_)));
            if tx.send(reply).await.is_err() || last {
                return;
            }
        }
    });
    rx
}

/// Hands prompt `text` to the owner on `stream`. With `wait`, prints the turn's output as it
/// streams and exits as the turn did; a signal (or a closed output) cancels the turn first.
/// Without, returns once the owner queued it.
pub async fn prompt(
    stream: UnixStream,
    args: &Args,
    text: &str,
    name: &str,
    wait: bool,
    interrupted: &mut watch::Receiver<Option<i32>>,
) -> Submitted {
    let format = args.format();
    let quiet = format == Format::Quiet;
    let (read, mut write) = stream.into_split();
    let request = Request::Prompt {
        text: text.to_owned(),
        format: match format {
            Format::Text => "text",
            Format::Json => "json",
            Format::Quiet => "quiet",
        }
        .to_owned(),
        wait,
        timeout: args.timeout.map(|limit| limit.as_secs_f64()),
    };
    if socket::send(&mut write, &request).await.is_err() {
        return Submitted::Retry;
    }
    let mut replies = replies(read);
    let mut stopping: Option<Exit> = None;
    let deadline = tokio::time::sleep(Duration::MAX);
    tokio::pin!(deadline);
    let mut stdout = std::io::stdout();
    loop {
        let reply = tokio::select! {
            reply = replies.recv() => reply,
            signalled = interrupted.changed() => {
                if signalled.is_err() || stopping.is_some() {
                    return Submitted::Exit(stopping.unwrap_or(Exit::Interrupted).into());
                }
                let signal = (*interrupted.borrow_and_update()).unwrap_or(2);
                stopping = Some(signal_exit(signal));
                say(&format!("acp: {}; cancelling the turn", interruption(signal)));
                let _ = socket::send(&mut write, &Request::Cancel).await;
                deadline.as_mut().reset(tokio::time::Instant::now() + CANCEL_WAIT);
                continue;
            }
            () = &mut deadline, if stopping.is_some() => {
                return Submitted::Exit(stopping.unwrap_or(Exit::Failed).into());
            }
        };
        match reply {
            Some(Ok(Some(reply))) => match reply {
                Reply::Queued {
                    ticket,
                    ahead,
                    pid,
                    phase,
                } => {
                    let waiting = match phase {
                        Phase::Waiting(other) => format!(", after the run of pid {other}"),
                        _ => String::new(),
                    };
                    if !wait {
                        if !quiet {
                            say(&format!(
                                "acp: queued prompt #{ticket} for session {name} (owner pid {pid}, {ahead} before it{waiting}); see `acp sessions status {name}`"
                            ));
                        }
                        return Submitted::Exit(ExitCode::SUCCESS);
                    }
                    if !quiet && (ahead > 0 || !waiting.is_empty()) {
                        say(&format!(
                            "acp: session {name} is served by its owner (pid {pid}); {ahead} prompt(s) before this one{waiting}"
                        ));
                    }
                }
                Reply::Out { data } => {
                    if stopping.is_none()
                        && stdout
                            .write_all(data.as_bytes())
                            .and_then(|()| stdout.flush())
                            .is_err()
                    {
                        // The reader left: cancel the turn, end quietly.
                        stopping = Some(Exit::OutputClosed);
                        let _ = socket::send(&mut write, &Request::Cancel).await;
                        deadline
                            .as_mut()
                            .reset(tokio::time::Instant::now() + CANCEL_WAIT);
                    }
                }
                // Once this client stops the turn, it says why itself.
                Reply::Say { line } if stopping.is_none() => say(&line),
                Reply::Say { .. } => {}
                Reply::End { exit } => {
                    return Submitted::Exit(stopping.map_or(ExitCode::from(exit), Into::into));
                }
                Reply::Refused { message, retry } => {
                    if retry {
                        return Submitted::Retry;
                    }
                    say(&format!("acp: session {name}: {message}"));
                    return Submitted::Exit(Exit::Failed.into());
                }
                Reply::Cancelled { .. } | Reply::Status(_) | Reply::Stopping => {}
            },
            Some(Ok(None)) | None => {
                if let Some(exit) = stopping {
                    return Submitted::Exit(exit.into());
                }
                say(&format!(
                    "acp: the owner of session {name} went away before the turn ended"
                ));
                return Submitted::Exit(Exit::AgentGone.into());
            }
            Some(Err(error)) => {
                say(&format!(
                    "acp: the owner of session {name} answered badly: {error}"
                ));
                return Submitted::Exit(Exit::Failed.into());
            }
        }
    }
}

/// Sends `request` to the owner on `stream` and returns its first reply.
pub async fn ask(stream: UnixStream, request: &Request) -> Result<Reply, String> {
    let (read, mut write) = stream.into_split();
    socket::send(&mut write, request)
        .await
        .map_err(|error| format!("cannot talk to the session's owner: {error}"))?;
    let mut read = BufReader::new(read);
    let reply = tokio::time::timeout(
        Duration::from_secs(10),
        socket::receive::<_, Reply>(&mut read),
    )
    .await
    .map_err(|_| "the session's owner did not answer within 10 s".to_owned())?
    .map_err(|error| format!("the session's owner answered badly: {error}"))?;
    reply.ok_or_else(|| "the session's owner hung up without answering".to_owned())
}
