//! Time to open a 100,000-frame capture in the web inspector, to the first paint of its
//! timeline, in headless Chromium (measured in the page with the Performance API: from the
//! start of the navigation to the mark the timeline sets after painting its first rows).
//!
//! `cargo bench -p acptk --bench inspect_open` (needs /usr/bin/chromium and
//! /usr/bin/chromedriver).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/webdriver.rs"]
mod webdriver;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::json;

const ACP: &str = env!("CARGO_BIN_EXE_acp");
const FRAMES: usize = 100_000;
const RUNS: usize = 7;

/// A transcript of `FRAMES` frames: turns of a prompt, tool calls and their updates, a few
/// message chunks (folded in the timeline) and the answer.
fn transcript(path: &std::path::Path) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut line = |from: &str, message: serde_json::Value| {
        writeln!(out, "{}", json!({"from": from, "message": message})).unwrap();
    };
    line(
        "client",
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}),
    );
    line(
        "agent",
        json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}),
    );
    line(
        "client",
        json!({"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}),
    );
    line(
        "agent",
        json!({"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}),
    );
    let mut written = 4;
    let mut id = 2;
    while written < FRAMES {
        line(
            "client",
            json!({"jsonrpc":"2.0","id":id,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":format!("turn {id}")}]}}),
        );
        for call in 0..6 {
            line(
                "agent",
                json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":format!("t{id}-{call}"),"title":"read a file","status":"pending"}}}),
            );
            line(
                "agent",
                json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":format!("t{id}-{call}"),"status":"completed"}}}),
            );
        }
        for piece in 0..5 {
            line(
                "agent",
                json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":format!("piece {piece} ")}}}}),
            );
        }
        line(
            "agent",
            json!({"jsonrpc":"2.0","id":id,"result":{"stopReason":"end_turn"}}),
        );
        written += 19;
        id += 1;
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if !webdriver::available() {
        return;
    }
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("inspect-open-bench");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.ndjson");
    transcript(&file);
    let db = dir.join("captures.db");
    let started = Instant::now();
    let status = Command::new(ACP)
        .args(["inspect", "--db"])
        .arg(&db)
        .arg("import")
        .arg(&file)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    println!(
        "import of {FRAMES} frames: {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let mut inspector = Command::new(ACP)
        .args(["inspect", "--db"])
        .arg(&db)
        .arg("ui")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(inspector.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = format!("{}#capture=1", url.trim());
    let browser = webdriver::Browser::start(&dir, 1280, 800).await;
    let mut times = Vec::new();
    for run in 0..RUNS {
        // A fresh inspector process each time would also time its fold; the first run does.
        browser.goto(&url).await;
        let painted = browser
            .wait_for("the timeline's first paint", "const m = performance.getEntriesByName('timeline-painted-1'); return m.length && m[0].startTime;", 30)
            .await;
        let ms = painted.as_f64().unwrap();
        println!(
            "run {run}: first paint of the timeline after {ms:.0} ms{}",
            if run == 0 {
                " (cold: the server folds the capture)"
            } else {
                ""
            }
        );
        times.push(ms);
        browser.goto("about:blank").await;
    }
    browser.quit().await;
    drop(browser);
    let _ = inspector.kill();
    let _ = inspector.wait();
    let cold = times[0];
    let mut warm = times[1..].to_vec();
    warm.sort_by(f64::total_cmp);
    println!(
        "open a {FRAMES}-frame capture to the timeline's first paint: cold {cold:.0} ms, warm median {:.0} ms, max {:.0} ms (target < 1000 ms)",
        warm[warm.len() / 2],
        warm[warm.len() - 1]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
