//! The data layer: imports of every format, queries, export, redaction, migrations.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::path::{Path, PathBuf};

use acptk_inspect::export::{ExportOptions, Format, export};
use acptk_inspect::query::SearchOptions;
use acptk_inspect::{Outcome, Store, import};

fn transcripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../acptk/tests/transcripts")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Imports the fixture `name` into `store`; the id of the first capture it made.
fn import_first(store: &mut Store, name: &str) -> i64 {
    import::file(store, &fixture(name)).unwrap().captures[0]
}

#[test]
fn a_v1_notice_without_capability_is_found_and_on_the_lane() {
    let mut store = Store::in_memory().unwrap();
    let imported = import::file(
        &mut store,
        &transcripts().join("v1-notice-without-capability.ndjson"),
    )
    .unwrap();
    assert_eq!(imported.captures.len(), 1);
    let id = imported.captures[0];
    let summary = store.capture(id).unwrap();
    assert_eq!(summary.source, "import");
    assert_eq!(summary.format, "transcript");
    assert!(summary.frames >= 3, "{summary:?}");
    assert_eq!(summary.protocol_version, Some(1));
    let notices = store.notices(id).unwrap();
    assert!(!notices.is_empty());
    assert_eq!(notices[0].outcome, Outcome::Unsupported);
    assert_eq!(notices[0].advertised, Some(false));
    let findings = store.findings(id).unwrap();
    let on_notice: Vec<_> = findings
        .iter()
        .filter(|f| f.seq == Some(notices[0].seq))
        .map(|f| f.rule.as_str())
        .collect();
    assert!(
        on_notice.contains(&"notice-without-capability"),
        "{findings:?}"
    );
    let detail = store.frame(id, notices[0].seq).unwrap();
    assert!(detail.text().contains("\"notice\""));
    assert_eq!(detail.notice.as_ref().unwrap().seq, notices[0].seq);
}

#[test]
fn every_check_format_imports() {
    for (file, format) in [
        ("recorded-two-runs.ndjson", "transcript"),
        ("bare-v1-faulty.ndjson", "jsonrpc"),
        ("conductor-proxy-chain.jsons", "conductor"),
        ("zed-acp-log.json", "zed"),
        ("acpx-json-output.ndjson", "jsonrpc"),
    ] {
        let mut store = Store::in_memory().unwrap();
        let imported = import::file(&mut store, &transcripts().join(file)).unwrap();
        assert_eq!(imported.format, format, "{file}");
        assert!(imported.frames > 0, "{file}");
        let id = imported.captures[0];
        let frames = store.frames(id, 1, 1000).unwrap();
        assert_eq!(
            frames.len() as u64,
            store.capture(id).unwrap().frames as u64
        );
        assert_eq!(frames[0].seq, 1);
    }
    let mut store = Store::in_memory().unwrap();
    let two = import::file(&mut store, &transcripts().join("recorded-two-runs.ndjson")).unwrap();
    assert_eq!(two.captures.len(), 2, "one capture per run");
}

#[test]
fn export_round_trips_and_redacts() {
    let mut store = Store::in_memory().unwrap();
    let id = import_first(&mut store, "secrets.ndjson");
    for format in [Format::Transcript, Format::Devtools] {
        let mut redacted = Vec::new();
        export(&store, id, ExportOptions::new(format), &mut redacted).unwrap();
        let text = String::from_utf8(redacted.clone()).unwrap();
        for secret in ["ghp_SECRET", "sk-SECRET", "Bearer SECRET"] {
            assert!(!text.contains(secret), "{format:?}: {secret} left");
        }
        assert!(text.contains("<redacted>"));
        let mut kept = Vec::new();
        export(
            &store,
            id,
            ExportOptions::new(format).keep_secrets(),
            &mut kept,
        )
        .unwrap();
        let kept_text = String::from_utf8(kept.clone()).unwrap();
        assert!(kept_text.contains("ghp_SECRET"), "{format:?}");
        // Back in: the same frames in the same order, the same findings.
        let dir = std::env::temp_dir().join(format!("acptk-inspect-rt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("export.{}", format.as_str()));
        std::fs::write(&path, &kept).unwrap();
        let back = import::file(&mut store, &path).unwrap().captures[0];
        std::fs::remove_dir_all(&dir).unwrap();
        let (a, b) = (
            store.frames(id, 1, 1000).unwrap(),
            store.frames(back, 1, 1000).unwrap(),
        );
        assert_eq!(a.len(), b.len(), "{format:?}");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.side, x.kind, &x.method), (y.side, y.kind, &y.method));
            assert_eq!(x.time, y.time, "{format:?} times survive");
            let (dx, dy) = (
                store.frame(id, x.seq).unwrap(),
                store.frame(back, y.seq).unwrap(),
            );
            assert_eq!(dx.raw, dy.raw, "{format:?}: bytes as sent");
        }
        let rules = |id| {
            store
                .findings(id)
                .unwrap()
                .into_iter()
                .map(|f| (f.seq, f.rule))
                .collect::<Vec<_>>()
        };
        assert_eq!(rules(id), rules(back), "{format:?}");
    }
}

#[test]
fn search_finds_indexed_frames() {
    let mut store = Store::in_memory().unwrap();
    let id = import::file(
        &mut store,
        &transcripts().join("v1-notice-without-capability.ndjson"),
    )
    .unwrap()
    .captures[0];
    let notice = &store.notices(id).unwrap()[0];
    let title = notice.title.clone().unwrap();
    let found = store.search(&title, &SearchOptions::new()).unwrap();
    assert!(
        found
            .hits
            .iter()
            .any(|h| h.capture == id && h.frame.seq == notice.seq)
    );
    let none = store
        .search("zzzqqq-no-such-words", &SearchOptions::new())
        .unwrap();
    assert!(none.hits.is_empty());
}

#[test]
fn a_devtools_export_imports_with_findings_and_notices() {
    let mut store = Store::in_memory().unwrap();
    let imported = import::file(&mut store, &fixture("devtools-export.json")).unwrap();
    assert_eq!(imported.format, "devtools");
    let id = imported.captures[0];
    let summary = store.capture(id).unwrap();
    assert_eq!(summary.frames, 6);
    assert_eq!(summary.name.as_deref(), Some("gemini on repo"));
    assert_eq!(summary.agent.name.as_deref(), Some("gemini-cli"));
    assert_eq!(summary.client.name.as_deref(), Some("zed"));
    assert_eq!(summary.started_at, 1_764_493_200_000_000);
    let frames = store.frames(id, 1, 10).unwrap();
    assert_eq!(
        frames[3].latency,
        Some(950_000),
        "session/new answered in 950 ms"
    );
    assert_eq!(frames[3].session.as_deref(), Some("c0ffee-1"));
    assert_eq!(frames[5].kind, acptk_inspect::Kind::Invalid);
    // The client did not advertise session.notices: the notice could not be shown.
    let notices = store.notices(id).unwrap();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].outcome, Outcome::Unsupported);
    let rules: Vec<String> = store
        .findings(id)
        .unwrap()
        .into_iter()
        .map(|f| f.rule)
        .collect();
    assert!(
        rules.contains(&"notice-without-capability".to_owned()),
        "{rules:?}"
    );
    assert!(rules.contains(&"invalid-message".to_owned()), "{rules:?}");
    let info = store.session_info(id).unwrap();
    assert_eq!(info.agent_capabilities.unwrap()["loadSession"], true);
    assert_eq!(info.sessions[0].id, "c0ffee-1");
}

#[test]
fn a_broken_devtools_export_names_the_field() {
    let dir = std::env::temp_dir().join(format!("acptk-inspect-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(fixture("devtools-export.json")).unwrap();
    let broken = text.replacen("\"agent-to-editor\"", "\"sideways\"", 1);
    let path = dir.join("bad.json");
    std::fs::write(&path, broken).unwrap();
    let mut store = Store::in_memory().unwrap();
    let error = import::file(&mut store, &path).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(error.contains("messages[1].direction"), "{error}");
    assert_eq!(store.capture_count().unwrap(), 0, "nothing stored");
}

#[test]
fn session_info_latency_and_diff() {
    let mut store = Store::in_memory().unwrap();
    let a = import_first(&mut store, "secrets.ndjson");
    let b = import_first(&mut store, "devtools-export.json");
    let info = store.session_info(a).unwrap();
    assert_eq!(
        info.client_capabilities.as_ref().unwrap()["session"]["notices"],
        serde_json::json!({})
    );
    let session = &info.sessions[0];
    assert_eq!(session.id, "sess_1");
    assert_eq!(session.current_mode.as_deref(), Some("code"));
    assert_eq!(session.commands.as_ref().unwrap()[0]["name"], "notice");
    let latency = store.latency(a).unwrap();
    let prompt = latency
        .iter()
        .find(|l| l.method == "session/prompt")
        .unwrap();
    assert_eq!(
        (prompt.count, prompt.p50, prompt.max),
        (1, 900_000, 900_000)
    );
    let diff = store.diff(a, b, 100).unwrap();
    let paths: Vec<&str> = diff.capabilities.iter().map(|c| c.path.as_str()).collect();
    assert!(paths.contains(&"client_capabilities.session"), "{paths:?}");
    assert!(diff.versions.iter().any(|c| c.path == "agent.name"));
    assert!(diff.first_difference.is_some());
    // The two chunks of one message are one run.
    let runs: Vec<i64> = diff
        .aligned
        .iter()
        .filter_map(|r| r.a.as_ref())
        .map(|r| r.count)
        .collect();
    assert!(runs.contains(&2), "{runs:?}");
    // The notice was delivered to a client that advertised notices.
    assert_eq!(store.notices(a).unwrap()[0].outcome, Outcome::Delivered);
}

/// A scratch directory for a database (removed with its WAL when dropped).
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new(name: &str) -> Self {
        Scratch(
            tempfile::Builder::new()
                .prefix(&format!("acptk-inspect-{name}-"))
                .tempdir()
                .unwrap(),
        )
    }

    fn db(&self) -> PathBuf {
        self.0.path().join("captures.db")
    }
}

#[test]
fn a_database_of_the_first_schema_is_upgraded_with_its_data() {
    let scratch = Scratch::new("migrate");
    {
        let old = Store::open_at_version(scratch.db(), 1).unwrap();
        assert_eq!(old.schema_version().unwrap(), 1);
        drop(old);
        // What a build of schema 1 wrote: a capture with one frame and a finding.
        let conn = rusqlite::Connection::open(scratch.db()).unwrap();
        conn.execute_batch(
            r#"INSERT INTO captures (id, source, started_at, frames) VALUES (1, 'proxy', 1000, 1);
               INSERT INTO frames (capture, seq, side, kind, method, size, raw)
                 VALUES (1, 1, 'client', 'request', 'initialize', 10, X'7B7D');
               INSERT INTO findings (capture, seq, rule, severity, message)
                 VALUES (1, 1, 'invalid-message', 'error', 'x');"#,
        )
        .unwrap();
    }
    // Read-only opening refuses to read an old schema rather than misread it.
    let refused = Store::open_read_only(scratch.db()).unwrap_err();
    assert!(
        matches!(refused, acptk_inspect::Error::Outdated { found: 1, .. }),
        "{refused}"
    );
    let mut store = Store::open(scratch.db()).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        acptk_inspect::db::SCHEMA_VERSION
    );
    let summary = store.capture(1).unwrap();
    assert_eq!((summary.frames, summary.notices), (1, 0));
    assert_eq!(store.findings(1).unwrap()[0].rule, "invalid-message");
    assert_eq!(store.frame(1, 1).unwrap().raw, b"{}");
    // The frames written before the index existed are indexed and found.
    assert_eq!(store.index().unwrap(), 1);
    drop(store);
    let reader = Store::open_read_only(scratch.db()).unwrap();
    assert_eq!(reader.capture_count().unwrap(), 1);
    // A database from a newer build is refused, whether for reading or writing.
    rusqlite::Connection::open(scratch.db())
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    assert!(matches!(
        Store::open(scratch.db()).unwrap_err(),
        acptk_inspect::Error::TooNew { found: 99, .. }
    ));
    assert!(matches!(
        Store::open_read_only(scratch.db()).unwrap_err(),
        acptk_inspect::Error::TooNew { found: 99, .. }
    ));
}

#[test]
fn delete_removes_a_capture_and_its_search_entries() {
    let mut store = Store::in_memory().unwrap();
    let a = import_first(&mut store, "secrets.ndjson");
    let b = import_first(&mut store, "secrets.ndjson");
    let hits = |store: &Store| {
        store
            .search("MCP server unavailable", &SearchOptions::new())
            .unwrap()
            .hits
    };
    assert_eq!(hits(&store).len(), 2);
    store.delete(a).unwrap();
    let left = hits(&store);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].capture, b);
    assert!(matches!(
        store.capture(a),
        Err(acptk_inspect::Error::NoCapture(_))
    ));
    assert!(store.frames(a, 1, 10).unwrap().is_empty());
    assert!(matches!(
        store.delete(a),
        Err(acptk_inspect::Error::NoCapture(_))
    ));
}

#[test]
fn unindexed_frames_are_found_by_a_scan_and_the_search_is_redacted_when_asked() {
    let scratch = Scratch::new("scan");
    let mut store = Store::open(scratch.db()).unwrap();
    let id = import_first(&mut store, "secrets.ndjson");
    // Forget the index: every frame is now in the unindexed tail.
    rusqlite::Connection::open(scratch.db())
        .unwrap()
        .execute_batch("DELETE FROM frames_fts; UPDATE fts_state SET indexed = 0;")
        .unwrap();
    let reader = Store::open_read_only(scratch.db()).unwrap();
    let found = reader.search("disk_never", &SearchOptions::new()).unwrap();
    assert!(found.hits.is_empty());
    let found = reader
        .search("github", &SearchOptions::new().capture(id))
        .unwrap();
    assert!(!found.hits.is_empty());
    let secret = reader
        .search("ghp_SECRET123", &SearchOptions::new().redacted())
        .unwrap();
    assert_eq!(secret.hits.len(), 1);
    assert!(
        !secret.hits[0].snippet.contains("ghp_SECRET123"),
        "{}",
        secret.hits[0].snippet
    );
    let limited = reader
        .search("sess_1", &SearchOptions::new().limit(2))
        .unwrap();
    assert_eq!(limited.hits.len(), 2);
    assert!(limited.truncated);
    // Newest first.
    assert!(limited.hits[0].frame.seq > limited.hits[1].frame.seq);
}

#[test]
fn streamed_chunks_fold_into_timeline_rows() {
    let chunk = |tag: &str, session: &str| {
        format!(
            r#"{{"from":"agent","message":{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{{"sessionUpdate":"{tag}","content":{{"type":"text","text":"x"}}}}}}}}}}"#
        )
    };
    let mut lines = vec![
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}}"#.to_owned(),
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}}"#.to_owned(),
    ];
    // 3 message chunks, 2 thought chunks, 1 chunk of another session, a tool call, 2 chunks.
    lines.extend((0..3).map(|_| chunk("agent_message_chunk", "s1")));
    lines.extend((0..2).map(|_| chunk("agent_thought_chunk", "s1")));
    lines.push(chunk("agent_message_chunk", "s2"));
    lines.push(r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"t"}}}}"#.to_owned());
    lines.extend((0..2).map(|_| chunk("agent_message_chunk", "s1")));
    let text = lines.join("\n") + "\n";
    let mut store = Store::in_memory().unwrap();
    let imported = import::traces(&mut store, text.as_bytes(), "chunks").unwrap();
    let id = imported.captures[0];
    let mut state = acptk_inspect::query::Clusters::default();
    store.clusters(id, &mut state).unwrap();
    let rows: Vec<(i64, i64)> = state.rows.iter().map(|c| (c.seq, c.count)).collect();
    assert_eq!(
        rows,
        [(1, 1), (2, 1), (3, 3), (6, 2), (8, 1), (9, 1), (10, 2)]
    );
    assert_eq!(state.upto, 11);
    // Reading again adds nothing: the state goes on from where it stopped.
    store.clusters(id, &mut state).unwrap();
    assert_eq!(state.rows.len(), 7);
}
