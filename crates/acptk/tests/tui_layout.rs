//! The terminal UI at 120x40, 80x24 and 60x20 (and shorter): toasts never cover or squeeze
//! the conversation, the status line and key hints shorten by priority and always say how
//! to quit.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/tui.rs"]
mod tui;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk::commands::client::tui::app::AppState;
use acptk::commands::client::tui::key::Key;
use acptk::commands::client::tui::layout::MIN_TEXT_WIDTH;
use acptk_notice_center::render::tui::Theme;
use acptk_notice_center::{IncomingNotice, NoticeCenter, Severity};
use acptk_runtime::client::Transcript;
use acptk_runtime::client::transcript::Role;
use tui::screen;

const SIZES: [(u16, u16); 3] = [(120, 40), (80, 24), (60, 20)];

/// A client with a conversation of `words` numbered words (`w0 w1 ...`) and `toasts`
/// warnings with descriptions.
fn app(words: usize, toasts: usize) -> AppState {
    let mut transcript = Transcript::default();
    transcript.push_user_message("s1", "hello");
    let text: Vec<String> = (0..words).map(|n| format!("w{n}")).collect();
    transcript.append_chunk("s1", Role::Agent, Some("m1"), &text.join(" "));
    let center = Arc::new(Mutex::new(NoticeCenter::default()));
    for n in 0..toasts {
        center.lock().unwrap().push(
            "s1",
            IncomingNotice::new(Severity::Warning, &format!("Disk {n} almost full"))
                .with_description("95% used"),
            Duration::from_secs(n as u64),
        );
    }
    let mut app = AppState::new(
        1,
        Arc::new(Mutex::new(transcript)),
        Some(center),
        Theme::monochrome(),
    );
    app.session = Some("s1".to_owned());
    app.status.agent = Some("acp-example-agent".to_owned());
    app.status.mode = Some("Code".to_owned());
    app.status.model = Some("Large".to_owned());
    app.status.message = Some("connected".to_owned());
    app
}

/// The conversation's rows: from the top border to the line before its bottom border.
fn conversation_rows(screen: &[String]) -> Vec<String> {
    let bottom = screen
        .iter()
        .position(|row| row.starts_with('└'))
        .expect("the conversation box");
    screen[1..bottom].to_vec()
}

#[test]
fn toasts_never_cover_or_squeeze_the_conversation_at_any_size() {
    for (width, height) in SIZES {
        let app = app(40, 2);
        let drawn = screen(&app, width, height);
        let text = drawn.join("\n");
        // Every word of the reply is on screen, whole.
        for n in 0..40 {
            let word = format!("w{n}");
            assert!(
                drawn.iter().any(|row| row
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|piece| piece == word)),
                "{width}x{height}: {word} hidden:\n{text}"
            );
        }
        // The toasts are shown, and never on a row of the conversation's text.
        assert!(
            text.contains("Disk 0 almost full"),
            "{width}x{height}:\n{text}"
        );
        assert!(
            text.contains("Disk 1 almost full"),
            "{width}x{height}:\n{text}"
        );
        for row in conversation_rows(&drawn) {
            if let Some(at) = row.find("Disk") {
                let column = row[..at].chars().count();
                assert!(
                    column > usize::from(MIN_TEXT_WIDTH),
                    "{width}x{height}: a toast at column {column}, over or beside squeezed text:\n{text}"
                );
            }
        }
        // Where the toasts sit beside the text, the text keeps its readable width.
        let widest = conversation_rows(&drawn)
            .iter()
            .filter(|row| row.contains("w1"))
            .map(|row| row.trim_end_matches([' ', '│']).chars().count())
            .max()
            .unwrap();
        assert!(
            widest >= usize::from(MIN_TEXT_WIDTH).min(usize::from(width) - 4),
            "{width}x{height}: the text is {widest} columns wide:\n{text}"
        );
    }
}

#[test]
fn how_to_quit_is_always_visible() {
    for (width, height) in SIZES.into_iter().chain([(40, 12)]) {
        let mut app = app(10, 1);
        let drawn = screen(&app, width, height);
        let last = drawn.last().unwrap();
        assert!(last.contains("^C quit"), "{width}x{height}: {last}");
        // While a turn runs, Ctrl-C cancels it and Ctrl-Q quits: both are said.
        app.status.busy = true;
        let drawn = screen(&app, width, height);
        let last = drawn.last().unwrap();
        assert!(
            last.contains("^C cancel ^Q quit"),
            "{width}x{height}: {last}"
        );
        // The status line keeps what matters most: the turn running, then the message.
        let status = &drawn[drawn.len() - 2];
        assert!(status.contains("working..."), "{width}x{height}: {status}");
    }
    // Wide enough, everything is there.
    let drawn = screen(&app(10, 0), 200, 30);
    let status = &drawn[28];
    for part in [
        "ACP v1",
        "notices: advertised",
        "unread: 0",
        "mode: Code",
        "model: Large",
        "agent: acp-example-agent",
        "connected",
    ] {
        assert!(status.contains(part), "{part:?} missing: {status}");
    }
    let help = &drawn[29];
    for part in [
        "Enter send",
        "^J new line",
        "^N notices",
        "PgUp/Dn scroll",
        "^G agent pane",
        "^T thoughts",
        "^O tool output",
        "^C quit",
    ] {
        assert!(help.contains(part), "{part:?} missing: {help}");
    }
    // Narrow, the less important parts go first.
    let drawn = screen(&app(10, 0), 60, 20);
    assert!(
        !drawn[18].contains("agent: acp-example-agent"),
        "{}",
        drawn[18]
    );
    assert!(drawn[18].contains("ACP v1"), "{}", drawn[18]);
}

#[test]
fn at_80_columns_the_key_hints_name_the_agent_pane() {
    // The agent pane (Ctrl-G) is where the agent's standard error goes: nothing else on the
    // screen points to it, so the key hints must, at 80 columns with notices on, idle or
    // during a turn; and beside it what a new user needs first.
    let mut app = app(10, 0);
    for busy in [false, true] {
        app.status.busy = busy;
        let drawn = screen(&app, 80, 24);
        let help = drawn.last().unwrap();
        assert!(help.contains("^G agent pane"), "busy {busy}: {help}");
        for part in ["Enter send", "^N notices", "PgUp/Dn scroll"] {
            assert!(help.contains(part), "busy {busy}: {part:?} missing: {help}");
        }
    }
    app.status.busy = false;
    let help = screen(&app, 80, 24).last().unwrap().clone();
    assert!(help.contains("^J new line"), "{help}");
    assert!(help.contains("^C quit"), "{help}");
}

#[test]
fn on_a_short_screen_toasts_fold_into_the_status_line() {
    let app = app(10, 2);
    let drawn = screen(&app, 60, 12);
    let text = drawn.join("\n");
    let status = &drawn[10];
    assert!(
        status.contains("[!] Warning: Disk 0 almost full (+1 more)"),
        "{text}"
    );
    for row in conversation_rows(&drawn) {
        assert!(!row.contains("almost full"), "{text}");
    }
}

#[test]
fn the_strip_says_how_many_toasts_it_could_not_show() {
    let app = app(10, 5);
    let drawn = screen(&app, 80, 24);
    let text = drawn.join("\n");
    // Three toasts are visible at once by default: the strip shows them, one line each.
    assert!(
        text.contains("[!] Warning: Disk 0 almost full - 95% used"),
        "{text}"
    );
    assert!(text.contains("[!] Warning: Disk 2 almost full"), "{text}");
    assert!(!text.contains("Disk 3"), "{text}");
    // Dismissing one lets the next in.
    let mut app = app;
    app.on_key(Key::Esc, Duration::from_secs(10));
    let text = screen(&app, 80, 24).join("\n");
    assert!(!text.contains("Disk 0"), "{text}");
    assert!(text.contains("Disk 3 almost full"), "{text}");
}

#[test]
fn the_open_notice_list_takes_the_place_of_a_narrow_conversation() {
    let mut app = app(10, 1);
    app.on_key(Key::Ctrl('n'), Duration::ZERO);
    for (width, height) in SIZES {
        let text = screen(&app, width, height).join("\n");
        assert!(text.contains("Notices (1)"), "{width}x{height}:\n{text}");
        assert!(
            text.contains("[!] Warning: Disk 0 almost full"),
            "{width}x{height}:\n{text}"
        );
        // Beside the conversation only when there is room for both.
        assert_eq!(
            text.contains("Conversation"),
            width >= 100,
            "{width}x{height}:\n{text}"
        );
    }
}
