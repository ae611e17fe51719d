//! The command line of `acp`: the clap definition every subcommand hangs from, shared by the
//! parser in `main.rs` and by what is generated from it (shell completions, man pages and the
//! guide's command-line reference), so that none of them can drift from the real flags.

use clap::{CommandFactory, Parser, Subcommand};

use crate::commands;

/// Tools for the Agent Client Protocol (ACP).
// The line above is what `acp --help` and the man page say of `acp` (not the package's
// description, which crates.io shows).
#[derive(Debug, Parser)]
#[command(name = "acp", version, propagate_version = true)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `acp`.
#[derive(Debug, Subcommand)]
pub enum Command {
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
    /// Run a conformance suite against an agent (`acp conform agent -- CMD`).
    Conform(commands::conform::Args),
    /// Sit between a client and an agent: check the traffic and repair notice mistakes live.
    Proxy(commands::proxy::Args),
    /// Look into captured traffic (`acp proxy --capture`): list, show, search, diff, import,
    /// export, and a read-only MCP server.
    Inspect(commands::inspect::Args),
    /// Print the shell completion script of `acp` for SHELL (for example
    /// `source <(acp completions bash)`).
    Completions(commands::completions::Args),
    /// Print the man page of `acp`, or write one page per command into a directory (--out).
    Man(commands::man::Args),
}

impl Command {
    /// Runs the subcommand.
    pub fn run(self) -> commands::Outcome {
        match self {
            Command::Schema(args) => commands::schema::run(&args),
            Command::Agent(args) => commands::agent::run(args),
            Command::Client(args) => commands::client::run(*args),
            Command::Sessions(args) => commands::sessions::run(&args),
            Command::Demo(args) => commands::demo::run(args),
            Command::Check(args) => commands::check::run(args),
            Command::Conform(args) => commands::conform::run(args),
            Command::Proxy(args) => commands::proxy::run(args),
            Command::Inspect(args) => commands::inspect::run(args),
            Command::Completions(args) => commands::completions::run(&args, command()),
            Command::Man(args) => commands::man::run(&args, command()),
        }
    }
}

/// The clap command of `acp`, with every subcommand and flag: what completions, man pages and
/// the Markdown reference are generated from.
#[must_use]
pub fn command() -> clap::Command {
    Cli::command()
}
