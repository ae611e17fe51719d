//! `acp client`: launch an agent and talk to it, in a terminal UI or for one prompt.
//!
//! The runtime's client keeps the conversation (a transcript that never holds a notice) and
//! the notices (a notice center); this module shows them. The pure parts are separate from
//! the I/O so that they can be tested: [`app`] (state and keys), [`view`] (drawing),
//! [`plain`] and [`follow`] (plain-text lines) and [`text`] (terminal-safe agent text).
//! [`tui`] is the terminal event loop and [`prompt`] the one-turn mode.

pub mod app;
pub mod follow;
pub mod plain;
pub mod prompt;
pub mod text;
pub mod tui;
pub mod view;

use std::process::ExitCode;

use acp_notice_center::render::tui::Theme;
use acp_runtime::client::{ClientBuilder, PermissionDecision};
use acp_runtime::transport::AgentCommand;
use acp_schema::v1::ProtocolVersion;
use tokio::sync::{mpsc, oneshot};

/// Arguments of `acp client`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Protocol version to ask the agent for: 1 or 2.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=2))]
    pub protocol: u16,
    /// Do not advertise `session.notices` (v1) and do not use a notice center.
    #[arg(long)]
    pub no_notices: bool,
    /// Run one turn with this prompt, print it as plain text and exit (no terminal UI).
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// With --prompt: allow what the agent asks permission for (default: reject).
    #[arg(long, requires = "prompt")]
    pub allow: bool,
    /// The agent command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "AGENT_COMMAND")]
    pub agent: Vec<String>,
}

impl Args {
    /// The runtime client options these arguments ask for.
    fn builder(&self) -> ClientBuilder {
        ClientBuilder::new()
            .protocol(ProtocolVersion(self.protocol))
            .notices(!self.no_notices)
            .info("acp-client", env!("CARGO_PKG_VERSION"))
    }

    /// The agent command line.
    fn command(&self) -> Result<AgentCommand, String> {
        let (program, rest) = self
            .agent
            .split_first()
            .ok_or("no agent command given (put it after `--`)")?;
        Ok(AgentCommand::new(program).args(rest))
    }
}

/// Runs the client.
pub fn run(args: Args) -> super::Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(async move {
        match &args.prompt {
            Some(text) => run_prompt(&args, text).await,
            None => run_tui(&args).await,
        }
    });
    // Child processes are killed on drop; do not wait for stray tasks.
    runtime.shutdown_background();
    outcome
}

fn current_dir() -> Result<String, String> {
    std::env::current_dir()
        .map(|dir| dir.to_string_lossy().into_owned())
        .map_err(|error| format!("cannot read the current directory: {error}"))
}

async fn run_prompt(args: &Args, text: &str) -> super::Outcome {
    let command = args.command()?;
    let log = prompt::permission_log();
    let allow = args.allow;
    let handler_log = std::sync::Arc::clone(&log);
    let builder = args.builder().permissions(move |request| {
        let decision = prompt::answer_permission(&request, allow, &handler_log);
        Box::pin(async move { decision })
    });
    let (client, _process) = builder
        .spawn(&command)
        .await
        .map_err(|error| format!("cannot start or initialize the agent: {error}"))?;
    let session = client
        .new_session(&current_dir()?, &[])
        .await
        .map_err(|error| format!("the agent could not create a session: {error}"))?;
    prompt::one_turn(
        &client,
        &session,
        text,
        !args.no_notices,
        &log,
        std::io::stdout(),
    )
    .await
}

async fn run_tui(args: &Args) -> super::Outcome {
    let command = args.command()?.inherit_stderr(false);
    let (ask_tx, ask_rx) = mpsc::channel::<tui::PermissionAsk>(4);
    let builder = args.builder().permissions(move |request| {
        let ask_tx = ask_tx.clone();
        Box::pin(async move {
            let (reply_tx, reply_rx) = oneshot::channel();
            if ask_tx.send((request, reply_tx)).await.is_err() {
                return PermissionDecision::Cancelled;
            }
            reply_rx.await.unwrap_or(PermissionDecision::Cancelled)
        })
    });
    let (client, _process) = builder
        .spawn(&command)
        .await
        .map_err(|error| format!("cannot start or initialize the agent: {error}"))?;
    let session = client
        .new_session(&current_dir()?, &[])
        .await
        .map_err(|error| format!("the agent could not create a session: {error}"))?;
    let notices = (!args.no_notices).then(|| client.notice_center());
    let mut app = app::AppState::new(
        client.protocol_version().0,
        client.transcript(),
        notices,
        Theme::from_env(),
    );
    app.session = Some(session);
    app.status.agent.clone_from(&client.agent().name);
    app.status.message = Some("connected".to_owned());
    tui::run(app, client, ask_rx).await?;
    Ok(ExitCode::SUCCESS)
}
