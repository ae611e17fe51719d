//! acp client's terminal UI: the time to draw one frame, and the memory it takes, with a
//! 10,000-event conversation (Markdown messages, thoughts, tool calls with diffs, notices)
//! drawn into ratatui's `TestBackend` at 120x40.
//!
//! `cargo bench -p acptk --bench tui_frame` (under `cargo test --benches` it runs a small
//! smoke version).
//!
//! Measured in one run:
//! * the first frame (nothing drawn yet), at the end of the conversation;
//! * steady frames at the end (nothing changed), the usual idle redraw;
//! * streaming frames: each frame adds a chunk to the last agent message, so that entry is
//!   parsed and drawn again (what a frame costs while the agent writes);
//! * frames scrolled 5,000 lines up: the first (every entry below the view is drawn once to
//!   count its lines), then steady;
//! * side by side, a whole-conversation render: every entry drawn again, as a frame cost
//!   before the line cache (the UI drew every entry on every frame).
//!
//! Memory comes from a counting global allocator: the heap the transcript takes, what the
//! line cache adds at the end of the conversation and scrolled up, and the peak.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acptk::commands::client::tui::app::AppState;
use acptk::commands::client::tui::conversation::all_lines;
use acptk::commands::client::tui::key::Key;
use acptk::commands::client::tui::view::render;
use acptk_notice_center::render::tui::Theme;
use acptk_notice_center::{IncomingNotice, NoticeCenter, Severity};
use acptk_runtime::client::Transcript;
use acptk_runtime::client::transcript::Role;
use acptk_schema::v1;
use peak_alloc::PeakAlloc;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

/// The bytes on the heap now.
fn heap() -> usize {
    ALLOC.current_usage()
}

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn agent_text(n: usize) -> String {
    format!(
        "## Step {n}\n\nI looked at `src/module_{n}.rs` and found **two** things to *change*:\n\n\
         1. the parser drops a field when the input is empty;\n\
         2. the error names the wrong path.\n\n\
         ```rust\nfn parse(input: &str) -> Result<Value, Error> {{\n    let value = decode(input)?;\n    Ok(value)\n}}\n```\n\n\
         See [the guide](https://example.org/guide/{n}) for the format. The fix is small and \
         keeps the public API as it is; the tests cover both cases now."
    )
}

fn file_text(n: usize, changed: bool) -> String {
    (0..20)
        .map(|line| {
            if changed && (line == 5 || line == 12) {
                format!("    let changed_{line} = compute({n}, {line});\n")
            } else {
                format!("    let value_{line} = compute({n}, {line});\n")
            }
        })
        .collect()
}

/// A client whose conversation has `entries` entries (a quarter each: prompts, Markdown
/// replies, thoughts, tool calls with a diff) and `notices` notices.
fn client(entries: usize, notices: usize) -> AppState {
    let mut transcript = Transcript::new(entries.max(1));
    for n in 0..entries / 4 {
        transcript.push_user_message("s1", &format!("Please fix issue {n} in the parser."));
        transcript.append_chunk(
            "s1",
            Role::Thought,
            None,
            &format!(
                "The user wants issue {n} fixed. I should **read** the module first, then edit it."
            ),
        );
        let call = v1::ToolCall::new(format!("t{n}"), format!("Edit src/module_{n}.rs"))
            .status(v1::ToolCallStatus::Completed)
            .content(vec![v1::ToolCallContent::Diff(
                v1::Diff::new(format!("/repo/src/module_{n}.rs"), file_text(n, true))
                    .old_text(file_text(n, false)),
            )]);
        transcript.apply_v1("s1", &v1::ReplayableUpdate::ToolCall(Box::new(call)));
        transcript.append_chunk("s1", Role::Agent, None, &agent_text(n));
    }
    let center = Arc::new(Mutex::new(NoticeCenter::default()));
    for n in 0..notices {
        let severity = [Severity::Info, Severity::Warning, Severity::Error][n % 3].clone();
        center.lock().unwrap().push(
            "s1",
            IncomingNotice::new(severity, &format!("Notice {n}")).with_description("Details."),
            Duration::from_millis(n as u64 * 10),
        );
    }
    let mut app = AppState::new(
        1,
        Arc::new(Mutex::new(transcript)),
        Some(center),
        Theme::colored(),
    );
    app.session = Some("s1".to_owned());
    app.status.agent = Some("bench".to_owned());
    app
}

/// Times `frames` frames; each first runs `change`. Per-frame times, sorted.
fn frames(
    terminal: &mut Terminal<TestBackend>,
    app: &mut AppState,
    frames: usize,
    mut change: impl FnMut(&mut AppState, usize),
) -> Vec<Duration> {
    let mut times = Vec::with_capacity(frames);
    for n in 0..frames {
        change(app, n);
        let start = Instant::now();
        terminal.draw(|frame| render(frame, app)).unwrap();
        times.push(start.elapsed());
    }
    times.sort();
    times
}

fn ms(time: Duration) -> String {
    format!("{:.3} ms", time.as_secs_f64() * 1000.0)
}

/// Median, 99th percentile and mean of sorted times.
fn summary(times: &[Duration]) -> (Duration, Duration, Duration) {
    let median = times[times.len() / 2];
    let p99 = times[(times.len() * 99 / 100).min(times.len() - 1)];
    let mean = times.iter().sum::<Duration>() / u32::try_from(times.len()).unwrap();
    (median, p99, mean)
}

fn row(what: &str, times: &[Duration]) {
    let (median, p99, mean) = summary(times);
    println!(
        "| {what} | {} | {} | {} | {} |",
        times.len(),
        ms(median),
        ms(p99),
        ms(mean)
    );
}

fn main() {
    let full = std::env::args().any(|arg| arg == "--bench");
    let (entries, notices, steady) = if full {
        (10_000, 300, 500)
    } else {
        (400, 10, 10)
    };
    ALLOC.reset_peak_usage();
    let before = heap();
    let mut app = client(entries, notices);
    let transcript_heap = heap() - before;
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();

    println!("tui_frame: {entries} entries + {notices} notices, {WIDTH}x{HEIGHT}");
    println!();
    println!("| frame | frames | median | p99 | mean |");
    println!("|---|---:|---:|---:|---:|");
    let first = frames(&mut terminal, &mut app, 1, |_, _| {});
    row("first frame, end of the conversation", &first);
    let at_end_heap = heap() - before;
    let idle = frames(&mut terminal, &mut app, steady, |_, _| {});
    row("steady, end of the conversation", &idle);
    let streaming = frames(&mut terminal, &mut app, steady, |app, n| {
        app.transcript.lock().unwrap().append_chunk(
            "s1",
            Role::Agent,
            None,
            if n % 10 == 9 {
                "\n\nA new paragraph with `code`."
            } else {
                " more words"
            },
        );
    });
    row("streaming: the last message grows each frame", &streaming);
    let scrolled_first = frames(&mut terminal, &mut app, 1, |app, _| {
        app.scroll = entries / 2;
    });
    row(
        &format!("first frame scrolled {} lines up", entries / 2),
        &scrolled_first,
    );
    let scrolled_heap = heap() - before;
    let scrolled = frames(&mut terminal, &mut app, steady, |_, _| {});
    row(
        &format!("steady, scrolled {} lines up", entries / 2),
        &scrolled,
    );
    // The whole conversation drawn again on each frame (as before the line cache): the cache
    // is emptied by drawing at two widths in turn.
    app.on_key(Key::ScrollBottom, Duration::ZERO);
    let rounds = if full { 5 } else { 2 };
    let mut whole = Vec::new();
    let mut lines = 0;
    for n in 0..rounds {
        let start = Instant::now();
        lines = all_lines(&app, usize::from(WIDTH) - 2 - n % 2).len();
        whole.push(start.elapsed());
    }
    whole.sort();
    row(&format!("every entry drawn again ({lines} lines)"), &whole);
    let (steady_median, _, _) = summary(&idle);
    let (stream_median, _, _) = summary(&streaming);
    let (whole_median, _, _) = summary(&whole);
    println!();
    println!(
        "ratio, whole redraw / steady frame: {:.0}x; whole redraw / streaming frame: {:.0}x",
        whole_median.as_secs_f64() / steady_median.as_secs_f64(),
        whole_median.as_secs_f64() / stream_median.as_secs_f64()
    );
    println!(
        "heap: transcript and notices {}, with the lines drawn at the end {}, scrolled {} lines up {}, peak {}",
        mib(transcript_heap),
        mib(at_end_heap),
        entries / 2,
        mib(scrolled_heap),
        mib(ALLOC.peak_usage().saturating_sub(before))
    );
    let target = Duration::from_millis(2);
    println!(
        "target under 2 ms per frame: steady {}, streaming {}",
        if steady_median < target {
            "met"
        } else {
            "MISSED"
        },
        if stream_median < target {
            "met"
        } else {
            "MISSED"
        }
    );
}
