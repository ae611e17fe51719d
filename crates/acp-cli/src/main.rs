//! The `acp` command-line tool.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;

/// Tools for the Agent Client Protocol (ACP).
#[derive(Debug, Parser)]
#[command(name = "acp", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the JSON Schema of an ACP protocol version.
    Schema(commands::schema::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schema(args) => commands::schema::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("acp: {error}");
            ExitCode::FAILURE
        }
    }
}
