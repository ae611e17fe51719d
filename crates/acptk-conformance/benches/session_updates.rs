//! Decoding and encoding a realistic `session/update` params stream: `acptk-schema` against the
//! official `agent-client-protocol-schema` crate, with `serde_json::Value` as a baseline.
//!
//! The stream (see `acptk_conformance::stream`) mixes 70% text chunks, 10% thought chunks, 12%
//! tool-call updates, 5% usage updates and 3% notices; each element is the `params` of one
//! `session/update`. Decoding parses each element from its JSON text into the version's params
//! type; encoding writes already decoded values back into a reused buffer (through
//! `serde_json::to_writer`, the way every caller encodes). Throughput is reported in bytes of
//! the input stream per second for every row, so rows compare directly.
//!
//! A fourth column, "plain copy", copies the bytes the row produces (the input texts for
//! decoding, our encoded texts for encoding) into the same kind of reused buffer, message by
//! message: the speed of writing the output at all, which no encoder can beat. The summary
//! gives each encoder's share of it.
//!
//! After criterion's own report, a summary measures the same closures again (41 short rounds,
//! ours and the official crate's back to back in each) and prints MB/s, the median of the
//! rounds' ratios ours / official with its quartiles, and the project's targets. Run with:
//!
//! ```text
//! cargo bench -p acptk-conformance --bench session_updates
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)] // a broken benchmark input may panic

use std::hint::black_box;
use std::time::{Duration, Instant};

use acptk_conformance::stream::{Version, session_updates};
use criterion::{Criterion, Throughput};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Messages per stream.
const MESSAGES: usize = 2_000;
/// Seed of the stream (the same stream for every run).
const SEED: u64 = 0x5E55_1011;

/// A decoder or encoder over a whole stream; returns something to keep the work observable.
type Job = Box<dyn Fn() -> usize>;

fn decode_all<T: DeserializeOwned>(texts: &[String]) -> usize {
    let mut count = 0;
    for text in texts {
        match serde_json::from_str::<T>(text) {
            Ok(value) => {
                black_box(&value);
                count += 1;
            }
            Err(error) => panic!("the benchmark stream must decode: {error}\n{text}"),
        }
    }
    count
}

fn decoded<T: DeserializeOwned>(texts: &[String]) -> Vec<T> {
    texts
        .iter()
        .map(|text| serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}")))
        .collect()
}

fn encode_all<T: Serialize>(values: &[T], buffer: &mut Vec<u8>) -> usize {
    let mut written = 0;
    for value in values {
        buffer.clear();
        if let Err(error) = serde_json::to_writer(&mut *buffer, value) {
            panic!("encoding failed: {error}");
        }
        written += black_box(buffer.len());
    }
    written
}

/// Copies each of `texts` into a reused buffer: the floor of any encoder of these bytes.
fn copy_job(texts: Vec<Vec<u8>>) -> Job {
    let buffer = std::cell::RefCell::new(Vec::with_capacity(64 * 1024));
    Box::new(move || {
        let mut buffer = buffer.borrow_mut();
        let mut written = 0;
        for text in &texts {
            buffer.clear();
            buffer.extend_from_slice(black_box(text));
            written += black_box(buffer.len());
        }
        written
    })
}

/// Our encoding of each of `texts`, decoded as `T`.
fn encoded<T: Serialize + DeserializeOwned>(texts: &[String]) -> Vec<Vec<u8>> {
    decoded::<T>(texts)
        .iter()
        .map(|value| serde_json::to_vec(value).unwrap())
        .collect()
}

fn decode_job<T: DeserializeOwned + 'static>(texts: &'static [String]) -> Job {
    Box::new(move || decode_all::<T>(texts))
}

fn encode_job<T: Serialize + DeserializeOwned + 'static>(texts: &'static [String]) -> Job {
    let values: Vec<T> = decoded(texts);
    let buffer = std::cell::RefCell::new(Vec::with_capacity(64 * 1024));
    Box::new(move || encode_all(&values, &mut buffer.borrow_mut()))
}

/// One comparison: the same stream and operation for ours, the official crate and `Value`.
struct Row {
    version: Version,
    operation: &'static str,
    bytes: u64,
    ours: Job,
    official: Job,
    value: Job,
    /// Copies the bytes of the row's output.
    copy: Job,
    /// Target for the ratio ours / official.
    target: f64,
}

fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for version in [Version::V1, Version::V2] {
        let texts: &'static [String] = Vec::leak(session_updates(version, MESSAGES, SEED));
        let bytes = texts.iter().map(|text| text.len() as u64).sum();
        let (decode_target, encode_target) = (2.0, 1.5);
        let encoded_texts = match version {
            Version::V1 => encoded::<acptk_schema::v1::SessionNotification>(texts),
            Version::V2 => encoded::<acptk_schema::v2::UpdateSessionNotification>(texts),
        };
        let (ours_decode, official_decode, ours_encode, official_encode): (Job, Job, Job, Job) =
            match version {
                Version::V1 => (
                    decode_job::<acptk_schema::v1::SessionNotification>(texts),
                    decode_job::<agent_client_protocol_schema::v1::SessionNotification>(texts),
                    encode_job::<acptk_schema::v1::SessionNotification>(texts),
                    encode_job::<agent_client_protocol_schema::v1::SessionNotification>(texts),
                ),
                Version::V2 => (
                    decode_job::<acptk_schema::v2::UpdateSessionNotification>(texts),
                    decode_job::<agent_client_protocol_schema::v2::UpdateSessionNotification>(
                        texts,
                    ),
                    encode_job::<acptk_schema::v2::UpdateSessionNotification>(texts),
                    encode_job::<agent_client_protocol_schema::v2::UpdateSessionNotification>(
                        texts,
                    ),
                ),
            };
        rows.push(Row {
            version,
            operation: "decode",
            bytes,
            ours: ours_decode,
            official: official_decode,
            value: decode_job::<Value>(texts),
            copy: copy_job(texts.iter().map(|text| text.clone().into_bytes()).collect()),
            target: decode_target,
        });
        rows.push(Row {
            version,
            operation: "encode",
            bytes,
            ours: ours_encode,
            official: official_encode,
            value: encode_job::<Value>(texts),
            copy: copy_job(encoded_texts),
            target: encode_target,
        });
    }
    rows
}

impl Row {
    /// The row's name, as in `v1/decode`.
    fn name(&self) -> String {
        format!("{:?}/{}", self.version, self.operation).to_lowercase()
    }

    /// The row's jobs with their column names.
    fn columns(&self) -> [(&'static str, &Job); 4] {
        [
            ("acptk-schema", &self.ours),
            ("agent-client-protocol-schema", &self.official),
            ("serde_json::Value", &self.value),
            ("plain-copy", &self.copy),
        ]
    }
}

fn criterion_benches(criterion: &mut Criterion, rows: &[Row]) {
    for row in rows {
        let mut group = criterion.benchmark_group(format!("session_updates/{}", row.name()));
        group.throughput(Throughput::Bytes(row.bytes));
        for (column, job) in row.columns() {
            group.bench_function(column, |b| b.iter(job));
        }
        group.finish();
    }
}

/// MB/s (10^6 bytes per second) of one round: runs `job` for at least `budget`.
fn round(job: &Job, bytes: u64, budget: Duration) -> f64 {
    let start = Instant::now();
    let mut runs = 0u64;
    while start.elapsed() < budget {
        black_box(job());
        runs += 1;
    }
    (bytes * runs) as f64 / start.elapsed().as_secs_f64() / 1e6
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The first and third quartiles of `values`.
fn quartiles(values: &[f64]) -> (f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    (sorted[sorted.len() / 4], sorted[sorted.len() * 3 / 4])
}

fn summary(rows: &[Row]) {
    // Many short rounds, ours and the official crate's back to back (their order swapped every
    // round), so that a machine whose speed drifts slows both sides of a pair alike. The ratio
    // is the median of the per-round ratios; the quartiles of those ratios show how steady the
    // machine was.
    const ROUNDS: usize = 41;
    let budget = Duration::from_millis(50);
    println!();
    println!(
        "Summary: MB/s (median of {ROUNDS} interleaved rounds of {budget:?} each); ratio = median of the rounds' ratios [quartiles]"
    );
    println!(
        "{:<4} {:<7} {:>11} {:>11} {:>11} {:>11} {:>13} {:>13} {:>7}         {:>9} {:>9}",
        "ver",
        "op",
        "acptk-schema",
        "official",
        "Value",
        "plain copy",
        "ours/official",
        "[q1 - q3]",
        "target",
        "ours/copy",
        "off./copy"
    );
    for row in rows {
        for job in [&row.ours, &row.official, &row.value, &row.copy] {
            black_box(job());
        }
        let (mut ours, mut official, mut value, mut copy, mut ratios) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..ROUNDS {
            let (a, b) = if i % 2 == 0 {
                let a = round(&row.ours, row.bytes, budget);
                (a, round(&row.official, row.bytes, budget))
            } else {
                let b = round(&row.official, row.bytes, budget);
                (round(&row.ours, row.bytes, budget), b)
            };
            ours.push(a);
            official.push(b);
            ratios.push(a / b);
            value.push(round(&row.value, row.bytes, budget));
            copy.push(round(&row.copy, row.bytes, budget));
        }
        let (q1, q3) = quartiles(&ratios);
        let (ours, official, value, copy) =
            (median(ours), median(official), median(value), median(copy));
        let ratio = median(ratios);
        let verdict = if ratio >= row.target {
            "met   "
        } else {
            "MISSED"
        };
        println!(
            "{:<4} {:<7} {:>11.1} {:>11.1} {:>11.1} {:>11.1} {:>12.2}x {:>6.2}-{:<5.2} {:>5.1}x {verdict} {:>8.1}% {:>8.1}%",
            format!("{:?}", row.version),
            row.operation,
            ours,
            official,
            value,
            copy,
            ratio,
            q1,
            q3,
            row.target,
            100.0 * ours / copy,
            100.0 * official / copy,
        );
    }
    let stream_bytes: Vec<String> = rows
        .iter()
        .filter(|row| row.operation == "decode")
        .map(|row| format!("{:?} {} bytes", row.version, row.bytes))
        .collect();
    println!(
        "stream: {MESSAGES} messages per version, seed {SEED:#x} ({})",
        stream_bytes.join(", ")
    );
}

/// `ACP_BENCH_PROFILE=v1/decode/acptk-schema` (a row and a column of criterion's names): runs
/// that one job `ACP_BENCH_PASSES` times (default 100) and nothing else, for a profiler such as
/// `valgrind --tool=callgrind`, whose instruction counts do not depend on the machine's speed.
fn profile(rows: &[Row], which: &str) {
    let passes: usize = std::env::var("ACP_BENCH_PASSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    for row in rows {
        let name = row.name();
        for (column, job) in row.columns() {
            if which == format!("{name}/{column}") {
                let mut total = 0;
                for _ in 0..passes {
                    total += run_once(job);
                }
                println!("{which}: {passes} passes, {total} items");
                return;
            }
        }
    }
    panic!(
        "ACP_BENCH_PROFILE={which}: expected VERSION/OPERATION/COLUMN, e.g. v1/decode/acptk-schema"
    );
}

/// One pass of `job`, kept out of line so that a profiler can single it out.
#[inline(never)]
fn run_once(job: &Job) -> usize {
    black_box(job())
}

fn main() {
    let rows = rows();
    if let Ok(which) = std::env::var("ACP_BENCH_PROFILE") {
        profile(&rows, &which);
        return;
    }
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    criterion_benches(&mut criterion, &rows);
    criterion.final_summary();
    // `cargo bench` passes `--bench`; `cargo test --benches` runs each benchmark once instead.
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let skip = std::env::var_os("ACP_BENCH_NO_SUMMARY").is_some();
    if benchmarking && !skip {
        summary(&rows);
    }
}
