//! `acp conform agent`: run the conformance suite of [`acptk_conform`] against an agent
//! command and print the report; `acp conform client`: be the agent a client under test
//! launches, play the client suite's scenarios and write the report when it disconnects.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acptk_conform::{report, requirement, suite};
use acptk_runtime::transport::AgentCommand;

use super::tokens::UsageError;

/// Arguments of `acp conform`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to test.
    #[command(subcommand)]
    target: Target,
}

/// What `acp conform` tests.
#[derive(Debug, clap::Subcommand)]
enum Target {
    /// Launch an agent and judge it against the requirements of the specification and the
    /// session notices RFD (exit 1 when a MUST failed).
    Agent(AgentArgs),
    /// Be an agent for a client under test to launch (set it as the editor's agent command, or
    /// `acp client -- acp conform client`): it plays notices, a permission request and odd
    /// input, judges the client's answers, and writes the report when the client disconnects
    /// (exit 1 when a MUST failed).
    Client(Box<ClientArgs>),
}

/// Arguments of `acp conform client`.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("remote").args(["listen"]).multiple(true))]
struct ClientArgs {
    /// Write the text report to FILE (default: standard error, as standard output carries
    /// the protocol).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Also write the report as one JSON document to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the run's transcript into DIR (the file the evidence names; `acp check` reads it).
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// How long to wait for each answer of the client, in seconds (a person may have to
    /// decide a permission request).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0, value_parser = seconds)]
    timeout: f64,
    /// `--listen ADDR`: serve the scenarios over WebSocket and Streamable HTTP to the first
    /// client that connects (the URL is printed on standard error); the report is written when
    /// it disconnects.
    #[command(flatten, next_help_heading = super::listen::HELP_HEADING)]
    remote: super::listen::ListenArgs,
}

/// Arguments of `acp conform agent`.
#[derive(Debug, clap::Args)]
struct AgentArgs {
    /// The protocol version(s) to test.
    #[arg(long, value_parser = ["1", "2", "both"], default_value = "both")]
    protocol: String,
    /// Report only this requirement (repeatable; the ids are listed in the guide).
    #[arg(long, value_name = "ID")]
    only: Vec<String>,
    /// Output format: text (evidence as FILE:LINE), one JSON document, or JUnit XML.
    #[arg(long, value_parser = ["text", "json", "junit"], default_value = "text")]
    format: String,
    /// Write each run's transcript into DIR (the files the evidence names; `acp check` reads them).
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// How long to wait for each response, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = seconds)]
    timeout: f64,
    /// The text of the prompt sent in each session.
    #[arg(long, value_name = "TEXT", default_value = "Hello from acp conform.")]
    prompt: String,
    /// Test the remote agent at URL instead of launching one (`ws://`, `wss://`; `http://`,
    /// `https://` for Streamable HTTP), with a fresh connection for each run (for example
    /// `acp agent --listen PORT`).
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// The bearer token for --url (sent as `Authorization: Bearer TOKEN`).
    #[arg(long, value_name = "TOKEN", requires = "url")]
    token: Option<String>,
    /// The agent to launch, and its arguments (after `--`).
    #[arg(
        last = true,
        required_unless_present = "url",
        value_name = "AGENT_COMMAND"
    )]
    command: Vec<String>,
}

/// A positive number of seconds, at most an hour.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 3600.0 => Ok(s),
        _ => Err(format!(
            "expected a number of seconds above 0 and at most 3600, got `{text}`"
        )),
    }
}

/// Runs the suite and prints the report; exits 1 when a MUST failed, 0 otherwise.
pub fn run(args: Args) -> super::Outcome {
    match args.target {
        Target::Agent(args) => run_agent(args),
        Target::Client(args) => run_client(*args),
    }
}

fn run_agent(args: AgentArgs) -> super::Outcome {
    for id in &args.only {
        if requirement::find(id).is_none() {
            return Err(Box::new(UsageError(format!(
                "--only {id}: no such requirement (see `acp conform agent --help` and the guide's list)"
            ))));
        }
    }
    let versions = match args.protocol.as_str() {
        "1" => vec![1],
        "2" => vec![2],
        _ => vec![1, 2],
    };
    let options = suite::Options::new()
        .versions(versions)
        .timeout(Duration::from_secs_f64(args.timeout))
        .prompt(args.prompt);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut report = if let Some(url) = &args.url {
        let token = args.token.as_deref();
        runtime.block_on(suite::run_remote_agent_suite(url, token, &options))?
    } else {
        let Some((program, rest)) = args.command.split_first() else {
            return Err(Box::new(UsageError(
                "expected an agent command after `--`, or --url".to_owned(),
            )));
        };
        let command = AgentCommand::new(program)
            .args(rest)
            .grace_period(Duration::from_secs(1));
        runtime.block_on(suite::run_agent_suite(&command, &options))?
    };
    report.retain_ids(&args.only);
    record(args.record.as_deref(), &report)?;
    let text = match args.format.as_str() {
        "json" => report::json(&report),
        "junit" => report::junit(&report),
        _ => report::text(&report),
    };
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(if report.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes each run's transcript into `dir`, when one was given.
fn record(dir: Option<&std::path::Path>, report: &suite::Report) -> Result<(), String> {
    let Some(dir) = dir else {
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for run in &report.runs {
        let path = dir.join(&run.name);
        let mut text = run.transcript.join("\n");
        text.push('\n');
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Resolves when the process is asked to end (SIGINT, SIGTERM or SIGHUP), so that the report
/// is still written when a client ends its agent by a signal instead of closing its input.
async fn asked_to_end() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
        _ = hup.recv() => {}
    }
}

/// Plays the client suite over standard input and output; writes the reports.
fn run_client(args: ClientArgs) -> super::Outcome {
    let options = acptk_conform::client_suite::ClientOptions::new()
        .timeout(Duration::from_secs_f64(args.timeout));
    // Read before anything is opened: a bad token is a usage error.
    let listen = args.remote.listen()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = match listen {
        Some(listen) => runtime.block_on(super::conform_listen::serve(options, listen))?,
        None => runtime.block_on(acptk_conform::client_suite::run_client_suite(
            tokio::io::stdin(),
            tokio::io::stdout(),
            &options,
            asked_to_end(),
        )),
    };
    record(args.record.as_deref(), &report)?;
    let text = report::text(&report);
    match &args.report {
        Some(path) => std::fs::write(path, &text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => eprint!("{text}"),
    }
    if let Some(path) = &args.json {
        std::fs::write(path, report::json(&report))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(if report.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
