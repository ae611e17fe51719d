//! One module per `acp` subcommand. Each has `Args` (clap) and a `run` returning the exit code.

pub mod agent;
pub mod allocator;
pub mod check;
pub mod client;
pub mod completions;
pub mod conform;
pub mod conform_listen;
pub mod demo;
pub mod inspect;
pub mod listen;
pub mod man;
pub mod proxy;
pub mod reaper;
pub mod schema;
pub mod sessions;
pub mod signals;
pub mod tokens;

/// The result of a subcommand: the process exit code, or an error to print (exit code 2
/// for a [`tokens::UsageError`], else 1).
pub type Outcome = Result<std::process::ExitCode, Box<dyn std::error::Error + Send + Sync>>;
