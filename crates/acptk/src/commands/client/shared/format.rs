//! The output format the user chose with `--format`: the driver reads it from the options
//! and the rendering layer prints in it, so it lives below both.

/// The output format of `--prompt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Plain text for a person: each message as flowing text under one label (`You:`,
    /// `Agent:`, `Thinking:`), tool calls with their results, notices, the client's actions.
    #[default]
    Text,
    /// One JSON object per line per event (documented in the README).
    Json,
    /// Only the agent's final message text.
    Quiet,
}
