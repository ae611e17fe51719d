//! `acp conform client` launched by a client under test, and the JSON reports of `acp conform`:
//! the launch command, reading the report it writes, and the outcomes in a report. Include it
//! with `#[path = "support/conform_report.rs"] mod conform_report;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// The `acp` under test.
pub const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// The command that launches `acp conform client` waiting `timeout` seconds for each answer,
/// its JSON report written to `json`.
pub fn conform_client(timeout: &str, json: &Path) -> Vec<OsString> {
    let mut command: Vec<OsString> = [ACP, "conform", "client", "--timeout", timeout, "--json"]
        .into_iter()
        .map(OsString::from)
        .collect();
    command.push(json.into());
    command
}

/// The JSON report at `json`, written by the conformance run that `output` launched; a
/// missing one fails `who` with what the run said.
pub fn read_report(json: &Path, who: &str, output: &Output) -> Value {
    let text = std::fs::read_to_string(json).unwrap_or_else(|e| {
        panic!(
            "{who}: no JSON report ({e}); stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{who}: not a JSON report ({e}): {text}"))
}

/// The outcome of requirement `id` in `report`.
pub fn outcome<'a>(report: &'a Value, id: &str) -> &'a str {
    report["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {report}"))["outcome"]
        .as_str()
        .unwrap()
}

/// The ids of the requirements of `report` whose outcome is `outcome`.
pub fn ids_with(report: &Value, outcome: &str) -> BTreeSet<String> {
    report["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] == outcome)
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}
