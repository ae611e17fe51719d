//! The terminal client's views, drawn with ratatui's `TestBackend`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk::commands::client::driver::handler::WriteQuestion;
use acptk::commands::client::tui::app::{AppState, Command, Dialog};
use acptk::commands::client::tui::key::Key;
use acptk::commands::client::tui::view::{help_line, render, status_line};
use acptk_notice_center::render::tui::Theme;
use acptk_notice_center::{IncomingNotice, NoticeCenter, Severity};
use acptk_runtime::client::Transcript;
use acptk_runtime::client::transcript::Role;
use acptk_runtime::client::{AuthMethod, PermissionChoice, PermissionDecision, PermissionRequest};
use acptk_schema::v1;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const WIDTH: u16 = 100;
const HEIGHT: u16 = 24;

fn tool(id: &str, title: &str, status: v1::ToolCallStatus) -> v1::ReplayableUpdate {
    v1::ReplayableUpdate::ToolCall(Box::new(v1::ToolCall::new(id, title).status(status)))
}

/// A v1 client (with a notice center when `notices`), a session and a short conversation.
fn app(notices: bool) -> AppState {
    let mut transcript = Transcript::default();
    transcript.push_user_message("s1", "hello");
    transcript.append_chunk("s1", Role::Thought, None, "Planning a reply.");
    transcript.append_chunk("s1", Role::Agent, None, "Hello ");
    transcript.append_chunk("s1", Role::Agent, None, "there.");
    transcript.apply_v1(
        "s1",
        &tool("t1", "Read README.md", v1::ToolCallStatus::InProgress),
    );
    transcript.apply_v1(
        "s1",
        &v1::ReplayableUpdate::ToolCallUpdate(Box::new(
            v1::ToolCallUpdate::new("t1").status(v1::ToolCallStatus::Completed),
        )),
    );
    let center = notices.then(|| Arc::new(Mutex::new(NoticeCenter::default())));
    let mut app = AppState::new(
        1,
        Arc::new(Mutex::new(transcript)),
        center,
        Theme::monochrome(),
    );
    app.session = Some("s1".to_owned());
    app.status.agent = Some("acp-example-agent".to_owned());
    app
}

fn push(app: &AppState, notice: IncomingNotice<'_>, at: u64) {
    let center = app.notices.as_ref().unwrap();
    center
        .lock()
        .unwrap()
        .push("s1", notice, Duration::from_secs(at));
}

fn warning(app: &AppState, title: &str, description: &str, at: u64) {
    push(
        app,
        IncomingNotice::new(Severity::Warning, title).with_description(description),
        at,
    );
}

/// The screen as lines of text.
fn screen(app: &AppState) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    terminal.draw(|frame| render(frame, app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    (0..HEIGHT)
        .map(|y| {
            (0..WIDTH)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect()
}

fn contains(screen: &[String], needle: &str) -> bool {
    screen.iter().any(|line| line.contains(needle))
}

#[test]
fn conversation_shows_messages_thoughts_and_tool_calls() {
    let screen = screen(&app(true));
    for needle in [
        "You: hello",
        "Thinking: Planning a reply.",
        "Agent: Hello there.",
        "[tool] Read README.md (completed)",
    ] {
        assert!(
            contains(&screen, needle),
            "{needle:?} missing:\n{}",
            screen.join("\n")
        );
    }
    assert!(!contains(&screen, "(in progress)"));
}

#[test]
fn status_line_has_protocol_notices_and_unread_count() {
    let app = app(true);
    assert!(status_line(&app).contains("ACP v1 | notices: advertised | unread: 0"));
    warning(&app, "MCP server docs unavailable", "spawn failed", 0);
    warning(&app, "Model rerouted", "using a fallback", 1);
    let screen = screen(&app);
    assert!(contains(
        &screen,
        "ACP v1 | notices: advertised | unread: 2"
    ));
    let help = help_line(&app, usize::from(WIDTH));
    assert!(contains(&screen, &help), "{help}");
    assert!(help.ends_with("^C quit"), "{help}");

    let off = app_without_notices();
    assert!(status_line(&off).contains("ACP v1 | notices: not advertised"));
    assert!(!status_line(&off).contains("unread"));
    let v2 = AppState::new(
        2,
        Arc::new(Mutex::new(Transcript::default())),
        Some(Arc::new(Mutex::new(NoticeCenter::default()))),
        Theme::monochrome(),
    );
    assert!(status_line(&v2).starts_with(" ACP v2 | notices: on | unread: 0"));
}

fn app_without_notices() -> AppState {
    app(false)
}

#[test]
fn toast_shows_severity_title_and_description() {
    let app = app(true);
    warning(&app, "Disk almost full", "95% used", 0);
    let screen = screen(&app);
    assert!(contains(&screen, "[!] Warning"), "{}", screen.join("\n"));
    assert!(contains(&screen, "Disk almost full"));
    assert!(contains(&screen, "95% used"));
    // The notice is not part of the conversation text.
    assert!(!contains(&screen, "Agent: Warning"));
}

#[test]
fn toasts_never_hide_conversation_text() {
    let app = app(true);
    let words: Vec<String> = (0..60).map(|n| format!("w{n}")).collect();
    app.transcript
        .lock()
        .unwrap()
        .append_chunk("s1", Role::Agent, Some("long"), &words.join(" "));
    warning(&app, "Disk almost full", "95% used", 0);
    let text = screen(&app).join("\n");
    assert!(text.contains("Disk almost full"));
    for word in &words {
        assert!(
            text.contains(&format!("{word} ")) || text.contains(&format!("{word}│")),
            "{word} hidden:\n{text}"
        );
    }
}

#[test]
fn the_open_list_replaces_the_toasts() {
    let mut app = app(true);
    warning(&app, "Disk almost full", "95% used", 0);
    app.on_key(Key::Ctrl('n'), Duration::ZERO);
    let screen = screen(&app);
    assert!(contains(&screen, "Notices (1)"));
    assert!(!contains(&screen, "╭ [!] Warning"), "{}", screen.join("\n"));
}

#[test]
fn dismissing_takes_the_toast_down_and_keeps_the_entry() {
    let mut app = app(true);
    warning(&app, "Disk almost full", "95% used", 0);
    assert_eq!(app.on_key(Key::Ctrl('d'), Duration::from_secs(1)), None);
    assert!(!contains(&screen(&app), "Disk almost full"));
    let center = app.notices.as_ref().unwrap().lock().unwrap();
    assert_eq!(center.entry_count("s1"), 1);
}

#[test]
fn notice_list_panel_opens_and_clears_unread() {
    let mut app = app(true);
    warning(&app, "Disk almost full", "95% used", 0);
    app.on_key(Key::Ctrl('x'), Duration::from_secs(1));
    assert_eq!(app.unread(), 1);
    app.on_key(Key::Ctrl('n'), Duration::from_secs(2));
    let screen = screen(&app);
    assert!(contains(&screen, "Notices (1)"), "{}", screen.join("\n"));
    assert!(contains(&screen, "[!] Warning: Disk almost full - 95%"));
    assert!(contains(&screen, "unread: 0"));
    app.on_key(Key::Esc, Duration::from_secs(3));
    assert!(!contains(&self::screen(&app), "Notices (1)"));
}

#[test]
fn without_notices_there_is_no_toast_column_and_no_list() {
    let mut app = app_without_notices();
    app.on_key(Key::Ctrl('n'), Duration::ZERO);
    assert!(!app.list_open);
    let screen = screen(&app);
    assert!(!contains(&screen, "Notices ("));
    assert!(!contains(&screen, "unread"));
}

#[test]
fn permission_dialog_is_drawn_and_answered() {
    let mut app = app(true);
    app.ask(Dialog::permission(&PermissionRequest::new(
        "s1",
        "Write notes.txt",
        vec![
            PermissionChoice::new("allow", "Allow once", "allow_once"),
            PermissionChoice::new("reject", "Reject", "reject_once"),
        ],
    )));
    let screen = screen(&app);
    for needle in [
        "Permission requested",
        "Write notes.txt",
        "> 1. Allow once (allow_once)",
        "  2. Reject (reject_once)",
    ] {
        assert!(
            contains(&screen, needle),
            "{needle:?} missing:\n{}",
            screen.join("\n")
        );
    }
    // Typing goes to the dialog, not the input line.
    assert_eq!(app.on_key(Key::Down, Duration::ZERO), None);
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::Answer(PermissionDecision::Selected(
            "reject".to_owned()
        )))
    );
    assert!(app.dialog.is_none());
    assert!(!contains(&self::screen(&app), "Permission requested"));
}

#[test]
fn typing_and_enter_submit_a_prompt_once() {
    let mut app = app(true);
    for c in "hi there".chars() {
        app.on_key(Key::Char(c), Duration::ZERO);
    }
    assert!(contains(&screen(&app), "hi there"));
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::Submit("hi there".to_owned()))
    );
    assert!(app.status.busy);
    // The runtime adds the prompt to the transcript when it sends it.
    app.transcript
        .lock()
        .unwrap()
        .push_user_message("s1", "hi there");
    // While the turn runs, Enter sends nothing and Ctrl-C cancels instead of quitting.
    app.on_key(Key::Char('x'), Duration::ZERO);
    assert_eq!(app.on_key(Key::Enter, Duration::ZERO), None);
    assert_eq!(
        app.on_key(Key::Ctrl('c'), Duration::ZERO),
        Some(Command::CancelTurn)
    );
    app.turn_ended("turn ended: cancelled");
    assert_eq!(
        app.on_key(Key::Ctrl('c'), Duration::ZERO),
        Some(Command::Quit)
    );
    let screen = screen(&app);
    assert!(contains(&screen, "You: hi there"));
    assert!(contains(&screen, "-- turn ended: cancelled --"));
}

#[test]
fn agent_escape_sequences_are_not_drawn() {
    let app = app(true);
    app.transcript.lock().unwrap().append_chunk(
        "s1",
        Role::Agent,
        Some("m2"),
        "evil\u{1b}]0;title\u{7}\u{202E}text",
    );
    let screen = screen(&app);
    // The whole escape sequence goes, and the bidi override.
    assert!(
        contains(&screen, "Agent: eviltext"),
        "{}",
        screen.join("\n")
    );
    assert!(!contains(&screen, "title"), "{}", screen.join("\n"));
}

#[test]
fn the_conversation_follows_its_end_and_scrolls_back() {
    let mut app = app(true);
    for n in 0..40 {
        app.note(format!("line {n}"));
    }
    let bottom = screen(&app);
    assert!(contains(&bottom, "-- line 39 --"));
    assert!(!contains(&bottom, "-- line 5 --"));
    app.on_key(Key::PageUp, Duration::ZERO);
    let up = screen(&app);
    assert!(!contains(&up, "-- line 39 --"));
    assert!(contains(&up, "-- line 34 --"));
    app.on_key(Key::ScrollBottom, Duration::ZERO);
    assert!(contains(&screen(&app), "-- line 39 --"));
}

#[test]
fn the_sign_in_picker_lists_every_method_and_answers_with_its_id() {
    let mut app = app(true);
    let mut tui = AuthMethod::new("tui-login", "Log in in a terminal");
    tui.description = Some("Runs the agent's login".to_owned());
    let methods = vec![AuthMethod::new("chatgpt", "Login with ChatGPT"), tui];
    app.ask(Dialog::auth(
        &methods,
        "the agent could not create a session: Authentication required (code -32000)",
    ));
    let screen = screen(&app);
    for needle in [
        "Sign in",
        "The agent needs you to sign in",
        "Authentication required (code",
        "> 1. Login with ChatGPT (agent)",
        "  2. Log in in a terminal - Runs the agent's login (agent)",
    ] {
        assert!(
            contains(&screen, needle),
            "{needle:?} missing:\n{}",
            screen.join("\n")
        );
    }
    app.on_key(Key::Char('2'), Duration::ZERO);
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::Authenticate("tui-login".to_owned()))
    );
    // With a session open (the agent refused a prompt), Esc closes the picker.
    app.ask(Dialog::auth(&methods, "again"));
    assert!(contains(&crate::screen(&app), "Esc close"));
    assert_eq!(app.on_key(Key::Esc, Duration::ZERO), None);
    assert!(app.dialog.is_none());
    // Before a session is open, leaving the picker leaves the client.
    app.session = None;
    app.ask(Dialog::auth(&methods, "again"));
    assert!(contains(&crate::screen(&app), "Esc leave"));
    assert_eq!(app.on_key(Key::Esc, Duration::ZERO), Some(Command::Quit));
}

#[test]
fn a_file_write_is_confirmed_with_a_preview_and_denied_by_default() {
    let mut app = app(true);
    let question = WriteQuestion {
        path: "/work/notes.txt".to_owned(),
        bytes: 4000,
        replaces: true,
        preview: "line one\nline two\n".to_owned(),
    };
    app.ask(Dialog::write(&question));
    let screen = screen(&app);
    for needle in [
        "Write a file?",
        "The agent wants to write /work/notes.txt",
        "4000 bytes, replaces the file",
        "| line one",
        "| line two",
        "| ...",
        "> 2. Deny (reject_once)",
        "  1. Allow this write (allow_once)",
    ] {
        assert!(
            contains(&screen, needle),
            "{needle:?} missing:\n{}",
            screen.join("\n")
        );
    }
    // Enter on the default answer denies; Up then Enter allows; Esc denies.
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::AnswerWrite(false))
    );
    app.ask(Dialog::write(&question));
    app.on_key(Key::Up, Duration::ZERO);
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::AnswerWrite(true))
    );
    app.ask(Dialog::write(&question));
    assert_eq!(
        app.on_key(Key::Esc, Duration::ZERO),
        Some(Command::AnswerWrite(false))
    );
    assert!(app.dialog.is_none());
}

#[test]
fn the_status_line_shows_version_mode_and_model() {
    let mut app = app(true);
    app.status.proposed = Some(2);
    app.status.mode = Some("Code".to_owned());
    app.status.model = Some("Large".to_owned());
    let line = status_line(&app);
    assert!(
        line.starts_with(" ACP v1 (asked for v2) | notices: advertised"),
        "{line}"
    );
    assert!(
        line.contains("| mode: Code | model: Large | agent: acp-example-agent"),
        "{line}"
    );
    assert!(contains(&screen(&app), "mode: Code"));
}

#[test]
fn slash_offers_the_commands_and_tab_completes() {
    let mut app = app(true);
    app.transcript.lock().unwrap().apply_v1(
        "s1",
        &v1::ReplayableUpdate::AvailableCommandsUpdate(v1::AvailableCommandsUpdate::new(vec![
            v1::AvailableCommand::new("notice", "Send a notice to this client"),
            v1::AvailableCommand::new("model", "Pick a model"),
        ])),
    );
    app.on_key(Key::Char('/'), Duration::ZERO);
    let screen = screen(&app);
    for needle in [
        "Commands (Tab completes)",
        "/mode ID - switch the session's mode (client)",
        "/set CONFIG_ID VALUE - set one of the session's config options (client)",
        "/notice - Send a notice to this client",
        "/model - Pick a model",
    ] {
        assert!(
            contains(&screen, needle),
            "{needle:?} missing:\n{}",
            screen.join("\n")
        );
    }
    app.on_key(Key::Char('n'), Duration::ZERO);
    let narrowed = self::screen(&app);
    assert!(contains(&narrowed, "/notice - Send"));
    assert!(!contains(&narrowed, "/mode ID"));
    app.on_key(Key::Tab, Duration::ZERO);
    assert_eq!(app.input(), "/notice ");
    // With the name complete, the list is gone; an agent command is sent as a prompt.
    assert!(!contains(&self::screen(&app), "Commands (Tab completes)"));
    for c in "info hi".chars() {
        app.on_key(Key::Char(c), Duration::ZERO);
    }
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::Submit("/notice info hi".to_owned()))
    );
}

#[test]
fn client_commands_change_mode_and_options_and_are_not_prompts() {
    let mut app = app(true);
    for (input, expected) in [
        ("/mode code", Some(Command::SetMode("code".to_owned()))),
        (
            "/set model large one",
            Some(Command::SetOption(
                "model".to_owned(),
                "large one".to_owned(),
            )),
        ),
        ("/set model", None),
        ("/mode", None),
    ] {
        app.set_input(input);
        assert_eq!(app.on_key(Key::Enter, Duration::ZERO), expected, "{input}");
        assert!(app.input().is_empty(), "{input}");
        assert!(!app.status.busy, "{input}: a client command is not a turn");
    }
    let screen = screen(&app);
    assert!(contains(
        &screen,
        "-- /set model: give a value too (/set CONFIG_ID VALUE) --"
    ));
    assert!(contains(&screen, "-- usage: /mode ID"));
    // They work while a turn runs, too.
    app.status.busy = true;
    app.set_input("/mode ask");
    assert_eq!(
        app.on_key(Key::Enter, Duration::ZERO),
        Some(Command::SetMode("ask".to_owned()))
    );
}
