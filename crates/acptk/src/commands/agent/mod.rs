//! `acp agent`: the example agent over stdio (or, with `--listen`, over WebSocket). No language model: it streams a canned reply,
//! asks permission for a small visible tool call, offers two modes and an option, titles its
//! sessions, reads files (`/read`) and runs commands (`/run`) through the client, and reports
//! real conditions as notices (an MCP server whose command cannot be started), plus
//! `/notice SEVERITY TITLE [-- DESCRIPTION]` to send any notice on demand.
//!
//! Sessions are kept in a SQLite database in a state directory (or in the database `--store`
//! names: SQLite or PostgreSQL, shared with other agent processes), so a client can load them
//! after the agent restarted; `--ephemeral` keeps them in memory only. With `--listen` the default
//! state directory is another one than over stdio, and every connection acts for the
//! principal of its token (see `listen`).

mod example;
mod mcp;
mod notice_command;
mod store;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acptk_runtime::agent::{AgentServer, DEFAULT_LEASE};
use acptk_runtime::log::{Level, Logger};

pub use example::{
    ASK_MODE, CODE_MODE, ExampleAgent, ExampleOptions, SHOUT_OPTION, session_config,
};
pub use notice_command::{NoticeCommand, parse_notice_command};
pub use store::{DATABASE_FILE, KEPT_FILES_DIR, StoreUrl, parse_store};

/// The environment variable that sets the delay between reply chunks, in milliseconds
/// (overridden by `--delay-ms`). `0` makes the agent answer at once, for tests.
pub const DELAY_ENV: &str = "ACP_AGENT_DELAY_MS";

/// The default delay between reply chunks.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(40);

/// Arguments of `acp agent`.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("remote").args(["listen"]).multiple(true))]
pub struct Args {
    /// Delay between reply chunks in milliseconds (default 40, or $ACP_AGENT_DELAY_MS).
    #[arg(long)]
    pub delay_ms: Option<u64>,
    /// Log protocol problems (bad lines, violations) to standard error.
    #[arg(long)]
    pub verbose: bool,
    /// Keep sessions in the SQLite database DIR/sessions.sqlite3, so they can be loaded after
    /// a restart (default $XDG_STATE_HOME/acp/agent, else ~/.local/state/acp/agent; with
    /// --listen, agent-listen instead of agent, so that a listener never serves the stdio
    /// agent's sessions unless DIR says so). Session files of earlier versions found in DIR
    /// are moved into the database once and kept in DIR/sessions.v1-files.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["ephemeral", "store"])]
    pub state_dir: Option<PathBuf>,
    /// Keep sessions in this database instead: sqlite://PATH (a file that agent processes on
    /// one machine may share) or postgres://USER:PASSWORD@HOST:PORT/DATABASE (password and
    /// port optional; one that instances on several machines share). The schema is created
    /// or updated on start.
    #[arg(long, value_name = "URL", value_parser = parse_store, conflicts_with = "ephemeral")]
    pub store: Option<StoreUrl>,
    /// How long a turn's lease on its session lasts without renewal, in seconds: when agent
    /// processes share a store, a crashed one's sessions are free again after this long.
    #[arg(long, value_name = "SECONDS", value_parser = parse_lease,
          default_value_t = DEFAULT_LEASE.as_secs_f64())]
    pub lease_seconds: f64,
    /// Keep sessions in memory only; nothing that needs persistence (loading a session) is
    /// advertised.
    #[arg(long)]
    pub ephemeral: bool,
    /// Do not ask permission before tool calls.
    #[arg(long)]
    pub no_permission: bool,
    /// `--listen` and its flags.
    #[command(flatten, next_help_heading = crate::commands::listen::HELP_HEADING)]
    pub remote: crate::commands::listen::ListenArgs,
}

/// A lease duration in seconds: from 0.1 up to a day.
fn parse_lease(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && (0.1..=86_400.0).contains(&seconds) => Ok(seconds),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0.1 to 86400"
        )),
    }
}

/// The chunk delay from the flag, else the environment, else the default.
fn delay(args: &Args) -> Duration {
    args.delay_ms
        .or_else(|| std::env::var(DELAY_ENV).ok()?.trim().parse().ok())
        .map_or(DEFAULT_DELAY, Duration::from_millis)
}

/// The default state directory of the stdio agent: `$XDG_STATE_HOME/acp/agent`, else
/// `$HOME/.local/state/acp/agent`; `None` when neither variable is set.
pub fn default_state_dir() -> Option<PathBuf> {
    state_home().map(|acp| acp.join("agent"))
}

/// The default state directory of `acp agent --listen`: `agent-listen` next to
/// [`default_state_dir`], so that a listener does not serve the sessions of the stdio agent.
pub fn default_listen_state_dir() -> Option<PathBuf> {
    state_home().map(|acp| acp.join("agent-listen"))
}

/// `$XDG_STATE_HOME/acp`, else `$HOME/.local/state/acp`.
fn state_home() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(state) = non_empty("XDG_STATE_HOME") {
        return Some(PathBuf::from(state).join("acp"));
    }
    non_empty("HOME").map(|home| PathBuf::from(home).join(".local/state/acp"))
}

/// Serves the example agent on standard input/output until the client hangs up.
pub fn run(args: Args) -> super::Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let logger = if args.verbose {
        Logger::stderr(Level::Warn)
    } else {
        Logger::none()
    };
    let options = ExampleOptions::new()
        .chunk_delay(delay(&args))
        .ask_permission(!args.no_permission);
    // What waits for a client, and what its requests in flight hold, is bounded in bytes,
    // over stdio as over --listen; a client that takes nothing for the stall timeout is
    // disconnected.
    let connection = acptk_runtime::ConnectionBuilder::new()
        .logger(logger)
        .max_queued_bytes(args.remote.max_queued_bytes)
        .max_in_flight_bytes(args.remote.max_queued_bytes)
        .stall_timeout(args.remote.stall());
    let server = AgentServer::new(ExampleAgent::new(options))
        .connection_options(connection)
        .lease_duration(Duration::from_secs_f64(args.lease_seconds));
    // Read before anything is opened: a bad token is a usage error.
    let listen = args.remote.listen()?;
    let default_dir = if listen.is_some() {
        default_listen_state_dir
    } else {
        default_state_dir
    };
    let wanted = store::StoreArgs {
        ephemeral: args.ephemeral,
        store: args.store.as_ref(),
        state_dir: args.state_dir.clone().or_else(default_dir),
    };
    let store = runtime.block_on(store::open(wanted))?;
    let server = server.shared_store(store);
    let served = match listen {
        Some(listen) => runtime.block_on(async {
            // Heard from before the URL is printed: whoever reads it may signal at once.
            let mut signals = crate::commands::signals::Signals::new()?;
            let stop = async move {
                signals.recv().await;
            };
            crate::commands::listen::serve(server, listen, "acp agent", stop).await
        }),
        None => runtime
            .block_on(async {
                tokio::spawn(crate::commands::allocator::tick());
                let served = server.serve_stdio().await;
                // The client is gone: give up any lease of a store other processes share.
                let _ = server.sessions().shutdown().await;
                served
            })
            .map_err(std::io::Error::other),
    };
    // A write the client never took may still hold a blocking thread: do not wait for it.
    runtime.shutdown_background();
    served?;
    Ok(ExitCode::SUCCESS)
}
