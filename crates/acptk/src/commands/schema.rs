//! `acp schema`: print the JSON Schema of a protocol version.
//!
//! The four schemas are the files checked in under `crates/acptk/schema`, compiled into the
//! binary as they are. acptk-schema's test `schema_artifacts` fails when they differ from what
//! `acptk_schema::schema::generate` makes of the wire types, so they are that output, byte for
//! byte; serving them keeps the JSON Schema code of every wire type (and the generator) out of
//! the binary (issue 37, BENCHMARKS.md "The acp binary's size").

use std::io::Write;

/// Arguments of `acp schema`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Protocol version: 1 or 2.
    #[arg(long, value_parser = ["1", "2"], default_value = "1")]
    protocol: String,
    /// Include the unstable parts: every unstable feature of the official crate (the same
    /// schema as `crates/acptk/schema/v{1,2}/schema.unstable.json`). Session notices are stable
    /// and always in the schema.
    #[arg(long)]
    unstable: bool,
}

/// The schema of ACP v1, stable parts only.
const V1: &str = include_str!("../../schema/v1/schema.json");
/// The schema of ACP v1 with every unstable part.
const V1_UNSTABLE: &str = include_str!("../../schema/v1/schema.unstable.json");
/// The schema of ACP v2, stable parts only.
const V2: &str = include_str!("../../schema/v2/schema.json");
/// The schema of ACP v2 with every unstable part.
const V2_UNSTABLE: &str = include_str!("../../schema/v2/schema.unstable.json");

/// Prints the schema as pretty JSON followed by a newline.
pub fn run(args: &Args) -> super::Outcome {
    let text = match (args.protocol.as_str(), args.unstable) {
        ("2", false) => V2,
        ("2", true) => V2_UNSTABLE,
        (_, false) => V1,
        (_, true) => V1_UNSTABLE,
    };
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        // `acp schema | head` closes the pipe early; that is not an error.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(std::process::ExitCode::SUCCESS)
}
