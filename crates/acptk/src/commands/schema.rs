//! `acp schema`: print the JSON Schema of a protocol version.

use std::io::Write;

use acptk_schema::schema::{Protocol, generate};

/// Arguments of `acp schema`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Protocol version: 1 or 2.
    #[arg(long, value_parser = ["1", "2"], default_value = "1")]
    protocol: String,
    /// Include the unstable parts: every unstable feature of the official crate (the same
    /// schema as `schema/v{1,2}/schema.unstable.json`). Session notices are stable and always
    /// in the schema.
    #[arg(long)]
    unstable: bool,
}

/// Prints the schema as pretty JSON followed by a newline.
pub fn run(args: &Args) -> super::Outcome {
    let protocol = match args.protocol.as_str() {
        "2" => Protocol::V2,
        _ => Protocol::V1,
    };
    let schema = generate(protocol, args.unstable);
    let mut text = serde_json::to_string_pretty(&schema)?;
    text.push('\n');
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        // `acp schema | head` closes the pipe early; that is not an error.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(std::process::ExitCode::SUCCESS)
}
