//! One-shot mode, `acp client --prompt TEXT`: launch the agent, open the session (saying its
//! id), run one turn while printing it, end the agent, and exit with a code that says how it
//! went (saying how to continue the session).
//!
//! [`Ready`] is the part before the turn (an agent with its session open), which the owner of
//! a named session ([`super::owner`]) shares to serve many turns.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use acptk_runtime::client::{Client, LocalTerminals};
use acptk_runtime::transport::AgentProcess;
use tokio::sync::watch;

use super::agent_log::AgentLog;
use super::handler::{Answers, CliHandler};
use super::named::claim::{self, Claim};
use super::peer_log::PeerLog;
use super::prompt::{self, TurnEnd, interruption, signal_exit};
use super::turn_output::{Renderer, TerminalTails, TurnOutput};
use super::{decide, setup};
use crate::commands::client::Args;
use crate::commands::client::shared::events::EventLog;
use crate::commands::client::shared::exit::{Exit, Failure, report, say};
use crate::commands::client::shared::format::Format;
use crate::commands::client::shared::text::command_line;

/// How to continue `session` later, as a command line.
#[must_use]
pub fn continue_command(args: &Args, session: &str) -> String {
    continue_with(args, &["--load", session])
}

/// `acp client` with the agent of `args` and `flags`, as a command line.
#[must_use]
pub fn continue_with(args: &Args, flags: &[&str]) -> String {
    let mut words = vec!["acp".to_owned(), "client".to_owned()];
    if let Some(name) = &args.agent_name {
        words.push(name.clone());
    }
    if let Some(url) = &args.url {
        words.push("--url".to_owned());
        words.push(url.clone());
    }
    if args.protocol != 1 {
        words.push("--protocol".to_owned());
        words.push(args.protocol.to_string());
    }
    if let Some(dir) = &args.cwd {
        words.push("--cwd".to_owned());
        words.push(dir.to_string_lossy().into_owned());
    }
    words.extend(flags.iter().map(|flag| (*flag).to_owned()));
    if args.agent_name.is_none() && !args.agent.is_empty() {
        words.push("--".to_owned());
        words.extend(args.agent.iter().cloned());
    }
    command_line(&words[0], &words[1..])
}

/// How the session of a run is opened.
#[derive(Debug)]
pub enum Opening {
    /// `session/new`, or `--load ID` when given.
    Plain,
    /// A named session (`--session NAME`), continued when its record has one.
    Named(Box<Claim>),
}

/// A launched agent (or a connected remote one) with its session open.
pub struct Ready {
    /// The client.
    pub client: Client,
    process: Option<AgentProcess>,
    /// The agent's standard error.
    pub agent_log: AgentLog,
    /// The connection's protocol problems.
    pub log: PeerLog,
    /// What the client does for the agent, as it happens.
    pub events: EventLog,
    /// The permission decisions.
    pub decide: decide::OneShot,
    terminals: Option<LocalTerminals>,
    /// What makes the outputs turns are printed to.
    renderer: &'static dyn Renderer,
    /// The open session.
    pub opened: setup::Opened,
}

impl std::fmt::Debug for Ready {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ready")
            .field("opened", &self.opened)
            .finish_non_exhaustive()
    }
}

impl Ready {
    /// Launches the agent (asking permissions on `asker` when there is one), signs in, opens
    /// the session as `opening` says and applies `--mode` and `--set`. A signal on
    /// `interrupted` meanwhile ends it (exit 128 + the signal); a failure has ended the agent.
    /// Its turns are printed to outputs `renderer` makes ([`Ready::output`]).
    pub async fn start(
        args: &Args,
        opening: &mut Opening,
        asker: Option<decide::TtyAsker>,
        interrupted: &mut watch::Receiver<Option<i32>>,
        renderer: &'static dyn Renderer,
    ) -> Result<Ready, Failure> {
        let policy = args.permission_policy()?;
        let decide = decide::OneShot::new(policy, asker, args.non_interactive());
        let events = EventLog::new();
        let handler = CliHandler::new(
            Answers::OneShot(decide.clone()),
            args.services(),
            events.clone(),
        );
        let terminals = handler.local_terminals().cloned();
        let log = PeerLog::new().verbose(args.verbose);
        let agent_log = AgentLog::open(args.verbose);
        let (target, options) = args
            .target(&agent_log)
            .and_then(|t| Ok((t, args.session_options()?)))?;
        let launched = tokio::select! {
            launched = setup::launch(args.builder(handler, &log), &target, args.timeout) => launched,
            signal = interrupted.changed() => {
                let signal = signal.ok().and(*interrupted.borrow()).unwrap_or(2);
                Err(Failure::new(signal_exit(signal), format!("{} while starting the agent", interruption(signal))))
            }
        };
        let (client, mut process) =
            launched.map_err(|failure| agent_log.explain(log.explain(failure)))?;
        let setup = async {
            if let Some(method) = &args.auth {
                setup::authenticate(&client, method, args.timeout).await?;
            }
            let options = setup::fit_to_agent(&client, &options);
            let opened = match opening {
                Opening::Plain => {
                    setup::open(&client, &options, args.load.as_deref(), args.timeout).await?
                }
                Opening::Named(claim) => {
                    claim::open(&client, claim, &options, args.timeout).await?
                }
            };
            setup::apply_controls(
                &client,
                &opened.id,
                args.mode.as_deref(),
                &args.settings,
                args.timeout,
            )
            .await?;
            Ok::<_, Failure>(opened)
        };
        let opened = tokio::select! {
            opened = setup => opened,
            signal = interrupted.changed() => {
                let signal = signal.ok().and(*interrupted.borrow()).unwrap_or(2);
                Err(Failure::new(signal_exit(signal), format!("{} while opening the session", interruption(signal))))
            }
        };
        match opened {
            Ok(opened) => Ok(Ready {
                client,
                process,
                agent_log,
                log,
                events,
                decide,
                terminals,
                renderer,
                opened,
            }),
            Err(failure) => {
                setup::shutdown(&client, &mut process).await;
                Err(agent_log.explain(log.explain(failure)))
            }
        }
    }

    /// A printer of `format` writing to `out`, showing terminal output with tool calls (and
    /// notices when `notices`).
    pub fn output(
        &self,
        format: Format,
        out: impl Write + Send + 'static,
        notices: bool,
    ) -> Arc<dyn TurnOutput> {
        let tails = self.terminals.clone().map(|terminals| {
            // The last 4 KiB of a command's output are shown under its tool call.
            let tails: TerminalTails =
                Arc::new(move |id: &str| terminals.tail(id, 4096).map(|tail| tail.text));
            tails
        });
        self.renderer
            .open(format, Box::new(out), &self.opened.id, tails, notices)
    }

    /// Prints the client's own events to `out` as they happen, in order with the
    /// conversation (until [`Ready::detach`]).
    pub fn attach(&self, out: &Arc<dyn TurnOutput>) {
        let (out, client) = (Arc::clone(out), self.client.clone());
        self.events.set_sink(move |event| out.event(&client, event));
    }

    /// Stops printing the client's events (the sink and the question hook hold the client,
    /// whose handler holds them: letting go ends the cycle).
    pub fn detach(&self) {
        self.events.clear_sink();
        self.decide.clear_before_asking();
    }

    /// `failure` with the sign-in methods, the connection's problems and the agent's last
    /// lines of standard error.
    #[must_use]
    pub fn explain(&self, failure: Failure) -> Failure {
        self.agent_log
            .explain(self.log.explain(setup::with_sign_in(&self.client, failure)))
    }

    /// Ends the agent (and lets go of what holds the client).
    pub async fn shutdown(&mut self) {
        setup::shutdown(&self.client, &mut self.process).await;
        self.detach();
    }
}

/// Runs one turn with prompt `text`, in a session opened as `opening` says, printed to an
/// output `renderer` makes.
pub async fn run(
    args: &Args,
    text: &str,
    mut opening: Opening,
    renderer: &'static dyn Renderer,
) -> ExitCode {
    let mut interrupted = prompt::interrupts();
    let format = args.format();
    let quiet = format == Format::Quiet;
    let failed = |failure: Failure| {
        renderer.failure(format, Box::new(std::io::stdout()), &failure);
        report(&failure)
    };
    let mut ready = match Ready::start(
        args,
        &mut opening,
        decide::TtyAsker::detect(),
        &mut interrupted,
        renderer,
    )
    .await
    {
        Ok(ready) => ready,
        Err(failure) => return failed(failure),
    };
    let client = ready.client.clone();
    let session = ready.opened.id.clone();
    let named = match &mut opening {
        Opening::Named(claim) => Some(claim),
        Opening::Plain => None,
    };
    if !quiet && format == Format::Text {
        match &named {
            Some(claim) => say(&claim.describe(&session)),
            None => say(&format!("acp: session {session}")),
        }
    }
    let out = ready.output(format, std::io::stdout(), !args.no_notices);
    out.session(&client, &session, ready.opened.loaded);
    if let Some(claim) = &named {
        claim.announce(&*out, &session);
        // What a load replayed is the agent's history, not this turn's: `acp sessions
        // history` shows it from the client's own record.
        out.skip_existing(&client);
    } else if ready.opened.loaded {
        // The replay is history: printed as such, and never with notices.
        out.history(&client);
    }
    // From now on the client's own events are printed where they happen, and a question on
    // the terminal comes after what was printed before it.
    ready.attach(&out);
    {
        let (out, client) = (Arc::clone(&out), client.clone());
        ready.decide.set_before_asking(move || out.settle(&client));
    }
    let permission_failures = ready.decide.failures();
    let turn = prompt::Turn {
        client: &client,
        session: &session,
        timeout: args.timeout,
        permission_failures: Some(&permission_failures),
    };
    let started = crate::commands::client::driver::named::store::now();
    let end = turn.run(text, &*out, &mut interrupted).await;
    ready.shutdown().await;
    let end = match (end, out.failed()) {
        // A closed output ends the run quietly, whatever else happened.
        (_, Some(_)) => TurnEnd::Failed(Failure::new(Exit::OutputClosed, "the output was closed")),
        (end, None) => end,
    };
    if let Some(claim) = named {
        claim.record_turn(&client, &session, text, &started, &end);
    }
    let end = match end {
        TurnEnd::Failed(failure) => TurnEnd::Failed(ready.explain(failure)),
        stopped => stopped,
    };
    if !quiet && !matches!(&end, TurnEnd::Failed(f) if f.exit == Exit::OutputClosed) {
        match &args.session {
            Some(name) => say(&format!(
                "acp: continue this session with: {}",
                continue_with(args, &["--session", name])
            )),
            // `--load` needs an agent that reopens sessions (v1 `loadSession`).
            None if client.agent().can_load_sessions() => say(&format!(
                "acp: continue this session with: {}",
                continue_command(args, &session)
            )),
            None => say(&format!(
                "acp: session {session} ends with this run (the agent cannot load sessions)"
            )),
        }
    }
    finish(end, &*out)
}

/// Prints how the turn ended and gives the exit code.
pub fn finish(end: TurnEnd, out: &dyn TurnOutput) -> ExitCode {
    let exit = prompt::exit_of(&end);
    match end {
        TurnEnd::Stopped(acptk_runtime::agent::StopReason::EndTurn) => {
            out.finish();
            if out.failed().is_some() {
                return Exit::OutputClosed.into();
            }
            ExitCode::SUCCESS
        }
        TurnEnd::Stopped(stop) => {
            let failure = Failure::new(
                exit,
                format!("the turn did not end normally (stop reason `{stop}`)"),
            );
            out.finish();
            report(&failure)
        }
        TurnEnd::Failed(failure) => {
            out.failure(&failure);
            report(&failure)
        }
    }
}
