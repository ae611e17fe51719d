//! `acptk-runtime` against the official `agent-client-protocol` runtime, side by side in one run:
//! `session/update` throughput (messages/s, from the agent's first send to the client's receipt
//! of the last message) and notice delivery latency (from the agent's send call to the client's
//! receipt of that notice; p50, p99), over an in-memory pipe (`tokio::io::duplex`) and over OS
//! pipes to a child process, each runtime's agent talking to the same runtime's client.
//!
//! ```text
//! acptk-runtime-bench [--count N] [--runs R] [--seed S] [--paced-count M] [--pace-us P]
//!                   [--only in-memory|os-pipe] [--side ours|theirs|both]
//! acptk-runtime-bench peer ours|theirs LOG_FILE COUNT SEED PACE_US   (the child process)
//! acptk-runtime-bench store [--updates N] [--runs R] [--seed S] [--postgres URL]
//!                         [--cluster] [--sessions S] [--per-session M]  (the session stores)
//! acptk-runtime-bench store-instance file DIR|sqlite PATH|postgres URL  (a cluster instance)
//! ```
//!
//! "flood" runs send as fast as each runtime accepts messages (its notice latency includes the
//! queueing behind the flood); "paced" runs send one message per `--pace-us` (default 1 ms), as
//! a model's stream does, which shows the delivery latency itself.

mod ours;
mod store;
mod store_cluster;
mod theirs;
mod timing;
mod workload;

use std::process::ExitCode;
use std::time::Duration;

use timing::{RunFigures, median, quantile};
use workload::Workload;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Capacity of the in-memory pipe of both runtimes.
pub const DUPLEX_BYTES: usize = 64 * 1024;

/// A send-log file for the peer process of one run.
pub fn peer_log_path(side: &str) -> String {
    std::env::temp_dir()
        .join(format!(
            "acptk-runtime-bench-{side}-{}-{}.log",
            std::process::id(),
            timing::now_ns()
        ))
        .to_string_lossy()
        .into_owned()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    InMemory,
    OsPipe,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::InMemory => "in-memory",
            Transport::OsPipe => "os-pipe",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours,
    Theirs,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Ours => "acptk-runtime",
            Side::Theirs => "agent-client-protocol 5.2.0",
        }
    }
}

#[derive(Debug, Clone)]
struct Options {
    count: usize,
    runs: usize,
    seed: u64,
    paced_count: usize,
    pace: Duration,
    transports: Vec<Transport>,
    sides: Vec<Side>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut options = Options {
            count: 100_000,
            runs: 5,
            seed: 7,
            paced_count: 10_000,
            pace: Duration::from_millis(1),
            transports: vec![Transport::InMemory, Transport::OsPipe],
            sides: vec![Side::Ours, Side::Theirs],
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|error| format!("{flag} {value}: {error}"))
            };
            match flag.as_str() {
                "--count" => options.count = number()?.max(1) as usize,
                "--runs" => options.runs = number()?.max(1) as usize,
                "--seed" => options.seed = number()?,
                "--paced-count" => options.paced_count = number()? as usize,
                "--pace-us" => options.pace = Duration::from_micros(number()?.max(1)),
                "--only" => {
                    options.transports = match value.as_str() {
                        "in-memory" => vec![Transport::InMemory],
                        "os-pipe" => vec![Transport::OsPipe],
                        other => return Err(format!("unknown transport {other}")),
                    }
                }
                "--side" => {
                    options.sides = match value.as_str() {
                        "ours" => vec![Side::Ours],
                        "theirs" => vec![Side::Theirs],
                        "both" => vec![Side::Ours, Side::Theirs],
                        other => return Err(format!("unknown side {other}")),
                    }
                }
                other => return Err(format!("unknown option {other}")),
            }
        }
        Ok(options)
    }
}

async fn run_once(
    side: Side,
    transport: Transport,
    workload: Workload,
) -> Result<RunFigures, BoxError> {
    // Each side runs in a spawned task, so both runtimes' clients run on the worker threads.
    let (sent, received) = match (side, transport) {
        (Side::Ours, Transport::InMemory) => tokio::spawn(ours::in_memory(workload)).await??,
        (Side::Ours, Transport::OsPipe) => tokio::spawn(ours::os_pipe(workload)).await??,
        (Side::Theirs, Transport::InMemory) => tokio::spawn(theirs::in_memory(workload)).await??,
        (Side::Theirs, Transport::OsPipe) => tokio::spawn(theirs::os_pipe(workload)).await??,
    };
    Ok(RunFigures::new(workload.count, &sent, &received)?)
}

/// The figures of one runtime on one transport.
#[derive(Debug, Default)]
struct Row {
    throughputs: Vec<f64>,
    flood_p50: Vec<f64>,
    flood_p99: Vec<f64>,
    paced_p50: f64,
    paced_p99: f64,
}

fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|model| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    format!("{cpus} CPUs, {model}")
}

async fn bench(options: Options) -> Result<(), BoxError> {
    println!("acptk-runtime vs agent-client-protocol: session/update stream, ACP v1");
    println!("machine: {}", machine());
    println!(
        "flood: {} messages x {} runs per runtime and transport (median shown); paced: {} messages, one per {} us",
        options.count,
        options.runs,
        options.paced_count,
        options.pace.as_micros()
    );
    let flood = Workload {
        count: options.count,
        seed: options.seed,
        pace: None,
    };
    let paced = Workload {
        count: options.paced_count,
        seed: options.seed,
        pace: Some(options.pace),
    };
    let warm_up = Workload {
        count: options.count.min(5_000),
        seed: options.seed,
        pace: None,
    };
    let mut table = Vec::new();
    for &transport in &options.transports {
        let mut rows: Vec<(Side, Row)> = options
            .sides
            .iter()
            .map(|side| (*side, Row::default()))
            .collect();
        for (side, _) in &rows {
            run_once(*side, transport, warm_up).await?;
        }
        for run in 0..options.runs {
            // Alternate the order, so neither side always runs on a warmer machine.
            let order: Vec<usize> = if run % 2 == 0 {
                (0..rows.len()).collect()
            } else {
                (0..rows.len()).rev().collect()
            };
            for index in order {
                let (side, row) = &mut rows[index];
                let figures = run_once(*side, transport, flood).await?;
                eprintln!(
                    "  {:<9} {:<28} run {}: {:>10.0} msg/s",
                    transport.name(),
                    side.name(),
                    run + 1,
                    figures.throughput
                );
                row.throughputs.push(figures.throughput);
                row.flood_p50.push(quantile(&figures.latencies_us, 0.5));
                row.flood_p99.push(quantile(&figures.latencies_us, 0.99));
            }
        }
        if options.paced_count > 0 {
            for (side, row) in &mut rows {
                let figures = run_once(*side, transport, paced).await?;
                row.paced_p50 = quantile(&figures.latencies_us, 0.5);
                row.paced_p99 = quantile(&figures.latencies_us, 0.99);
            }
        }
        table.push((transport, rows));
    }

    println!();
    println!(
        "{:<10} {:<28} {:>12} {:>12} {:>12} {:>13} {:>13}",
        "transport", "runtime", "msg/s", "flood p50", "flood p99", "paced p50", "paced p99"
    );
    for (transport, rows) in &table {
        for (side, row) in rows {
            println!(
                "{:<10} {:<28} {:>12.0} {:>10.0}us {:>10.0}us {:>11.0}us {:>11.0}us",
                transport.name(),
                side.name(),
                median(&row.throughputs),
                median(&row.flood_p50),
                median(&row.flood_p99),
                row.paced_p50,
                row.paced_p99
            );
        }
        if let [(_, ours), (_, theirs)] = rows.as_slice() {
            println!(
                "{:<10} {:<28} {:>11.2}x {:>11.3}x {:>11.3}x {:>12.2}x {:>12.2}x",
                transport.name(),
                "ratio ours/theirs",
                median(&ours.throughputs) / median(&theirs.throughputs),
                median(&ours.flood_p50) / median(&theirs.flood_p50),
                median(&ours.flood_p99) / median(&theirs.flood_p99),
                ours.paced_p50 / theirs.paced_p50,
                ours.paced_p99 / theirs.paced_p99
            );
        }
    }
    println!();
    println!("msg/s: higher is better (target: ours/theirs >= 1.5); latencies: lower is better.");
    Ok(())
}

/// `store [--updates N] [--runs R] [--seed S] [--postgres URL] [--cluster] [--sessions S]
/// [--per-session M]`: the stores side by side, then (with `--cluster`) two instances.
async fn store_bench(args: &[String]) -> Result<(), BoxError> {
    let (mut updates, mut runs, mut seed) = (10_000usize, 5usize, 7u64);
    let (mut cluster, mut sessions, mut per_session) = (false, 200usize, 100usize);
    let mut postgres = None;
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        if flag == "--cluster" {
            cluster = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        if flag == "--postgres" {
            postgres = Some(value.clone());
            continue;
        }
        let number = value
            .parse::<u64>()
            .map_err(|error| format!("{flag} {value}: {error}"))?;
        match flag.as_str() {
            "--updates" => updates = number.max(1) as usize,
            "--runs" => runs = number.max(1) as usize,
            "--seed" => seed = number,
            "--sessions" => sessions = number.max(2) as usize,
            "--per-session" => per_session = number.max(1) as usize,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let postgres = store::postgres_url(postgres);
    store::bench(updates, runs, seed, postgres.clone()).await?;
    if cluster {
        println!();
        store_cluster::bench(sessions, per_session, postgres).await?;
    }
    Ok(())
}

async fn peer(args: &[String]) -> Result<(), BoxError> {
    let [side, log_file, rest @ ..] = args else {
        return Err("peer ours|theirs LOG_FILE COUNT SEED PACE_US".into());
    };
    let workload = Workload::from_args(rest)?;
    match side.as_str() {
        "ours" => ours::peer(workload, log_file.clone()).await,
        "theirs" => theirs::peer(workload, log_file.clone()).await,
        other => Err(format!("unknown side {other}").into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start tokio: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match args.split_first() {
            Some((first, rest)) if first == "peer" => peer(rest).await,
            Some((first, rest)) if first == "store" => store_bench(rest).await,
            Some((first, rest)) if first == "store-instance" => store_cluster::instance(rest).await,
            _ => bench(Options::parse(&args)?).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("acptk-runtime-bench: {error}");
            ExitCode::FAILURE
        }
    }
}
