//! `acp agent`: the example agent over stdio. No language model: it streams a canned reply,
//! runs a small visible tool call, and reports real conditions as notices (an MCP server
//! whose command cannot be started), plus `/notice SEVERITY TITLE [-- DESCRIPTION]` to send
//! any notice on demand.

mod example;
mod mcp;
mod notice_command;

use std::process::ExitCode;
use std::time::Duration;

use acp_runtime::agent::AgentServer;
use acp_runtime::log::{Level, Logger};

pub use example::{ExampleAgent, ExampleOptions};
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
}

/// The chunk delay from the flag, else the environment, else the default.
fn delay(args: &Args) -> Duration {
    args.delay_ms
        .or_else(|| std::env::var(DELAY_ENV).ok()?.trim().parse().ok())
        .map_or(DEFAULT_DELAY, Duration::from_millis)
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
    let agent = ExampleAgent::new(ExampleOptions::new().chunk_delay(delay(&args)));
    let server = AgentServer::new(agent)
        .connection_options(acp_runtime::ConnectionBuilder::new().logger(logger));
    runtime.block_on(server.serve_stdio())?;
    Ok(ExitCode::SUCCESS)
}
