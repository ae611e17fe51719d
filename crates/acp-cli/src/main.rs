//! The `acp` command-line tool.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use acp_cli::commands;

/// mimalloc instead of the system allocator: `acp proxy` and `acp check` decode every message
/// with the typed schema, which allocates and frees many small strings; a proxy run costs 5%
/// fewer instructions and 9% less time with mimalloc than with glibc's allocator (BENCHMARKS.md,
/// the proxy table).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tools for the Agent Client Protocol (ACP).
#[derive(Debug, Parser)]
#[command(name = "acp", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the JSON Schema of an ACP protocol version.
    Schema(commands::schema::Args),
    /// Run the example agent over stdio.
    Agent(commands::agent::Args),
    /// Launch an agent and talk to it (terminal UI, or one turn with --prompt).
    // Boxed: its many flags make it much the largest variant.
    Client(Box<commands::client::Args>),
    /// The named sessions of `acp client --session NAME`: list, show, history, export,
    /// forget, cancel, status.
    Sessions(commands::sessions::Args),
    /// Run the example agent against three clients and show what each user sees.
    Demo(commands::demo::Args),
    /// Check a recorded transcript or trace for protocol mistakes (notice mistakes above all).
    Check(commands::check::Args),
    /// Sit between a client and an agent: check the traffic and repair notice mistakes live.
    Proxy(commands::proxy::Args),
    /// Look into captured traffic (`acp proxy --capture`): list, show, search, diff, import,
    /// export, and a read-only MCP server.
    Inspect(commands::inspect::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schema(args) => commands::schema::run(&args),
        Command::Agent(args) => commands::agent::run(args),
        Command::Client(args) => commands::client::run(*args),
        Command::Sessions(args) => commands::sessions::run(&args),
        Command::Demo(args) => commands::demo::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Proxy(args) => commands::proxy::run(args),
        Command::Inspect(args) => commands::inspect::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            use std::io::Write;
            // A closed standard error is no reason to panic.
            let _ = writeln!(std::io::stderr(), "acp: {error}");
            if error.is::<commands::tokens::UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
