//! One module per `acp` subcommand. Each has `Args` (clap) and a `run` returning the exit code.

pub mod agent;
pub mod allocator;
pub mod check;
pub mod client;
pub mod demo;
pub mod listen;
pub mod proxy;
pub mod schema;
pub mod signals;

/// The result of a subcommand: the process exit code, or an error to print.
pub type Outcome = Result<std::process::ExitCode, Box<dyn std::error::Error + Send + Sync>>;
