//! `acp client`: launch an agent and talk to it, in a terminal UI or for one prompt.
//!
//! The runtime's client keeps the conversation (a transcript that never holds a notice) and
//! the notices (a notice center); this module shows them, and answers what the agent asks
//! through [`handler::CliHandler`], an implementation of the runtime's `ClientHandler`. The
//! pure parts are separate from the I/O so that they can be tested: [`app`] (state and
//! keys), [`view`] (drawing), [`plain`], [`json`](mod@json) and [`follow`] (printed output) and
//! [`text`] (terminal-safe agent text). [`setup`] gets to a session, [`tui`] is the terminal
//! event loop, [`prompt`] the one-turn mode and [`exit`] the exit codes.

pub mod app;
pub mod conversation;
pub mod dialog;
pub mod editor;
pub mod events;
pub mod exit;
pub mod follow;
pub mod handler;
pub mod history;
pub mod json;
pub mod layout;
pub mod markdown;
pub mod peer_log;
pub mod plain;
pub mod plain_ui;
pub mod prompt;
pub mod setup;
pub mod slash;
pub mod text;
pub mod theme;
pub mod tool_block;
pub mod tui;
pub mod view;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acp_runtime::ConnectionBuilder;
use acp_runtime::client::{ClientBuilder, SessionOptions};
use acp_runtime::transport::AgentCommand;
use acp_runtime::transport::remote::ClientOptions;
use acp_schema::v1::ProtocolVersion;
use serde_json::json;

use events::EventLog;
use exit::{Exit, Failure, report};
use follow::Follower;
use handler::{Answers, CliHandler, Services};
use peer_log::PeerLog;
use prompt::{Format, Output, TurnEnd};
use setup::Target;

/// The environment variable with the bearer token of `--url` (and of `acp agent --listen`).
pub const TOKEN_ENV: &str = "ACP_TOKEN";

/// Arguments of `acp client`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes: 0 the turn ended normally, 1 the turn or the agent failed, \
2 bad usage, 3 authentication needed or failed, 4 timed out, 5 the agent could not be started \
or exited early (or, with --url, could not be reached), 130 interrupted."
)]
pub struct Args {
    /// Protocol version to ask the agent for: 1 or 2 (a v1 agent asked for 2 is relaunched
    /// and initialized as v1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=2))]
    pub protocol: u16,
    /// Do not advertise `session.notices` (v1) and do not use a notice center.
    #[arg(long)]
    pub no_notices: bool,
    /// Run one turn with this prompt, print it and exit (no terminal UI).
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// The output of --prompt and --list-sessions: plain text, or one JSON object per line.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// With --prompt: allow what the agent asks permission for (default: reject).
    #[arg(long, requires = "prompt")]
    pub allow: bool,
    /// With --prompt: let the agent write files in the session's directories (default:
    /// every write is refused; the terminal UI asks each time).
    #[arg(long, requires = "prompt")]
    pub allow_write: bool,
    /// Sign in with this method of the agent's before the session is created.
    #[arg(long, value_name = "METHOD_ID")]
    pub auth: Option<String>,
    /// Switch the session to this mode once it is open.
    #[arg(long, value_name = "MODE_ID")]
    pub mode: Option<String>,
    /// Set a config option once the session is open (repeatable).
    #[arg(long = "set", value_name = "CONFIG_ID=VALUE", value_parser = parse_setting)]
    pub settings: Vec<(String, String)>,
    /// Print the agent's sessions (id, working directory, title, last update) and exit.
    #[arg(long, conflicts_with_all = ["prompt", "load", "mode", "settings"])]
    pub list_sessions: bool,
    /// Continue this session (v1 `session/load`, v2 `session/resume` with its history).
    #[arg(long, value_name = "SESSION_ID")]
    pub load: Option<String>,
    /// The session's working directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// A further directory the session may use (repeatable; sent when the agent accepts it).
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dirs: Vec<PathBuf>,
    /// Bound each step and the turn to this many seconds; past it the turn is cancelled and
    /// the client exits with 4.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Seconds the agent gets to exit after its input closed (and again after SIGTERM).
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = parse_seconds)]
    pub grace: Duration,
    /// Do not read or write files for the agent (`fs` is not advertised).
    #[arg(long)]
    pub no_fs: bool,
    /// Do not run commands for the agent (`terminal` is not advertised).
    #[arg(long)]
    pub no_terminal: bool,
    /// Connect to a remote agent at this URL (WebSocket `ws://`, `wss://` or Streamable HTTP
    /// `http://`, `https://`; for example one served by `acp agent --listen`) instead of
    /// launching an agent command.
    #[arg(long, value_name = "URL", conflicts_with = "agent")]
    pub url: Option<String>,
    /// With --url: the bearer token to send (default: $ACP_TOKEN when set).
    #[arg(long, value_name = "TOKEN", requires = "url")]
    pub token: Option<String>,
    /// With a `wss://` or `https://` --url: trust the certificates in FILE (PEM) instead of the usual root
    /// certificates (for a private or self-signed server certificate).
    #[arg(long, value_name = "FILE", requires = "url")]
    pub tls_ca: Option<PathBuf>,
    /// The agent command and its arguments, after `--` (or --url).
    #[arg(
        last = true,
        required_unless_present = "url",
        value_name = "AGENT_COMMAND"
    )]
    pub agent: Vec<String>,
    /// The terminal UI as plain lines for screen readers and simple terminals: one event per
    /// line, no boxes, no full-screen drawing; prompts are read line by line.
    #[arg(long, conflicts_with_all = ["prompt", "list_sessions"])]
    pub plain: bool,
    /// The terminal UI's high-contrast look: no dimmed text, bright colours, bold emphasis
    /// (also `ACP_HIGH_CONTRAST=1`; `NO_COLOR` still turns colours off).
    #[arg(long)]
    pub high_contrast: bool,
    /// Do not read or write the terminal UI's prompt history (kept per agent in
    /// `$XDG_STATE_HOME/acp/client/history/`).
    #[arg(long)]
    pub no_history: bool,
}

/// `CONFIG_ID=VALUE`.
fn parse_setting(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((id, value)) if !id.trim().is_empty() => Ok((id.trim().to_owned(), value.to_owned())),
        _ => Err(format!("`{text}` is not CONFIG_ID=VALUE")),
    }
}

/// A positive number of seconds (fractions allowed).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(seconds.is_finite() && (0.0..1e9).contains(&seconds)) {
        return Err(format!("`{text}` is not a number of seconds from 0 up"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

impl Args {
    /// The runtime client options these arguments ask for; the agent's protocol problems go
    /// to `log`.
    fn builder(&self, handler: CliHandler, log: &PeerLog) -> ClientBuilder {
        ClientBuilder::new()
            .protocol(ProtocolVersion(self.protocol))
            .notices(!self.no_notices)
            .info("acp-client", env!("CARGO_PKG_VERSION"))
            .handler(handler)
            .connection_options(ConnectionBuilder::new().logger(log.logger()))
    }

    /// The services offered to the agent.
    fn services(&self) -> Services {
        Services {
            files: !self.no_fs,
            terminals: !self.no_terminal,
        }
    }

    /// Where the agent is: the remote URL, else the agent command.
    fn target(&self) -> Result<Target, Failure> {
        if let Some(url) = &self.url {
            let token = self
                .token
                .clone()
                .or_else(|| std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()));
            let mut options = ClientOptions::new();
            if let Some(token) = token {
                options = options.token(token);
            }
            if let Some(limit) = self.timeout {
                options = options.connect_timeout(limit);
            }
            if let Some(file) = &self.tls_ca {
                let pem = std::fs::read(file).map_err(|error| {
                    Failure::usage(format!("--tls-ca {}: {error}", file.display()))
                })?;
                options = options.trust_pem(&pem).map_err(|error| {
                    Failure::usage(format!("--tls-ca {}: {error}", file.display()))
                })?;
            }
            return Ok(Target::Url {
                url: url.clone(),
                options,
            });
        }
        self.command().map(Target::Command)
    }

    /// The agent command line.
    fn command(&self) -> Result<AgentCommand, Failure> {
        let (program, rest) = self
            .agent
            .split_first()
            .ok_or_else(|| Failure::usage("no agent command given (put it after `--`)"))?;
        Ok(AgentCommand::new(program)
            .args(rest)
            .grace_period(self.grace))
    }

    /// The session's directories.
    fn session_options(&self) -> Result<SessionOptions, Failure> {
        let cwd = match &self.cwd {
            Some(dir) => std::fs::canonicalize(dir)
                .map_err(|error| Failure::usage(format!("--cwd {}: {error}", dir.display())))?,
            None => std::env::current_dir().map_err(|error| {
                Failure::usage(format!("cannot read the current directory: {error}"))
            })?,
        };
        let mut extra = Vec::new();
        for dir in &self.add_dirs {
            let dir = std::fs::canonicalize(dir)
                .map_err(|error| Failure::usage(format!("--add-dir {}: {error}", dir.display())))?;
            extra.push(dir.to_string_lossy().into_owned());
        }
        Ok(SessionOptions::new(cwd.to_string_lossy()).additional_directories(extra))
    }
}

/// Runs the client.
pub fn run(args: Args) -> super::Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let code = runtime.block_on(async move {
        if args.list_sessions {
            list_sessions(&args).await
        } else if let Some(text) = &args.prompt {
            run_prompt(&args, text).await
        } else if args.plain {
            match plain_ui::run_client(&args).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(failure) => report(&failure),
            }
        } else {
            match tui::run_client(&args).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(failure) => report(&failure),
            }
        }
    });
    // Every agent process has been shut down; do not wait for stray tasks.
    runtime.shutdown_background();
    Ok(code)
}

/// `--list-sessions`.
async fn list_sessions(args: &Args) -> ExitCode {
    let handler = CliHandler::new(
        Answers::Fixed {
            allow: false,
            allow_write: false,
        },
        args.services(),
        EventLog::new(),
    );
    let target = match args.target() {
        Ok(target) => target,
        Err(failure) => return report(&failure),
    };
    let log = PeerLog::new();
    let (client, mut process) =
        match setup::launch(args.builder(handler, &log), &target, args.timeout).await {
            Ok(pair) => pair,
            Err(failure) => return report(&log.explain(failure)),
        };
    let outcome = async {
        if let Some(method) = &args.auth {
            setup::authenticate(&client, method, args.timeout).await?;
        }
        if !client.agent().supports("session/list") {
            return Err(Failure::usage(
                "--list-sessions: the agent cannot list sessions (it did not advertise `session/list`)",
            ));
        }
        setup::bounded(args.timeout, "listing sessions", async {
            client.all_sessions(None, 100).await.map_err(|error| {
                let mut failure = Failure::of("the agent could not list its sessions", &error, Exit::Failed);
                if failure.exit == Exit::Auth {
                    failure.message = format!("{}\n{}", failure.message, setup::auth_help(&client));
                }
                failure
            })
        })
        .await
    }
    .await;
    setup::shutdown(&client, &mut process).await;
    match outcome {
        Ok(sessions) => {
            for session in &sessions {
                let line = match args.format {
                    Format::Json => {
                        let mut printer = json::JsonPrinter::new(Vec::new());
                        let _ = printer.write(&[
                            ("type", json!("session_info")),
                            ("sessionId", json!(session.id)),
                            ("cwd", json!(session.cwd)),
                            ("title", json!(session.title)),
                            ("updatedAt", json!(session.updated_at)),
                        ]);
                        String::from_utf8_lossy(&printer.into_inner())
                            .trim_end()
                            .to_owned()
                    }
                    Format::Text => format!(
                        "{}\t{}\t{}\t{}",
                        text::terminal_safe(&session.id),
                        text::terminal_safe(&session.cwd),
                        text::terminal_safe(session.title.as_deref().unwrap_or("-"))
                            .replace(['\t', '\n'], " "),
                        text::terminal_safe(session.updated_at.as_deref().unwrap_or("-")),
                    ),
                };
                println!("{line}");
            }
            if sessions.is_empty() && args.format == Format::Text {
                eprintln!("acp: the agent has no sessions");
            }
            ExitCode::SUCCESS
        }
        Err(failure) => report(&log.explain(failure)),
    }
}

/// `--prompt TEXT`.
async fn run_prompt(args: &Args, text: &str) -> ExitCode {
    let mut interrupted = prompt::interrupts();
    let events = EventLog::new();
    let handler = CliHandler::new(
        Answers::Fixed {
            allow: args.allow,
            allow_write: args.allow_write,
        },
        args.services(),
        events.clone(),
    );
    let mut out = Output::new(args.format, std::io::stdout());
    let log = PeerLog::new();
    let fail = |out: &mut Output<std::io::Stdout>, failure: Failure| {
        let failure = log.explain(failure);
        let _ = out.failure(&failure, None);
        report(&failure)
    };
    let (target, options) = match args.target().and_then(|t| Ok((t, args.session_options()?))) {
        Ok(pair) => pair,
        Err(failure) => return fail(&mut out, failure),
    };
    let launched = tokio::select! {
        launched = setup::launch(args.builder(handler, &log), &target, args.timeout) => launched,
        _ = interrupted.changed() => Err(Failure::new(Exit::Interrupted, "interrupted while starting the agent")),
    };
    let (client, mut process) = match launched {
        Ok(pair) => pair,
        Err(failure) => return fail(&mut out, failure),
    };
    let setup = async {
        if let Some(method) = &args.auth {
            setup::authenticate(&client, method, args.timeout).await?;
        }
        let opened = setup::open(&client, &options, args.load.as_deref(), args.timeout).await?;
        setup::apply_controls(
            &client,
            &opened.id,
            args.mode.as_deref(),
            &args.settings,
            args.timeout,
        )
        .await?;
        Ok::<_, Failure>(opened)
    };
    let opened = tokio::select! {
        opened = setup => opened,
        _ = interrupted.changed() => Err(Failure::new(Exit::Interrupted, "interrupted while opening the session")),
    };
    let opened = match opened {
        Ok(opened) => opened,
        Err(failure) => {
            setup::shutdown(&client, &mut process).await;
            return fail(&mut out, failure);
        }
    };
    let notices = !args.no_notices;
    let mut follower = Follower::new(opened.id.as_str());
    let printed = (|| -> std::io::Result<()> {
        out.session(&client, &opened.id, opened.loaded)?;
        if opened.loaded {
            // The replay is history: printed as such, and never with notices.
            out.history(true)?;
            client.with_transcript(|transcript| follower.transcript(transcript, &mut out))?;
            out.history(false)?;
        }
        Ok(())
    })();
    if let Err(error) = printed {
        setup::shutdown(&client, &mut process).await;
        return report(&Failure::new(
            Exit::Failed,
            format!("cannot write the output: {error}"),
        ));
    }
    let turn = prompt::Turn {
        client: &client,
        session: &opened.id,
        notices,
        events: &events,
        timeout: args.timeout,
    };
    let end = turn
        .run(text, &mut follower, &mut out, &mut interrupted)
        .await;
    setup::shutdown(&client, &mut process).await;
    match end {
        Err(error) => report(&Failure::new(
            Exit::Failed,
            format!("cannot write the output: {error}"),
        )),
        Ok(TurnEnd::Stopped(acp_runtime::agent::StopReason::EndTurn)) => {
            let _ = out.finish();
            ExitCode::SUCCESS
        }
        Ok(TurnEnd::Stopped(stop)) => {
            let failure = Failure::new(
                Exit::Failed,
                format!("the turn did not end normally (stop reason `{stop}`)"),
            );
            let _ = out.finish();
            report(&failure)
        }
        Ok(TurnEnd::Failed(failure, error)) => {
            let failure = log.explain(failure);
            let _ = out.failure(&failure, error.as_ref());
            report(&failure)
        }
    }
}
