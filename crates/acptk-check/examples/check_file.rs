//! Checks one transcript and prints the text report, like `acp check FILE`.
//!
//! `cargo run -p acptk-check --example check_file -- FILE`

use std::process::ExitCode;

use acptk_check::report::{Format, display_name};
use acptk_check::{CheckOptions, check_bytes};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: check_file FILE");
        return ExitCode::FAILURE;
    };
    let input = match std::fs::read(&path) {
        Ok(input) => input,
        Err(error) => {
            eprintln!("cannot read {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let name = display_name(&path);
    let (findings, summary) = check_bytes(&input, &CheckOptions::new());
    for finding in &findings {
        print!("{}", Format::Text.finding(name, finding));
    }
    print!("{}", Format::Text.summary(name, &summary));
    if summary.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
