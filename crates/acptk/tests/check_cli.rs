//! `acp check` as a program: exact text output, JSON output, standard input and exit status.
//! (Every transcript is checked through the engine in `acptk-check`'s tests; these run the
//! binary on a few.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn transcripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

fn acptk_check(args: &[&str], stdin: Option<&[u8]>) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_acp"))
        .arg("check")
        .args(args)
        .current_dir(transcripts())
        .spawn_piped(Stdio::inherit())
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    let output = child.wait_with_output().unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

#[test]
fn text_output_is_exactly_the_expected_file_and_the_status_tells_errors() {
    // (transcript, exit status): errors give 1; warnings, info and notes alone give 0.
    let table = [
        ("v1-notice-without-capability", 1),
        ("v1-notice-in-load-replay", 0),
        ("v2-notice-in-resume-replay", 0),
        ("v1-pipelined-prompt-and-load", 0),
        ("v2-replay-not-started", 0),
        ("v1-malformed-notice-title", 1),
        ("v1-reserved-severity", 0),
        ("v1-broken-lines", 1),
        ("bare-v1-faulty", 1),
        ("v1-clean-notices", 0),
        ("v1-duplicate-tool-call-id", 1),
        ("v1-tool-call-ids-replayed", 0),
        ("v2-clean", 0),
        ("recorded-two-runs.ndjson", 1),
        ("conductor-proxy-chain.jsons", 1),
        ("conductor-replay.jsons", 0),
        ("zed-acp-log.json", 0),
        ("zed-cut-short.json", 1),
        ("acpx-json-output.ndjson", 1),
        ("unknown-format.ndjson", 1),
        ("mixed-formats.ndjson", 1),
    ];
    for (name, status) in table {
        let file = if name.contains('.') {
            name.to_owned()
        } else {
            format!("{name}.ndjson")
        };
        let name = file.rsplit_once('.').map_or(name, |(stem, _)| stem);
        let expected =
            std::fs::read_to_string(transcripts().join(format!("{name}.expected"))).unwrap();
        let (out, code) = acptk_check(&[&file], None);
        assert_eq!(out, expected, "{name}");
        assert_eq!(code, status, "{name}");
    }
}

#[test]
fn standard_input_is_shown_as_stdin() {
    let input = std::fs::read(transcripts().join("v1-notice-without-capability.ndjson")).unwrap();
    let expected =
        std::fs::read_to_string(transcripts().join("v1-notice-without-capability.expected"))
            .unwrap()
            .replace("v1-notice-without-capability.ndjson", "<stdin>");
    let (out, code) = acptk_check(&[], Some(&input));
    assert_eq!(out, expected);
    assert_eq!(code, 1);
    let (out, _) = acptk_check(&["-"], Some(&input));
    assert_eq!(out, expected);
}

#[test]
fn json_output_is_one_object_per_finding_then_a_summary() {
    let (out, code) = acptk_check(
        &["--format", "json", "v1-load-replay-no-capability.ndjson"],
        None,
    );
    assert_eq!(code, 1);
    let objects: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), 3, "{out}");
    for finding in &objects[..2] {
        assert_eq!(finding["kind"], "finding");
        assert_eq!(finding["file"], "v1-load-replay-no-capability.ndjson");
        assert_eq!(finding["line"], 5);
    }
    assert_eq!(objects[0]["rule"], "notice-without-capability");
    assert_eq!(objects[0]["severity"], "error");
    assert_eq!(objects[1]["rule"], "notice-in-replay");
    assert_eq!(objects[1]["severity"], "warning");
    let summary = &objects[2];
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["messages"], 7);
    assert_eq!(summary["errors"], 1);
    assert_eq!(summary["warnings"], 1);
    assert_eq!(
        summary["rules"],
        serde_json::json!({"notice-without-capability": 1, "notice-in-replay": 1})
    );
}

#[test]
fn binary_garbage_on_stdin_is_reported_not_fatal() {
    let input: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let (out, code) = acptk_check(&[], Some(&input));
    assert_eq!(code, 1);
    assert!(out.contains("error[invalid-message]"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("<stdin>: 17 messages, 18 findings")),
        "{out}"
    );
}

#[test]
fn input_format_forces_how_the_input_is_read() {
    // A Zed log copy on standard input is told from its start.
    let zed = std::fs::read(transcripts().join("zed-acp-log.json")).unwrap();
    let (out, code) = acptk_check(&[], Some(&zed));
    assert_eq!(code, 0);
    assert!(
        out.ends_with("<stdin>: 16 messages (a Zed ACP log copy), 1 finding: 0 errors, 0 warnings, 1 info, 0 notes\n  reserved-severity: 1\n"),
        "{out}"
    );
    // Forced to read a transcript as a Zed log or a conductor trace, it says what it expected.
    let (out, code) = acptk_check(&["--input-format", "zed", "v2-clean.ndjson"], None);
    assert_eq!(code, 1);
    assert!(
        out.starts_with(
            "v2-clean.ndjson:1: error[unknown-input]: not a Zed ACP log (a JSON array of messages)"
        ),
        "{out}"
    );
    let (out, code) = acptk_check(&["--input-format", "conductor", "v2-clean.ndjson"], None);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("v2-clean.ndjson:1: error[unknown-input]: this line is from an acp transcript, but the input is read as an ACP conductor trace"),
        "{out}"
    );
    // The JSON summary names the format read.
    let (out, _) = acptk_check(&["--format", "json", "conductor-replay.jsons"], None);
    let summary: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(summary["format"], "conductor");
    assert_eq!(summary["messages"], 7);
}
