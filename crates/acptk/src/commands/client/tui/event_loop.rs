//! The terminal UI's event loop: terminal set-up (raw mode, bracketed paste, the kitty
//! keyboard protocol where the terminal has it), keyboard, paste and focus input, the session's
//! set-up (with the sign-in picker when the agent asks for authentication, at set-up or for a
//! prompt), the agent's questions (permission, file writes, terminal logins), the agent's
//! life (how it ended, starting it again), toast timers, drawing. All decisions are in
//! [`AppState`]; this only moves events.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use acptk_notice_center::render::tui::Theme;
use acptk_runtime::client::{Client, ClientBuilder, PermissionDecision, VersionFallback};
use ratatui::crossterm::event::{
    self as term, KeyCode, KeyEventKind, KeyModifiers, KeyboardEnhancementFlags,
};
use ratatui::crossterm::{execute, terminal};
use tokio::sync::{mpsc, oneshot};

use super::app::{AppState, Command, Dialog};
use super::history::{self, History};
use super::key::Key;
use super::login::Login;
use super::placed::PlacedEvents;
use super::steps::{Plan, SetupEvent, set_option};
use super::steps::{TurnFailure, refresh_status, spawn_set_up, spawn_turn};
use super::view::render;
use crate::commands::client::Args;
use crate::commands::client::driver::agent_life::Agent;
use crate::commands::client::driver::agent_log::AgentLog;
use crate::commands::client::driver::handler::{Answers, CliHandler, Question};
use crate::commands::client::driver::oneshot::continue_command;
use crate::commands::client::driver::peer_log::PeerLog;
use crate::commands::client::driver::prompt::CANCEL_WAIT;
use crate::commands::client::driver::setup;
use crate::commands::client::render::plain::event_line;
use crate::commands::client::render::theme::Look;
use crate::commands::client::shared::events::EventLog;
use crate::commands::client::shared::exit::{Exit, Failure, say};

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

/// Runs `acp client` with the terminal UI: launches the agent, runs the UI until the user
/// leaves, ends the agent and says how to continue the session.
pub async fn run_client(args: &Args) -> Result<(), Failure> {
    let (questions_tx, questions) = mpsc::channel::<Question>(8);
    let events = EventLog::new();
    let handler = CliHandler::new(Answers::Ask(questions_tx), args.services(), events.clone());
    let terminals = handler.local_terminals().cloned();
    // The agent's standard error goes to the run's log file and the agent pane, never onto
    // the UI's screen.
    let agent_log = AgentLog::open(false);
    let target = args.target(&agent_log)?.quiet();
    let plan = Plan::of(args)?;
    let log = PeerLog::new();
    let builder: Box<dyn Fn() -> ClientBuilder + Send> = {
        let (version, notices, log) = (args.protocol, !args.no_notices, log.clone());
        Box::new(move || {
            crate::commands::client::client_builder(version, notices, handler.clone(), &log)
        })
    };
    let mut agent = Agent::launch(target, builder, args.timeout)
        .await
        .map_err(|failure| log.explain(failure))?;
    let client = agent.client.clone();
    let theme = Theme::from_env();
    let mut app = AppState::new(
        client.protocol_version().0,
        client.transcript(),
        None,
        theme,
    );
    attach(&mut app, &client, !args.no_notices);
    app.look = Look::from_env(theme.color, args.high_contrast);
    app.terminals = terminals;
    app.agent_local = agent.is_local();
    if app.agent_local {
        app.agent_log = Some(agent_log.clone());
    }
    app.peer_log = Some(log.clone());
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
    app.status.message = Some("opening the session...".to_owned());
    let world = World {
        plan,
        questions,
        events,
        agent_log: agent_log.clone(),
        peer_log: log.clone(),
        notices: !args.no_notices,
    };
    let (result, session) = run(app, &mut agent, world).await;
    agent.shutdown().await;
    if let Some(session) = session {
        say(&format!(
            "acp: session {session}; continue it with: {}",
            continue_command(args, &session)
        ));
    }
    result.map_err(|error| match error {
        Stop::Failed(failure) => agent_log.explain(log.explain(failure)),
        Stop::Io(error) => Failure::new(Exit::Failed, format!("the terminal failed: {error}")),
    })
}

/// Points `app` at a (new) connection to the agent: its transcript, notice center (unless
/// notices are off), name and protocol version.
fn attach(app: &mut AppState, client: &Client, notices: bool) {
    app.transcript = client.transcript();
    app.notices = notices.then(|| client.notice_center());
    app.status.notices = notices;
    app.reset_view();
    app.status.protocol = client.protocol_version().0;
    app.status.agent.clone_from(&client.agent().name);
    app.status.proposed = client
        .agent()
        .fallback
        .is_some()
        .then_some(client.agent().proposed.0);
    app.auth_methods = client.auth_methods().to_vec();
    if client.agent().fallback == Some(VersionFallback::Restarted) {
        app.note(format!(
            "the agent speaks ACP v1 only: it was restarted and initialized as v1 (asked for v{})",
            client.agent().proposed.0
        ));
    }
}

/// What the event loop works with besides the agent.
struct World {
    plan: Plan,
    questions: mpsc::Receiver<Question>,
    events: EventLog,
    agent_log: AgentLog,
    peer_log: PeerLog,
    notices: bool,
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

/// Runs the terminal UI on `agent` until the user quits; returns how it stopped and the
/// session that was open, if one was.
async fn run(
    mut app: AppState,
    agent: &mut Agent,
    world: World,
) -> (Result<(), Stop>, Option<String>) {
    let mut screen = match Screen::open() {
        Ok(screen) => screen,
        Err(error) => return (Err(Stop::Io(error)), None),
    };
    // The first frame, then the input thread's question to the terminal: no frame is drawn
    // while the question is out (its bytes must not land inside a frame's), for at most
    // QUERY_WAIT.
    if let Err(error) = screen.terminal.draw(|frame| render(frame, &app)) {
        return (Err(Stop::Io(error)), None);
    }
    let World {
        plan,
        mut questions,
        events,
        agent_log,
        peer_log,
        notices,
    } = world;
    // The client's answers to the agent are placed in the conversation as they are given,
    // before the agent hears them (never where the conversation stands when the loop next
    // looks).
    let placed = PlacedEvents::new(app.transcript.clone());
    events.set_sink({
        let placed = placed.clone();
        move |event| placed.record(event)
    });
    let started = std::time::Instant::now();
    let mut ready = false;
    let (input_tx, mut input_rx) = mpsc::channel(64);
    let stop = Arc::new(AtomicBool::new(false));
    let paused = Arc::new(AtomicBool::new(false));
    let reader = spawn_input_thread(input_tx, Arc::clone(&stop), Arc::clone(&paused));
    let (turn_tx, mut turn_rx) = mpsc::channel(4);
    let (note_tx, mut note_rx) = mpsc::channel::<String>(16);
    let (setup_tx, mut setup_rx) = mpsc::channel::<SetupEvent>(2);
    let (signed_tx, mut signed_rx) = mpsc::channel::<Result<(), Failure>>(2);
    let mut client = agent.client.clone();
    // The sign-in under way, to abort when the user cancels it.
    let mut signing = Some(spawn_set_up(
        &client,
        plan.clone(),
        plan.auth.clone(),
        &setup_tx,
    ));
    app.signing_in = plan.auth.is_some();
    let mut changes = client.changes();
    // SIGTERM, SIGHUP (the terminal went away) and SIGINT end the UI like a quit.
    let mut signals = crate::commands::signals::Signals::new()
        .unwrap_or_else(|_| crate::commands::signals::Signals::none());
    let mut dialogs: VecDeque<(Dialog, Reply)> = VecDeque::new();
    let mut open: Option<Reply> = None;
    let mut connected = true;
    // Whether a session was ever open (before, a failed set-up ends the client).
    let mut opened_once = false;
    // The prompt the agent refused for want of a sign-in, sent again once signed in.
    let mut retry: Option<String> = None;
    let mut last_prompt = String::new();
    let mut seen_problems = 0u64;
    // Why the agent wants a sign-in, while no session could be opened for want of one.
    let mut unsigned: Option<String> = None;

    let result = loop {
        if open.is_none()
            && let Some((dialog, reply)) = dialogs.pop_front()
        {
            app.ask(dialog);
            open = Some(reply);
        }
        // A sign-in picker closed without a choice (a session is open) answers nothing.
        if matches!(open, Some(Reply::Auth)) && app.dialog.is_none() && app.secret.is_none() {
            open = None;
        }
        for placed in placed.take() {
            app.note_at(placed.after, placed.within, event_line(&placed.event));
        }
        // What the agent wrote on the protocol stream that is not JSON (a login's prompts)
        // is shown, never answered.
        let (lines, count) = peer_log.not_json_since(seen_problems);
        seen_problems = count;
        for line in lines {
            app.note(format!("agent (not protocol): {line}"));
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
                        Command::Quit => match (&unsigned, &app.session) {
                            (Some(why), None) => {
                                let why = why.lines().next().unwrap_or_default();
                                break Err(Stop::Failed(Failure::new(
                                    Exit::Auth,
                                    format!("left without signing in ({why})"),
                                )));
                            }
                            _ => break Ok(()),
                        },
                        Command::Submit(text) => {
                            let Some(session) = app.session.clone() else { continue };
                            last_prompt.clone_from(&text);
                            spawn_turn(&client, session, text, plan.timeout, &turn_tx);
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
                            app.status.message = Some(format!("signing in with {method}... (Ctrl-C cancels)"));
                            app.signing_in = true;
                            signing = Some(if app.session.is_some() {
                                let (client, signed_tx, limit) = (client.clone(), signed_tx.clone(), plan.timeout);
                                tokio::spawn(async move {
                                    let _ = signed_tx.send(setup::authenticate(&client, &method, limit).await).await;
                                })
                                .abort_handle()
                            } else {
                                spawn_set_up(&client, plan.clone(), Some(method), &setup_tx)
                            });
                        }
                        Command::SignInWith(method, values) => {
                            open = None;
                            agent.set_env(values);
                            app.status.message = Some(format!("starting the agent again to sign in with {method}..."));
                            draw(&mut screen, &app);
                            if let Some(task) = restart(&mut app, agent, &plan, notices, Some(method), &setup_tx).await {
                                placed.follow(app.transcript.clone());
                                app.signing_in = true;
                                signing = Some(task);
                                client = agent.client.clone();
                                changes = client.changes();
                                connected = true;
                            }
                        }
                        Command::CancelSignIn => {
                            if let Some(task) = signing.take() {
                                task.abort();
                            }
                            app.signing_in = false;
                            app.status.message = Some("not signed in".to_owned());
                            dialogs.push_back((
                                Dialog::auth(client.auth_methods(), "the sign-in was cancelled; choose a method"),
                                Reply::Auth,
                            ));
                        }
                        Command::Restart => {
                            app.status.message = Some("starting the agent again...".to_owned());
                            draw(&mut screen, &app);
                            if restart(&mut app, agent, &plan, notices, None, &setup_tx).await.is_some() {
                                placed.follow(app.transcript.clone());
                                client = agent.client.clone();
                                changes = client.changes();
                                connected = true;
                            }
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
                        crate::commands::client::shared::lock(center).set_window_focused(focused, client.now());
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
            event = setup_rx.recv() => match event.inspect(|_| {
                app.signing_in = false;
                signing = None;
            }) {
                Some(SetupEvent::Opened(opened)) => {
                    opened_once = true;
                    unsigned = None;
                    app.session = Some(opened.id.clone());
                    app.status.message = Some("connected".to_owned());
                    if opened.loaded {
                        app.note(format!("loaded session {} with its history", opened.id));
                    }
                    if let Some(text) = retry.take() {
                        app.status.busy = true;
                        spawn_turn(&client, opened.id, text, plan.timeout, &turn_tx);
                    }
                }
                Some(SetupEvent::NeedsAuth(why)) => {
                    unsigned = Some(why.clone());
                    app.status.message = Some("not signed in".to_owned());
                    dialogs.push_back((Dialog::auth(client.auth_methods(), &why), Reply::Auth));
                }
                Some(SetupEvent::Failed(failure)) if opened_once => {
                    app.note(failure.message);
                    app.status.message = Some("the session could not be opened again: Ctrl-R tries again".to_owned());
                    app.agent_gone = true;
                }
                Some(SetupEvent::Failed(failure)) => break Err(Stop::Failed(failure)),
                None => {}
            },
            signed = signed_rx.recv() => match signed.inspect(|_| {
                app.signing_in = false;
                signing = None;
            }) {
                Some(Ok(())) => {
                    app.status.message = Some("signed in".to_owned());
                    if let (Some(text), Some(session)) = (retry.take(), app.session.clone()) {
                        app.note("signed in: sending the prompt again");
                        app.status.busy = true;
                        spawn_turn(&client, session, text, plan.timeout, &turn_tx);
                    }
                }
                Some(Err(failure)) => {
                    app.status.message = Some("not signed in".to_owned());
                    dialogs.push_back((Dialog::auth(client.auth_methods(), &failure.message), Reply::Auth));
                }
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
                    let outcome = super::login::run_in_terminal(&command, &mut signals).await;
                    let resumed = screen.resume();
                    paused.store(false, Ordering::Relaxed);
                    let ended = match outcome {
                        Login::Done(outcome) => {
                            app.note(match &outcome {
                                Ok(()) => "the login command succeeded".to_owned(),
                                Err(reason) => format!("the login command failed: {reason}"),
                            });
                            let _ = reply.send(outcome);
                            None
                        }
                        Login::Cancelled => {
                            app.note("the login was cancelled");
                            let _ = reply.send(Err("the login was cancelled (Ctrl-C)".to_owned()));
                            None
                        }
                        Login::Ended(signal) => {
                            let _ = reply.send(Err("the client is ending".to_owned()));
                            Some(signal)
                        }
                    };
                    if let Err(error) = resumed {
                        break Err(Stop::Io(error));
                    }
                    if let Some(signal) = ended {
                        break Err(Stop::Failed(Failure::new(
                            crate::commands::client::driver::prompt::signal_exit(signal),
                            crate::commands::client::driver::prompt::interruption(signal),
                        )));
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
                    Some(Err(TurnFailure { message, auth })) => {
                        app.turn_ended(message.clone());
                        if auth && !client.auth_methods().is_empty() && connected {
                            retry = Some(last_prompt.clone());
                            app.status.message = Some("not signed in".to_owned());
                            dialogs.push_back((Dialog::auth(client.auth_methods(), &message), Reply::Auth));
                        }
                    }
                    None => {}
                }
            }
            signal = signals.recv() => {
                if let Some(session) = &app.session
                    && app.status.busy
                    && connected
                {
                    let _ = client.cancel(session).await;
                    let _ = tokio::time::timeout(CANCEL_WAIT, turn_rx.recv()).await;
                }
                break Err(Stop::Failed(Failure::new(
                    crate::commands::client::driver::prompt::signal_exit(signal),
                    crate::commands::client::driver::prompt::interruption(signal),
                )));
            }
            () = client.closed(), if connected => {
                connected = false;
                app.status.busy = false;
                app.agent_gone = true;
                let how = agent.how_it_ended(&agent_log).await;
                app.note(how);
                app.status.message = Some("the agent has gone: Ctrl-R starts it again, Ctrl-C leaves".to_owned());
            }
            () = placed.arrived() => {}
            () = tokio::time::sleep(wait) => {}
        }
    };
    events.clear_sink();
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
    (result, app.session)
}

/// Draws a frame now (before a step that makes the loop wait).
fn draw(screen: &mut Screen, app: &AppState) {
    let _ = screen.terminal.draw(|frame| render(frame, app));
}

/// Starts the agent again and opens the session again on it: loaded (with its history)
/// when the agent can load sessions, else a new one; signs in with `auth` first. The set-up
/// task, or `None` when the agent could not be started (the UI says why).
async fn restart(
    app: &mut AppState,
    agent: &mut Agent,
    plan: &Plan,
    notices: bool,
    auth: Option<String>,
    setup_tx: &mpsc::Sender<SetupEvent>,
) -> Option<tokio::task::AbortHandle> {
    if let Err(failure) = agent.restart().await {
        app.note(format!(
            "the agent could not be started again: {}",
            failure.message
        ));
        app.status.message =
            Some("the agent has gone: Ctrl-R tries again, Ctrl-C leaves".to_owned());
        app.agent_gone = true;
        return None;
    }
    let client = agent.client.clone();
    attach(app, &client, notices);
    app.agent_gone = false;
    app.status.busy = false;
    let mut plan = plan.clone();
    if let Some(session) = app.session.take() {
        if client.agent().can_load_sessions() {
            plan.load = Some(session);
        } else {
            app.note("the agent cannot load sessions: a new session is opened");
            plan.load = None;
        }
    }
    app.status.message = Some("opening the session again...".to_owned());
    Some(spawn_set_up(&client, plan, auth, setup_tx))
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
