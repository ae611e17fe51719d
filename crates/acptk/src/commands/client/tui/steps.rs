//! The steps of the terminal UI's session, each on a task of its own so that the UI stays
//! live: opening it (signing in first when asked), running a turn (bounded by `--timeout`,
//! telling a refusal for want of a sign-in apart), setting a config option, and copying the
//! session's mode and model into the status line.

use std::time::Duration;

use acptk_runtime::agent::StopReason;
use acptk_runtime::client::{Client, SessionOptions};
use acptk_runtime::rpc::AUTH_REQUIRED;
use tokio::sync::mpsc;

use super::app::AppState;
use crate::commands::client::Args;
use crate::commands::client::driver::prompt::CANCEL_WAIT;
use crate::commands::client::driver::setup::{self, Opened};
use crate::commands::client::shared::exit::{Exit, Failure};

/// How the session's set-up went.
pub(crate) enum SetupEvent {
    /// The session is open.
    Opened(Opened),
    /// The agent asks for a sign-in; the message says why.
    NeedsAuth(String),
    /// Set-up failed for good.
    Failed(Failure),
}

/// What the set-up steps need from the arguments.
#[derive(Clone)]
pub(crate) struct Plan {
    options: SessionOptions,
    pub(crate) auth: Option<String>,
    pub(crate) load: Option<String>,
    mode: Option<String>,
    settings: Vec<(String, String)>,
    pub(crate) timeout: Option<Duration>,
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

/// Opens the session (signing in first with `auth`) on a task of its own; the outcome goes
/// to `setup_tx`.
pub(crate) fn spawn_set_up(
    client: &Client,
    plan: Plan,
    auth: Option<String>,
    setup_tx: &mpsc::Sender<SetupEvent>,
) -> tokio::task::AbortHandle {
    let (client, setup_tx) = (client.clone(), setup_tx.clone());
    tokio::spawn(async move {
        let _ = setup_tx.send(set_up(client, plan, auth).await).await;
    })
    .abort_handle()
}

/// Runs a turn on a task of its own; the outcome goes to `turn_tx`.
pub(crate) fn spawn_turn(
    client: &Client,
    session: String,
    text: String,
    timeout: Option<Duration>,
    turn_tx: &mpsc::Sender<Result<StopReason, TurnFailure>>,
) {
    let (client, turn_tx) = (client.clone(), turn_tx.clone());
    tokio::spawn(async move {
        let outcome = bounded_turn(&client, &session, &text, timeout).await;
        let _ = turn_tx.send(outcome).await;
    });
}

/// Copies the session's mode and model into the status line.
pub(crate) fn refresh_status(app: &mut AppState, client: &Client) {
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

/// Why a turn failed: a line for the conversation, and whether the agent asked for a
/// sign-in (`-32000`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TurnFailure {
    pub(crate) message: String,
    pub(crate) auth: bool,
}

impl TurnFailure {
    fn of(error: &acptk_runtime::Error) -> Self {
        Self {
            message: format!("turn failed: {error}"),
            auth: error.rpc().is_some_and(|e| e.code == AUTH_REQUIRED),
        }
    }
}

/// A turn with `timeout` (cancelled past it); the stop reason or what failed.
pub(crate) async fn bounded_turn(
    client: &Client,
    session: &str,
    text: &str,
    timeout: Option<Duration>,
) -> Result<StopReason, TurnFailure> {
    let turn = client.prompt(session, text);
    tokio::pin!(turn);
    let Some(limit) = timeout else {
        return turn.await.map_err(|error| TurnFailure::of(&error));
    };
    tokio::select! {
        outcome = &mut turn => outcome.map_err(|error| TurnFailure::of(&error)),
        () = tokio::time::sleep(limit) => {
            let _ = client.cancel(session).await;
            let _ = tokio::time::timeout(CANCEL_WAIT, &mut turn).await;
            Err(TurnFailure {
                message: format!("turn timed out after {} s and was cancelled", limit.as_secs_f64()),
                auth: false,
            })
        }
    }
}
