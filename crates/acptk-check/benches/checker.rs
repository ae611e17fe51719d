//! How fast the checker judges the agent's `session/update` stream, per message, in one
//! thread: the work `acp proxy` does for every line it forwards.
//!
//! `cargo bench -p acptk-check --bench checker`
//!
//! The stream is acptk-conformance's realistic mix (70% text chunks, 10% thoughts, 12% tool-call
//! updates, 5% usage, 3% notices), after an `initialize` exchange in which the client
//! advertises `session.notices` (so no line has a finding). Printed for v1 and v2, best of
//! five runs each, in messages per second and nanoseconds per message:
//! - `checker`: `Checker::observe` of each whole line;
//! - `typed decode`: only `acptk-schema`'s typed decode of each line's params, what a peer that
//!   reads the stream does at least;
//! - `json floor`: `serde_json` reading each whole line and keeping nothing (`IgnoredAny`),
//!   the least any check of the line's JSON can cost.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing benchmark may panic

use std::hint::black_box;
use std::time::Instant;

use acptk_check::{Checker, Side};
use acptk_conformance::stream::{Version, session_updates};
use serde::de::IgnoredAny;

fn main() {
    let count = std::env::var("ACP_BENCH_UPDATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000usize);
    println!("acptk-check: {count} agent session/update lines, best of 5");
    for (version, number) in [(Version::V1, 1), (Version::V2, 2)] {
        let params = session_updates(version, 4096, 7);
        let lines: Vec<String> = params
            .iter()
            .map(|p| format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{p}}}"#))
            .collect();
        let checker = best_of_5(|| {
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
            elapsed
        });
        let typed = best_of_5(|| {
            let start = Instant::now();
            for i in 0..count {
                let text = params[i % params.len()].as_str();
                match version {
                    Version::V1 => {
                        black_box(
                            serde_json::from_str::<acptk_schema::v1::SessionNotification>(text)
                                .unwrap(),
                        );
                    }
                    Version::V2 => {
                        black_box(
                            serde_json::from_str::<acptk_schema::v2::UpdateSessionNotification>(
                                text,
                            )
                            .unwrap(),
                        );
                    }
                }
            }
            start.elapsed().as_secs_f64()
        });
        let floor = best_of_5(|| {
            let start = Instant::now();
            for i in 0..count {
                let text = lines[i % lines.len()].as_str();
                black_box(serde_json::from_str::<IgnoredAny>(text).unwrap());
            }
            start.elapsed().as_secs_f64()
        });
        for (name, seconds) in [
            ("checker", checker),
            ("typed decode", typed),
            ("json floor", floor),
        ] {
            println!(
                "  v{number} {name:<13} {:>10.0} msg/s {:>8.0} ns/msg",
                count as f64 / seconds,
                seconds * 1e9 / count as f64
            );
        }
    }
}

/// The shortest of five timings.
fn best_of_5(mut run: impl FnMut() -> f64) -> f64 {
    (0..5).map(|_| run()).fold(f64::INFINITY, f64::min)
}
