//! `acp inspect` from the shell: every command in text and JSON, its exit codes, and the
//! export that `acp check` and `acp inspect import` read back.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../acptk-inspect/tests/fixtures")
        .join(name)
}

/// A scratch directory with a database of the two fixtures (captures 1 and 2), removed when
/// dropped.
struct Db(PathBuf);

impl Db {
    fn new(name: &str) -> Self {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("inspect-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = Db(dir);
        let out = db.run(&["import", fixture("secrets.ndjson").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let out = db.run(&["import", fixture("devtools-export.json").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        db
    }

    fn path(&self) -> PathBuf {
        self.0.join("captures.db")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `acp inspect --db DB ARGS`, its output a pipe and no `COLUMNS` in its environment.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(ACP);
        command
            .arg("inspect")
            .arg("--db")
            .arg(self.path())
            .args(args)
            .env_remove("COLUMNS");
        command
    }

    /// Runs with `--format json`; the exit code and the document.
    fn json(&self, args: &[&str]) -> (i32, Value) {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        let out = self.run(&all);
        let doc = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code().unwrap(), doc)
    }

    fn text(&self, args: &[&str]) -> (i32, String) {
        let out = self.run(args);
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap(),
        )
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn list_show_stats_and_the_bare_command() {
    let db = Db::new("list");
    let (code, list) = db.json(&["list"]);
    assert_eq!(code, 0);
    let ids: Vec<i64> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2], "newest first");
    let (code, text) = db.text(&["list"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("acme-agent 1.2.0") && text.contains("gemini-cli 0.18.0"),
        "{text}"
    );
    // `acp inspect` alone lists too.
    assert_eq!(db.text(&[]), (0, text));

    let (code, show) = db.json(&["show", "1", "--frames", "3"]);
    assert_eq!(code, 0);
    assert_eq!(show["capture"]["client"]["name"], "zed");
    assert_eq!(show["notices"][0]["outcome"], "delivered");
    assert_eq!(show["frames"].as_array().unwrap().len(), 3);
    assert_eq!(show["info"]["sessions"][0]["current_mode"], "code");
    let (code, text) = db.text(&["show", "2", "--frames", "6"]);
    assert_eq!(code, 0);
    assert!(text.contains("notice-without-capability"), "{text}");
    assert!(text.contains("unsupported (not advertised)"), "{text}");
    assert!(text.contains("950.0 ms"), "the session/new latency: {text}");

    let (code, stats) = db.json(&["stats", "1"]);
    assert_eq!(code, 0);
    let prompt = stats["latency"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["method"] == "session/prompt")
        .unwrap();
    assert_eq!(
        (prompt["count"].as_i64(), prompt["p99"].as_i64()),
        (Some(1), Some(900_000))
    );
    let (code, text) = db.text(&["stats", "1"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("session/prompt") && text.contains("900.0 ms"),
        "{text}"
    );
}

#[test]
fn diff_search_and_delete() {
    let db = Db::new("diff");
    let (code, diff) = db.json(&["diff", "1", "2"]);
    assert_eq!(code, 0);
    assert!(
        diff["versions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["path"] == "agent.name")
    );
    let (code, text) = db.text(&["diff", "1", "2"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("client_capabilities.session: {\"notices\":{}} vs (absent)"),
        "{text}"
    );

    let (code, found) = db.json(&["search", "MCP server unavailable"]);
    assert_eq!(code, 0);
    assert_eq!(found["hits"][0]["capture"], 1);
    assert_eq!(found["hits"][0]["seq"], 7);
    let (code, text) = db.text(&["search", "rerouted", "--capture", "2"]);
    assert_eq!(code, 0);
    assert!(
        text.starts_with("capture 2 #5 agent notification session/update"),
        "{text}"
    );
    let (code, none) = db.json(&["search", "nothing-like-this-anywhere"]);
    assert_eq!(code, 1, "nothing matched");
    assert_eq!(none["hits"].as_array().unwrap().len(), 0);
    // A secret is found, but never shown.
    let (code, text) = db.text(&["search", "ghp_SECRET123"]);
    assert_eq!(code, 0);
    assert!(!text.contains("ghp_SECRET123"), "{text}");

    let (code, deleted) = db.json(&["delete", "1"]);
    assert_eq!((code, deleted["deleted"].as_i64()), (0, Some(1)));
    assert_eq!(db.text(&["delete", "1"]).0, 3, "no such capture");
    assert_eq!(db.text(&["show", "1"]).0, 3);
    assert_eq!(db.json(&["search", "MCP server unavailable"]).0, 1);
}

#[test]
fn export_is_redacted_and_reads_back() {
    let db = Db::new("export");
    let (code, text) = db.text(&["export", "1"]);
    assert_eq!(code, 0);
    assert!(!text.contains("ghp_SECRET123") && !text.contains("Bearer SECRET456"));
    assert!(text.contains("<redacted>"));
    let (code, kept) = db.text(&["export", "1", "--no-redact", "--format", "devtools"]);
    assert_eq!(code, 0);
    assert!(kept.contains("ghp_SECRET123"));
    let devtools: Value = serde_json::from_str(&kept).unwrap();
    assert_eq!(devtools["version"], 1);
    assert_eq!(devtools["messages"][0]["direction"], "editor-to-agent");
    // Our transcript: `acp check` reads it (the fixture is clean: exit 0) and so does import.
    let file = db.0.join("export.ndjson");
    let out = db.run(&["export", "1", "-o", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let checked = Command::new(ACP).arg("check").arg(&file).output().unwrap();
    assert_eq!(checked.status.code(), Some(0), "{checked:?}");
    let checked = String::from_utf8(checked.stdout).unwrap();
    assert!(checked.contains("10 messages"), "{checked}");
    let (code, imported) = db.json(&["import", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(imported[0]["frames"], 10);
    assert_eq!(imported[0]["format"], "transcript");
}

#[test]
fn exit_codes() {
    let db = Db::new("codes");
    assert_eq!(db.text(&["show", "42"]).0, 3);
    assert_eq!(db.text(&["export", "42"]).0, 3);
    assert_eq!(db.text(&["diff", "1", "42"]).0, 3);
    assert_eq!(db.text(&["show", "x"]).0, 2);
    assert_eq!(db.text(&["export", "1", "--format", "json"]).0, 2);
    let (code, text) = db.text(&["import", "/nonexistent/trace.ndjson"]);
    assert_eq!(code, 5, "{text}");
    let (code, text) = db.text(&["export", "1", "-o", "/nonexistent/dir/out"]);
    assert_eq!(code, 5, "{text}");
    let garbage = db.0.join("garbage.db");
    std::fs::write(&garbage, vec![b'x'; 4096]).unwrap();
    let out = Command::new(ACP)
        .args(["inspect", "--db", garbage.to_str().unwrap(), "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("acp inspect: "));
}

/// The text of message `n` (from 1) of the fixture `secrets.ndjson`, as the file has it.
fn fixture_text(n: usize) -> String {
    let file = std::fs::read_to_string(fixture("secrets.ndjson")).unwrap();
    let line = file.lines().nth(n).unwrap();
    let (_, message) = line.split_once(r#""message":"#).unwrap();
    message.strip_suffix('}').unwrap().to_owned()
}

/// The messages of the fixture `secrets.ndjson`, in order.
fn fixture_messages() -> Vec<Value> {
    std::fs::read_to_string(fixture("secrets.ndjson"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["message"].clone())
        .collect()
}

#[test]
fn show_frames_in_json_has_their_messages() {
    let db = Db::new("frames-json");
    let expected = fixture_messages();
    let out = db.run(&["show", "1", "--frames", "10", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    // As `jq '.frames[].message'` reads them: each frame's message as captured.
    let show: Value = serde_json::from_str(&stdout).unwrap();
    let frames = show["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 10);
    for (frame, sent) in frames.iter().zip(&expected) {
        if frame["seq"] != 3 {
            assert_eq!(&frame["message"], sent, "frame {}", frame["seq"]);
            assert_eq!(frame["redacted"], false);
        }
    }
    // Embedded as sent: its keys in their order.
    assert!(
        stdout.contains(&format!(r#""message": {},"#, fixture_text(1))),
        "{stdout}"
    );
    // The secrets of session/new are redacted, as `export` redacts them.
    let new = &frames[2];
    assert_eq!(new["message"]["method"], "session/new");
    assert_eq!(new["redacted"], true);
    let env = &new["message"]["params"]["mcpServers"][0]["env"][0];
    assert_eq!(
        (&env["name"], &env["value"]),
        (&"GITHUB_TOKEN".into(), &"<redacted>".into())
    );
    assert!(!stdout.contains("SECRET"), "{stdout}");
    let (code, export) = db.text(&["export", "1"]);
    assert_eq!(code, 0);
    let exported: Value = serde_json::from_str(export.lines().nth(3).unwrap()).unwrap();
    assert_eq!(new["message"], exported["message"]);
    // --no-redact: the secrets as sent, in the frames and in the session info.
    let (code, kept) = db.json(&["show", "1", "--frames", "10", "--no-redact"]);
    assert_eq!(code, 0);
    assert_eq!(kept["frames"][2]["message"], expected[2]);
    assert_eq!(kept["frames"][2]["redacted"], false);
    // --frames 0 (the default): no frames.
    let (code, none) = db.json(&["show", "1"]);
    assert_eq!(code, 0);
    assert_eq!(none["frames"].as_array().unwrap().len(), 0);
}

#[test]
fn show_frames_in_text_prints_each_message_on_a_line() {
    let db = Db::new("frames-text");
    let frames = |out: Output| {
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let (_, frames) = text.split_once("\nframes:\n").unwrap();
        frames.lines().map(str::to_owned).collect::<Vec<_>>()
    };
    // On a pipe: whole, redacted, a line about the frame then a line of its message.
    let piped = frames(db.run(&["show", "1", "--frames", "4"]));
    assert_eq!(piped.len(), 8, "{piped:#?}");
    assert!(piped[4].starts_with("  #3 "), "{piped:#?}");
    let new = &piped[5];
    // A redacted message is written again from its parsed JSON: whether its keys come sorted
    // or in their order depends on serde_json's `preserve_order`, which the workspace's test
    // build gets from the official crate. So read it as JSON rather than compare its text.
    assert!(new.starts_with("    {") && new.ends_with("}}"), "{new}");
    let message: Value = serde_json::from_str(new.trim_start()).unwrap();
    assert_eq!(message["id"], 1, "{new}");
    assert_eq!(message["method"], "session/new", "{new}");
    assert!(
        new.contains(r#""value":"<redacted>""#) && !new.contains("SECRET"),
        "{new}"
    );
    // A message with nothing to redact: its text as captured.
    assert_eq!(piped[1], format!("    {}", fixture_text(1)));
    // COLUMNS: cut at that width, with a marker; the frames' own lines are not touched.
    let mut narrow = db.command(&["show", "1", "--frames", "4"]);
    let cut = frames(narrow.env("COLUMNS", "40").output().unwrap());
    assert_eq!(cut.len(), 8);
    for (line, whole) in cut.iter().zip(&piped).skip(1).step_by(2) {
        assert!(line.chars().count() <= 40, "{line}");
        assert!(line.ends_with('…'), "{line}");
        assert!(
            whole.starts_with(line.trim_end_matches('…')),
            "{line} / {whole}"
        );
    }
    assert_eq!(cut[0], piped[0]);
    // --full: whole again.
    let mut full = db.command(&["show", "1", "--frames", "4", "--full"]);
    assert_eq!(frames(full.env("COLUMNS", "40").output().unwrap()), piped);
    // --no-redact: the secrets as sent.
    let kept = frames(db.run(&["show", "1", "--frames", "4", "--no-redact"]));
    assert!(kept[5].contains("ghp_SECRET123") && kept[5].contains("Bearer SECRET456"));
}

/// An agent that writes a line of text with a terminal escape, a line that is not UTF-8,
/// and a JSON message with a raw C1 control character and a bidirectional override in a
/// string, then ends.
const GARBLED_AGENT: &str = r#"printf 'plain \033[31mred\n\377\376 bytes\n{"jsonrpc":"2.0","method":"x","params":{"t":"a\302\233b\342\200\256c"}}\n'"#;

#[test]
fn frames_that_are_not_json_or_not_utf8_lose_nothing_and_cannot_drive_the_terminal() {
    let db = Db::new("frames-garbled");
    let capture = Command::new(ACP)
        .arg("proxy")
        .arg(format!("--capture={}", db.path().display()))
        .args(["--", "sh", "-c", GARBLED_AGENT])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(capture.status.code(), Some(0), "{capture:?}");
    let (code, show) = db.json(&["show", "3", "--frames", "10"]);
    assert_eq!(code, 0, "{show}");
    let frames = show["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3, "{show}");
    assert_eq!(frames[0]["message"], Value::Null);
    assert_eq!(frames[0]["raw"], "plain \u{1b}[31mred");
    assert_eq!(frames[1]["message"], Value::Null);
    assert_eq!(frames[1]["raw_base64"], "//4gYnl0ZXM=", "\\xff\\xfe bytes");
    assert!(frames[1].get("raw").is_none());
    assert_eq!(frames[2]["message"]["params"]["t"], "a\u{9b}b\u{202e}c");
    assert!(frames[2].get("raw").is_none());

    let out = db.run(&["show", "3", "--frames", "10"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for bad in ['\u{1b}', '\u{9b}', '\u{202e}'] {
        assert!(!text.contains(bad), "{bad:?} in {text}");
    }
    assert!(text.contains("\n    plain \\u{1b}[31mred\n"), "{text}");
    assert!(text.contains("\n    \\xff\\xfe bytes\n"), "{text}");
    assert!(
        text.contains(r#"{"jsonrpc":"2.0","method":"x","params":{"t":"a\u009bb\u202ec"}}"#),
        "{text}"
    );
}
