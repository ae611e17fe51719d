//! The capture database: what capturing costs per frame, its size per frame, opening a page of
//! a large capture, and search over a million frames.
//!
//! `cargo bench -p acptk-inspect --bench store`
//!
//! * Capture cost: the proxy's forwarding core (`acptk_check::proxy::run`, in process, over
//!   in-memory pipes) carries `ACP_BENCH_FRAMES` (default 200,000) `session/update` lines
//!   (the project's mix, generated here: 70% text chunks, 10% thoughts, 12% tool call
//!   updates, 5% plans, 3% notices) three ways in one run: alone, with a [`Capture`] tap (each read batch committed
//!   before it is forwarded), and with the write-ahead record to a file. The cost per frame is
//!   the difference of the times divided by the frames (median of `ACP_BENCH_ROUNDS`, default
//!   5, rounds in rotating order).
//! * Size: bytes of the database file (WAL checkpointed) per frame, before and after the
//!   search index.
//! * Search: a database of `ACP_BENCH_SEARCH_FRAMES` (default 1,000,000) frames in 10
//!   captures, generated through the same core (generation time is printed, not measured),
//!   then searched for a rare phrase, a common word (the newest 50 hits), a phrase in one
//!   capture, and for the rare phrase by a scan of unindexed frames.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing benchmark may panic

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use acptk_check::proxy::{self, Hooks, ProxyOptions};
use acptk_inspect::query::SearchOptions;
use acptk_inspect::{Capture, Origin, Store};
use tokio::io::AsyncWriteExt;

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The params of `count` `session/update`s in the project's mix (70% text chunks, 10%
/// thoughts, 12% tool call updates, 5% plans, 3% notices), varied by `seed`.
fn session_updates(count: usize, seed: u64) -> Vec<String> {
    let words = [
        "the",
        "parser",
        "reads",
        "each",
        "line",
        "and",
        "checks",
        "its",
        "method",
        "against",
        "table",
        "before",
        "forwarding",
        "it",
        "to",
        "client",
        "with",
        "no",
        "copy",
    ];
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut next = move |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize % n
    };
    (0..count)
        .map(|i| {
            let text: Vec<&str> = (0..4 + next(12)).map(|_| words[next(words.len())]).collect();
            let text = text.join(" ");
            let update = match next(100) {
                0..70 => format!(
                    r#"{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{text} "}}}}"#
                ),
                70..80 => format!(
                    r#"{{"sessionUpdate":"agent_thought_chunk","content":{{"type":"text","text":"{text} "}}}}"#
                ),
                80..92 => format!(
                    r#"{{"sessionUpdate":"tool_call_update","toolCallId":"call_{}","status":"in_progress","content":[{{"type":"content","content":{{"type":"text","text":"{text}"}}}}],"locations":[{{"path":"/work/src/main.rs","line":{}}}]}}"#,
                    i / 50,
                    next(400)
                ),
                92..97 => format!(
                    r#"{{"sessionUpdate":"plan","entries":[{{"content":"{text}","priority":"medium","status":"in_progress"}}]}}"#
                ),
                _ => format!(
                    r#"{{"sessionUpdate":"notice","severity":"warning","title":"Rate limited","description":"{text}"}}"#
                ),
            };
            format!(r#"{{"sessionId":"sess_bench","update":{update}}}"#)
        })
        .collect()
}

/// The client's lines (initialize advertising notices, session/new) and the agent's (their
/// answers, then `updates` realistic updates, one in 20,000 carrying a rare phrase).
fn traffic(updates: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let client = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}
"#
    .to_vec();
    let mut agent =
        br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}
{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_bench"}}
"#
        .to_vec();
    let params = session_updates(4096, seed);
    for i in 0..updates {
        if i % 20_000 == 7 {
            agent.extend_from_slice(format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"sess_bench","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"quartz flamingo {i}"}}}}}}}}"#).as_bytes());
        } else {
            agent.extend_from_slice(br#"{"jsonrpc":"2.0","method":"session/update","params":"#);
            agent.extend_from_slice(params[i % params.len()].as_bytes());
            agent.push(b'}');
        }
        agent.push(b'\n');
    }
    (client, agent)
}

/// What rides along the proxy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Along {
    Nothing,
    Capture,
    Record,
}

/// CPU time this thread has run, in seconds (Linux `schedstat`, nanoseconds).
fn thread_cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// CPU time the whole process has run, in seconds (Linux `/proc/self/stat`, clock ticks of
/// 10 ms).
fn process_cpu() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // After the command's name in parentheses: state is field 3, utime 14, stime 15.
            let rest = &s[s.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let ticks =
                fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(0.0)
}

/// Runs the proxy core over the traffic; returns the wall time it took (the capture's end
/// included: it waits until every frame is in the database), the CPU time of the forwarding
/// thread and that of the whole process (the capture's own thread included).
fn run(
    client: &[u8],
    agent: &[u8],
    along: Along,
    db: &Path,
    record: &Path,
) -> (Duration, f64, f64) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut hooks = Hooks::new(|_| {});
    match along {
        Along::Nothing => {}
        Along::Capture => {
            let capture = Capture::start(db, &Origin::new("bench", "0"))
                .unwrap()
                .index_on_end(false);
            hooks = hooks
                .tap(capture)
                .on_tap_error(|e| panic!("capture failed: {e}"));
        }
        Along::Record => hooks = hooks.record(std::fs::File::create(record).unwrap()),
    }
    runtime.block_on(async {
        // The agent speaks once the client's lines are through.
        let (mut feed, agent_out) = tokio::io::duplex(1 << 20);
        let agent = agent.to_vec();
        let writer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            feed.write_all(&agent).await.unwrap();
            feed.shutdown().await.unwrap();
        });
        let start = Instant::now();
        let cpu = thread_cpu();
        let all = process_cpu();
        let report = proxy::run(
            client,
            tokio::io::sink(),
            tokio::io::sink(),
            agent_out,
            ProxyOptions::new(),
            hooks,
        )
        .await
        .unwrap();
        let elapsed = start.elapsed() - Duration::from_millis(5);
        let cpu = thread_cpu() - cpu;
        let all = process_cpu() - all;
        writer.await.unwrap();
        assert!(report.tap_error.is_none());
        (elapsed, cpu, all)
    })
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn scratch() -> PathBuf {
    let dir = std::env::var_os("ACP_BENCH_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from);
    let dir = dir.join(format!("inspect-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The database's size with its WAL folded in.
fn db_size(path: &Path) -> u64 {
    let conn = Store::open(path).unwrap();
    drop(conn);
    let wal = path.with_extension("db-wal");
    std::fs::metadata(path).map_or(0, |m| m.len()) + std::fs::metadata(wal).map_or(0, |m| m.len())
}

fn time<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    println!(
        "{what:<52} {:>10.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    out
}

fn main() {
    let frames = env_number("ACP_BENCH_FRAMES", 200_000);
    let rounds = env_number("ACP_BENCH_ROUNDS", 5).max(1);
    let search_frames = env_number("ACP_BENCH_SEARCH_FRAMES", 1_000_000);
    let dir = scratch();

    println!(
        "capture cost: the proxy core in process, {frames} session/update frames, {rounds} rounds"
    );
    let (client, agent) = traffic(frames, 7);
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    let mut cpus = [Vec::new(), Vec::new(), Vec::new()];
    let mut alls = [Vec::new(), Vec::new(), Vec::new()];
    let modes = [Along::Nothing, Along::Capture, Along::Record];
    for round in 0..rounds {
        for i in 0..3 {
            let m = (i + round) % 3;
            let db = dir.join(format!("cost-{round}-{m}.db"));
            let record = dir.join("cost.ndjson");
            let (wall, cpu, all) = run(&client, &agent, modes[m], &db, &record);
            times[m].push(wall.as_secs_f64());
            cpus[m].push(cpu);
            alls[m].push(all);
            if m == 1 {
                let store = Store::open_read_only(&db).unwrap();
                let stored = store.captures(1, 0).unwrap()[0].frames;
                assert_eq!(
                    stored as usize,
                    frames + 4,
                    "every frame is in the database"
                );
            }
            let _ = std::fs::remove_file(&record);
            if m == 1 && round == 0 {
                let before = db_size(&db);
                let mut store = Store::open(&db).unwrap();
                let start = Instant::now();
                store.index().unwrap();
                let indexing = start.elapsed().as_secs_f64();
                drop(store);
                let after = db_size(&db);
                println!(
                    "search index: {:.0} ns per frame, built after the run",
                    indexing / frames as f64 * 1e9
                );
                println!(
                    "database size: {:.0} bytes per frame without the search index, {:.0} with it (frames average {:.0} bytes)",
                    before as f64 / frames as f64,
                    after as f64 / frames as f64,
                    agent.len() as f64 / frames as f64
                );
            }
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
            }
        }
    }
    let [plain, captured, recorded] = times.map(|mut t| median(&mut t));
    let [plain_cpu, captured_cpu, recorded_cpu] = cpus.map(|mut t| median(&mut t));
    let [plain_all, captured_all, recorded_all] = alls.map(|mut t| median(&mut t));
    let per = |t: f64, base: f64| (t - base) / frames as f64 * 1e9;
    println!(
        "{:<12} {:>12} {:>14} {:>16} {:>16} {:>16} {:>16} {:>16}",
        "",
        "wall",
        "frames/s",
        "added per frame",
        "forwarding CPU",
        "added per frame",
        "process CPU",
        "added per frame"
    );
    for (name, t, c, a) in [
        ("proxy", plain, plain_cpu, plain_all),
        ("+capture", captured, captured_cpu, captured_all),
        ("+record", recorded, recorded_cpu, recorded_all),
    ] {
        println!(
            "{name:<12} {:>10.1}ms {:>14.0} {:>13.0} ns {:>14.1}ms {:>13.0} ns {:>14.0}ms {:>13.0} ns",
            t * 1e3,
            frames as f64 / t,
            per(t, plain),
            c * 1e3,
            per(c, plain_cpu),
            a * 1e3,
            per(a, plain_all)
        );
    }

    println!();
    println!("search over {search_frames} frames (10 captures)");
    let db = dir.join("search.db");
    let (client, agent) = traffic(search_frames / 10, 11);
    time("generate (not part of any figure)", || {
        for _ in 0..10 {
            run(&client, &agent, Along::Capture, &db, &dir.join("unused"));
        }
    });
    let mut store = Store::open(&db).unwrap();
    time("index all frames (not part of any figure)", || {
        store.index().unwrap()
    });
    println!("database: {:.0} MB", db_size(&db) as f64 / 1e6);
    let captures = store.captures(10, 0).unwrap();
    let one = captures[3].id;
    let rare = time("search a rare phrase (\"quartz flamingo 7\")", || {
        store
            .search("quartz flamingo 7", &SearchOptions::new())
            .unwrap()
    });
    assert_eq!(rare.hits.len(), 10, "one hit per capture");
    let common = time("search a common word, newest 50 hits (\"text\")", || {
        store.search("text", &SearchOptions::new()).unwrap()
    });
    assert!(common.truncated);
    time(
        "search a phrase in one capture (\"quartz flamingo\")",
        || {
            store
                .search("quartz flamingo", &SearchOptions::new().capture(one))
                .unwrap()
        },
    );
    let page = time("a page of 200 frames from the middle of a capture", || {
        store.frames(one, (search_frames / 20) as i64, 200).unwrap()
    });
    assert_eq!(page.len(), 200);
    // Frames not in the index (a capture still running): found by a scan.
    drop(store);
    run(&client, &agent, Along::Capture, &db, &dir.join("unused"));
    let reader = Store::open_read_only(&db).unwrap();
    let tail = reader.captures(1, 0).unwrap()[0].frames;
    let scanned = time(
        &format!("search the rare phrase among {tail} unindexed frames too"),
        || {
            reader
                .search("quartz flamingo 7", &SearchOptions::new())
                .unwrap()
        },
    );
    assert_eq!(scanned.hits.len(), 11, "one more in the unindexed capture");
    drop(reader);
    let _ = std::fs::remove_dir_all(&dir);
}
