//! `acp check` as a program: exact text output, JSON output, standard input and exit status.
//! (Every transcript is checked through the engine in `acp-check`'s tests; these run the
//! binary on a few.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn transcripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

fn acp_check(args: &[&str], stdin: Option<&[u8]>) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_acp"))
        .arg("check")
        .args(args)
        .current_dir(transcripts())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
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
        ("v2-clean", 0),
    ];
    for (name, status) in table {
        let file = format!("{name}.ndjson");
        let expected =
            std::fs::read_to_string(transcripts().join(format!("{name}.expected"))).unwrap();
        let (out, code) = acp_check(&[&file], None);
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
    let (out, code) = acp_check(&[], Some(&input));
    assert_eq!(out, expected);
    assert_eq!(code, 1);
    let (out, _) = acp_check(&["-"], Some(&input));
    assert_eq!(out, expected);
}

#[test]
fn json_output_is_one_object_per_finding_then_a_summary() {
    let (out, code) = acp_check(
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
    let (out, code) = acp_check(&[], Some(&input));
    assert_eq!(code, 1);
    assert!(out.contains("error[invalid-message]"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("<stdin>: 17 messages, 17 findings")),
        "{out}"
    );
}
