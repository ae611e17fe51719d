//! The terminal UI's sign-in flows and the agent's life, drawn with ratatui's `TestBackend`:
//! the picker (no command-line advice, each description once), the masked input of an
//! `env_var` method (the value never on screen, Esc back to the picker), closing the picker
//! once a session is open, the agent pane, and the restart offered when the agent has gone.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/tui.rs"]
mod tui;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk::commands::client::driver::agent_log::AgentLog;
use acptk::commands::client::driver::peer_log::PeerLog;
use acptk::commands::client::tui::app::{AppState, Command, Dialog};
use acptk::commands::client::tui::key::Key;
use acptk_notice_center::render::tui::Theme;
use acptk_runtime::client::{AuthKind, AuthMethod, Transcript};
use tui::screen;

const SIZES: [(u16, u16); 3] = [(120, 40), (80, 24), (60, 20)];

/// A variable no test environment sets.
const KEY_VAR: &str = "ACP_TUI_TEST_API_KEY_NEVER_SET";

fn methods() -> Vec<AuthMethod> {
    let mut browser = AuthMethod::new("oauth", "Log in with the browser");
    browser.description = Some("Opens a page to sign in".to_owned());
    let mut key = AuthMethod::new("api-key", "Use an API key");
    key.description = Some("Reads the key from the environment".to_owned());
    key.kind = AuthKind::EnvVar {
        vars: vec![KEY_VAR.to_owned()],
    };
    let mut login = AuthMethod::new("login", "Terminal login");
    login.kind = AuthKind::Terminal {
        args: vec!["--login".to_owned()],
        env: Vec::new(),
    };
    vec![browser, key, login]
}

fn app(session: Option<&str>) -> AppState {
    let mut app = AppState::new(
        1,
        Arc::new(Mutex::new(Transcript::default())),
        None,
        Theme::monochrome(),
    );
    app.session = session.map(str::to_owned);
    app.auth_methods = methods();
    app.agent_local = true;
    app
}

const WHY: &str = "the agent could not create a session: Authentication required (-32000)\nthe agent offers these sign-in methods:\n  oauth  Log in with the browser - Opens a page to sign in\npick one with --auth METHOD_ID";

fn count(rows: &[String], needle: &str) -> usize {
    rows.iter().map(|row| row.matches(needle).count()).sum()
}

fn key(app: &mut AppState, key: Key) -> Option<Command> {
    app.on_key(key, Duration::ZERO)
}

#[test]
fn the_picker_gives_no_command_line_advice_and_says_each_thing_once() {
    for (width, height) in SIZES {
        let mut app = app(None);
        app.ask(Dialog::auth(&methods(), WHY));
        let rows = screen(&app, width, height);
        let text = rows.join("\n");
        assert!(!text.contains("--auth"), "{width}x{height}:\n{text}");
        assert!(!text.contains("METHOD_ID"), "{width}x{height}:\n{text}");
        assert_eq!(count(&rows, "Opens a page"), 1, "{width}x{height}:\n{text}");
        assert_eq!(
            count(&rows, "Use an API key"),
            1,
            "{width}x{height}:\n{text}"
        );
        assert_eq!(
            count(&rows, "Terminal login"),
            1,
            "{width}x{height}:\n{text}"
        );
        // Why: the first line of the failure, wrapped, and nothing of the rest.
        assert!(text.contains("could not create a session"), "{text}");
        assert!(text.contains("(-32000)"), "{text}");
        assert!(!text.contains("sign-in methods:"), "{text}");
    }
}

#[test]
fn an_env_var_method_asks_for_the_value_masked_and_restarts_with_it() {
    for (width, height) in SIZES {
        let mut app = app(None);
        app.ask(Dialog::auth(&methods(), WHY));
        assert_eq!(key(&mut app, Key::Down), None);
        assert_eq!(key(&mut app, Key::Enter), None, "the value is asked first");
        assert!(app.secret.is_some());
        for c in "sk-secret".chars() {
            assert_eq!(key(&mut app, Key::Char(c)), None);
        }
        let rows = screen(&app, width, height);
        let text = rows.join("\n");
        assert!(!text.contains("sk-secret"), "{width}x{height}:\n{text}");
        assert!(!text.contains("secret"), "{width}x{height}:\n{text}");
        assert!(text.contains("*********"), "{width}x{height}:\n{text}");
        assert!(text.contains(KEY_VAR), "{width}x{height}:\n{text}");
        assert!(
            !format!("{app:?}").contains("sk-secret"),
            "Debug shows no value"
        );
        assert_eq!(
            key(&mut app, Key::Enter),
            Some(Command::SignInWith(
                "api-key".to_owned(),
                vec![(KEY_VAR.to_owned(), "sk-secret".to_owned())]
            ))
        );
        assert!(app.secret.is_none() && app.dialog.is_none());
    }
}

#[test]
fn esc_and_ctrl_c_in_the_masked_input_go_back_to_the_picker() {
    for back in [Key::Esc, Key::Ctrl('c')] {
        let mut app = app(None);
        app.ask(Dialog::auth(&methods(), WHY));
        key(&mut app, Key::Char('2'));
        key(&mut app, Key::Enter);
        key(&mut app, Key::Char('x'));
        assert_eq!(key(&mut app, back), None);
        assert!(app.secret.is_none());
        let dialog = app.dialog.as_ref().expect("the picker again");
        assert_eq!(dialog.choices.len(), 3);
        assert!(screen(&app, 80, 24).join("\n").contains("Use an API key"));
        // Backspace and an empty value: nothing is sent.
        key(&mut app, Key::Char('2'));
        key(&mut app, Key::Enter);
        key(&mut app, Key::Char('x'));
        key(&mut app, Key::Backspace);
        assert_eq!(key(&mut app, Key::Enter), None);
        assert!(app.secret.is_some());
    }
}

#[test]
fn other_methods_sign_in_directly() {
    let mut app = app(None);
    app.ask(Dialog::auth(&methods(), WHY));
    assert_eq!(
        key(&mut app, Key::Enter),
        Some(Command::Authenticate("oauth".to_owned()))
    );
    let mut app = app_remote();
    app.ask(Dialog::auth(&methods(), WHY));
    key(&mut app, Key::Char('2'));
    // A remote agent cannot be given variables: the method is tried as it is.
    assert_eq!(
        key(&mut app, Key::Enter),
        Some(Command::Authenticate("api-key".to_owned()))
    );
}

fn app_remote() -> AppState {
    let mut app = app(None);
    app.agent_local = false;
    app
}

#[test]
fn the_picker_after_a_refused_prompt_can_be_closed() {
    let mut open = app(Some("s1"));
    open.ask(Dialog::auth(
        &methods(),
        "turn failed: Authentication required",
    ));
    assert!(screen(&open, 80, 24).join("\n").contains("Esc close"));
    assert_eq!(key(&mut open, Key::Esc), None);
    assert!(open.dialog.is_none());
    // Before a session exists, Esc leaves.
    let mut opening = app(None);
    opening.ask(Dialog::auth(&methods(), WHY));
    assert!(screen(&opening, 80, 24).join("\n").contains("Esc leave"));
    assert_eq!(key(&mut opening, Key::Esc), Some(Command::Quit));
}

#[test]
fn the_agent_pane_shows_standard_error_and_protocol_problems() {
    let log = AgentLog::default();
    log.line("warming up");
    log.line("fatal: no credentials");
    let peers = PeerLog::new();
    let logger = peers.logger();
    logger.log(
        acptk_runtime::log::Level::Warn,
        "skipped a line that is not JSON: Please visit https://example.invalid/login",
    );
    for (width, height) in SIZES {
        let mut app = app(Some("sess_0123456789abcdef0123456789"));
        app.agent_log = Some(log.clone());
        app.peer_log = Some(peers.clone());
        let before = screen(&app, width, height).join("\n");
        assert!(!before.contains("fatal: no credentials"));
        assert_eq!(key(&mut app, Key::Ctrl('g')), None);
        let text = screen(&app, width, height).join("\n");
        assert!(
            text.contains("fatal: no credentials"),
            "{width}x{height}:\n{text}"
        );
        assert!(
            text.contains("example.invalid/login"),
            "{width}x{height}:\n{text}"
        );
        assert!(
            text.contains("protocol problems: 1"),
            "{width}x{height}:\n{text}"
        );
        key(&mut app, Key::Ctrl('g'));
        assert!(
            !screen(&app, width, height)
                .join("\n")
                .contains("fatal: no credentials")
        );
    }
    let (lines, seen) = peers.not_json_since(0);
    assert_eq!(
        lines,
        vec!["Please visit https://example.invalid/login".to_owned()]
    );
    assert!(peers.not_json_since(seen).0.is_empty());
}

#[test]
fn the_status_line_shows_the_session_and_a_gone_agent_offers_a_restart() {
    for (width, height) in SIZES {
        let mut app = app(Some("sess_0123456789abcdef0123456789"));
        app.status.message = Some("connected".to_owned());
        let rows = screen(&app, width, height);
        let status = &rows[usize::from(height) - 2];
        assert!(
            status.contains("session: sess_01234567…"),
            "{width}x{height}: {status}"
        );
        assert_eq!(
            key(&mut app, Key::Ctrl('r')),
            None,
            "no restart while the agent runs"
        );
        app.agent_gone = true;
        app.status.message =
            Some("the agent has gone: Ctrl-R starts it again, Ctrl-C leaves".to_owned());
        let rows = screen(&app, width, height);
        let hints = &rows[usize::from(height) - 1];
        assert!(hints.contains("^R restart"), "{width}x{height}: {hints}");
        assert!(hints.contains("^C quit"), "{width}x{height}: {hints}");
        assert_eq!(key(&mut app, Key::Ctrl('r')), Some(Command::Restart));
    }
}

#[test]
fn how_the_agent_ended_is_said_in_words() {
    use acptk::commands::client::driver::agent_life::describe;
    use std::os::unix::process::ExitStatusExt;
    let status = std::process::ExitStatus::from_raw(3 << 8);
    assert_eq!(describe(status), "exited with status 3");
    let status = std::process::ExitStatus::from_raw(9);
    assert_eq!(describe(status), "was ended by signal 9 (SIGKILL)");
    let status = std::process::ExitStatus::from_raw(15);
    assert_eq!(describe(status), "was ended by signal 15 (SIGTERM)");
}
