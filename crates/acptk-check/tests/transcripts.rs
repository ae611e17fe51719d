//! Every test transcript of `acp check` gives exactly the findings in its `.expected` file.
//!
//! The transcripts live with the `acp` binary's tests (`crates/acptk/tests/transcripts`):
//! `NAME.ndjson` (ours, bare JSON-RPC, acpx's output), `NAME.jsons` (ACP conductor traces) or
//! `NAME.json` (Zed ACP log copies) is the input, `NAME.expected` the exact text report of
//! `acp check` on it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::path::PathBuf;

use acptk_check::report::Format;
use acptk_check::{CheckOptions, check_bytes};

/// The extensions of inputs.
const INPUTS: [&str; 3] = ["ndjson", "jsons", "json"];

fn transcripts_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../acptk/tests/transcripts")
}

fn transcripts() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(transcripts_dir())
        .expect("the transcripts directory exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| INPUTS.iter().any(|input| ext == *input))
        })
        .collect();
    paths.sort();
    paths
}

/// The text report of the engine for one transcript, as `acp check NAME` prints it.
fn report(path: &PathBuf) -> String {
    let name = path.file_name().unwrap().to_str().unwrap();
    let input = std::fs::read(path).unwrap();
    let (findings, summary) = check_bytes(&input, &CheckOptions::new());
    let mut out = String::new();
    for finding in &findings {
        out.push_str(&Format::Text.finding(name, finding));
    }
    out.push_str(&Format::Text.summary(name, &summary));
    out
}

#[test]
fn at_least_twenty_transcripts_clean_and_faulty_in_both_versions() {
    let names: Vec<String> = transcripts()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.len() >= 20, "only {} transcripts", names.len());
    for prefix in ["v1-", "v2-", "bare-", "conductor-", "zed-", "acpx-"] {
        assert!(
            names.iter().any(|n| n.starts_with(prefix)),
            "no {prefix} transcript"
        );
    }
    let clean = transcripts()
        .iter()
        .filter(|p| report(p).contains(" 0 findings"))
        .count();
    assert!(clean >= 5, "only {clean} clean transcripts");
}

#[test]
fn every_transcript_gives_exactly_its_expected_findings() {
    let mut failures = Vec::new();
    for path in transcripts() {
        let expected_path = path.with_extension("expected");
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} has no .expected file", path.display()));
        let actual = report(&path);
        if actual != expected {
            failures.push(format!(
                "== {}\n-- expected\n{expected}-- actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_expected_file_has_a_transcript() {
    for entry in std::fs::read_dir(transcripts_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "expected") {
            assert!(
                INPUTS.iter().any(|ext| path.with_extension(ext).exists()),
                "{} is orphaned",
                path.display()
            );
        }
    }
}
