//! One-shot mode, `acp client --prompt TEXT`: launch the agent, open the session (saying its
//! id), run one turn while printing it, end the agent, and exit with a code that says how it
//! went (saying how to continue the session).

use std::process::ExitCode;

use acp_runtime::client::Client;

use super::agent_log::AgentLog;
use super::exit::{Exit, Failure, report, say};
use super::handler::{Answers, CliHandler, command_line};
use super::output::{Format, Output, SharedOutput, TerminalTails};
use super::peer_log::PeerLog;
use super::prompt::{self, TurnEnd, interruption, signal_exit};
use super::{Args, decide, setup};
use crate::commands::client::events::EventLog;

/// How to continue `session` later, as a command line.
#[must_use]
pub fn continue_command(args: &Args, session: &str) -> String {
    let mut words = vec!["acp".to_owned(), "client".to_owned()];
    if let Some(url) = &args.url {
        words.push("--url".to_owned());
        words.push(url.clone());
    }
    if args.protocol != 1 {
        words.push("--protocol".to_owned());
        words.push(args.protocol.to_string());
    }
    words.push("--load".to_owned());
    words.push(session.to_owned());
    if !args.agent.is_empty() {
        words.push("--".to_owned());
        words.extend(args.agent.iter().cloned());
    }
    command_line(&words[0], &words[1..])
}

/// Runs one turn with prompt `text`.
pub async fn run(args: &Args, text: &str) -> ExitCode {
    let mut interrupted = prompt::interrupts();
    let events = EventLog::new();
    let format = args.format;
    let quiet = format == Format::Quiet;
    let failed = |failure: Failure| {
        let mut out = Output::new(format, std::io::stdout());
        let _ = out.failure(&failure);
        report(&failure)
    };
    let decide = match args.permission_policy() {
        Ok(policy) => decide::OneShot::new(
            policy,
            decide::TtyAsker::detect(),
            args.non_interactive_permissions,
        ),
        Err(failure) => return failed(failure),
    };
    let permission_failures = decide.failures();
    let handler = CliHandler::new(
        Answers::OneShot(decide.clone()),
        args.services(),
        events.clone(),
    );
    let terminals = handler.local_terminals().cloned();
    let log = PeerLog::new().verbose(args.verbose);
    let agent_log = AgentLog::open(args.verbose);
    let (target, options) = match args
        .target(&agent_log)
        .and_then(|t| Ok((t, args.session_options()?)))
    {
        Ok(pair) => pair,
        Err(failure) => return failed(failure),
    };
    let launched = tokio::select! {
        launched = setup::launch(args.builder(handler, &log), &target, args.timeout) => launched,
        signal = interrupted.changed() => {
            let signal = signal.ok().and(*interrupted.borrow()).unwrap_or(2);
            Err(Failure::new(signal_exit(signal), format!("{} while starting the agent", interruption(signal))))
        }
    };
    let (client, mut process) = match launched {
        Ok(pair) => pair,
        Err(failure) => return failed(agent_log.explain(log.explain(failure))),
    };
    let setup = async {
        if let Some(method) = &args.auth {
            setup::authenticate(&client, method, args.timeout).await?;
        }
        let opened = setup::open(&client, &options, args.load.as_deref(), args.timeout).await?;
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
    let opened = match opened {
        Ok(opened) => opened,
        Err(failure) => {
            setup::shutdown(&client, &mut process).await;
            return failed(agent_log.explain(log.explain(failure)));
        }
    };
    if !quiet && format == Format::Text {
        say(&format!("acp: session {}", opened.id));
    }
    let mut output = Output::new(format, std::io::stdout());
    if let Some(terminals) = terminals {
        // The last 4 KiB of a command's output are shown under its tool call.
        let tails: TerminalTails =
            std::sync::Arc::new(move |id: &str| terminals.tail(id, 4096).map(|tail| tail.text));
        output = output.with_terminal_tails(tails);
    }
    let out = SharedOutput::new(output, &opened.id, !args.no_notices);
    out.with(|printer| printer.session(&client, &opened.id, opened.loaded));
    if opened.loaded {
        // The replay is history: printed as such, and never with notices.
        out.history(&client);
    }
    // From now on the client's own events are printed where they happen, and a question on
    // the terminal comes after what was printed before it.
    install_event_sink(&events, &out, &client);
    {
        let (out, client) = (out.clone(), client.clone());
        decide.set_before_asking(move || out.settle(&client));
    }
    let turn = prompt::Turn {
        client: &client,
        session: &opened.id,
        timeout: args.timeout,
        permission_failures: Some(&permission_failures),
    };
    let end = turn.run(text, &out, &mut interrupted).await;
    setup::shutdown(&client, &mut process).await;
    // The sink and the hook hold the client, whose handler holds them: let go, so that the
    // handler (and its terminals, killed when dropped) goes with the client.
    events.clear_sink();
    decide.clear_before_asking();
    let end = match (end, out.failed()) {
        // A closed output ends the run quietly, whatever else happened.
        (_, Some(_)) => TurnEnd::Failed(Failure::new(Exit::OutputClosed, "the output was closed")),
        (end, None) => end,
    };
    if !quiet && !matches!(&end, TurnEnd::Failed(f) if f.exit == Exit::OutputClosed) {
        say(&format!(
            "acp: continue this session with: {}",
            continue_command(args, &opened.id)
        ));
    }
    match end {
        TurnEnd::Stopped(acp_runtime::agent::StopReason::EndTurn) => {
            out.with(Output::finish);
            if out.failed().is_some() {
                return Exit::OutputClosed.into();
            }
            ExitCode::SUCCESS
        }
        TurnEnd::Stopped(stop) => {
            let failure = Failure::new(
                Exit::Failed,
                format!("the turn did not end normally (stop reason `{stop}`)"),
            );
            out.with(Output::finish);
            report(&failure)
        }
        TurnEnd::Failed(failure) => {
            let failure = agent_log.explain(log.explain(setup::with_sign_in(&client, failure)));
            out.with(|printer| printer.failure(&failure));
            report(&failure)
        }
    }
}

/// Prints the client's events as they happen, after what the agent sent before them.
fn install_event_sink(events: &EventLog, out: &SharedOutput<std::io::Stdout>, client: &Client) {
    let (out, client) = (out.clone(), client.clone());
    events.set_sink(move |event| out.event(&client, event));
}
