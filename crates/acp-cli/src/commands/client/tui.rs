//! The terminal UI's event loop: terminal set-up (raw mode, bracketed paste, the kitty
//! keyboard protocol where the terminal has it), keyboard, paste and focus input, the session's
//! set-up (with the sign-in picker when the agent asks for authentication), the agent's
//! questions (permission, file writes, terminal logins), toast timers, drawing. All decisions
//! are in [`AppState`]; this only moves events.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use acp_notice_center::render::tui::Theme;
use acp_runtime::client::{Client, PermissionDecision, SessionOptions, VersionFallback};
use ratatui::crossterm::event::{
    self as term, KeyCode, KeyEventKind, KeyModifiers, KeyboardEnhancementFlags,
};
use ratatui::crossterm::{execute, terminal};
use tokio::sync::{mpsc, oneshot};

use super::Args;
use super::app::{AppState, Command, Dialog, Key};
use super::events::EventLog;
use super::exit::{Exit, Failure};
use super::handler::{Answers, CliHandler, Question, run_login};
use super::history::{self, History};
use super::plain::event_line;
use super::prompt::CANCEL_WAIT;
use super::setup::{self, Opened};
use super::theme::Look;
use super::view::render;

/// Input from the terminal.
enum Input {
    Key(Key),
    Paste(String),
    Focus(bool),
    Redraw,
    /// The input thread asked the terminal about the kitty keyboard protocol (with it,
    /// Shift-Enter can be told from Enter) and reads keys from now on.
    Ready {
        enhanced: bool,
    },
}

/// How the session's set-up went.
pub(crate) enum SetupEvent {
    /// The session is open.
    Opened(Opened),
    /// The agent asks for a sign-in; the message says why.
    NeedsAuth(String),
    /// Set-up failed for good.
    Failed(Failure),
}

/// Where the answer to an open dialog goes.
enum Reply {
    Permission(oneshot::Sender<PermissionDecision>),
    Write(oneshot::Sender<bool>),
    Auth,
}

/// The longest the UI waits for the terminal's answer about the kitty keyboard protocol
/// before drawing again (crossterm gives up after 2 s).
const QUERY_WAIT: Duration = Duration::from_millis(2500);

/// The longest wait between two frames when nothing happens (keeps the clock-driven parts,
/// such as toast timers, current).
const IDLE_FRAME: Duration = Duration::from_millis(500);

/// What the set-up steps need from the arguments.
#[derive(Clone)]
pub(crate) struct Plan {
    options: SessionOptions,
    pub(crate) auth: Option<String>,
    load: Option<String>,
    mode: Option<String>,
    settings: Vec<(String, String)>,
    timeout: Option<Duration>,
}

impl Plan {
    /// The set-up `args` ask for.
    pub(crate) fn of(args: &Args) -> Result<Self, Failure> {
        Ok(Self {
            options: args.session_options()?,
            auth: args.auth.clone(),
            load: args.load.clone(),
            mode: args.mode.clone(),
            settings: args.settings.clone(),
            timeout: args.timeout,
        })
    }
}

/// Opens the session (signing in first with `auth`), then applies the mode and options.
pub(crate) async fn set_up(client: Client, plan: Plan, auth: Option<String>) -> SetupEvent {
    let steps = async {
        if let Some(method) = &auth {
            setup::authenticate(&client, method, plan.timeout).await?;
        }
        let opened =
            setup::open(&client, &plan.options, plan.load.as_deref(), plan.timeout).await?;
        setup::apply_controls(
            &client,
            &opened.id,
            plan.mode.as_deref(),
            &plan.settings,
            plan.timeout,
        )
        .await?;
        Ok::<_, Failure>(opened)
    };
    match steps.await {
        Ok(opened) => SetupEvent::Opened(opened),
        Err(failure) if failure.exit == Exit::Auth && !client.auth_methods().is_empty() => {
            SetupEvent::NeedsAuth(failure.message)
        }
        Err(failure) => SetupEvent::Failed(failure),
    }
}

/// Runs `acp client` with the terminal UI: launches the agent, runs the UI until the user
/// leaves, and ends the agent.
pub async fn run_client(args: &Args) -> Result<(), Failure> {
    let (questions_tx, questions) = mpsc::channel::<Question>(8);
    let events = EventLog::new();
    let handler = CliHandler::new(Answers::Ask(questions_tx), args.services(), events.clone());
    let terminals = handler.local_terminals().cloned();
    // The agent's standard error goes to the run's log file, never onto the UI.
    let agent_log = super::agent_log::AgentLog::open(false);
    let target = args.target(&agent_log)?.quiet();
    let plan = Plan::of(args)?;
    let log = super::peer_log::PeerLog::new();
    let (client, mut process) = setup::launch(args.builder(handler, &log), &target, args.timeout)
        .await
        .map_err(|failure| log.explain(failure))?;
    let notices = (!args.no_notices).then(|| client.notice_center());
    let theme = Theme::from_env();
    let mut app = AppState::new(
        client.protocol_version().0,
        client.transcript(),
        notices,
        theme,
    );
    app.look = Look::from_env(theme.color, args.high_contrast);
    app.terminals = terminals;
    if !args.no_history
        && let Some(dir) = history::state_dir()
    {
        let identity = match &args.url {
            Some(url) => vec![url.clone()],
            None => args.agent.clone(),
        };
        let file = history::file_for(&dir, &identity);
        match History::load(file.clone()) {
            Ok(loaded) => app.editor.history = loaded,
            Err(error) => app.note(format!(
                "the prompt history {} could not be read: {error}",
                file.display()
            )),
        }
    }
    app.status.agent.clone_from(&client.agent().name);
    if client.agent().fallback.is_some() {
        app.status.proposed = Some(client.agent().proposed.0);
    }
    if client.agent().fallback == Some(VersionFallback::Restarted) {
        app.note(format!(
            "the agent speaks ACP v1 only: it was restarted and initialized as v1 (asked for v{})",
            client.agent().proposed.0
        ));
    }
    app.status.message = Some("opening the session...".to_owned());
    let result = run(app, client.clone(), plan, questions, events).await;
    setup::shutdown(&client, &mut process).await;
    result.map_err(|error| match error {
        Stop::Failed(failure) => agent_log.explain(log.explain(failure)),
        Stop::Io(error) => Failure::new(Exit::Failed, format!("the terminal failed: {error}")),
    })
}

/// Why the loop stopped, when not by the user's choice.
enum Stop {
    Failed(Failure),
    Io(io::Error),
}

/// The terminal, set up for the UI; restored when dropped.
struct Screen {
    terminal: ratatui::DefaultTerminal,
    /// Whether the kitty keyboard flags were pushed (and must be popped).
    enhanced: bool,
}

/// The kitty keyboard protocol flags the UI asks for: keys told apart unambiguously
/// (Shift-Enter, Alt-Enter, Ctrl-J), nothing more.
fn enhancement() -> KeyboardEnhancementFlags {
    KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES
}

impl Screen {
    fn open() -> io::Result<Self> {
        let terminal = ratatui::try_init()?;
        let mut screen = Self {
            terminal,
            enhanced: false,
        };
        screen.modes_on();
        Ok(screen)
    }

    /// Focus reports (toast timers pause while the window is in the background) and
    /// bracketed paste (a paste arrives whole, never as typed Enter keys).
    fn modes_on(&mut self) {
        let _ = execute!(
            io::stdout(),
            term::EnableFocusChange,
            term::EnableBracketedPaste
        );
    }

    fn modes_off(&mut self) {
        if self.enhanced {
            let _ = execute!(io::stdout(), term::PopKeyboardEnhancementFlags);
        }
        let _ = execute!(
            io::stdout(),
            term::DisableBracketedPaste,
            term::DisableFocusChange
        );
    }

    /// Turns the kitty keyboard protocol on (the terminal said it has it).
    fn enhance(&mut self) {
        if !self.enhanced {
            self.enhanced = execute!(
                io::stdout(),
                term::PushKeyboardEnhancementFlags(enhancement())
            )
            .is_ok();
        }
    }

    /// Leaves the UI for a while (for a login in the terminal).
    fn suspend(&mut self) {
        self.modes_off();
        let _ = ratatui::try_restore();
    }

    /// Comes back after [`Screen::suspend`]. (A new terminal draws everything on its first
    /// frame, so nothing needs clearing; clearing would also ask the terminal for the cursor
    /// position.)
    fn resume(&mut self) -> io::Result<()> {
        self.terminal = ratatui::try_init()?;
        self.modes_on();
        if self.enhanced {
            let _ = execute!(
                io::stdout(),
                term::PushKeyboardEnhancementFlags(enhancement())
            );
        }
        Ok(())
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.modes_off();
        let _ = ratatui::try_restore();
    }
}

/// Runs the terminal UI on `client` until the user quits.
async fn run(
    mut app: AppState,
    client: Client,
    plan: Plan,
    mut questions: mpsc::Receiver<Question>,
    events: EventLog,
) -> Result<(), Stop> {
    let mut screen = Screen::open().map_err(Stop::Io)?;
    // The first frame, then the input thread's question to the terminal: no frame is drawn
    // while the question is out (its bytes must not land inside a frame's), for at most
    // QUERY_WAIT.
    if let Err(error) = screen.terminal.draw(|frame| render(frame, &app)) {
        return Err(Stop::Io(error));
    }
    let started = std::time::Instant::now();
    let mut ready = false;
    let (input_tx, mut input_rx) = mpsc::channel(64);
    let stop = Arc::new(AtomicBool::new(false));
    let paused = Arc::new(AtomicBool::new(false));
    let reader = spawn_input_thread(input_tx, Arc::clone(&stop), Arc::clone(&paused));
    let (turn_tx, mut turn_rx) = mpsc::channel(4);
    let (note_tx, mut note_rx) = mpsc::channel::<String>(16);
    let (setup_tx, mut setup_rx) = mpsc::channel::<SetupEvent>(2);
    {
        let (client, plan, setup_tx) = (client.clone(), plan.clone(), setup_tx.clone());
        let auth = plan.auth.clone();
        tokio::spawn(async move {
            let _ = setup_tx.send(set_up(client, plan, auth).await).await;
        });
    }
    let mut changes = client.changes();
    // SIGTERM, SIGHUP (the terminal went away) and SIGINT end the UI like a quit.
    let mut signals = crate::commands::signals::Signals::new()
        .unwrap_or_else(|_| crate::commands::signals::Signals::none());
    let mut dialogs: VecDeque<(Dialog, Reply)> = VecDeque::new();
    let mut open: Option<Reply> = None;
    let mut connected = true;

    let result = loop {
        if open.is_none()
            && let Some((dialog, reply)) = dialogs.pop_front()
        {
            app.ask(dialog);
            open = Some(reply);
        }
        for event in events.take() {
            app.note(event_line(&event));
        }
        refresh_status(&mut app, &client);
        let now = client.now();
        app.tick(now);
        app.status.violations = client.violations().notices_during_replay;
        ready = ready || started.elapsed() > QUERY_WAIT;
        if ready && let Err(error) = screen.terminal.draw(|frame| render(frame, &app)) {
            break Err(Stop::Io(error));
        }
        let wait = app
            .next_deadline()
            .map_or(IDLE_FRAME, |deadline| deadline.saturating_sub(now))
            .min(IDLE_FRAME);
        tokio::select! {
            input = input_rx.recv() => match input {
                Some(Input::Key(key)) => {
                    let Some(command) = app.on_key(key, client.now()) else { continue };
                    match command {
                        Command::Quit if !connected => {
                            break Err(Stop::Failed(Failure::new(
                                Exit::AgentGone,
                                "the agent exited during the session",
                            )));
                        }
                        Command::Quit => break Ok(()),
                        Command::Submit(text) => {
                            let Some(session) = app.session.clone() else { continue };
                            let (client, turn_tx) = (client.clone(), turn_tx.clone());
                            let timeout = plan.timeout;
                            tokio::spawn(async move {
                                let outcome = bounded_turn(&client, &session, &text, timeout).await;
                                let _ = turn_tx.send(outcome).await;
                            });
                        }
                        Command::CancelTurn => {
                            if let Some(session) = &app.session {
                                let _ = client.cancel(session).await;
                            }
                        }
                        Command::Answer(answer) => {
                            if let Some(Reply::Permission(reply)) = open.take() {
                                let _ = reply.send(answer);
                            }
                        }
                        Command::AnswerWrite(allowed) => {
                            if let Some(Reply::Write(reply)) = open.take() {
                                let _ = reply.send(allowed);
                            }
                        }
                        Command::Authenticate(method) => {
                            open = None;
                            app.status.message = Some(format!("signing in with {method}..."));
                            let (client, plan, setup_tx) = (client.clone(), plan.clone(), setup_tx.clone());
                            tokio::spawn(async move {
                                let _ = setup_tx.send(set_up(client, plan, Some(method)).await).await;
                            });
                        }
                        Command::SetMode(mode) => {
                            let Some(session) = app.session.clone() else { continue };
                            let (client, note_tx) = (client.clone(), note_tx.clone());
                            tokio::spawn(async move {
                                let note = match client.set_mode(&session, &mode).await {
                                    Ok(()) => format!("mode: {mode}"),
                                    Err(error) => format!("/mode {mode}: {error}"),
                                };
                                let _ = note_tx.send(note).await;
                            });
                        }
                        Command::SetOption(id, value) => {
                            let Some(session) = app.session.clone() else { continue };
                            let (client, note_tx) = (client.clone(), note_tx.clone());
                            tokio::spawn(async move {
                                let _ = note_tx.send(set_option(&client, &session, &id, &value).await).await;
                            });
                        }
                    }
                }
                Some(Input::Paste(text)) => app.on_paste(&text),
                Some(Input::Ready { enhanced }) => {
                    ready = true;
                    if enhanced {
                        screen.enhance();
                    }
                }
                Some(Input::Focus(focused)) => {
                    if let Some(center) = &app.notices {
                        super::app::lock(center).set_window_focused(focused, client.now());
                    }
                }
                Some(Input::Redraw) => {}
                None => break Ok(()),
            },
            changed = changes.changed(), if connected => {
                if changed.is_err() {
                    connected = false;
                }
            }
            event = setup_rx.recv() => match event {
                Some(SetupEvent::Opened(opened)) => {
                    app.session = Some(opened.id.clone());
                    app.status.message = Some("connected".to_owned());
                    if opened.loaded {
                        app.note(format!("loaded session {} with its history", opened.id));
                    }
                }
                Some(SetupEvent::NeedsAuth(why)) => {
                    app.status.message = Some("not signed in".to_owned());
                    dialogs.push_back((Dialog::auth(client.auth_methods(), &why), Reply::Auth));
                }
                Some(SetupEvent::Failed(failure)) => break Err(Stop::Failed(failure)),
                None => {}
            },
            question = questions.recv() => match question {
                Some(Question::Permission(request, reply)) => {
                    dialogs.push_back((Dialog::permission(&request), Reply::Permission(reply)));
                }
                Some(Question::Write(question, reply)) => {
                    dialogs.push_back((Dialog::write(&question), Reply::Write(reply)));
                }
                Some(Question::Run(question, reply)) => {
                    dialogs.push_back((Dialog::run(&question), Reply::Write(reply)));
                }
                Some(Question::Login(command, reply)) => {
                    paused.store(true, Ordering::Relaxed);
                    // Let the input thread finish its current poll before the login reads.
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    screen.suspend();
                    println!("Running the agent's login: {}", command.program.to_string_lossy());
                    let outcome = tokio::task::spawn_blocking(move || run_login(&command))
                        .await
                        .unwrap_or_else(|error| Err(format!("the login task failed: {error}")));
                    let resumed = screen.resume();
                    paused.store(false, Ordering::Relaxed);
                    app.note(match &outcome {
                        Ok(()) => "the login command succeeded".to_owned(),
                        Err(reason) => format!("the login command failed: {reason}"),
                    });
                    let _ = reply.send(outcome);
                    if let Err(error) = resumed {
                        break Err(Stop::Io(error));
                    }
                }
                _ => {}
            },
            note = note_rx.recv() => {
                if let Some(note) = note {
                    app.note(note);
                }
            }
            outcome = turn_rx.recv() => {
                match outcome {
                    Some(Ok(stop)) => app.turn_ended(format!("turn ended: {stop}")),
                    Some(Err(message)) => app.turn_ended(message),
                    None => {}
                }
            }
            signal = signals.recv() => {
                if let Some(session) = &app.session
                    && app.status.busy {
                        let _ = client.cancel(session).await;
                        let _ = tokio::time::timeout(CANCEL_WAIT, turn_rx.recv()).await;
                    }
                break Err(Stop::Failed(Failure::new(
                    super::prompt::signal_exit(signal),
                    super::prompt::interruption(signal),
                )));
            }
            () = client.closed(), if connected => {
                connected = false;
                app.status.busy = false;
                app.status.message = Some("the agent has gone; Ctrl-C to leave".to_owned());
            }
            () = tokio::time::sleep(wait) => {}
        }
    };
    stop.store(true, Ordering::Relaxed);
    drop(screen);
    let _ = reader.join();
    // Unanswered questions get their "no".
    if let Some(reply) = open {
        cancel(reply);
    }
    for (_, reply) in dialogs {
        cancel(reply);
    }
    result
}

fn cancel(reply: Reply) {
    match reply {
        Reply::Permission(reply) => {
            let _ = reply.send(PermissionDecision::Cancelled);
        }
        Reply::Write(reply) => {
            let _ = reply.send(false);
        }
        Reply::Auth => {}
    }
}

/// Copies the session's mode and model into the status line.
fn refresh_status(app: &mut AppState, client: &Client) {
    let controls = app
        .session
        .as_deref()
        .and_then(|session| client.session_controls(session));
    app.status.mode = controls.as_ref().and_then(|c| c.current_mode());
    app.status.model = controls.as_ref().and_then(|c| c.current_model());
}

/// `/set CONFIG_ID VALUE`, as a note of how it went.
pub(crate) async fn set_option(client: &Client, session: &str, id: &str, value: &str) -> String {
    let controls = client.session_controls(session).unwrap_or_default();
    let Some(option) = controls.option(id) else {
        return format!("/set {id}: {}", setup::options_help(client, session));
    };
    let value = match option.parse_value(value) {
        Ok(value) => value,
        Err(reason) => return format!("/set {id}: {reason}"),
    };
    match client.set_config_option(session, id, &value).await {
        Ok(options) => {
            let now = options
                .iter()
                .find(|option| option.id == id)
                .map_or_else(|| "?".to_owned(), |option| option.current_label());
            format!("{id}: {now}")
        }
        Err(error) => format!("/set {id}: {error}"),
    }
}

/// A turn with `timeout` (cancelled past it); the stop reason or a line saying what failed.
async fn bounded_turn(
    client: &Client,
    session: &str,
    text: &str,
    timeout: Option<Duration>,
) -> Result<acp_runtime::agent::StopReason, String> {
    let turn = client.prompt(session, text);
    tokio::pin!(turn);
    let Some(limit) = timeout else {
        return turn.await.map_err(|error| format!("turn failed: {error}"));
    };
    tokio::select! {
        outcome = &mut turn => outcome.map_err(|error| format!("turn failed: {error}")),
        () = tokio::time::sleep(limit) => {
            let _ = client.cancel(session).await;
            let _ = tokio::time::timeout(CANCEL_WAIT, &mut turn).await;
            Err(format!("turn timed out after {} s and was cancelled", limit.as_secs_f64()))
        }
    }
}

/// Reads terminal events on a thread of its own (crossterm's reading blocks) until `stop`;
/// reads nothing while `paused`.
fn spawn_input_thread(
    tx: mpsc::Sender<Input>,
    stop: Arc<AtomicBool>,
    paused: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        // Ask the terminal whether it has the kitty keyboard protocol (waits up to 2 s for a
        // terminal that does not answer; keys typed meanwhile are kept for the loop below).
        let enhanced = terminal::supports_keyboard_enhancement().unwrap_or(false);
        if tx.blocking_send(Input::Ready { enhanced }).is_err() {
            return;
        }
        while !stop.load(Ordering::Relaxed) {
            if paused.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            match term::poll(Duration::from_millis(100)) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => break,
            }
            let input = match term::read() {
                Ok(term::Event::Key(key)) if key.kind != KeyEventKind::Release => {
                    match convert_key(key.code, key.modifiers) {
                        Some(key) => Input::Key(key),
                        None => continue,
                    }
                }
                Ok(term::Event::Paste(text)) => Input::Paste(text),
                Ok(term::Event::FocusGained) => Input::Focus(true),
                Ok(term::Event::FocusLost) => Input::Focus(false),
                Ok(term::Event::Resize(..)) => Input::Redraw,
                Ok(_) => continue,
                Err(_) => break,
            };
            if tx.blocking_send(input).is_err() {
                break;
            }
        }
    })
}

/// The terminal-independent key for a crossterm key, if the client uses it.
#[must_use]
pub fn convert_key(code: KeyCode, modifiers: KeyModifiers) -> Option<Key> {
    let ctrl = modifiers.contains(KeyModifiers::CONTROL);
    let alt = modifiers.contains(KeyModifiers::ALT);
    let shift = modifiers.contains(KeyModifiers::SHIFT);
    Some(match code {
        KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
        KeyCode::Char(c) if alt => Key::Alt(c.to_ascii_lowercase()),
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter if alt || shift => Key::Newline,
        KeyCode::Enter => Key::Enter,
        KeyCode::Backspace if alt || ctrl => Key::WordBackspace,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Delete => Key::Delete,
        KeyCode::Esc => Key::Esc,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left if ctrl || alt => Key::WordLeft,
        KeyCode::Left => Key::Left,
        KeyCode::Right if ctrl || alt => Key::WordRight,
        KeyCode::Right => Key::Right,
        KeyCode::Home if ctrl => Key::ScrollTop,
        KeyCode::Home => Key::Home,
        KeyCode::End if ctrl => Key::ScrollBottom,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Tab => Key::Tab,
        _ => return None,
    })
}
