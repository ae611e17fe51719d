//! How fast the checker judges the agent's `session/update` stream, per message, in one
//! thread: the work `acp proxy` does for every line it forwards.
//!
//! `cargo bench -p acp-check --bench checker`
//!
//! The stream is acp-conformance's realistic mix (70% text chunks, 10% thoughts, 12% tool-call
//! updates, 5% usage, 3% notices), after an `initialize` exchange in which the client
//! advertises `session.notices` (so no line has a finding). Printed: messages per second and
//! nanoseconds per message for v1 and v2, best of five runs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing benchmark may panic

use std::time::Instant;

use acp_check::{Checker, Side};
use acp_conformance::stream::{Version, session_updates};

fn main() {
    let count = std::env::var("ACP_BENCH_UPDATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000usize);
    println!("acp-check: Checker::observe over {count} agent session/update lines, best of 5");
    for (version, number) in [(Version::V1, 1), (Version::V2, 2)] {
        let lines: Vec<String> = session_updates(version, 4096, 7)
            .into_iter()
            .map(|p| format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{p}}}"#))
            .collect();
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let mut checker = Checker::new();
            let init = format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":{number},"clientCapabilities":{{"session":{{"notices":{{}}}}}}}}}}"#
            );
            checker.observe(1, Some(Side::Client), &init);
            let answer = format!(
                r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":{number},"agentCapabilities":{{}}}}}}"#
            );
            checker.observe(2, Some(Side::Agent), &answer);
            let start = Instant::now();
            let mut findings = 0;
            for i in 0..count {
                let obs = checker.observe(3 + i as u64, Some(Side::Agent), &lines[i % lines.len()]);
                findings += obs.findings.len();
            }
            let elapsed = start.elapsed().as_secs_f64();
            assert_eq!(findings, 0, "the clean stream has findings");
            best = best.min(elapsed);
        }
        println!(
            "  v{number}: {:>10.0} msg/s {:>8.0} ns/msg",
            count as f64 / best,
            best * 1e9 / count as f64
        );
    }
}
