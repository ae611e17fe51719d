//! What the terminal UI draws of the agent's content: Markdown messages (hostile text stays
//! harmless), thoughts dimmed and foldable, tool calls as blocks with diffs and terminal
//! output, the client's answers where they were given, and the line cache that keeps frames
//! cheap.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a failing test may panic

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk::commands::client::render::plain::event_line;
use acptk::commands::client::render::theme::Look;
use acptk::commands::client::render::tool_block::FOLDED_LINES;
use acptk::commands::client::shared::events::ClientEvent;
use acptk::commands::client::shared::events::DecidedBy;
use acptk::commands::client::tui::app::AppState;
use acptk::commands::client::tui::key::Key;
use acptk::commands::client::tui::placed::PlacedEvents;
use acptk::commands::client::tui::view::render;
use acptk_notice_center::render::tui::Theme;
use acptk_runtime::client::transcript::Role;
use acptk_runtime::client::{
    CreateTerminal, LocalTerminals, SessionScope, TerminalRef, Terminals, Transcript,
};
use acptk_schema::v1;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const WIDTH: u16 = 80;
const HEIGHT: u16 = 40;

fn app_with(theme: Theme, build: impl FnOnce(&mut Transcript)) -> AppState {
    let mut transcript = Transcript::default();
    build(&mut transcript);
    let mut app = AppState::new(1, Arc::new(Mutex::new(transcript)), None, theme);
    app.session = Some("s1".to_owned());
    app
}

fn agent_says(text: &str) -> AppState {
    app_with(Theme::colored(), |transcript| {
        transcript.append_chunk("s1", Role::Agent, Some("m1"), text);
    })
}

fn draw(app: &AppState) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    terminal.draw(|frame| render(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn rows(buffer: &Buffer) -> Vec<String> {
    (0..HEIGHT)
        .map(|y| (0..WIDTH).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

/// The cell where `needle` starts (its first character), if drawn.
fn find(buffer: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let rows = rows(buffer);
    rows.iter().enumerate().find_map(|(y, row)| {
        let at = row.find(needle)?;
        Some((
            u16::try_from(row[..at].chars().count()).unwrap(),
            u16::try_from(y).unwrap(),
        ))
    })
}

fn assert_drawn(buffer: &Buffer, needles: &[&str]) {
    let text = rows(buffer).join("\n");
    for needle in needles {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
}

#[test]
fn markdown_is_drawn_with_headings_emphasis_lists_code_and_links() {
    let app = agent_says(
        "# Plan\n\nI will *edit* the **main** file, `main.rs`:\n\n1. read it\n2. change it\n   - carefully\n\n> quoted\n\n```rust\nfn main() {\n    run();\n}\n```\n\nSee [the docs](https://example.org/docs) or <https://example.org>.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done",
    );
    let buffer = draw(&app);
    assert_drawn(
        &buffer,
        &[
            "Agent: Plan",
            "I will edit the main file, main.rs:",
            "1. read it",
            "2. change it",
            "   • carefully",
            "> quoted",
            "│ rust",
            "│ fn main() {",
            "│     run();",
            "See the docs (https://example.org/docs) or https://example.org.",
            "a | b",
            "1 | 2",
            "• [x] done",
        ],
    );
    // No Markdown syntax is left over.
    let text = rows(&buffer).join("\n");
    for syntax in [
        "# Plan",
        "*edit*",
        "**main**",
        "`main.rs`",
        "```",
        "](",
        "|---",
    ] {
        assert!(!text.contains(syntax), "{syntax:?} left:\n{text}");
    }
    // Styles: the heading bold, emphasis italic, strong bold, code in its colour, the link
    // underlined.
    let cell = |needle: &str| {
        let (x, y) = find(&buffer, needle).unwrap();
        buffer[(x, y)].clone()
    };
    assert!(cell("Plan").modifier.contains(Modifier::BOLD));
    assert!(cell("edit").modifier.contains(Modifier::ITALIC));
    assert!(cell("main file").modifier.contains(Modifier::BOLD));
    assert_eq!(cell("main.rs").fg, Color::Yellow);
    assert_eq!(cell("run();").fg, Color::Yellow);
    assert!(cell("the docs").modifier.contains(Modifier::UNDERLINED));
}

#[test]
fn without_colour_code_keeps_its_backticks_and_nothing_is_coloured() {
    let app = app_with(Theme::monochrome(), |transcript| {
        transcript.append_chunk(
            "s1",
            Role::Agent,
            Some("m1"),
            "Run `cargo test` now.\n\n```\nx\n```",
        );
    });
    let buffer = draw(&app);
    assert_drawn(&buffer, &["Agent: Run `cargo test` now.", "│ x"]);
    for cell in buffer.content() {
        assert_eq!(cell.fg, Color::Reset, "{cell:?}");
    }
}

#[test]
fn hostile_agent_text_stays_harmless() {
    let hostile = [
        "link \u{1b}]8;;http://evil.example\u{7}click\u{1b}]8;;\u{7} end",
        "clip \u{1b}]52;c;ZXZpbA==\u{7}board",
        "csi \u{1b}[2J\u{1b}[31mred\u{1b}[0m",
        "c1 \u{9b}31mx",
        "entity &#27;[2J and &#x1b;]52;c;x&#7; and &#x202E;rtl",
        "bidi \u{202E}reversed\u{2066} zero\u{200B}width",
        "<script>alert(1)</script> *still* text",
        "[ok](javascript:alert(1)\u{1b}[2J)",
    ];
    let app = agent_says(&hostile.join("\n\n"));
    let buffer = draw(&app);
    for cell in buffer.content() {
        let symbol = cell.symbol();
        assert!(
            !symbol.chars().any(|c| c.is_control()
                || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}')),
            "a control or bidi character was drawn: {symbol:?}"
        );
    }
    // Raw escape sequences go whole; one that Markdown makes from entities loses its ESC,
    // so no sequence can start, and the rest is shown as the text it is.
    let text = rows(&buffer).join("\n");
    for gone in ["evil.example", "ZXZpbA", "8;;", "c1 31m"] {
        assert!(!text.contains(gone), "{gone:?} drawn:\n{text}");
    }
    assert!(text.contains("entity [2J and ]52;c;x and rtl"), "{text}");
    assert_drawn(
        &buffer,
        &[
            "link click end",
            "clip board",
            "csi red",
            "reversed zerowidth",
            // An HTML block is shown literally, Markdown inside it too.
            "<script>alert(1)</script> *still* text",
            "ok (javascript:alert(1))",
        ],
    );
}

#[test]
fn thoughts_are_dimmed_and_fold_with_ctrl_t() {
    let mut app = app_with(Theme::colored(), |transcript| {
        transcript.append_chunk(
            "s1",
            Role::Thought,
            Some("t"),
            "First I *look*.\nThen I act.",
        );
        transcript.append_chunk("s1", Role::Agent, Some("m"), "Done.");
    });
    let buffer = draw(&app);
    assert_drawn(
        &buffer,
        &["Thinking: First I look. Then I act.", "Agent: Done."],
    );
    let (x, y) = find(&buffer, "First").unwrap();
    assert!(buffer[(x, y)].modifier.contains(Modifier::DIM));
    app.on_key(Key::Ctrl('t'), Duration::ZERO);
    let buffer = draw(&app);
    assert_drawn(&buffer, &["Thinking: First I *look*. ... (Ctrl-T unfolds)"]);
    assert!(!rows(&buffer).join("\n").contains("Then I act"));
    app.on_key(Key::Ctrl('t'), Duration::ZERO);
    assert_drawn(&draw(&app), &["Then I act."]);
    // High contrast: thoughts are not dimmed.
    app.look = Look::new(true, true);
    let buffer = draw(&app);
    let (x, y) = find(&buffer, "First").unwrap();
    assert!(!buffer[(x, y)].modifier.contains(Modifier::DIM));
    assert!(buffer[(x, y)].modifier.contains(Modifier::ITALIC));
}

fn tool(content: Vec<v1::ToolCallContent>, status: v1::ToolCallStatus) -> v1::ReplayableUpdate {
    v1::ReplayableUpdate::ToolCall(Box::new(
        v1::ToolCall::new("t1", "Edit main.rs")
            .status(status)
            .content(content),
    ))
}

#[test]
fn a_tool_call_is_a_block_with_its_status_and_a_coloured_diff_per_file() {
    let old = "fn main() {\n    old();\n}\n";
    let new = "fn main() {\n    new();\n    more();\n}\n";
    let app = app_with(Theme::colored(), |transcript| {
        transcript.apply_v1(
            "s1",
            &tool(
                vec![
                    v1::ToolCallContent::Content(v1::Content::new("Edited one file.")),
                    v1::ToolCallContent::Diff(v1::Diff::new("/r/main.rs", new).old_text(old)),
                    v1::ToolCallContent::Diff(v1::Diff::new("/r/NEW.md", "hello\n")),
                ],
                v1::ToolCallStatus::Failed,
            ),
        );
    });
    let buffer = draw(&app);
    assert_drawn(
        &buffer,
        &[
            "[tool] Edit main.rs (failed)",
            "  │ Edited one file.",
            "  │ /r/main.rs (modify)",
            "  │ @@ -1,3 +1,4 @@",
            "  │  fn main() {",
            "  │ -    old();",
            "  │ +    new();",
            "  │ +    more();",
            "  │ /r/NEW.md (add)",
            "  │ +hello",
        ],
    );
    let (x, y) = find(&buffer, "-    old();").unwrap();
    assert_eq!(buffer[(x, y)].fg, Color::Red);
    let (x, y) = find(&buffer, "+    new();").unwrap();
    assert_eq!(buffer[(x, y)].fg, Color::Green);
    let (x, y) = find(&buffer, "[tool]").unwrap();
    assert_eq!(
        buffer[(x, y)].fg,
        Color::Red,
        "a failed call is red, and says so"
    );
}

/// A diff with changes far apart is drawn as separate hunks, each with its own `@@` header
/// (from line 1, with the lengths it covers) and two lines of context; a last line without a
/// newline and a deleted tail are drawn like any other line.
#[test]
fn a_diff_with_changes_far_apart_is_drawn_as_separate_hunks() {
    let old: String = (1..=14).map(|n| format!("line {n}\n")).collect();
    let new = old
        .replace("line 2\n", "line two\n")
        .replace("line 12\nline 13\nline 14\n", "line 12\nline thirteen");
    let mut app = app_with(Theme::monochrome(), |transcript| {
        transcript.apply_v1(
            "s1",
            &tool(
                vec![v1::ToolCallContent::Diff(
                    v1::Diff::new("/r/lines.txt", new.as_str()).old_text(old.as_str()),
                )],
                v1::ToolCallStatus::Completed,
            ),
        );
    });
    app.on_key(Key::Ctrl('o'), Duration::ZERO);
    let drawn = rows(&draw(&app));
    let head = drawn
        .iter()
        .position(|row| row.contains("/r/lines.txt (modify)"))
        .unwrap();
    // The rows inside the screen's frame, without their padding.
    let diff: Vec<&str> = drawn[head + 1..head + 15]
        .iter()
        .map(|row| {
            let row = row.strip_prefix('│').unwrap_or(row);
            row.trim_end().trim_end_matches('│').trim_end()
        })
        .collect();
    assert_eq!(
        diff,
        [
            "  │ @@ -1,4 +1,4 @@",
            "  │  line 1",
            "  │ -line 2",
            "  │ +line two",
            "  │  line 3",
            "  │  line 4",
            "  │ @@ -11,4 +11,3 @@",
            "  │  line 11",
            "  │  line 12",
            "  │ -line 13",
            "  │ -line 14",
            "  │ +line thirteen",
        ]
        .iter()
        .chain(&[""; 2])
        .copied()
        .collect::<Vec<_>>()
    );
}

#[test]
fn long_tool_output_is_folded_until_ctrl_o() {
    let lines: Vec<String> = (1..=30).map(|n| format!("result line {n}")).collect();
    let mut app = app_with(Theme::monochrome(), |transcript| {
        transcript.apply_v1(
            "s1",
            &tool(
                vec![v1::ToolCallContent::Content(v1::Content::new(
                    lines.join("\n").as_str(),
                ))],
                v1::ToolCallStatus::Completed,
            ),
        );
    });
    let hidden = 30 - FOLDED_LINES;
    let buffer = draw(&app);
    assert_drawn(
        &buffer,
        &[
            "result line 1",
            &format!("result line {FOLDED_LINES}"),
            &format!("... {hidden} more lines (Ctrl-O shows all)"),
        ],
    );
    assert!(!rows(&buffer).join("\n").contains("result line 30"));
    app.on_key(Key::Ctrl('o'), Duration::ZERO);
    let buffer = draw(&app);
    assert_drawn(&buffer, &["result line 30"]);
    assert!(!rows(&buffer).join("\n").contains("more lines"));
}

#[tokio::test]
async fn terminal_output_shows_its_tail_and_how_it_ended_also_after_release() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let scope = SessionScope::new("s1", dir);
    let terminals = LocalTerminals::new();
    let id = terminals
        .create(
            CreateTerminal::new(scope.clone(), "sh").args([
                "-c",
                "i=1; while [ $i -le 20 ]; do echo out $i; i=$((i+1)); done; printf '\\033[2Jgone\\n'; exit 3",
            ])
            // As the runtime marks a command the user allowed.
            .approve(),
        )
        .await
        .unwrap();
    terminals
        .wait_for_exit(TerminalRef::new(scope.clone(), &id))
        .await
        .unwrap();
    let mut app = app_with(Theme::monochrome(), |transcript| {
        transcript.apply_v1(
            "s1",
            &tool(
                vec![v1::ToolCallContent::Terminal(v1::Terminal::new(
                    id.as_str(),
                ))],
                v1::ToolCallStatus::Completed,
            ),
        );
    });
    app.terminals = Some(terminals.clone());
    let buffer = draw(&app);
    assert_drawn(
        &buffer,
        &[
            &format!("  │ terminal {id}"),
            "more lines (Ctrl-O shows all)",
            "  │ out 20",
            "  │ gone",
            "  │ (exit 3)",
        ],
    );
    assert!(!rows(&buffer).join("\n").contains("out 5\n"));
    // Released by the agent: the output is still shown; unfolded, all of it.
    terminals
        .release(TerminalRef::new(scope, &id))
        .await
        .unwrap();
    app.on_key(Key::Ctrl('o'), Duration::ZERO);
    assert_drawn(&draw(&app), &["  │ out 1", "  │ out 20", "  │ (exit 3)"]);
}

#[test]
fn each_entry_is_rendered_once_until_it_changes() {
    let app = app_with(Theme::colored(), |transcript| {
        for n in 0..200 {
            transcript.push_user_message("s1", &format!("question {n}"));
            transcript.append_chunk("s1", Role::Agent, None, &format!("**answer** {n}"));
        }
    });
    draw(&app);
    let first = app.entries_rendered();
    // Only what fits on the screen is rendered, not the whole conversation.
    assert!(first > 0 && first < 60, "{first} entries rendered");
    draw(&app);
    assert_eq!(
        app.entries_rendered(),
        first,
        "a second frame renders nothing"
    );
    // More text in the last message: that entry alone is rendered again.
    app.transcript
        .lock()
        .unwrap()
        .append_chunk("s1", Role::Agent, None, " and more");
    let buffer = draw(&app);
    assert_eq!(app.entries_rendered(), first + 1);
    assert_drawn(&buffer, &["Agent: answer 199 and more"]);
}

/// The row of `buffer` where `needle` is drawn.
fn row(buffer: &Buffer, needle: &str) -> u16 {
    find(buffer, needle)
        .unwrap_or_else(|| panic!("{needle:?} missing:\n{}", rows(buffer).join("\n")))
        .1
}

#[test]
fn answers_are_drawn_where_they_were_given_not_where_the_loop_took_them() {
    let app = app_with(Theme::colored(), |transcript| {
        transcript.push_user_message("s1", "write the report");
        transcript.apply_v1(
            "s1",
            &v1::ReplayableUpdate::ToolCall(Box::new(
                v1::ToolCall::new("w1", "Write the report").status(v1::ToolCallStatus::Pending),
            )),
        );
    });
    let mut app = app;
    // A frame while the agent waits for the answer (the block is kept in the line cache).
    draw(&app);
    let events = PlacedEvents::new(app.transcript.clone());
    // The answer, recorded as the handler gives it (before the agent hears it).
    events.record(&ClientEvent::Permission {
        session: "s1".to_owned(),
        tool_call_id: Some("w1".to_owned()),
        title: "Write the report".to_owned(),
        tool_kind: Some("edit".to_owned()),
        choice: Some((
            "yes".to_owned(),
            "Yes, write it".to_owned(),
            "allow_once".to_owned(),
        )),
        by: DecidedBy::User,
    });
    // Then what the agent sends once answered, all of it before the event loop looks: the
    // tool call's result, a message, a file write during a second step, another message.
    {
        let mut transcript = app.transcript.lock().unwrap();
        transcript.apply_v1(
            "s1",
            &v1::ReplayableUpdate::ToolCallUpdate(Box::new(
                v1::ToolCallUpdate::new("w1")
                    .status(v1::ToolCallStatus::Completed)
                    .content(vec![v1::ToolCallContent::Content(v1::Content::new(
                        "report.md written",
                    ))]),
            )),
        );
        transcript.append_chunk("s1", Role::Agent, Some("m1"), "The report is ready.");
    }
    events.record(&ClientEvent::FileWrite {
        session: "s1".to_owned(),
        path: "/work/summary.md".to_owned(),
        bytes: 12,
        allowed: true,
        reason: None,
    });
    app.transcript
        .lock()
        .unwrap()
        .append_chunk("s1", Role::Agent, Some("m2"), "And a summary.");
    // The loop takes the events late, and a note of its own comes before them.
    app.note("a note of the loop");
    for placed in events.take() {
        app.note_at(placed.after, placed.within, event_line(&placed.event));
    }
    let buffer = draw(&app);
    let header = row(&buffer, "[tool] Write the report (completed)");
    let permission = row(
        &buffer,
        "  │ [permission] Write the report [edit] -> Yes, write it",
    );
    let result = row(&buffer, "  │ report.md written");
    let ready = row(&buffer, "Agent: The report is ready.");
    let write = row(&buffer, "-- [write] /work/summary.md (12 bytes) written --");
    let summary = row(&buffer, "Agent: And a summary.");
    let loop_note = row(&buffer, "-- a note of the loop --");
    let text = rows(&buffer).join("\n");
    assert!(
        header < permission && permission < result && result < ready,
        "the answer goes under the tool call's header, before its result:\n{text}"
    );
    assert!(
        ready < write && write < summary && summary < loop_note,
        "the write goes where it happened, the loop's note after everything:\n{text}"
    );
}
