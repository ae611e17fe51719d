//! Throughput and memory of the notice engine under a flood.
//!
//! Feeds 100,000, 500,000 and 1,000,000 notices (half of them repeats of a few common notices
//! that coalesce, half drawn from 5,000 distinct ones, spread over 8 sessions and all four
//! kinds of severity) into a fresh `NoticeCenter` with the default policy, on a fake clock
//! advancing 100 µs per notice, with a host tick every 1,000 notices. Prints notices per second
//! and the peak and retained heap of each run, measured by a counting global allocator: memory
//! should stay flat as the count grows, because every list, index and queue is bounded.
//!
//! Also times the sanitiser on 1 MB and 4 MB hostile inputs to show it is linear.
//!
//! Run with `cargo bench -p acptk-notice-center --bench throughput`. Under `cargo test` (no
//! `--bench` argument) it runs a small smoke version instead.

use std::hint::black_box;
use std::time::{Duration, Instant};

use acptk_notice_center::{IncomingNotice, NoticeCenter, Policy, Severity, sanitize};
use peak_alloc::PeakAlloc;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

const SESSIONS: [&str; 8] = [
    "sess_01HZX0001",
    "sess_01HZX0002",
    "sess_01HZX0003",
    "sess_01HZX0004",
    "sess_01HZX0005",
    "sess_01HZX0006",
    "sess_01HZX0007",
    "sess_01HZX0008",
];
const COMMON: [&str; 8] = [
    "MCP server unavailable",
    "Model rerouted",
    "Rate limited, retrying",
    "Configuration fell back to defaults",
    "Indexing workspace",
    "Tool call timed out",
    "Context window almost full",
    "Network flaky",
];
const DESCRIPTIONS: [&str; 4] = [
    "Continuing without it.",
    "Using a fallback model for this turn.",
    "See the agent log for details.",
    "",
];
const DISTINCT: usize = 5_000;

/// A small deterministic generator (xorshift64*), so every run feeds the same notices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

struct Run {
    notices: usize,
    elapsed: Duration,
    peak: usize,
    retained: usize,
    entries: usize,
    coalesced: u64,
    evicted: u64,
}

fn run(notices: usize, distinct_titles: &[String]) -> Run {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let severities = [
        Severity::Info,
        Severity::Warning,
        Severity::Error,
        Severity::from_wire("_acme.trace"),
    ];
    ALLOC.reset_peak_usage();
    let base = ALLOC.current_usage();
    let mut center = NoticeCenter::new(Policy::default());
    let step = Duration::from_micros(100);
    let mut now = Duration::ZERO;
    let start = Instant::now();
    for n in 0..notices {
        let r = rng.next();
        let session = SESSIONS[(r & 7) as usize];
        let severity = severities[((r >> 3) & 3) as usize].clone();
        let description = DESCRIPTIONS[((r >> 5) & 3) as usize];
        let title: &str = if (r >> 7) & 1 == 0 {
            COMMON[((r >> 8) & 7) as usize]
        } else {
            &distinct_titles[((r >> 11) as usize) % distinct_titles.len()]
        };
        let mut notice = IncomingNotice::new(severity, title);
        if !description.is_empty() {
            notice = notice.with_description(description);
        }
        black_box(center.push(session, notice, now));
        now += step;
        if n % 1_000 == 999 {
            center.tick(now);
            if n % 50_000 == 49_999 {
                center.dismiss_all(now);
            }
        }
    }
    let elapsed = start.elapsed();
    let entries = SESSIONS.iter().map(|s| center.entry_count(s)).sum();
    let stats = *center.stats();
    let retained = ALLOC.current_usage().saturating_sub(base);
    let peak = ALLOC.peak_usage().saturating_sub(base);
    drop(center);
    Run {
        notices,
        elapsed,
        peak,
        retained,
        entries,
        coalesced: stats.coalesced,
        evicted: stats.evicted,
    }
}

fn time_sanitize(label: &str, input: &str) {
    let start = Instant::now();
    let out = black_box(sanitize::title(black_box(input)));
    let title = start.elapsed();
    let start = Instant::now();
    black_box(sanitize::description(black_box(input)));
    let description = start.elapsed();
    println!(
        "sanitize {label:<34} {:>7.2} MB  title {:>9.3} ms  description {:>9.3} ms  -> {} bytes",
        input.len() as f64 / 1e6,
        title.as_secs_f64() * 1e3,
        description.as_secs_f64() * 1e3,
        out.len(),
    );
}

fn main() {
    let full = std::env::args().any(|arg| arg == "--bench");
    let counts: &[usize] = if full {
        &[100_000, 500_000, 1_000_000]
    } else {
        &[10_000]
    };
    let distinct_titles: Vec<String> = (0..DISTINCT)
        .map(|n| format!("Tool {n} failed: exit status {}", n % 7))
        .collect();

    if full {
        // Warm caches and the allocator once.
        run(100_000, &distinct_titles);
    }
    println!("notice-center throughput (default policy, 8 sessions, ~50% coalescing repeats)");
    for &count in counts {
        let r = run(count, &distinct_titles);
        let rate = r.notices as f64 / r.elapsed.as_secs_f64();
        println!(
            "{:>9} notices  {:>8.1} ms  {:>12.0} notices/s  peak heap {:>8.1} KiB  retained {:>8.1} KiB  entries {:>4}  coalesced {:>7}  evicted {:>7}",
            r.notices,
            r.elapsed.as_secs_f64() * 1e3,
            rate,
            r.peak as f64 / 1024.0,
            r.retained as f64 / 1024.0,
            r.entries,
            r.coalesced,
            r.evicted,
        );
    }

    for megabytes in [1usize, 4] {
        let n = megabytes * 1_000_000;
        time_sanitize(&format!("plain text ({megabytes} MB)"), &"A".repeat(n));
        time_sanitize(
            &format!("escape sequences ({megabytes} MB)"),
            &"\x1b[31m".repeat(n / 5),
        );
        time_sanitize(
            &format!("8-bit CSI ({megabytes} MB)"),
            &"\u{9b}1m".repeat(n / 4),
        );
        time_sanitize(
            &format!("zero-width chars ({megabytes} MB)"),
            &"\u{200B}".repeat(n / 3),
        );
        time_sanitize(
            &format!("combining marks ({megabytes} MB)"),
            &format!("e{}", "\u{301}".repeat(n / 2)),
        );
    }
}
