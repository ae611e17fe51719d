//! `acp sessions`: the named sessions of `acp client --session NAME`, from the client's own
//! record ([`store`], [`history`]), and their owners (reached through [`socket`] with
//! [`protocol`] and [`submit`]). All of it is the client's driver
//! (`crates/acptk/src/commands/client/driver/named`); this module is the command line.
//!
//! The client's state lives here, in `acptk`, rather than in `acptk-runtime`: names, the
//! owner process and its socket, and the files in `$XDG_STATE_HOME/acp/client` are how this
//! command line continues sessions across its runs; an editor that embeds the runtime keeps
//! its sessions (and their ids) in its own state, and needs none of it.

pub mod export;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;

use crate::commands::client::driver::named::{history, protocol, socket, store, submit};
use crate::commands::client::shared::exit::{Exit, Failure, report, say};
use crate::commands::client::shared::text::terminal_safe;
use export::ExportFormat;
use protocol::{Phase, Reply, Request, Status};
use store::{Record, Store};

/// Arguments of `acp sessions`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes: 0 done, 1 failed, 2 bad usage or no such session.")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// How `acp sessions` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ListFormat {
    /// Text for people.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The session a subcommand is about.
#[derive(Debug, clap::Args)]
struct Select {
    /// The session's name (or its key, as `acp sessions list` shows it).
    name: String,
    /// With several sessions of the name: the one of this working directory (default: the
    /// current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// List the named sessions: name, turns, last use, owner, agent, directory.
    List {
        /// Text (a table) or JSON lines (the records).
        #[arg(long, value_enum, default_value_t)]
        format: ListFormat,
    },
    /// Show a session's record and its owner.
    Show {
        #[command(flatten)]
        select: Select,
        /// Text or JSON.
        #[arg(long, value_enum, default_value_t)]
        format: ListFormat,
    },
    /// Print a session's turns from the client's own record (works with agents that cannot
    /// load sessions).
    History {
        #[command(flatten)]
        select: Select,
        /// Only the last N turns.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Text, or JSON lines (one turn each).
        #[arg(long, value_enum, default_value_t)]
        format: ListFormat,
    },
    /// Write a session and its history as Markdown or JSON Lines.
    Export {
        #[command(flatten)]
        select: Select,
        /// `markdown`, or `jsonl` (default: from the --output file's extension, else
        /// markdown).
        #[arg(long, value_enum)]
        format: Option<ExportFormat>,
        /// Write to this file instead of standard output.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Forget a session (its record and history; its owner is stopped). The agent may still
    /// keep the session itself.
    Forget {
        #[command(flatten)]
        select: Select,
    },
    /// Cancel the running turn of a session (in its owner, or in the run that has it).
    Cancel {
        #[command(flatten)]
        select: Select,
    },
    /// Show a session's owner: pid, agent, uptime, queue, running turn and last prompt.
    Status {
        #[command(flatten)]
        select: Select,
        /// Text or JSON.
        #[arg(long, value_enum, default_value_t)]
        format: ListFormat,
    },
}

/// Runs `acp sessions`.
pub fn run(args: &Args) -> super::Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(command(&args.command));
    runtime.shutdown_background();
    Ok(match outcome {
        Ok(code) => code,
        Err(failure) => report(&failure),
    })
}

async fn command(command: &Command) -> Result<ExitCode, Failure> {
    let store = Store::open().map_err(|error| Failure::new(Exit::Failed, error))?;
    match command {
        Command::List { format } => list(&store, *format),
        Command::Show { select, format } => show(&store, &pick(&store, select)?, *format).await,
        Command::History {
            select,
            limit,
            format,
        } => history_of(&store, &pick(&store, select)?, *limit, *format),
        Command::Export {
            select,
            format,
            output,
        } => export_of(&store, &pick(&store, select)?, *format, output.as_deref()),
        Command::Forget { select } => forget(&store, &pick(&store, select)?).await,
        Command::Cancel { select } => cancel(&store, &pick(&store, select)?).await,
        Command::Status { select, format } => status(&store, &pick(&store, select)?, *format).await,
    }
}

/// The session `select` names.
fn pick(store: &Store, select: &Select) -> Result<Record, Failure> {
    let cwd = match &select.cwd {
        Some(dir) => Some(
            std::fs::canonicalize(dir)
                .map_err(|error| Failure::usage(format!("--cwd {}: {error}", dir.display())))?,
        ),
        None => std::env::current_dir().ok(),
    };
    store
        .select(&select.name, cwd.as_deref())
        .map_err(Failure::usage)
}

/// Writes `text` to standard output; a closed output ends the command quietly.
fn print(text: &str) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}")
        .and_then(|()| stdout.flush())
        .map_err(|_| Failure::new(Exit::OutputClosed, "the output was closed"))
}

/// The pid of the session's owner, when it has one.
fn owner_pid(store: &Store, record: &Record) -> Option<u32> {
    store
        .holder(&record.key, "owner.lock")
        .map(|holder| holder.pid)
}

fn list(store: &Store, format: ListFormat) -> Result<ExitCode, Failure> {
    let records = store
        .all()
        .map_err(|error| Failure::new(Exit::Failed, error))?;
    if format == ListFormat::Text {
        if records.is_empty() {
            say("acp: no named sessions (start one with `acp client --session NAME ...`)");
            return Ok(ExitCode::SUCCESS);
        }
        print("NAME\tTURNS\tLAST USED\tOWNER\tAGENT\tCWD\tKEY")?;
    }
    for record in &records {
        let owner = owner_pid(store, record);
        let line = match format {
            ListFormat::Json => {
                let mut value = serde_json::to_value(record).unwrap_or_default();
                if let Some(object) = value.as_object_mut() {
                    object.insert("owner".to_owned(), json!(owner));
                }
                value.to_string()
            }
            ListFormat::Text => format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                record.name,
                record.turns,
                record.updated_at,
                owner.map_or("-".to_owned(), |pid| pid.to_string()),
                terminal_safe(&record.agent_label()).replace(['\t', '\n'], " "),
                terminal_safe(&record.cwd).replace(['\t', '\n'], " "),
                record.key
            ),
        };
        print(&line)?;
    }
    Ok(ExitCode::SUCCESS)
}

async fn show(store: &Store, record: &Record, format: ListFormat) -> Result<ExitCode, Failure> {
    let owner = owner_pid(store, record);
    match format {
        ListFormat::Json => {
            let mut value = serde_json::to_value(record).unwrap_or_default();
            if let Some(object) = value.as_object_mut() {
                object.insert("owner".to_owned(), json!(owner));
                object.insert(
                    "historyFile".to_owned(),
                    json!(store.path(&record.key, "history.jsonl")),
                );
            }
            print(&value.to_string())?;
        }
        ListFormat::Text => {
            let mut lines = vec![
                format!("name        {}", record.name),
                format!("key         {}", record.key),
                format!("agent       {}", terminal_safe(&record.agent_label())),
            ];
            if record.agent_name.is_some() && !record.agent.is_empty() {
                lines.push(format!(
                    "command     {}",
                    terminal_safe(&store::agent_label(None, None, &record.agent))
                ));
            }
            lines.push(format!("cwd         {}", terminal_safe(&record.cwd)));
            lines.push(format!(
                "session id  {}",
                record
                    .session_id
                    .as_deref()
                    .map_or("-".into(), terminal_safe)
            ));
            if !record.earlier_session_ids.is_empty() {
                lines.push(format!(
                    "earlier     {}",
                    terminal_safe(&record.earlier_session_ids.join(", "))
                ));
            }
            lines.push(format!("protocol    v{}", record.protocol));
            lines.push(format!("created     {}", record.created_at));
            lines.push(format!("last used   {}", record.updated_at));
            lines.push(format!("turns       {}", record.turns));
            if let Some(prompt) = &record.last_prompt {
                lines.push(format!("last prompt {}", terminal_safe(prompt)));
            }
            lines.push(format!(
                "owner       {}",
                owner.map_or("none".to_owned(), |pid| format!("pid {pid}"))
            ));
            lines.push(format!(
                "history     {}",
                store.path(&record.key, "history.jsonl").display()
            ));
            print(&lines.join("\n"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn history_of(
    store: &Store,
    record: &Record,
    limit: Option<usize>,
    format: ListFormat,
) -> Result<ExitCode, Failure> {
    let turns = history::read(&store.path(&record.key, "history.jsonl"), limit)
        .map_err(|error| Failure::new(Exit::Failed, error))?;
    if turns.is_empty() && format == ListFormat::Text {
        say(&format!(
            "acp: session {} has no recorded turns",
            record.name
        ));
    }
    for turn in &turns {
        let text = match format {
            ListFormat::Json => serde_json::to_string(turn).unwrap_or_default(),
            ListFormat::Text => history_text(turn),
        };
        print(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One turn as text.
fn history_text(turn: &history::TurnRecord) -> String {
    let end = match (&turn.stop_reason, &turn.error) {
        (Some(stop), _) => stop.clone(),
        (None, Some(error)) => format!("failed: {}", error.lines().next().unwrap_or_default()),
        (None, None) => "-".to_owned(),
    };
    let mut lines = vec![format!(
        "-- turn {} at {} ({}) --",
        turn.turn,
        turn.started_at,
        terminal_safe(&end)
    )];
    lines.push(format!("You: {}", terminal_safe(&turn.prompt)));
    for entry in &turn.entries {
        match entry {
            history::HistoryEntry::Message { role, text } => {
                let label = if role == "thought" {
                    "Thinking"
                } else {
                    "Agent"
                };
                lines.push(format!("{label}: {}", terminal_safe(text).trim_end()));
            }
            history::HistoryEntry::ToolCall { title, status, .. } => {
                lines.push(format!(
                    "[tool] {} ({})",
                    terminal_safe(title).replace('\n', " "),
                    terminal_safe(status)
                ));
            }
        }
    }
    lines.join("\n")
}

fn export_of(
    store: &Store,
    record: &Record,
    format: Option<ExportFormat>,
    output: Option<&std::path::Path>,
) -> Result<ExitCode, Failure> {
    let format = format
        .or_else(|| output.map(ExportFormat::for_file))
        .unwrap_or(ExportFormat::Markdown);
    let mut out: Box<dyn Write> = match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|error| {
                Failure::new(
                    Exit::Failed,
                    format!("--output {}: {error}", path.display()),
                )
            })?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let closed = |error: std::io::Error| match output {
        Some(path) => Failure::new(
            Exit::Failed,
            format!("--output {}: {error}", path.display()),
        ),
        None => Failure::new(Exit::OutputClosed, "the output was closed"),
    };
    export::head(&mut out, format, record).map_err(closed)?;
    let mut failed = None;
    history::each(&store.path(&record.key, "history.jsonl"), |turn| {
        if failed.is_none() {
            failed = export::turn(&mut out, format, &turn).err();
        }
    })
    .map_err(|error| Failure::new(Exit::Failed, error))?;
    if let Some(error) = failed {
        return Err(closed(error));
    }
    out.flush().map_err(closed)?;
    if let Some(path) = output {
        say(&format!(
            "acp: wrote session {} ({} turns) to {}",
            record.name,
            record.turns,
            path.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// Asks the owner of `record`'s session for `request`: its reply, or `None` when no owner
/// runs.
async fn ask_owner(
    store: &Store,
    record: &Record,
    request: &Request,
) -> Result<Option<Reply>, Failure> {
    let stream = submit::owner(store, &record.key)
        .await
        .map_err(|error| Failure::new(Exit::Failed, error))?;
    let Some(stream) = stream else {
        return Ok(None);
    };
    submit::ask(stream, request)
        .await
        .map(Some)
        .map_err(|error| Failure::new(Exit::Failed, error))
}

async fn forget(store: &Store, record: &Record) -> Result<ExitCode, Failure> {
    if ask_owner(store, record, &Request::Stop).await?.is_some() {
        // The owner lets go of its locks when it has ended its agent.
        let start = tokio::time::Instant::now();
        while owner_pid(store, record).is_some() {
            if start.elapsed() > Duration::from_secs(15) {
                return Err(Failure::new(
                    Exit::Failed,
                    format!(
                        "the owner of session {} did not stop within 15 s",
                        record.name
                    ),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    if let Some(holder) = store.holder(&record.key, "lock") {
        return Err(Failure::new(
            Exit::Failed,
            format!(
                "session {} is in use by pid {} (since {}); cancel it first (`acp sessions cancel {}`)",
                record.name, holder.pid, holder.since, record.name
            ),
        ));
    }
    store
        .forget(&record.key)
        .map_err(|error| Failure::new(Exit::Failed, error))?;
    say(&format!(
        "acp: forgot session {}{}",
        record.name,
        record
            .session_id
            .as_deref()
            .map_or(String::new(), |id| format!(
                " (the agent may still keep its session {})",
                terminal_safe(id)
            ))
    ));
    Ok(ExitCode::SUCCESS)
}

async fn cancel(store: &Store, record: &Record) -> Result<ExitCode, Failure> {
    if let Some(reply) = ask_owner(store, record, &Request::Cancel).await? {
        match reply {
            Reply::Cancelled {
                ticket: Some(ticket),
            } => say(&format!(
                "acp: cancelled the running turn (prompt #{ticket}) of session {}",
                record.name
            )),
            _ => say(&format!(
                "acp: nothing to cancel: session {} runs no turn",
                record.name
            )),
        }
        return Ok(ExitCode::SUCCESS);
    }
    match store.holder(&record.key, "lock") {
        Some(holder) if holder.role == "run" => {
            // A run in the foreground cancels its turn on SIGINT, as on Ctrl-C.
            let pid = i32::try_from(holder.pid).map_err(|_| {
                Failure::new(Exit::Failed, format!("pid {} is out of range", holder.pid))
            })?;
            nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGINT,
            )
            .map_err(|error| {
                Failure::new(
                    Exit::Failed,
                    format!(
                        "cannot signal the run of session {} (pid {pid}): {error}",
                        record.name
                    ),
                )
            })?;
            say(&format!(
                "acp: asked the run of session {} (pid {pid}) to cancel its turn",
                record.name
            ));
        }
        _ => say(&format!(
            "acp: nothing to cancel: session {} runs no turn",
            record.name
        )),
    }
    Ok(ExitCode::SUCCESS)
}

async fn status(store: &Store, record: &Record, format: ListFormat) -> Result<ExitCode, Failure> {
    let stream = submit::owner(store, &record.key)
        .await
        .map_err(|error| Failure::new(Exit::Failed, error))?;
    let owner = match stream {
        Some(stream) => match submit::ask(stream, &Request::Status).await {
            Ok(Reply::Status(status)) => Some(*status),
            Ok(_) => None,
            Err(error) => return Err(Failure::new(Exit::Failed, error)),
        },
        None => None,
    };
    let run = store
        .holder(&record.key, "lock")
        .filter(|holder| holder.role == "run");
    match format {
        ListFormat::Json => print(
            &json!({
                "name": record.name,
                "sessionId": record.session_id,
                "owner": owner,
                "run": run,
                "socket": socket::path(store.dir(), &record.key).ok(),
            })
            .to_string(),
        )?,
        ListFormat::Text => print(&status_text(record, owner.as_ref(), run.as_ref(), store))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The text of `acp sessions status`.
fn status_text(
    record: &Record,
    owner: Option<&Status>,
    run: Option<&store::Holder>,
    store: &Store,
) -> String {
    let mut lines = vec![format!(
        "session     {} ({})",
        record.name,
        record
            .session_id
            .as_deref()
            .map_or("-".into(), terminal_safe)
    )];
    match owner {
        Some(status) => {
            lines.push(format!(
                "owner       pid {}, up {} s",
                status.pid, status.uptime_seconds
            ));
            lines.push(format!("agent       {}", terminal_safe(&status.agent)));
            lines.push(format!("cwd         {}", terminal_safe(&status.cwd)));
            let state = match (&status.phase, &status.running) {
                (_, Some(running)) => format!(
                    "running prompt #{} since {}: {}",
                    running.ticket,
                    running.since,
                    terminal_safe(&running.prompt)
                ),
                (Phase::Waiting(pid), _) => format!("waiting for the run of pid {pid}"),
                (Phase::Starting, _) => "starting the agent".to_owned(),
                (Phase::Closing, _) => "exiting".to_owned(),
                (Phase::Ready, None) => {
                    format!("idle (exits after {} s without work)", status.ttl_seconds)
                }
            };
            lines.push(format!("state       {state}"));
            lines.push(format!("queue       {} prompt(s) waiting", status.queued));
            if let Some(last) = &status.last_prompt {
                lines.push(format!(
                    "last prompt #{} at {}: {}",
                    last.ticket,
                    last.since,
                    terminal_safe(&last.prompt)
                ));
            }
            if let Ok(path) = socket::path(store.dir(), &record.key) {
                lines.push(format!("socket      {}", path.display()));
            }
        }
        None => {
            lines.push("owner       none".to_owned());
            if let Some(run) = run {
                lines.push(format!(
                    "run         pid {} since {}: {}",
                    run.pid,
                    run.since,
                    terminal_safe(run.prompt.as_deref().unwrap_or("-"))
                ));
            }
            lines.push(format!("last used   {}", record.updated_at));
            if let Some(prompt) = &record.last_prompt {
                lines.push(format!("last prompt {}", terminal_safe(prompt)));
            }
        }
    }
    lines.join("\n")
}
