//! `acp check`: find protocol mistakes (notice mistakes above all) in a recorded transcript, or
//! in a trace another tool wrote (see [`acptk_check::input`]).

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::process::ExitCode;

use acptk_check::input::InputFormat;
use acptk_check::report::{Format, display_name};
use acptk_check::{CheckOptions, check};

/// Arguments of `acp check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format: compiler-style text, or one JSON object per finding per line.
    #[arg(long, value_parser = ["text", "json"], default_value = "text")]
    format: String,
    /// What the input is: told from its start (`auto`), our transcript, bare JSON-RPC lines,
    /// an ACP conductor trace (`.jsons`), a Zed ACP log copy, or acpx JSON output.
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = "auto",
        value_parser = clap::builder::PossibleValuesParser::new(
            InputFormat::ALL.iter().map(|f| f.as_str())
        ),
    )]
    input_format: String,
    /// The trace (`acp proxy --record` output, bare JSON-RPC lines, or one of the formats of
    /// `--input-format`); `-` reads standard input.
    #[arg(value_name = "FILE", default_value = "-")]
    file: String,
}

/// Checks the transcript, prints each finding and the summary on standard output, and exits
/// with 1 when an error was found, 0 otherwise.
pub fn run(args: Args) -> super::Outcome {
    let format = match args.format.as_str() {
        "json" => Format::Json,
        _ => Format::Text,
    };
    let name = display_name(&args.file);
    let input: Box<dyn io::BufRead> = if args.file == "-" {
        Box::new(io::stdin().lock())
    } else {
        let file = File::open(&args.file).map_err(|e| format!("cannot open {}: {e}", args.file))?;
        Box::new(BufReader::with_capacity(64 * 1024, file))
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut write_error = None;
    let input_format: InputFormat = args.input_format.parse()?;
    let options = CheckOptions::new().format(input_format);
    let summary = check(input, &options, |finding| {
        if write_error.is_none()
            && let Err(error) = out.write_all(format.finding(name, finding).as_bytes())
        {
            write_error = Some(error);
        }
    })
    .map_err(|e| format!("cannot read {name}: {e}"))?;
    let written = match write_error {
        Some(error) => Err(error),
        None => out
            .write_all(format.summary(name, &summary).as_bytes())
            .and_then(|()| out.flush()),
    };
    match written {
        // `acp check | head` closes the pipe early; the exit status still tells the result.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(if summary.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
