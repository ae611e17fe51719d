//! The terminal UI's event loop: the [`terminal`](super::terminal)'s input, the session's
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
use acptk_runtime::agent::StopReason;
use acptk_runtime::client::{
    Client, ClientBuilder, LoginCommand, PermissionDecision, VersionFallback,
};
use tokio::sync::{mpsc, oneshot};

use super::app::{AppState, Dialog};
use super::history::{self, History};
use super::login::Login;
use super::placed::PlacedEvents;
use super::steps::{Plan, SetupEvent, TurnFailure, refresh_status, spawn_set_up, spawn_turn};
use super::terminal::{Input, Screen, spawn_input_thread};
use super::view::render;
use crate::commands::client::Args;
use crate::commands::client::driver::agent_life::Agent;
use crate::commands::client::driver::agent_log::AgentLog;
use crate::commands::client::driver::handler::{Answers, CliHandler, Question};
use crate::commands::client::driver::oneshot::continue_command;
use crate::commands::client::driver::peer_log::PeerLog;
use crate::commands::client::driver::prompt::CANCEL_WAIT;
use crate::commands::client::render::plain::event_line;
use crate::commands::client::render::theme::Look;
use crate::commands::client::shared::events::EventLog;
use crate::commands::client::shared::exit::{Exit, Failure, say};

mod commands;

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
        if agent.client.agent().can_load_sessions() {
            say(&format!(
                "acp: session {session}; continue it with: {}",
                continue_command(args, &session)
            ));
        } else {
            say(&format!(
                "acp: session {session} ends with this run (the agent cannot load sessions)"
            ));
        }
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

/// What the event loop keeps between events: the UI's state, the agent's client and the
/// session's progress, and where the session's steps report.
struct Ui {
    app: AppState,
    plan: Plan,
    notices: bool,
    placed: PlacedEvents,
    client: Client,
    changes: tokio::sync::watch::Receiver<u64>,
    connected: bool,
    /// The sign-in under way, to abort when the user cancels it.
    signing: Option<tokio::task::AbortHandle>,
    dialogs: VecDeque<(Dialog, Reply)>,
    open: Option<Reply>,
    /// Whether a session was ever open (before, a failed set-up ends the client).
    opened_once: bool,
    /// The prompt the agent refused for want of a sign-in, sent again once signed in.
    retry: Option<String>,
    last_prompt: String,
    seen_problems: u64,
    /// Why the agent wants a sign-in, while no session could be opened for want of one.
    unsigned: Option<String>,
    turn_tx: mpsc::Sender<Result<StopReason, TurnFailure>>,
    note_tx: mpsc::Sender<String>,
    setup_tx: mpsc::Sender<SetupEvent>,
    signed_tx: mpsc::Sender<Result<(), Failure>>,
}

/// What a handler of the loop says: go on, or stop the loop with this result.
type Next = Option<Result<(), Stop>>;

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
    let client = agent.client.clone();
    let signing = Some(spawn_set_up(
        &client,
        plan.clone(),
        plan.auth.clone(),
        &setup_tx,
    ));
    app.signing_in = plan.auth.is_some();
    let mut ui = Ui {
        app,
        plan,
        notices,
        placed,
        changes: client.changes(),
        client,
        connected: true,
        signing,
        dialogs: VecDeque::new(),
        open: None,
        opened_once: false,
        retry: None,
        last_prompt: String::new(),
        seen_problems: 0,
        unsigned: None,
        turn_tx,
        note_tx,
        setup_tx,
        signed_tx,
    };
    // SIGTERM, SIGHUP (the terminal went away) and SIGINT end the UI like a quit.
    let mut signals = crate::commands::signals::Signals::new()
        .unwrap_or_else(|_| crate::commands::signals::Signals::none());

    let result = loop {
        ui.before_frame(&peer_log);
        let now = ui.client.now();
        ui.app.tick(now);
        ui.app.status.violations = ui.client.violations().notices_during_replay;
        ready = ready || started.elapsed() > QUERY_WAIT;
        if ready && let Err(error) = screen.terminal.draw(|frame| render(frame, &ui.app)) {
            break Err(Stop::Io(error));
        }
        let wait = ui
            .app
            .next_deadline()
            .map_or(IDLE_FRAME, |deadline| deadline.saturating_sub(now))
            .min(IDLE_FRAME);
        let next = tokio::select! {
            input = input_rx.recv() => ui.on_input(input, agent, &mut screen, &mut ready).await,
            changed = ui.changes.changed(), if ui.connected => {
                if changed.is_err() {
                    ui.connected = false;
                }
                None
            }
            event = setup_rx.recv() => ui.on_setup(event),
            signed = signed_rx.recv() => {
                ui.on_signed(signed);
                None
            }
            question = questions.recv() => match question {
                Some(Question::Login(command, reply)) => {
                    login(&mut ui, &mut screen, &paused, &mut signals, &command, reply).await
                }
                Some(question) => {
                    ui.ask(question);
                    None
                }
                None => None,
            },
            note = note_rx.recv() => {
                if let Some(note) = note {
                    ui.app.note(note);
                }
                None
            }
            outcome = turn_rx.recv() => {
                ui.on_turn(outcome);
                None
            }
            signal = signals.recv() => {
                ui.cancel_turn(&mut turn_rx).await;
                Some(Err(interrupted(signal)))
            }
            () = ui.client.closed(), if ui.connected => {
                ui.agent_gone(agent, &agent_log).await;
                None
            }
            () = ui.placed.arrived() => None,
            () = tokio::time::sleep(wait) => None,
        };
        if let Some(result) = next {
            break result;
        }
    };
    events.clear_sink();
    stop.store(true, Ordering::Relaxed);
    drop(screen);
    let _ = reader.join();
    // Unanswered questions get their "no".
    if let Some(reply) = ui.open {
        cancel(reply);
    }
    for (_, reply) in ui.dialogs {
        cancel(reply);
    }
    (result, ui.app.session)
}

/// Runs a login command in the terminal, the UI suspended meanwhile, and answers it.
async fn login(
    ui: &mut Ui,
    screen: &mut Screen,
    paused: &AtomicBool,
    signals: &mut crate::commands::signals::Signals,
    command: &LoginCommand,
    reply: oneshot::Sender<Result<(), String>>,
) -> Next {
    paused.store(true, Ordering::Relaxed);
    // Let the input thread finish its current poll before the login reads.
    tokio::time::sleep(Duration::from_millis(150)).await;
    screen.suspend();
    let outcome = super::login::run_in_terminal(command, signals).await;
    let resumed = screen.resume();
    paused.store(false, Ordering::Relaxed);
    let ended = ui.logged_in(outcome, reply);
    match (resumed, ended) {
        (Err(error), _) => Some(Err(Stop::Io(error))),
        (Ok(()), Some(signal)) => Some(Err(interrupted(signal))),
        (Ok(()), None) => None,
    }
}

/// The failure of a client ended by `signal`.
fn interrupted(signal: i32) -> Stop {
    Stop::Failed(Failure::new(
        crate::commands::client::driver::prompt::signal_exit(signal),
        crate::commands::client::driver::prompt::interruption(signal),
    ))
}

impl Ui {
    /// Before each frame: the next dialog opened, the client's answers placed in the
    /// conversation, what the agent wrote that is not protocol shown, the status refreshed.
    fn before_frame(&mut self, peer_log: &PeerLog) {
        let app = &mut self.app;
        if self.open.is_none()
            && let Some((dialog, reply)) = self.dialogs.pop_front()
        {
            app.ask(dialog);
            self.open = Some(reply);
        }
        // A sign-in picker closed without a choice (a session is open) answers nothing.
        if matches!(self.open, Some(Reply::Auth)) && app.dialog.is_none() && app.secret.is_none() {
            self.open = None;
        }
        for placed in self.placed.take() {
            app.note_at(placed.after, placed.within, event_line(&placed.event));
        }
        // What the agent wrote on the protocol stream that is not JSON (a login's prompts)
        // is shown, never answered.
        let (lines, count) = peer_log.not_json_since(self.seen_problems);
        self.seen_problems = count;
        for line in lines {
            app.note(format!("agent (not protocol): {line}"));
        }
        refresh_status(app, &self.client);
    }

    /// What came from the terminal: a key, a paste, its answer about the keyboard protocol,
    /// focus.
    async fn on_input(
        &mut self,
        input: Option<Input>,
        agent: &mut Agent,
        screen: &mut Screen,
        ready: &mut bool,
    ) -> Next {
        match input {
            Some(Input::Key(key)) => {
                if let Some(command) = self.app.on_key(key, self.client.now()) {
                    return self.on_command(command, agent, screen).await;
                }
            }
            Some(Input::Paste(text)) => self.app.on_paste(&text),
            Some(Input::Ready { enhanced }) => {
                *ready = true;
                if enhanced {
                    screen.enhance();
                }
            }
            Some(Input::Focus(focused)) => {
                if let Some(center) = &self.app.notices {
                    crate::commands::client::shared::lock(center)
                        .set_window_focused(focused, self.client.now());
                }
            }
            Some(Input::Redraw) => {}
            None => return Some(Ok(())),
        }
        None
    }

    /// Before the client ends on a signal: cancels the turn under way, and waits a little
    /// for it to end.
    async fn cancel_turn(&mut self, turn_rx: &mut mpsc::Receiver<Result<StopReason, TurnFailure>>) {
        if let Some(session) = &self.app.session
            && self.app.status.busy
            && self.connected
        {
            let _ = self.client.cancel(session).await;
            let _ = tokio::time::timeout(CANCEL_WAIT, turn_rx.recv()).await;
        }
    }

    /// The agent exited: says how, and how to go on.
    async fn agent_gone(&mut self, agent: &mut Agent, agent_log: &AgentLog) {
        self.connected = false;
        self.app.status.busy = false;
        self.app.agent_gone = true;
        let how = agent.how_it_ended(agent_log).await;
        self.app.note(how);
        self.app.status.message =
            Some("the agent has gone: Ctrl-R starts it again, Ctrl-C leaves".to_owned());
    }

    /// What the session's set-up reported.
    fn on_setup(&mut self, event: Option<SetupEvent>) -> Next {
        let app = &mut self.app;
        if event.is_some() {
            app.signing_in = false;
            self.signing = None;
        }
        match event {
            Some(SetupEvent::Opened(opened)) => {
                self.opened_once = true;
                self.unsigned = None;
                app.session = Some(opened.id.clone());
                app.status.message = Some("connected".to_owned());
                if opened.loaded {
                    app.note(format!("loaded session {} with its history", opened.id));
                }
                if let Some(text) = self.retry.take() {
                    app.status.busy = true;
                    spawn_turn(
                        &self.client,
                        opened.id,
                        text,
                        self.plan.timeout,
                        &self.turn_tx,
                    );
                }
            }
            Some(SetupEvent::NeedsAuth(why)) => {
                self.unsigned = Some(why.clone());
                app.status.message = Some("not signed in".to_owned());
                self.dialogs
                    .push_back((Dialog::auth(self.client.auth_methods(), &why), Reply::Auth));
            }
            Some(SetupEvent::Failed(failure)) if self.opened_once => {
                app.note(failure.message);
                app.status.message =
                    Some("the session could not be opened again: Ctrl-R tries again".to_owned());
                app.agent_gone = true;
            }
            Some(SetupEvent::Failed(failure)) => return Some(Err(Stop::Failed(failure))),
            None => {}
        }
        None
    }

    /// The end of a sign-in started while a session was open.
    fn on_signed(&mut self, signed: Option<Result<(), Failure>>) {
        let app = &mut self.app;
        if signed.is_some() {
            app.signing_in = false;
            self.signing = None;
        }
        match signed {
            Some(Ok(())) => {
                app.status.message = Some("signed in".to_owned());
                if let (Some(text), Some(session)) = (self.retry.take(), app.session.clone()) {
                    app.note("signed in: sending the prompt again");
                    app.status.busy = true;
                    spawn_turn(
                        &self.client,
                        session,
                        text,
                        self.plan.timeout,
                        &self.turn_tx,
                    );
                }
            }
            Some(Err(failure)) => {
                app.status.message = Some("not signed in".to_owned());
                self.dialogs.push_back((
                    Dialog::auth(self.client.auth_methods(), &failure.message),
                    Reply::Auth,
                ));
            }
            None => {}
        }
    }

    /// A question of the agent's to put to the user in a dialog (not a login).
    fn ask(&mut self, question: Question) {
        match question {
            Question::Permission(request, reply) => {
                self.dialogs
                    .push_back((Dialog::permission(&request), Reply::Permission(reply)));
            }
            Question::Write(question, reply) => {
                self.dialogs
                    .push_back((Dialog::write(&question), Reply::Write(reply)));
            }
            Question::Run(question, reply) => {
                self.dialogs
                    .push_back((Dialog::run(&question), Reply::Write(reply)));
            }
            _ => {}
        }
    }

    /// Answers a login that ran in the terminal and notes how it went; the signal when it
    /// ended the client.
    fn logged_in(
        &mut self,
        outcome: Login,
        reply: oneshot::Sender<Result<(), String>>,
    ) -> Option<i32> {
        match outcome {
            Login::Done(outcome) => {
                self.app.note(match &outcome {
                    Ok(()) => "the login command succeeded".to_owned(),
                    Err(reason) => format!("the login command failed: {reason}"),
                });
                let _ = reply.send(outcome);
                None
            }
            Login::Cancelled => {
                self.app.note("the login was cancelled");
                let _ = reply.send(Err("the login was cancelled (Ctrl-C)".to_owned()));
                None
            }
            Login::Ended(signal) => {
                let _ = reply.send(Err("the client is ending".to_owned()));
                Some(signal)
            }
        }
    }

    /// How a turn ended; a turn refused for want of a sign-in opens the sign-in picker and
    /// is sent again once signed in.
    fn on_turn(&mut self, outcome: Option<Result<StopReason, TurnFailure>>) {
        match outcome {
            Some(Ok(stop)) => self.app.turn_ended(format!("turn ended: {stop}")),
            Some(Err(TurnFailure { message, auth })) => {
                self.app.turn_ended(message.clone());
                if auth && !self.client.auth_methods().is_empty() && self.connected {
                    self.retry = Some(self.last_prompt.clone());
                    self.app.status.message = Some("not signed in".to_owned());
                    self.dialogs.push_back((
                        Dialog::auth(self.client.auth_methods(), &message),
                        Reply::Auth,
                    ));
                }
            }
            None => {}
        }
    }
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
