//! The terminal UI's event loop: terminal set-up, keyboard and focus input, connection
//! changes, permission requests, toast timers, drawing. All decisions are in [`AppState`];
//! this only moves events.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use acp_runtime::client::{Client, PermissionDecision, PermissionRequest};
use ratatui::crossterm::event::{self as term, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::execute;
use tokio::sync::{mpsc, oneshot};

use super::app::{AppState, Command, Key};
use super::view::render;

/// A permission request from the connection, with the way back for the answer.
pub type PermissionAsk = (PermissionRequest, oneshot::Sender<PermissionDecision>);

/// Input from the terminal.
enum Input {
    Key(Key),
    Focus(bool),
    Redraw,
}

/// The longest wait between two frames when nothing happens (keeps the clock-driven parts,
/// such as toast timers, current).
const IDLE_FRAME: Duration = Duration::from_millis(500);

/// Runs the terminal UI on `client`'s session `app.session` until the user quits.
///
/// `permissions` brings the agent's permission requests (see
/// [`ClientBuilder::permissions`](acp_runtime::client::ClientBuilder::permissions)). The
/// terminal is restored on return, also on error.
pub async fn run(
    mut app: AppState,
    client: Client,
    mut permissions: mpsc::Receiver<PermissionAsk>,
) -> io::Result<()> {
    let mut terminal = ratatui::try_init()?;
    // Focus reports let toast timers pause while the window is in the background.
    let _ = execute!(io::stdout(), term::EnableFocusChange);
    let (input_tx, mut input_rx) = mpsc::channel(64);
    let stop = Arc::new(AtomicBool::new(false));
    let reader = spawn_input_thread(input_tx, Arc::clone(&stop));
    let (turn_tx, mut turn_rx) = mpsc::channel(4);
    let mut changes = client.changes();
    let mut pending: Option<oneshot::Sender<PermissionDecision>> = None;
    let mut connected = true;

    let result = loop {
        let now = client.now();
        app.tick(now);
        app.status.violations = client.violations().notices_during_replay;
        if let Err(error) = terminal.draw(|frame| render(frame, &app)) {
            break Err(error);
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
                        Command::Quit => break Ok(()),
                        Command::Submit(text) => {
                            let Some(session) = app.session.clone() else { continue };
                            let client = client.clone();
                            let turn_tx = turn_tx.clone();
                            tokio::spawn(async move {
                                let outcome = client.prompt(&session, &text).await;
                                let _ = turn_tx.send(outcome).await;
                            });
                        }
                        Command::CancelTurn => {
                            if let Some(session) = &app.session {
                                let _ = client.cancel(session).await;
                            }
                        }
                        Command::Answer(answer) => {
                            if let Some(reply) = pending.take() {
                                let _ = reply.send(answer);
                            }
                        }
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
            ask = permissions.recv() => {
                if let Some((request, reply)) = ask {
                    app.ask_permission((&request).into());
                    // A newer request replaces an unanswered one, which is then cancelled.
                    if let Some(old) = pending.replace(reply) {
                        let _ = old.send(PermissionDecision::Cancelled);
                    }
                }
            }
            outcome = turn_rx.recv() => {
                match outcome {
                    Some(Ok(stop)) => app.turn_ended(format!("turn ended: {}", stop)),
                    Some(Err(error)) => app.turn_ended(format!("turn failed: {error}")),
                    None => {}
                }
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
    let _ = execute!(io::stdout(), term::DisableFocusChange);
    ratatui::try_restore()?;
    let _ = reader.join();
    result
}

/// Reads terminal events on a thread of its own (crossterm's reading blocks) until `stop`.
fn spawn_input_thread(
    tx: mpsc::Sender<Input>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
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
    Some(match code {
        KeyCode::Char(c) if modifiers.contains(KeyModifiers::CONTROL) => {
            Key::Ctrl(c.to_ascii_lowercase())
        }
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Esc => Key::Esc,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::End => Key::End,
        _ => return None,
    })
}
