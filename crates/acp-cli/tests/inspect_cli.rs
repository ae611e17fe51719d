//! `acp inspect` from the shell: every command in text and JSON, its exit codes, and the
//! export that `acp check` and `acp inspect import` read back.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../acp-inspect/tests/fixtures")
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
        Command::new(ACP)
            .arg("inspect")
            .arg("--db")
            .arg(self.path())
            .args(args)
            .output()
            .unwrap()
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
