//! `acp inspect mcp` driven by the official MCP Python SDK's client (PyPI `mcp`, installed in
//! the interop virtual environment): the tool list, each tool on a database of the fixtures,
//! redaction, bounded answers with paging, and errors as tool errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a failing test may panic

#[path = "support/interop.rs"]
mod interop;
#[path = "support/json.rs"]
mod json;
#[path = "support/spawn.rs"]
mod spawn;

use json::json_strings;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

const ACP: &str = env!("CARGO_BIN_EXE_acp");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../acptk-inspect/tests/fixtures")
        .join(name)
}

/// The Python of the interop peers, when it has the MCP SDK (else a skip, or a failure with
/// `ACP_INTEROP_REQUIRED=1`).
fn python_with_mcp() -> Option<PathBuf> {
    let peers = interop::peers("inspect_mcp")?;
    let python = peers.python();
    let has = Command::new(&python)
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    if has {
        return Some(python);
    }
    let message = format!(
        "inspect_mcp: {} has no `mcp` package (run ./scripts/interop-setup.sh)",
        python.display()
    );
    if std::env::var("ACP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!("{message}; ACP_INTEROP_REQUIRED=1 makes this a failure");
    }
    eprintln!("skipped: {message}");
    None
}

#[test]
fn the_python_sdk_lists_and_calls_every_tool() {
    let Some(python) = python_with_mcp() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("inspect-mcp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("captures.db");
    let imported = Command::new(ACP)
        .args(["inspect", "--db", db.to_str().unwrap(), "import"])
        .arg(fixture("secrets.ndjson"))
        .arg(fixture("devtools-export.json"))
        .output()
        .unwrap();
    assert!(imported.status.success(), "{imported:?}");
    let calls = json!([
        ["list_captures", {}],
        ["summarize_capture", {"capture": 1}],
        ["capture_findings", {"capture": 2}],
        ["capture_notices", {"capture": 1}],
        ["search_frames", {"text": "MCP server unavailable"}],
        ["diff_captures", {"a": 1, "b": 2}],
        ["read_frames", {"capture": 1, "from": 3, "limit": 2}],
        ["search_frames", {"text": "ghp_SECRET123"}],
        ["summarize_capture", {"capture": 99}],
        ["read_frames", {"capture": "one"}],
    ]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/py_mcp_client.py");
    let output = Command::new(python)
        .arg(script)
        .arg(ACP)
        .arg(&db)
        .arg(calls.to_string())
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    spawn::assert_succeeded(&output, "the MCP client failed: ");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = json_strings(&report["tools"], "name");
    assert_eq!(
        names,
        [
            "list_captures",
            "summarize_capture",
            "capture_findings",
            "capture_notices",
            "search_frames",
            "diff_captures",
            "read_frames"
        ]
    );
    assert!(
        report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["read_only"] == true)
    );
    let calls = report["calls"].as_array().unwrap();
    let answer = |i: usize| -> Value {
        assert_eq!(calls[i]["error"], false, "{}", calls[i]);
        serde_json::from_str(calls[i]["text"].as_str().unwrap()).unwrap()
    };
    // Every answer is redacted: no secret of the fixtures anywhere.
    for call in calls {
        let text = call["text"].as_str().unwrap();
        for secret in [
            "ghp_SECRET123",
            "Bearer SECRET456",
            "sk-SECRET789",
            "hunter2-SECRET",
        ] {
            assert!(!text.contains(secret), "{secret} in {}", call["tool"]);
        }
    }
    let list = answer(0);
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
    assert_eq!(list["truncated"], false);
    let summary = answer(1);
    assert_eq!(summary["capture"]["agent"]["name"], "acme-agent");
    assert_eq!(summary["notices_by_outcome"]["delivered"], 1);
    assert_eq!(
        summary["info"]["client_capabilities"]["session"]["notices"],
        json!({})
    );
    let findings = answer(2);
    let rules: Vec<&str> = json_strings(&findings["items"], "rule");
    assert!(rules.contains(&"notice-without-capability"), "{rules:?}");
    let notices = answer(3);
    assert_eq!(notices["items"][0]["title"], "MCP server unavailable");
    assert_eq!(notices["items"][0]["outcome"], "delivered");
    let hits = answer(4);
    assert_eq!(hits["items"][0]["capture"], 1);
    assert_eq!(hits["items"][0]["seq"], 7);
    let diff = answer(5);
    assert!(
        diff["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["path"] == "client_capabilities.session")
    );
    let frames = answer(6);
    let items = frames["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["seq"], 3);
    assert_eq!(items[0]["method"], "session/new");
    assert!(items[0]["raw"].as_str().unwrap().contains("<redacted>"));
    assert!(items[0]["raw"].as_str().unwrap().contains("GITHUB_TOKEN"));
    assert_eq!(frames["truncated"], true);
    assert_eq!(frames["next"]["from"], 5);
    let secret = answer(7);
    assert!(
        !secret["items"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("ghp_")
    );
    assert_eq!(calls[8]["error"], true);
    assert!(calls[8]["text"].as_str().unwrap().contains("no capture 99"));
    assert_eq!(calls[9]["error"], true);
    assert!(
        calls[9]["text"]
            .as_str()
            .unwrap()
            .contains("`capture` must be an integer")
    );
}
