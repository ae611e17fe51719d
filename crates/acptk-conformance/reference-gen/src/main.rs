//! Writes the reference structure of ACP v1 and v2 from the official crate: for each version a
//! JSON Schema (every type reachable from the routing enums, in `$defs`, descriptions removed)
//! and the list of method names by side.
//!
//! ```text
//! cargo run --manifest-path crates/acptk-conformance/reference-gen/Cargo.toml -- OUT_DIR
//! cargo run --manifest-path crates/acptk-conformance/reference-gen/Cargo.toml --features unstable -- OUT_DIR
//! ```
//!
//! Without `--features unstable` it writes `acp-v{1,2}.schema.json` and
//! `acp-v{1,2}.methods.json`; with it, `acp-v{1,2}.unstable.schema.json` and
//! `acp-v{1,2}.unstable.methods.json`. `--check` compares with the files in `OUT_DIR` instead
//! of writing them and exits with status 1 on a difference.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_client_protocol_schema as official;

#[macro_use]
mod document;

use document::text;

/// The suffix of the written file names: empty for the stable surface.
const SUFFIX: &str = if cfg!(feature = "unstable") {
    ".unstable"
} else {
    ""
};

/// Writes `content` to `path`, or with `check` compares it; `false` on a difference.
fn emit(path: &Path, content: &str, check: bool) -> Result<bool, String> {
    if check {
        let existing = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        if existing != content {
            eprintln!(
                "{} differs from what the official crate generates",
                path.display()
            );
            return Ok(false);
        }
        return Ok(true);
    }
    std::fs::write(path, content)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(true)
}

fn run() -> Result<bool, String> {
    let mut check = false;
    let mut out: Option<PathBuf> = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            other if other.starts_with('-') => return Err(format!("unknown flag `{other}`")),
            other => out = Some(PathBuf::from(other)),
        }
    }
    let out = out.ok_or("usage: acp-reference-gen [--check] OUT_DIR")?;
    let unstable = cfg!(feature = "unstable");
    let versions = [
        document!(1, official::v1, unstable),
        document!(2, official::v2, unstable),
    ];
    let mut same = true;
    for (index, (schema, methods)) in versions.iter().enumerate() {
        let version = index + 1;
        same &= emit(
            &out.join(format!("acp-v{version}{SUFFIX}.schema.json")),
            &text(schema),
            check,
        )?;
        same &= emit(
            &out.join(format!("acp-v{version}{SUFFIX}.methods.json")),
            &text(methods),
            check,
        )?;
    }
    Ok(same)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("acp-reference-gen: {message}");
            ExitCode::from(2)
        }
    }
}
