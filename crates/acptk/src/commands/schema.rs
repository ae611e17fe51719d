//! `acp schema`: print the JSON Schema of a protocol version.
//!
//! The four schemas are the files checked in under `crates/acptk/schema`: `build.rs`
//! compresses them into the binary and `run` inflates the one asked for, so it prints the file
//! byte for byte (0.7 MB of JSON is 40 KB of the binary). acptk-schema's test `schema_artifacts`
//! fails when the files differ from what `acptk_schema::schema::generate` makes of the wire
//! types, so they are that output; serving them keeps the JSON Schema code of every wire type
//! (and the generator) out of the binary (issue 37, BENCHMARKS.md "The acp binary's size").

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

// The four files as build.rs compressed them (DEFLATE).
/// The schema of ACP v1, stable parts only.
const V1: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/v1.schema.json.deflate"));
/// The schema of ACP v1 with every unstable part.
const V1_UNSTABLE: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/v1.schema.unstable.json.deflate"));
/// The schema of ACP v2, stable parts only.
const V2: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/v2.schema.json.deflate"));
/// The schema of ACP v2 with every unstable part.
const V2_UNSTABLE: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/v2.schema.unstable.json.deflate"));

/// The most an embedded schema may inflate to; each file is under 0.25 MB.
const INFLATED_LIMIT: usize = 16 * 1024 * 1024;

/// Prints the schema as pretty JSON followed by a newline.
pub fn run(args: &Args) -> super::Outcome {
    let compressed = match (args.protocol.as_str(), args.unstable) {
        ("2", false) => V2,
        ("2", true) => V2_UNSTABLE,
        (_, false) => V1,
        (_, true) => V1_UNSTABLE,
    };
    let text = miniz_oxide::inflate::decompress_to_vec_with_limit(compressed, INFLATED_LIMIT)
        .map_err(|error| format!("the embedded schema does not inflate: {error}"))?;
    match std::io::stdout().lock().write_all(&text) {
        // `acp schema | head` closes the pipe early; that is not an error.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(std::process::ExitCode::SUCCESS)
}
