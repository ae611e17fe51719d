//! `acp client`: launch an agent and talk to it, in a terminal UI or for one prompt.
//!
//! The runtime's client keeps the conversation (a transcript that never holds a notice) and
//! the notices (a notice center); this module shows them, and answers what the agent asks.
//! It is built in four layers, each using only the ones below it:
//!
//! - [`tui`]: the terminal UI (full screen, and `--plain` lines), its state, drawing, keys
//!   and dialogs;
//! - [`driver`]: getting to a session and running turns without any UI: the agent's process
//!   and logs, the configuration, the permission policy and decisions, one-shot turns and
//!   named sessions with their owners;
//! - [`render`]: what the user reads, as plain lines, JSON lines, tool blocks and Markdown;
//! - [`shared`]: the lock, the state directory, terminal-safe text, the client's own events
//!   and the exit codes.
//!
//! This module itself holds the command line ([`Args`]) and picks the mode ([`run`]).

pub mod driver;
pub mod render;
pub mod shared;
pub mod tui;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acptk_runtime::ConnectionBuilder;
use acptk_runtime::agent::McpServerSpec;
use acptk_runtime::client::{ClientBuilder, SessionOptions};
use acptk_runtime::transport::AgentCommand;
use acptk_runtime::transport::remote::ClientOptions;
use acptk_schema::v1::ProtocolVersion;
use serde_json::json;

use driver::handler::{Answers, CliHandler, Services};
use driver::peer_log::PeerLog;
use driver::setup::Target;
use driver::turn_output::Renderer;
use driver::{agent_log, config, decide, mcp_config, named_agent, named_session, oneshot};
use driver::{policy, prompt, setup};
use shared::events::EventLog;
use shared::exit::{self, Exit, Failure, report};
use shared::format::Format;
use shared::text;

/// A heading of `acp client --help`.
const PROMPT_AND_OUTPUT: &str = "Prompt and output";
/// A heading of `acp client --help`.
const SESSION: &str = "Session";
/// A heading of `acp client --help`.
const PERMISSIONS: &str = "Permissions (one-shot mode)";
/// A heading of `acp client --help`.
const REMOTE: &str = "Remote agent (--url)";
/// A heading of `acp client --help`.
const AGENT: &str = "Agent and configuration";
/// A heading of `acp client --help`.
const TERMINAL_UI: &str = "Terminal UI";

/// Arguments of `acp client`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes: 0 the turn ended normally, 1 the turn or the agent failed, \
2 bad usage, 3 authentication needed or failed, 4 timed out, 5 the agent could not be started \
or exited early (or, with --url, could not be reached), 6 a permission was needed and there was \
no terminal to ask (--non-interactive-permissions fail), 129/130/143 ended by SIGHUP/SIGINT/SIGTERM, \
141 the output was closed."
)]
pub struct Args {
    // The positional arguments have no heading: `--help` lists them under "Arguments".
    /// The named agent to launch (like --agent NAME), when no command is given after `--`.
    #[arg(index = 1, value_name = "AGENT_NAME", conflicts_with = "agent_name")]
    pub named_agent: Option<String>,
    /// The agent command and its arguments, after `--` (or a named agent, or --url).
    #[arg(last = true, index = 2, value_name = "AGENT_COMMAND")]
    pub agent: Vec<String>,
    // The ten flags most runs use come next, without a heading either, so that `--help`
    // lists them under "Options" (with --help and --version, which clap always puts there)
    // before the named groups that follow them here.
    /// Launch the agent of this name (an [agents.NAME] entry of the config file, or a
    /// built-in one: codex, claude, gemini) instead of a command after `--`.
    #[arg(long = "agent", value_name = "NAME")]
    pub agent_name: Option<String>,
    /// Connect to a remote agent at this URL (WebSocket `ws://`, `wss://` or Streamable HTTP
    /// `http://`, `https://`; for example one served by `acp agent --listen`) instead of
    /// launching an agent command.
    #[arg(long, value_name = "URL", conflicts_with_all = ["agent", "agent_name", "named_agent"])]
    pub url: Option<String>,
    /// Run one turn with this prompt, print it and exit (no terminal UI); `-` reads the
    /// prompt from standard input.
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// The output of --prompt and --list-sessions: plain text (the default), one JSON object
    /// per line, or only the agent's final message (quiet).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Name the session: the first run creates it, later runs with the same name, agent and
    /// working directory continue it (see `acp sessions`).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["load", "list_sessions"])]
    pub session: Option<String>,
    /// The session's working directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// One-shot mode: allow every permission request, command and file write.
    #[arg(long, visible_alias = "allow", group = "permissions")]
    pub approve_all: bool,
    /// Give the agent the MCP servers in this JSON file (`{"mcpServers": {...}}`, as Claude
    /// Desktop, Claude Code and Cursor write it); servers of a transport the agent did not
    /// advertise are left out with a warning.
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,
    /// Protocol version to ask the agent for: 1 or 2 (a v1 agent asked for 2 is relaunched
    /// and initialized as v1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=2))]
    pub protocol: u16,
    /// Show what the agent writes to its standard error (prefixed `agent: `) and the lines
    /// it writes to its standard output that are not JSON, on standard error. Either way its
    /// standard error is kept in a log file per run (see the README).
    #[arg(long)]
    pub verbose: bool,
    /// Run one turn with the prompt in this file (like --prompt).
    #[arg(help_heading = PROMPT_AND_OUTPUT, long, value_name = "FILE", conflicts_with = "prompt")]
    pub prompt_file: Option<PathBuf>,
    /// Print the agent's sessions (id, working directory, title, last update) and exit.
    #[arg(
        help_heading = PROMPT_AND_OUTPUT, long,
        conflicts_with_all = ["prompt", "prompt_file", "load", "mode", "settings"]
    )]
    pub list_sessions: bool,
    /// Bound each step and the turn to this many seconds; past it the turn is cancelled and
    /// the client exits with 4.
    #[arg(
        help_heading = PROMPT_AND_OUTPUT, long, value_name = "SECS", value_parser = parse_seconds
    )]
    pub timeout: Option<Duration>,
    /// Continue this session (v1 `session/load`, v2 `session/resume` with its history).
    #[arg(help_heading = SESSION, long, value_name = "SESSION_ID")]
    pub load: Option<String>,
    /// A further directory the session may use (repeatable; sent when the agent accepts it).
    #[arg(help_heading = SESSION, long = "add-dir", value_name = "DIR")]
    pub add_dirs: Vec<PathBuf>,
    /// Sign in with this method of the agent's before the session is created.
    #[arg(help_heading = SESSION, long, value_name = "METHOD_ID")]
    pub auth: Option<String>,
    /// Switch the session to this mode once it is open.
    #[arg(help_heading = SESSION, long, value_name = "MODE_ID")]
    pub mode: Option<String>,
    /// Set a config option once the session is open (repeatable).
    #[arg(
        help_heading = SESSION, long = "set", value_name = "CONFIG_ID=VALUE",
        value_parser = parse_setting
    )]
    pub settings: Vec<(String, String)>,
    /// With --session: hand the prompt to the session's owner (a background process, started
    /// when there is none) and return at once.
    #[arg(help_heading = SESSION, long, requires = "session")]
    pub no_wait: bool,
    /// With --no-wait: how many seconds the owner it starts waits idle before it exits
    /// (default 300; 0: as soon as its queue is empty).
    #[arg(
        help_heading = SESSION, long, value_name = "SECS", value_parser = parse_seconds,
        requires = "session"
    )]
    pub ttl: Option<Duration>,
    /// Serve the --session as its owner (how --no-wait starts one).
    #[arg(help_heading = SESSION, long, hide = true, requires = "session")]
    pub serve_as_owner: bool,
    /// One-shot mode (the default): allow permission requests of kind `read`, ask y/N on
    /// the terminal for the rest (refused without a terminal).
    #[arg(help_heading = PERMISSIONS, long, group = "permissions")]
    pub approve_reads: bool,
    /// One-shot mode: refuse every permission request, command and file write.
    #[arg(help_heading = PERMISSIONS, long, group = "permissions")]
    pub deny_all: bool,
    /// One-shot mode: decide by the rules in this JSON file (see the README).
    #[arg(help_heading = PERMISSIONS, long, value_name = "FILE", group = "permissions")]
    pub policy: Option<PathBuf>,
    /// One-shot mode: what the policy leaves to the user when there is no terminal to ask on:
    /// `deny` it (the default), or `fail` (cancel the turn and exit with 6).
    #[arg(help_heading = PERMISSIONS, long, value_enum, value_name = "deny|fail")]
    pub non_interactive_permissions: Option<decide::NonInteractive>,
    /// One-shot mode: let the agent write files in the session's directories (default: asked
    /// on the terminal, refused without one; the terminal UI asks each time).
    #[arg(help_heading = PERMISSIONS, long)]
    pub allow_write: bool,
    /// With --url: the bearer token to send (default: $ACP_TOKEN when set; empty is an error).
    #[arg(help_heading = REMOTE, long, value_name = "TOKEN", requires = "url",
          value_parser = crate::commands::tokens::parse_token)]
    pub token: Option<String>,
    /// With a `wss://` or `https://` --url: trust the certificates in FILE (PEM) instead of the usual root
    /// certificates (for a private or self-signed server certificate).
    #[arg(help_heading = REMOTE, long, value_name = "FILE", requires = "url")]
    pub tls_ca: Option<PathBuf>,
    /// With --url: offer the remote agent this machine's files (reads, and writes as the
    /// policy allows). Off by default: a remote agent gets no `fs` capability.
    #[arg(help_heading = REMOTE, long, requires = "url")]
    pub allow_remote_fs: bool,
    /// With --url: offer the remote agent terminals on this machine (each command still needs
    /// consent). Off by default: a remote agent gets no `terminal` capability.
    #[arg(help_heading = REMOTE, long, requires = "url")]
    pub allow_remote_terminal: bool,
    /// Read defaults and named agents from this config file (default:
    /// $XDG_CONFIG_HOME/acp/config.toml, else ~/.config/acp/config.toml, when it exists).
    #[arg(help_heading = AGENT, long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Seconds the agent gets to exit after its input closed (and again after SIGTERM).
    #[arg(
        help_heading = AGENT, long, value_name = "SECS", default_value = "2",
        value_parser = parse_seconds
    )]
    pub grace: Duration,
    /// Do not read or write files for the agent (`fs` is not advertised).
    #[arg(help_heading = AGENT, long)]
    pub no_fs: bool,
    /// Do not run commands for the agent (`terminal` is not advertised).
    #[arg(help_heading = AGENT, long)]
    pub no_terminal: bool,
    /// Do not advertise `session.notices` (v1) and do not use a notice center.
    #[arg(help_heading = AGENT, long)]
    pub no_notices: bool,
    /// The terminal UI as plain lines for screen readers and simple terminals: one event per
    /// line, no boxes, no full-screen drawing; prompts are read line by line.
    #[arg(
        help_heading = TERMINAL_UI, long,
        conflicts_with_all = ["prompt", "prompt_file", "list_sessions"]
    )]
    pub plain: bool,
    /// The terminal UI's high-contrast look: no dimmed text, bright colours, bold emphasis
    /// (also `ACP_HIGH_CONTRAST=1`; `NO_COLOR` still turns colours off).
    #[arg(help_heading = TERMINAL_UI, long)]
    pub high_contrast: bool,
    /// Do not read or write the terminal UI's prompt history (kept per agent in
    /// `$XDG_STATE_HOME/acp/client/history/`).
    #[arg(help_heading = TERMINAL_UI, long)]
    pub no_history: bool,
    /// The environment of a named agent.
    #[arg(skip)]
    pub agent_env: Vec<(String, String)>,
    /// The directory a named agent's process starts in.
    #[arg(skip)]
    pub agent_dir: Option<PathBuf>,
    /// The MCP servers of --mcp-config (read by [`Args::resolve`]).
    #[arg(skip)]
    pub mcp_servers: Vec<McpServerSpec>,
}

/// The runtime client options of `acp client`: protocol `version`, `notices` on or off,
/// the handler, and the agent's protocol problems going to `log`.
fn client_builder(
    version: u16,
    notices: bool,
    handler: CliHandler,
    log: &PeerLog,
) -> ClientBuilder {
    ClientBuilder::new()
        .protocol(ProtocolVersion(version))
        .notices(notices)
        .info("acp-client", env!("CARGO_PKG_VERSION"))
        .handler(handler)
        .connection_options(ConnectionBuilder::new().logger(log.logger()))
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
    /// Fills in what the command line left to the config file (see [`config`]), the command
    /// of a named agent, and the servers of `--mcp-config`; fails (exit 2) on a bad config
    /// file, an unknown agent name, or no agent at all.
    pub fn resolve(&mut self) -> Result<(), Failure> {
        let loaded = config::Loaded::read(self.config.as_deref()).map_err(Failure::usage)?;
        let defaults = &loaded.config;
        self.format = self.format.or(defaults.format);
        self.non_interactive_permissions = self
            .non_interactive_permissions
            .or(defaults.non_interactive_permissions);
        let chosen =
            self.approve_all || self.approve_reads || self.deny_all || self.policy.is_some();
        if !chosen {
            match defaults.permissions {
                Some(config::Permissions::ApproveAll) => self.approve_all = true,
                Some(config::Permissions::DenyAll) => self.deny_all = true,
                Some(config::Permissions::ApproveReads) => self.approve_reads = true,
                None => self.policy = defaults.policy.as_deref().map(|p| loaded.resolve(p)),
            }
        }
        if self.timeout.is_none() {
            self.timeout = defaults.timeout.map(Duration::from_secs_f64);
        }
        if self.ttl.is_none() {
            self.ttl = defaults.ttl.map(Duration::from_secs_f64);
        }
        if self.mcp_config.is_none() {
            self.mcp_config = defaults.mcp_config.as_deref().map(|p| loaded.resolve(p));
        }
        if let Some(name) = self.agent_name.clone().or_else(|| self.named_agent.clone()) {
            if !self.agent.is_empty() {
                return Err(Failure::usage(format!(
                    "give the agent by name (`{name}`) or as a command after `--`, not both"
                )));
            }
            let agent = named_agent::resolve(&name, &loaded).map_err(Failure::usage)?;
            self.agent = agent.command;
            self.agent_env = agent.env;
            self.agent_dir = agent.cwd;
            self.agent_name = Some(name);
        }
        if self.agent.is_empty() && self.url.is_none() {
            return Err(Failure::usage(format!(
                "no agent: give its command after `--` (`acp client -- AGENT ARGS...`), a named agent (`acp client NAME` or --agent NAME; named: {}) or --url URL",
                named_agent::names(&loaded).join(", ")
            )));
        }
        if let Some(file) = &self.mcp_config {
            self.mcp_servers = mcp_config::read(file).map_err(Failure::usage)?;
        }
        Ok(())
    }

    /// `--format` (text by default).
    #[must_use]
    pub fn format(&self) -> Format {
        self.format.unwrap_or_default()
    }

    /// `--non-interactive-permissions` (deny by default).
    #[must_use]
    pub fn non_interactive(&self) -> decide::NonInteractive {
        self.non_interactive_permissions.unwrap_or_default()
    }

    /// The runtime client options these arguments ask for; the agent's protocol problems go
    /// to `log`.
    fn builder(&self, handler: CliHandler, log: &PeerLog) -> ClientBuilder {
        client_builder(self.protocol, !self.no_notices, handler, log)
    }

    /// The prompt of one-shot mode: `--prompt TEXT`, standard input for `--prompt -`, the
    /// file of `--prompt-file`; without either, standard input when it is not a terminal
    /// (`echo hi | acp client -- AGENT`). `None` means the terminal UI, which needs a terminal
    /// on both standard input and standard output.
    fn prompt_text(&self) -> Result<Option<String>, Failure> {
        use std::io::{IsTerminal, Read};
        let read_stdin = || {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|error| {
                    Failure::usage(format!(
                        "cannot read the prompt from standard input: {error}"
                    ))
                })?;
            Ok::<_, Failure>(text)
        };
        let text = match (&self.prompt, &self.prompt_file) {
            (Some(dash), _) if dash == "-" => read_stdin()?,
            (Some(text), _) => return Ok(Some(text.clone())),
            (None, Some(file)) => std::fs::read_to_string(file).map_err(|error| {
                Failure::usage(format!("--prompt-file {}: {error}", file.display()))
            })?,
            // `--plain` reads its prompts line by line from standard input itself.
            (None, None) if self.plain => return Ok(None),
            (None, None) => {
                if std::io::stdin().is_terminal() {
                    if std::io::stdout().is_terminal() {
                        return Ok(None);
                    }
                    return Err(Failure::usage(
                        "the terminal UI needs a terminal on standard output; for one turn give a prompt with --prompt TEXT (or --prompt - or --prompt-file FILE)",
                    ));
                }
                let text = read_stdin()?;
                if text.trim().is_empty() {
                    return Err(Failure::usage(
                        "no prompt: standard input is not a terminal and gave no text; give one with --prompt TEXT, --prompt - (standard input) or --prompt-file FILE",
                    ));
                }
                text
            }
        };
        if text.trim().is_empty() {
            return Err(Failure::usage(
                "the prompt is empty (--prompt - or --prompt-file)",
            ));
        }
        // A trailing line break is how files and pipes end, not part of the prompt.
        Ok(Some(text.trim_end_matches(['\n', '\r']).to_owned()))
    }

    /// The services offered to the agent: a remote agent gets files and terminals only when
    /// the flags that name the risk say so.
    fn services(&self) -> Services {
        let remote = self.url.is_some();
        Services {
            files: !self.no_fs && (!remote || self.allow_remote_fs),
            terminals: !self.no_terminal && (!remote || self.allow_remote_terminal),
        }
    }

    /// The permission policy of one-shot mode.
    fn permission_policy(&self) -> Result<policy::Policy, Failure> {
        use policy::{BuiltIn, Policy};
        let policy = if let Some(file) = &self.policy {
            Policy::read(file).map_err(Failure::usage)?
        } else if self.approve_all {
            Policy::built_in(BuiltIn::ApproveAll)
        } else if self.deny_all {
            Policy::built_in(BuiltIn::DenyAll)
        } else {
            Policy::built_in(BuiltIn::ApproveReads)
        };
        Ok(if self.allow_write {
            policy.allowing_writes()
        } else {
            policy
        })
    }

    /// Where the agent is: the remote URL, else the agent command (its standard error going
    /// to `log`).
    fn target(&self, log: &agent_log::AgentLog) -> Result<Target, Failure> {
        if self.url.is_none() && (self.allow_remote_fs || self.allow_remote_terminal) {
            return Err(Failure::usage(
                "--allow-remote-fs and --allow-remote-terminal are for a remote agent (--url)",
            ));
        }
        if let Some(url) = &self.url {
            let token = crate::commands::tokens::token(self.token.as_ref())
                .map_err(|error| Failure::usage(error.0))?;
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
        let log = log.clone();
        self.command()
            .map(|command| Target::Command(command.stderr_lines(move |line| log.line(line))))
    }

    /// The agent command line.
    fn command(&self) -> Result<AgentCommand, Failure> {
        let (program, rest) = self
            .agent
            .split_first()
            .ok_or_else(|| Failure::usage("no agent command given (put it after `--`)"))?;
        let mut command = AgentCommand::new(program)
            .args(rest)
            .grace_period(self.grace);
        for (key, value) in &self.agent_env {
            command = command.env(key, value);
        }
        if let Some(dir) = &self.agent_dir {
            command = command.current_dir(dir);
        }
        Ok(command)
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
        Ok(SessionOptions::new(cwd.to_string_lossy())
            .additional_directories(extra)
            .mcp_servers(self.mcp_servers.clone()))
    }
}

/// How turns are printed: the driver gets the renderer from here, and knows no printer.
const PRINTERS: &dyn Renderer = &render::output::Printers;

/// Runs the client.
pub fn run(mut args: Args) -> super::Outcome {
    if let Err(failure) = args.resolve() {
        return Ok(report(&failure));
    }
    if args.serve_as_owner {
        return Ok(driver::owner::run(&args, PRINTERS));
    }
    // Everything started from here on (the agent, terminals, their children) is ended with
    // us; a run with --no-wait starts no agent, and the owner it may start outlives it.
    let _reaper = (!args.no_wait).then(super::reaper::Reaper::start);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let prompt = if args.list_sessions {
        None
    } else {
        match args.prompt_text() {
            Ok(prompt) => prompt,
            Err(failure) => return Ok(report(&failure)),
        }
    };
    if prompt.is_none() && args.session.is_some() && !args.list_sessions {
        return Ok(report(&Failure::usage(
            "--session needs a prompt (--prompt TEXT, --prompt - or --prompt-file FILE): the terminal UI does not take named sessions yet",
        )));
    }
    let code = runtime.block_on(async move {
        if args.list_sessions {
            list_sessions(&args).await
        } else if let Some(text) = &prompt {
            match (&args.session, args.no_wait) {
                (Some(_), true) => named_session::queue(&args, text).await,
                (Some(_), false) => named_session::run(&args, text, PRINTERS).await,
                (None, _) => oneshot::run(&args, text, oneshot::Opening::Plain, PRINTERS).await,
            }
        } else if args.plain {
            match tui::plain_ui::run_client(&args).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(failure) => report(&failure),
            }
        } else {
            match tui::event_loop::run_client(&args).await {
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
        Answers::OneShot(decide::OneShot::new(
            policy::Policy::built_in(policy::BuiltIn::DenyAll),
            None,
            decide::NonInteractive::Deny,
        )),
        args.services(),
        EventLog::new(),
    );
    let agent_log = agent_log::AgentLog::open(args.verbose);
    let target = match args.target(&agent_log) {
        Ok(target) => target,
        Err(failure) => return report(&failure),
    };
    let log = PeerLog::new().verbose(args.verbose);
    // A signal ends the listing like any failure: the agent is ended first.
    let mut interrupted = prompt::interrupts();
    let signalled = |signal: Option<i32>| {
        let signal = signal.unwrap_or(2);
        Failure::new(prompt::signal_exit(signal), prompt::interruption(signal))
    };
    let launched = tokio::select! {
        launched = setup::launch(args.builder(handler, &log), &target, args.timeout) => launched,
        _ = interrupted.changed() => Err(signalled(*interrupted.borrow())),
    };
    let (client, mut process) = match launched {
        Ok(pair) => pair,
        Err(failure) => return report(&agent_log.explain(log.explain(failure))),
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
                setup::with_sign_in(
                    &client,
                    Failure::of(
                        "the agent could not list its sessions",
                        &error,
                        Exit::Failed,
                    ),
                )
            })
        })
        .await
    };
    let outcome = tokio::select! {
        outcome = outcome => outcome,
        _ = interrupted.changed() => Err(signalled(*interrupted.borrow())),
    };
    setup::shutdown(&client, &mut process).await;
    match outcome {
        Ok(sessions) => {
            for session in &sessions {
                let line = match args.format() {
                    Format::Json => {
                        let mut printer = render::json::JsonPrinter::new(Vec::new());
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
                    Format::Text | Format::Quiet => format!(
                        "{}\t{}\t{}\t{}",
                        text::terminal_safe(&session.id),
                        text::terminal_safe(&session.cwd),
                        text::terminal_safe(session.title.as_deref().unwrap_or("-"))
                            .replace(['\t', '\n'], " "),
                        text::terminal_safe(session.updated_at.as_deref().unwrap_or("-")),
                    ),
                };
                let mut stdout = std::io::stdout().lock();
                if writeln!(stdout, "{line}")
                    .and_then(|()| stdout.flush())
                    .is_err()
                {
                    // The reader left: stop quietly.
                    return exit::Exit::OutputClosed.into();
                }
            }
            if sessions.is_empty() && args.format() == Format::Text {
                exit::say("acp: the agent has no sessions");
            }
            ExitCode::SUCCESS
        }
        Err(failure) => report(&agent_log.explain(log.explain(failure))),
    }
}
