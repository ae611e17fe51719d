//! `acp agent`: the example agent over stdio (or, with `--listen`, over WebSocket). No language model: it streams a canned reply,
//! asks permission for a small visible tool call, offers two modes and an option, titles its
//! sessions, reads files (`/read`) and runs commands (`/run`) through the client, and reports
//! real conditions as notices (an MCP server whose command cannot be started), plus
//! `/notice SEVERITY TITLE [-- DESCRIPTION]` to send any notice on demand.
//!
//! Sessions are kept in files under a state directory, so a client can load them after the
//! agent restarted; `--ephemeral` keeps them in memory only.

mod example;
pub mod listen;
mod mcp;
mod notice_command;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acp_runtime::agent::{AgentServer, FileStore, MemoryStore};
use acp_runtime::log::{Level, Logger};

pub use example::{
    ASK_MODE, CODE_MODE, ExampleAgent, ExampleOptions, SHOUT_OPTION, session_config,
};
pub use notice_command::{NoticeCommand, parse_notice_command};

/// The environment variable that sets the delay between reply chunks, in milliseconds
/// (overridden by `--delay-ms`). `0` makes the agent answer at once, for tests.
pub const DELAY_ENV: &str = "ACP_AGENT_DELAY_MS";

/// The default delay between reply chunks.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(40);

/// Arguments of `acp agent`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Delay between reply chunks in milliseconds (default 40, or $ACP_AGENT_DELAY_MS).
    #[arg(long)]
    pub delay_ms: Option<u64>,
    /// Log protocol problems (bad lines, violations) to standard error.
    #[arg(long)]
    pub verbose: bool,
    /// Keep sessions in files under DIR, so they can be loaded after a restart (default
    /// $XDG_STATE_HOME/acp/agent, else ~/.local/state/acp/agent).
    #[arg(long, value_name = "DIR", conflicts_with = "ephemeral")]
    pub state_dir: Option<PathBuf>,
    /// Keep sessions in memory only; nothing that needs persistence (loading a session) is
    /// advertised.
    #[arg(long)]
    pub ephemeral: bool,
    /// Do not ask permission before tool calls.
    #[arg(long)]
    pub no_permission: bool,
    /// Serve remote clients over WebSocket and Streamable HTTP on ADDR instead of stdio: PORT alone binds the
    /// loopback address 127.0.0.1; give IP:PORT (for example 0.0.0.0:8123) to be reachable
    /// from other machines. The URL is printed on standard error.
    #[arg(long, value_name = "ADDR", value_parser = listen::parse_listen)]
    pub listen: Option<std::net::SocketAddr>,
    /// With --listen: require `Authorization: Bearer TOKEN` (default: $ACP_TOKEN when set).
    #[arg(long, value_name = "TOKEN", requires = "listen")]
    pub token: Option<String>,
    /// With --listen: accept browser requests with this `Origin` (repeatable; requests from
    /// other origins get 403, requests without one are not affected).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "listen")]
    pub allow_origins: Vec<String>,
    /// With --listen: the endpoint's path.
    #[arg(long, value_name = "PATH", default_value = "/acp")]
    pub path: String,
    /// With --listen: serve TLS (`wss://`, `https://`) with this certificate chain (PEM).
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// With --tls-cert: the certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// With --listen: at most N connections at once; more get 503.
    #[arg(long, value_name = "N", default_value_t = acp_runtime::transport::remote::DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
}

impl Args {
    /// The remote options, with `--listen`.
    fn listen(&self) -> Result<Option<listen::Listen>, std::io::Error> {
        let Some(address) = self.listen else {
            return Ok(None);
        };
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(
                acp_runtime::transport::remote::TlsIdentity::from_pem_files(cert, key)?,
            ),
            _ => None,
        };
        let token = self.token.clone().or_else(|| {
            std::env::var(super::client::TOKEN_ENV)
                .ok()
                .filter(|t| !t.is_empty())
        });
        let mut options = acp_runtime::transport::remote::ServerOptions::new()
            .path(self.path.clone())
            .max_connections(self.max_connections);
        if let Some(token) = &token {
            options = options.token(token.clone());
        }
        for origin in &self.allow_origins {
            options = options.allow_origin(origin.clone());
        }
        let path = if self.path.starts_with('/') {
            self.path.clone()
        } else {
            format!("/{}", self.path)
        };
        Ok(Some(listen::Listen {
            address,
            options,
            path,
            has_token: token.is_some(),
            tls,
        }))
    }
}

/// The chunk delay from the flag, else the environment, else the default.
fn delay(args: &Args) -> Duration {
    args.delay_ms
        .or_else(|| std::env::var(DELAY_ENV).ok()?.trim().parse().ok())
        .map_or(DEFAULT_DELAY, Duration::from_millis)
}

/// The default state directory: `$XDG_STATE_HOME/acp/agent`, else
/// `$HOME/.local/state/acp/agent`; `None` when neither variable is set.
pub fn default_state_dir() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(state) = non_empty("XDG_STATE_HOME") {
        return Some(PathBuf::from(state).join("acp").join("agent"));
    }
    non_empty("HOME").map(|home| PathBuf::from(home).join(".local/state/acp/agent"))
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
    let server = AgentServer::new(ExampleAgent::new(options))
        .connection_options(acp_runtime::ConnectionBuilder::new().logger(logger));
    let server = if args.ephemeral {
        server.store(MemoryStore::without_history())
    } else {
        let dir = match args.state_dir.clone().or_else(default_state_dir) {
            Some(dir) => dir,
            None => {
                return Err("no state directory: set $XDG_STATE_HOME or $HOME, or pass \
                            --state-dir DIR or --ephemeral"
                    .into());
            }
        };
        server.store(FileStore::open(&dir)?)
    };
    match args.listen()? {
        Some(listen) => runtime.block_on(listen::serve(server, listen))?,
        None => runtime.block_on(server.serve_stdio())?,
    }
    Ok(ExitCode::SUCCESS)
}
