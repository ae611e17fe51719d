//! `acp proxy`: sit between a client and an agent, check the traffic, and repair the agent's
//! notice mistakes live.
//!
//! * `record`: opening the record (`--record`, `--append`).
//! * `lifecycle`: how a run ends (the agent's output ends, the agent exits, the client goes
//!   away, or a signal comes) and how the agent's process group is ended then.
//! * `bridge`: remote messages to and from the engine's lines.
//! * `listen`: `--listen`, a stdio agent served to remote clients, one process per
//!   connection.
//! * `owners`, `gate`, `gated`: with `--listen`, which principal owns which session, and
//!   the gate on each connection that keeps a client to its principal's sessions.
//! * `url`: `--url`, the stdio client's agent is a remote one.

mod bridge;
mod gate;
mod gated;
mod lifecycle;
mod listen;
mod owners;
mod parts;
mod record;
mod url;

use std::future::Future;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{ExitCode, ExitStatus};
use std::time::Duration;

use acptk_check::proxy::{self, Control, Hooks, ProxyOptions, ProxyReport};
use acptk_check::repair::Fallback;
use acptk_check::report::{Format, text_finding};
use acptk_check::transcript::Header;
use acptk_runtime::transport::{AgentCommand, Stdin, Stdout};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::commands::listen::ListenArgs;

/// The heading of `--url` and its flags in `acp proxy --help`.
const REMOTE: &str = "Remote agent (--url)";

/// Arguments of `acp proxy`.
#[derive(Debug, Clone, clap::Args)]
#[command(group = clap::ArgGroup::new("remote").args(["listen", "url"]).multiple(false))]
pub struct Args {
    /// Record the transcript (as the peers sent it, before repairs) to FILE; findings then
    /// name FILE and its line numbers. Each message is in FILE before it is forwarded (with
    /// --listen: in a file of its connection next to FILE, added to FILE when the connection
    /// ends).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Add to the record instead of replacing it (each run starts with its own header).
    #[arg(long, requires = "record")]
    append: bool,
    /// Capture the traffic into the database of `acp inspect` (`--capture` alone: the default
    /// database, $XDG_DATA_HOME/acp/captures.db; `--capture=DB`: that file). Each message is
    /// committed there before it is forwarded (with --listen: one capture per connection).
    #[arg(
        long,
        value_name = "DB",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = ""
    )]
    capture: Option<String>,
    /// What a notice to a v1 client without `session.notices` becomes: an agent message
    /// (`message`) or nothing (`drop`).
    #[arg(long, value_parser = ["message", "drop"], default_value = "message")]
    fallback: String,
    /// Longest line checked, in bytes; longer lines are forwarded unchecked.
    #[arg(long, value_name = "BYTES", default_value_t = acptk_check::lines::DEFAULT_MAX_LINE)]
    max_line: usize,
    /// When the proxy ends, how long the agent gets to exit after its input closed, and again
    /// after SIGTERM, before what is left of its process group is killed (with --url: how long
    /// the remote agent gets to close the connection).
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0, value_parser = seconds)]
    grace_period: f64,
    /// Serve the agent to remote clients instead of one stdio client: one agent process per
    /// connection (`--listen` and its flags as for `acp agent --listen`).
    #[command(flatten, next_help_heading = crate::commands::listen::HELP_HEADING)]
    remote: ListenArgs,
    /// With --listen: keep which principal created which session in FILE (JSON Lines), so
    /// that a restarted proxy still lets each reach its own sessions (default: in memory,
    /// for the life of the proxy).
    #[arg(
        help_heading = crate::commands::listen::HELP_HEADING,
        long,
        value_name = "FILE",
        requires = "listen"
    )]
    session_owners: Option<PathBuf>,
    /// Forward the stdio client to the remote agent at URL (`ws://`, `wss://`) instead of
    /// launching an agent command.
    #[arg(help_heading = REMOTE, long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// With a `wss://` --url: trust the certificates in FILE (PEM) instead of the usual root
    /// certificates.
    #[arg(help_heading = REMOTE, long, value_name = "FILE", requires = "url")]
    tls_ca: Option<PathBuf>,
    /// The agent to launch, and its arguments (after `--`).
    #[arg(
        last = true,
        required_unless_present = "url",
        value_name = "AGENT_COMMAND"
    )]
    command: Vec<String>,
}

/// A non-negative number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=3600.0).contains(&s) => Ok(s),
        _ => Err(format!("expected seconds between 0 and 3600, got `{text}`")),
    }
}

/// Runs the agent behind the proxy until it exits, and exits with its status (or, ended by a
/// signal, with 128 + the signal's number).
pub fn run(args: Args) -> super::Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(serve(args));
    // Standard input may still be read by a blocking thread: do not wait for it.
    runtime.shutdown_background();
    result
}

async fn serve(args: Args) -> super::Outcome {
    if let Some(url) = args.url.clone() {
        return url::serve(&args, &url).await;
    }
    if let Some(listen) = args.remote.listen()? {
        return listen::serve(&args, listen).await;
    }
    let Some((program, agent_args)) = args.command.split_first() else {
        return Err("missing the agent command (after `--`)".into());
    };
    // Signals end the proxy cleanly from now on (the agent is not started yet).
    let mut signals = crate::commands::signals::Signals::new()?;
    let (run, label) = Run::single(&args, args.command.clone(), &args.command.join(" "))?;
    let mut agent = AgentCommand::new(program)
        .args(agent_args)
        .grace_period(Duration::from_secs_f64(args.grace_period))
        .spawn()
        .map_err(|e| format!("cannot start the agent: {e}"))?;
    let Some((agent_out, agent_in)) = agent.take_pipes() else {
        return Err("the agent's standard streams are not available".into());
    };
    let control = Control::new();
    let forward = run.forward_stdio(agent_in, agent_out, control.clone());
    tokio::pin!(forward);
    let ending = lifecycle::drive(&mut agent, forward, &control, &mut signals).await;
    if let Some(report) = ending.report {
        finish(&label, report?);
    }
    if let Some(signal) = ending.signal {
        return Ok(ExitCode::from((128 + signal).clamp(0, 255) as u8));
    }
    Ok(exit_code(ending.status?))
}

/// The options and hooks of one proxy run: findings to standard error named after `label`,
/// and (with [`Run::record`]) the record.
pub(super) struct Run {
    options: ProxyOptions,
    hooks: Hooks,
    label: String,
    agent: Vec<String>,
}

impl Run {
    /// Forwards between the client's streams and the agent's with this run's options and
    /// hooks, steered by `control` (see [`proxy::run_with`]).
    fn forward<CI, CO, AI, AO>(
        self,
        client_in: CI,
        client_out: CO,
        agent_in: AI,
        agent_out: AO,
        control: Control,
    ) -> impl Future<Output = io::Result<ProxyReport>>
    where
        CI: AsyncRead + Unpin,
        CO: AsyncWrite + Unpin,
        AI: AsyncWrite + Unpin,
        AO: AsyncRead + Unpin,
    {
        proxy::run_with(
            client_in,
            client_out,
            agent_in,
            agent_out,
            self.options,
            self.hooks,
            control,
        )
    }

    /// Forwards between standard input and output and the agent's streams (see
    /// [`Run::forward`]).
    fn forward_stdio<AI, AO>(
        self,
        agent_in: AI,
        agent_out: AO,
        control: Control,
    ) -> impl Future<Output = io::Result<ProxyReport>>
    where
        AI: AsyncWrite + Unpin,
        AO: AsyncRead + Unpin,
    {
        self.forward(Stdin::new(), Stdout::new(), agent_in, agent_out, control)
    }

    /// The run of the one connection of standard input and output to `agent` (its words, for
    /// the record's header; `described`: what the capture says is proxied), named after the
    /// record (or `<proxy>`), recorded and captured as `args` say; with that name.
    fn single(args: &Args, agent: Vec<String>, described: &str) -> Result<(Self, String), String> {
        let label = match &args.record {
            Some(path) => path.display().to_string(),
            None => "<proxy>".to_owned(),
        };
        let mut run = Run::new(args, label.clone(), agent);
        if let Some(path) = &args.record {
            let (file, first_line) = record::open(path, args.append)
                .map_err(|e| format!("cannot open the record {}: {e}", path.display()))?;
            run = run.record(file, first_line);
        }
        run.capture(args, described, "")?;
        Ok((run, label))
    }

    /// A run with the flags of `args`; `agent` goes into the record's header.
    fn new(args: &Args, label: String, agent: Vec<String>) -> Self {
        let options = ProxyOptions::new()
            .fallback(match args.fallback.as_str() {
                "drop" => Fallback::Drop,
                _ => Fallback::Message,
            })
            .max_line(args.max_line);
        let finding_label = label.clone();
        let hooks = Hooks::new(move |finding| {
            let line = text_finding(&finding_label, finding);
            // Nothing sensible is left to do when standard error is gone.
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        });
        Self {
            options,
            hooks,
            label,
            agent,
        }
    }

    /// Captures the run into the database of `--capture`, if given (`agent`: what is
    /// proxied; `who`: how messages about it start, e.g. `connection 3: `).
    /// On failure the run is left as it was, without the capture.
    fn capture(&mut self, args: &Args, agent: &str, who: &str) -> Result<(), String> {
        let Some(path) = capture_path(args)? else {
            return Ok(());
        };
        let origin = acptk_inspect::Origin::new(agent, env!("CARGO_PKG_VERSION"));
        let capture = acptk_inspect::Capture::start(&path, &origin)
            .map_err(|error| format!("cannot capture into {}: {error}", path.display()))?;
        eprintln!(
            "acp proxy: {who}capturing into {} as capture {}",
            path.display(),
            capture.id()
        );
        let shown = path.display().to_string();
        let who = who.to_owned();
        let hooks = std::mem::replace(&mut self.hooks, Hooks::new(|_| {}));
        self.hooks = hooks.tap(capture).on_tap_error(move |error| {
            let _ = writeln!(
                std::io::stderr().lock(),
                "acp proxy: {who}cannot write the capture into {shown}: {error}; forwarding goes on without it"
            );
        });
        Ok(())
    }

    /// Records the run to `file`, starting with a header; its first entry is line
    /// `first_line` of the record.
    fn record(mut self, file: impl Write + Send + 'static, first_line: u64) -> Self {
        let error_label = self.label.clone();
        self.hooks = self.hooks.record(file).on_record_error(move |error| {
            let _ = writeln!(
                std::io::stderr().lock(),
                "acp proxy: cannot write the record {error_label}: {error}; forwarding goes on without it"
            );
        });
        self.options = self
            .options
            .header(Header::new(
                "acp proxy",
                env!("CARGO_PKG_VERSION"),
                self.agent.clone(),
            ))
            .first_line(first_line);
        self
    }
}

/// The database of `--capture`: the file given, or the default one; `None` without the flag.
fn capture_path(args: &Args) -> Result<Option<PathBuf>, String> {
    match &args.capture {
        None => Ok(None),
        Some(path) if !path.is_empty() => Ok(Some(PathBuf::from(path))),
        Some(_) => acptk_inspect::default_path().map(Some).ok_or_else(|| {
            "--capture: no default database (set XDG_DATA_HOME or HOME, or use --capture=DB)"
                .to_owned()
        }),
    }
}

/// Says on standard error what the run found, if anything, and whether the record stopped
/// early.
fn finish(label: &str, report: ProxyReport) {
    let mut err = std::io::stderr().lock();
    if report.summary.total() > 0 {
        let _ = err.write_all(Format::Text.summary(label, &report.summary).as_bytes());
    }
    if let Some(error) = report.record_error {
        let _ = writeln!(
            err,
            "acp proxy: the record {label} stopped early, after {} entries of this run: {error}",
            report.recorded
        );
    }
    if let Some(error) = report.tap_error {
        let _ = writeln!(
            err,
            "acp proxy: the capture of {label} stopped early: {error}"
        );
    }
}

/// The agent's exit status as ours: its code, or 128 + the signal that ended it.
fn exit_code(status: ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code.clamp(0, 255) as u8),
        (None, Some(signal)) => ExitCode::from((128 + signal).clamp(0, 255) as u8),
        (None, None) => ExitCode::FAILURE,
    }
}
