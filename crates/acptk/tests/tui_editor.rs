//! The terminal UI's prompt editor: every key, pasting, the history (also across runs, in
//! its file), and what the terminal's key events turn into.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/tui.rs"]
mod tui;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk::commands::client::tui::app::{AppState, Command, MAX_INPUT_BYTES};
use acptk::commands::client::tui::history::{self, History, MAX_ENTRIES};
use acptk::commands::client::tui::key::Key;
use acptk::commands::client::tui::terminal::convert_key;
use acptk_notice_center::render::tui::Theme;
use acptk_runtime::client::Transcript;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use tui::screen;

fn app() -> AppState {
    let mut app = AppState::new(
        1,
        Arc::new(Mutex::new(Transcript::default())),
        None,
        Theme::monochrome(),
    );
    app.session = Some("s1".to_owned());
    app
}

fn press(app: &mut AppState, keys: &[Key]) -> Vec<Command> {
    keys.iter()
        .filter_map(|key| app.on_key(*key, Duration::ZERO))
        .collect()
}

fn typed(app: &mut AppState, text: &str) {
    for c in text.chars() {
        assert_eq!(app.on_key(Key::Char(c), Duration::ZERO), None);
    }
}

/// Types `text`, presses `keys`, then types `after`; returns the text.
fn edit(text: &str, keys: &[Key], after: &str) -> String {
    let mut app = app();
    typed(&mut app, text);
    assert!(press(&mut app, keys).is_empty(), "{keys:?} sent something");
    typed(&mut app, after);
    app.input()
}

#[test]
fn the_cursor_moves_by_character_and_word_and_to_either_end() {
    // The example: `helo`, Left, `l` gives `hello`.
    assert_eq!(edit("helo", &[Key::Left], "l"), "hello");
    assert_eq!(edit("helo", &[Key::Ctrl('b')], "l"), "hello");
    assert_eq!(edit("ab", &[Key::Left, Key::Left, Key::Right], "X"), "aXb");
    assert_eq!(edit("ab", &[Key::Home, Key::Ctrl('f')], "X"), "aXb");
    assert_eq!(edit("one two", &[Key::Home], "X"), "Xone two");
    assert_eq!(edit("one two", &[Key::Ctrl('a')], "X"), "Xone two");
    assert_eq!(edit("one two", &[Key::Home, Key::End], "X"), "one twoX");
    assert_eq!(
        edit("one two", &[Key::Home, Key::Ctrl('e')], "X"),
        "one twoX"
    );
    assert_eq!(
        edit("one two three", &[Key::WordLeft], "X"),
        "one two Xthree"
    );
    assert_eq!(
        edit("one two three", &[Key::Alt('b'), Key::Alt('b')], "X"),
        "one Xtwo three"
    );
    assert_eq!(
        edit("one two three", &[Key::Home, Key::WordRight], "X"),
        "one Xtwo three"
    );
    assert_eq!(
        edit("one two three", &[Key::Home, Key::Alt('f')], "X"),
        "one Xtwo three"
    );
}

#[test]
fn deleting_characters_words_and_line_parts() {
    assert_eq!(edit("hello", &[Key::Backspace], ""), "hell");
    assert_eq!(edit("hello", &[Key::Ctrl('h')], ""), "hell");
    assert_eq!(edit("hello", &[Key::Home, Key::Delete], ""), "ello");
    assert_eq!(edit("one two", &[Key::Ctrl('w')], ""), "one ");
    assert_eq!(edit("one two", &[Key::WordBackspace], ""), "one ");
    assert_eq!(edit("one two", &[Key::Home, Key::Alt('d')], ""), " two");
    assert_eq!(edit("one two", &[Key::WordLeft, Key::Ctrl('u')], ""), "two");
    assert_eq!(edit("one two", &[Key::Ctrl('u')], "new"), "new");
    assert_eq!(
        edit("one two", &[Key::WordLeft, Key::Ctrl('k')], ""),
        "one "
    );
    assert_eq!(edit("one two", &[Key::Home, Key::Ctrl('k')], "x"), "x");
    // Undo and redo.
    assert_eq!(
        edit("one two", &[Key::Ctrl('w'), Key::Ctrl('z')], ""),
        "one two"
    );
    assert_eq!(
        edit(
            "one two",
            &[Key::Ctrl('w'), Key::Ctrl('z'), Key::Ctrl('y')],
            ""
        ),
        "one "
    );
}

#[test]
fn alt_enter_shift_enter_and_ctrl_j_add_a_line_and_enter_sends_all_of_it() {
    let mut app = app();
    typed(&mut app, "first");
    press(&mut app, &[Key::Newline]);
    typed(&mut app, "second");
    press(&mut app, &[Key::Ctrl('j')]);
    typed(&mut app, "third");
    assert_eq!(app.input(), "first\nsecond\nthird");
    // The prompt box grows with the text.
    let drawn = screen(&app, 80, 24).join("\n");
    for line in ["│first", "│second", "│third"] {
        assert!(drawn.contains(line), "{line:?} missing:\n{drawn}");
    }
    // Up and Down move between the lines before they reach the history.
    press(&mut app, &[Key::Up, Key::Up]);
    press(&mut app, &[Key::Home, Key::Right]);
    typed(&mut app, "X");
    assert_eq!(app.input(), "fXirst\nsecond\nthird");
    press(&mut app, &[Key::Down, Key::End]);
    typed(&mut app, "Y");
    assert_eq!(app.input(), "fXirst\nsecondY\nthird");
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::Submit("fXirst\nsecondY\nthird".to_owned()))
    );
    assert_eq!(app.input(), "");
}

#[test]
fn pasted_lines_are_inserted_and_never_sent() {
    let mut app = app();
    typed(&mut app, "see: ");
    app.on_paste("one\r\ntwo\rthree\u{1b}[31m");
    assert_eq!(app.input(), "see: one\ntwo\nthree[31m");
    assert!(!app.status.busy, "a paste starts no turn");
    // A paste too long for the prompt is refused whole, with a reason.
    app.on_paste(&"x".repeat(MAX_INPUT_BYTES));
    assert_eq!(app.input(), "see: one\ntwo\nthree[31m");
    let reason = app.status.message.clone().unwrap();
    assert!(reason.contains("the paste was not inserted"), "{reason}");
    // Typing past the limit is ignored.
    let mut full = self::app();
    full.on_paste(&"y".repeat(MAX_INPUT_BYTES - 1));
    typed(&mut full, "ab");
    assert_eq!(full.input().len(), MAX_INPUT_BYTES);
}

#[test]
fn up_and_down_walk_the_history_and_come_back_to_the_draft() {
    let mut app = app();
    for prompt in ["first", "second"] {
        typed(&mut app, prompt);
        assert_eq!(
            app.on_key(Key::Enter, Duration::ZERO),
            Some(Command::Submit(prompt.to_owned()))
        );
        app.turn_ended("turn ended: end_turn");
    }
    typed(&mut app, "draft");
    press(&mut app, &[Key::Up]);
    assert_eq!(app.input(), "second");
    press(&mut app, &[Key::Up]);
    assert_eq!(app.input(), "first");
    press(&mut app, &[Key::Up]);
    assert_eq!(app.input(), "first", "the oldest stays");
    press(&mut app, &[Key::Down]);
    assert_eq!(app.input(), "second");
    press(&mut app, &[Key::Down]);
    assert_eq!(app.input(), "draft");
    // A recalled prompt can be edited and sent.
    press(&mut app, &[Key::Up, Key::Up]);
    typed(&mut app, " again");
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::Submit("first again".to_owned()))
    );
    assert_eq!(
        app.editor.history.entries(),
        ["first", "second", "first again"]
    );
}

#[test]
fn the_history_is_kept_in_its_file_bounded_and_private() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = history::file_for(&dir, &["acp", "agent"]);
    assert_ne!(file, history::file_for(&dir, &["acp", "agent", "--slow"]));
    assert_ne!(file, history::file_for(&dir, &["other-agent"]));

    // A first run sends two prompts (one of several lines).
    let mut first = app();
    first.editor.history = History::load(file.clone()).unwrap();
    first.set_input("one\ntwo");
    assert!(first.on_key(Key::Enter, Duration::ZERO).is_some());
    first.turn_ended("turn ended");
    first.set_input("/mode ask");
    assert!(first.on_key(Key::Enter, Duration::ZERO).is_some());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }

    // A second run recalls them.
    let mut second = app();
    second.editor.history = History::load(file.clone()).unwrap();
    press(&mut second, &[Key::Up]);
    assert_eq!(second.input(), "/mode ask");
    press(&mut second, &[Key::Up]);
    assert_eq!(second.input(), "one\ntwo");

    // Bounded: the oldest go (a file written by hand with too many, then one more prompt).
    let lines: String = (0..MAX_ENTRIES + 19)
        .map(|n| format!("\"prompt {n}\"\n"))
        .collect();
    std::fs::write(&file, lines).unwrap();
    let mut history = History::load(file.clone()).unwrap();
    assert_eq!(history.entries().len(), MAX_ENTRIES);
    history
        .push(&format!("prompt {}", MAX_ENTRIES + 19))
        .unwrap();
    let reloaded = History::load(file.clone()).unwrap();
    assert_eq!(reloaded.entries().len(), MAX_ENTRIES);
    assert_eq!(
        reloaded.entries().last().map(String::as_str),
        Some(format!("prompt {}", MAX_ENTRIES + 19).as_str())
    );
    // A damaged line is skipped, not fatal.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("not json\n");
    std::fs::write(&file, text).unwrap();
    assert_eq!(History::load(file).unwrap().entries().len(), MAX_ENTRIES);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn terminal_keys_become_the_editor_keys() {
    let none = KeyModifiers::NONE;
    let cases = [
        (KeyCode::Enter, none, Key::Enter),
        (KeyCode::Enter, KeyModifiers::ALT, Key::Newline),
        (KeyCode::Enter, KeyModifiers::SHIFT, Key::Newline),
        (KeyCode::Char('j'), KeyModifiers::CONTROL, Key::Ctrl('j')),
        (KeyCode::Char('A'), KeyModifiers::CONTROL, Key::Ctrl('a')),
        (KeyCode::Char('b'), KeyModifiers::ALT, Key::Alt('b')),
        (KeyCode::Char('x'), none, Key::Char('x')),
        (KeyCode::Left, none, Key::Left),
        (KeyCode::Left, KeyModifiers::CONTROL, Key::WordLeft),
        (KeyCode::Right, KeyModifiers::ALT, Key::WordRight),
        (KeyCode::Home, none, Key::Home),
        (KeyCode::Home, KeyModifiers::CONTROL, Key::ScrollTop),
        (KeyCode::End, none, Key::End),
        (KeyCode::End, KeyModifiers::CONTROL, Key::ScrollBottom),
        (KeyCode::Backspace, none, Key::Backspace),
        (KeyCode::Backspace, KeyModifiers::ALT, Key::WordBackspace),
        (KeyCode::Delete, none, Key::Delete),
        (KeyCode::PageUp, none, Key::PageUp),
        (KeyCode::Tab, none, Key::Tab),
    ];
    for (code, modifiers, key) in cases {
        assert_eq!(
            convert_key(code, modifiers),
            Some(key),
            "{code:?} {modifiers:?}"
        );
    }
    assert_eq!(convert_key(KeyCode::F(5), none), None);
}
