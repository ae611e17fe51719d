//! What the event loop does with a command of the UI's (a key's meaning): a prompt sent, a
//! turn cancelled, the agent's question answered, a sign-in started or cancelled, the agent
//! started again, a mode or an option set.

use acptk_runtime::client::PermissionDecision;
use tokio::sync::mpsc;

use super::super::app::{AppState, Command, Dialog};
use super::super::steps::{Plan, SetupEvent, set_option, spawn_set_up, spawn_turn};
use super::super::terminal::Screen;
use super::super::view::render;
use super::{Next, Reply, Stop, Ui, attach};
use crate::commands::client::driver::agent_life::Agent;
use crate::commands::client::driver::setup;
use crate::commands::client::shared::exit::{Exit, Failure};

impl Ui {
    /// Does what a key asked for.
    pub(super) async fn on_command(
        &mut self,
        command: Command,
        agent: &mut Agent,
        screen: &mut Screen,
    ) -> Next {
        let (app, client, plan) = (&mut self.app, &self.client, &self.plan);
        match command {
            Command::Quit if !self.connected => {
                return Some(Err(Stop::Failed(Failure::new(
                    Exit::AgentGone,
                    "the agent exited during the session",
                ))));
            }
            Command::Quit => match (&self.unsigned, &app.session) {
                (Some(why), None) => {
                    let why = why.lines().next().unwrap_or_default();
                    return Some(Err(Stop::Failed(Failure::new(
                        Exit::Auth,
                        format!("left without signing in ({why})"),
                    ))));
                }
                _ => return Some(Ok(())),
            },
            Command::Submit(text) => {
                let session = app.session.clone()?;
                self.last_prompt.clone_from(&text);
                spawn_turn(client, session, text, plan.timeout, &self.turn_tx);
            }
            Command::CancelTurn => {
                // A cancelled turn's open question is answered first: a permission request
                // with `cancelled` (as the protocol asks), a write or a command refused.
                match self.open.take() {
                    Some(Reply::Permission(reply)) => {
                        let _ = reply.send(PermissionDecision::Cancelled);
                    }
                    Some(Reply::Write(reply)) => {
                        let _ = reply.send(false);
                    }
                    other => self.open = other,
                }
                if let Some(session) = &app.session {
                    let _ = client.cancel(session).await;
                }
            }
            Command::Answer(answer) => {
                if let Some(Reply::Permission(reply)) = self.open.take() {
                    let _ = reply.send(answer);
                }
            }
            Command::AnswerWrite(allowed) => {
                if let Some(Reply::Write(reply)) = self.open.take() {
                    let _ = reply.send(allowed);
                }
            }
            Command::Authenticate(method) => {
                self.open = None;
                app.status.message = Some(format!("signing in with {method}... (Ctrl-C cancels)"));
                app.signing_in = true;
                self.signing = Some(if app.session.is_some() {
                    let (client, signed_tx, limit) =
                        (client.clone(), self.signed_tx.clone(), plan.timeout);
                    tokio::spawn(async move {
                        let _ = signed_tx
                            .send(setup::authenticate(&client, &method, limit).await)
                            .await;
                    })
                    .abort_handle()
                } else {
                    spawn_set_up(client, plan.clone(), Some(method), &self.setup_tx)
                });
            }
            Command::SignInWith(method, values) => {
                self.open = None;
                agent.set_env(values);
                app.status.message = Some(format!(
                    "starting the agent again to sign in with {method}..."
                ));
                draw(screen, app);
                if let Some(task) =
                    restart(app, agent, plan, self.notices, Some(method), &self.setup_tx).await
                {
                    app.signing_in = true;
                    self.signing = Some(task);
                    self.reconnect(agent);
                }
            }
            Command::CancelSignIn => {
                if let Some(task) = self.signing.take() {
                    task.abort();
                }
                app.signing_in = false;
                app.status.message = Some("not signed in".to_owned());
                self.dialogs.push_back((
                    Dialog::auth(
                        client.auth_methods(),
                        "the sign-in was cancelled; choose a method",
                    ),
                    Reply::Auth,
                ));
            }
            Command::Restart => {
                app.status.message = Some("starting the agent again...".to_owned());
                draw(screen, app);
                if restart(app, agent, plan, self.notices, None, &self.setup_tx)
                    .await
                    .is_some()
                {
                    self.reconnect(agent);
                }
            }
            Command::SetMode(mode) => {
                let session = app.session.clone()?;
                let (client, note_tx) = (client.clone(), self.note_tx.clone());
                tokio::spawn(async move {
                    let note = match client.set_mode(&session, &mode).await {
                        Ok(()) => format!("mode: {mode}"),
                        Err(error) => format!("/mode {mode}: {error}"),
                    };
                    let _ = note_tx.send(note).await;
                });
            }
            Command::SetOption(id, value) => {
                let session = app.session.clone()?;
                let (client, note_tx) = (client.clone(), self.note_tx.clone());
                tokio::spawn(async move {
                    let _ = note_tx
                        .send(set_option(&client, &session, &id, &value).await)
                        .await;
                });
            }
        }
        None
    }

    /// Follows the agent started again: its transcript, its client and its changes.
    fn reconnect(&mut self, agent: &Agent) {
        self.placed.follow(self.app.transcript.clone());
        self.client = agent.client.clone();
        self.changes = self.client.changes();
        self.connected = true;
    }
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
