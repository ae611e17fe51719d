//! The ratatui widgets, drawn into a `TestBackend`.
#![cfg(feature = "ratatui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

mod support;

use acptk_notice_center::render::tui::{NoticePanel, Theme, ToastStack};
use acptk_notice_center::{IncomingNotice, NoticeCenter, Severity};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use support::{plain_policy, secs};

fn center_with_three() -> NoticeCenter {
    let mut center = NoticeCenter::new(plain_policy().build());
    center.push(
        "s1",
        IncomingNotice::new(Severity::Warning, "MCP server unavailable")
            .with_description("Continuing without it."),
        secs(0),
    );
    center.push(
        "s1",
        IncomingNotice::new(Severity::Error, "Build failed"),
        secs(1),
    );
    center.push(
        "s1",
        IncomingNotice::new(Severity::from_wire("_x"), "Odd one"),
        secs(2),
    );
    center
}

fn draw(center: &NoticeCenter, theme: Theme, width: u16, height: u16, panel: bool) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            let area = Rect::new(0, 0, width, height);
            if panel {
                frame.render_widget(NoticePanel::new(center, "s1", theme), area);
            } else {
                frame.render_widget(ToastStack::new(center, theme), area);
            }
        })
        .unwrap();
    terminal.backend().buffer().clone()
}

fn rows(buffer: &Buffer) -> Vec<String> {
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn toast_stack_draws_each_visible_toast() {
    let center = center_with_three();
    let buffer = draw(&center, Theme::monochrome(), 34, 11, false);
    assert_eq!(
        rows(&buffer),
        [
            "╭ [!] Warning ───────────────────╮",
            "│MCP server unavailable          │",
            "│Continuing without it.          │",
            "╰────────────────────────────────╯",
            "┏ [X] Error ━━━━━━━━━━━━━━━━━━━━━┓",
            "┃Build failed                    ┃",
            "┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛",
            "╭ [-] Notice ────────────────────╮",
            "│Odd one                         │",
            "╰────────────────────────────────╯",
            "                                  ",
        ]
    );
}

#[test]
fn toasts_that_do_not_fit_are_left_out_and_text_is_cut() {
    let center = center_with_three();
    let buffer = draw(&center, Theme::monochrome(), 16, 6, false);
    assert_eq!(
        rows(&buffer),
        [
            "╭ [!] Warning ─╮",
            "│MCP server un…│",
            "│Continuing wi…│",
            "╰──────────────╯",
            "                ",
            "                ",
        ]
    );
}

#[test]
fn colour_marks_severity_unless_no_color() {
    let center = center_with_three();
    let colored = draw(&center, Theme::colored(), 34, 11, false);
    assert_eq!(colored[(0, 0)].fg, Color::Yellow);
    assert_eq!(
        colored[(2, 0)].fg,
        Color::Yellow,
        "the word is coloured too"
    );
    assert_eq!(colored[(0, 4)].fg, Color::Red);
    assert!(
        colored[(2, 4)].modifier.contains(Modifier::BOLD),
        "errors are prominent"
    );
    assert_eq!(
        colored[(0, 7)].fg,
        Color::Reset,
        "unknown severity is neutral"
    );
    assert!(
        colored[(1, 1)].modifier.contains(Modifier::BOLD),
        "titles are bold"
    );

    let plain = draw(&center, Theme::from_no_color(Some("1")), 34, 11, false);
    for y in 0..11 {
        for x in 0..34 {
            assert_eq!(plain[(x, y)].fg, Color::Reset, "no colour at {x},{y}");
        }
    }
    // Without colour the error still stands out by its border and bold heading.
    assert_eq!(plain[(0, 4)].symbol(), "┏");
    assert!(plain[(2, 4)].modifier.contains(Modifier::BOLD));
}

#[test]
fn panel_lists_entries_newest_first() {
    let mut center = center_with_three();
    center.dismiss_all(secs(3));
    center.push(
        "s1",
        IncomingNotice::new(Severity::Info, "Odd one?"),
        secs(4),
    );
    let buffer = draw(&center, Theme::monochrome(), 40, 6, true);
    assert_eq!(
        rows(&buffer),
        [
            "┌ Notices (4) ─────────────────────────┐",
            "│[i] Info: Odd one?                    │",
            "│[-] Notice: Odd one                   │",
            "│[X] Error: Build failed               │",
            "│[!] Warning: MCP server unavailable -…│",
            "└──────────────────────────────────────┘",
        ]
    );
    let colored = draw(&center, Theme::colored(), 40, 6, true);
    assert_eq!(colored[(1, 1)].fg, Color::Cyan);
    assert_eq!(
        colored[(12, 1)].fg,
        Color::Reset,
        "the agent's text is not coloured"
    );
}

#[test]
fn panel_for_an_unknown_session_is_empty() {
    let center = NoticeCenter::default();
    let buffer = draw(&center, Theme::monochrome(), 20, 3, true);
    assert_eq!(
        rows(&buffer),
        [
            "┌ Notices (0) ─────┐",
            "│                  │",
            "└──────────────────┘"
        ]
    );
}

#[test]
fn no_color_is_read_from_a_value() {
    assert!(Theme::from_no_color(None).color);
    assert!(Theme::from_no_color(Some("")).color);
    assert!(!Theme::from_no_color(Some("yes")).color);
}
