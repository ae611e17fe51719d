//! `acp client --plain`: the interactive client as plain lines, for screen readers, braille
//! displays and simple terminals. No full-screen drawing, no boxes, no colours: every event
//! is one line (a message flows on one line as it streams), in the order it happened (an
//! answer to the agent where it was given, before what the agent did with it), with
//! the same labels as `--prompt` output (`You:`, `Agent:`, `[tool] ...`); a notice is the
//! notice center's spoken sentence (`[notice] Warning: Disk almost full. 95% used`), once per
//! notice.
//!
//! Prompts are read from standard input, a line each; a line of three double quotes (`"""`)
//! starts and ends a prompt of several lines. `/quit` (or the end of the input) leaves,
//! `/notices` lists the session's notices, `/mode` and `/set` work as in the terminal UI.
//! Ctrl-C cancels a running turn; when no turn runs it leaves. Questions (permission, file
//! writes, sign-in) are numbered choices answered by a line.

use std::collections::HashSet;
use std::io::{self, BufRead, Write};
use std::time::Duration;

use acptk_notice_center::render::plain as notice_plain;
use acptk_notice_center::{Entry as NoticeEntry, ListOnlyReason, ToastState};
use acptk_runtime::client::transcript::{PlanItem, ToolCall};
use acptk_runtime::client::{Client, PermissionDecision};
use tokio::sync::{mpsc, oneshot};

use super::dialog::Dialog;
use super::slash::{self, ClientCommand};
use super::steps::{Plan, SetupEvent, set_up};
use crate::commands::client::Args;
use crate::commands::client::driver::handler::{Answers, CliHandler, Question, run_login};
use crate::commands::client::driver::peer_log::PeerLog;
use crate::commands::client::driver::prompt::{CANCEL_WAIT, interruption, interrupts, signal_exit};
use crate::commands::client::driver::setup::{self, Opened};
use crate::commands::client::render::follow::{Piece, Sink};
use crate::commands::client::render::output::{Printer, SharedOutput};
use crate::commands::client::render::plain::{NOTICE_PREFIX, PlainPrinter, note_line};
use crate::commands::client::shared::events::{ClientEvent, EventLog};
use crate::commands::client::shared::exit::{Exit, Failure};
use crate::commands::client::shared::text::terminal_safe;

/// The line that starts and ends a prompt of several lines.
pub const MULTILINE_FENCE: &str = "\"\"\"";

/// Reads standard input one line at a time, only when asked (so that nothing is read while
/// an agent's login command owns the terminal).
struct LineReader {
    ask: std::sync::mpsc::Sender<()>,
    lines: mpsc::Receiver<Option<String>>,
    waiting: bool,
}

impl LineReader {
    fn start() -> Self {
        let (ask, asked) = std::sync::mpsc::channel::<()>();
        let (tx, lines) = mpsc::channel(1);
        std::thread::spawn(move || {
            let stdin = io::stdin();
            while asked.recv().is_ok() {
                let mut line = String::new();
                let read = match stdin.lock().read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
                };
                let end = read.is_none();
                if tx.blocking_send(read).is_err() || end {
                    return;
                }
            }
        });
        Self {
            ask,
            lines,
            waiting: false,
        }
    }

    /// Asks for the next line (once; further calls wait for the same line).
    fn want(&mut self) {
        if !self.waiting {
            self.waiting = self.ask.send(()).is_ok();
        }
    }

    /// The line asked for; `None` at the end of the input.
    async fn line(&mut self) -> Option<String> {
        self.want();
        let line = self.lines.recv().await.flatten();
        self.waiting = false;
        line
    }
}

/// The printer of plain mode: plain lines, notices as their spoken sentence, once each.
struct Lines<W: Write> {
    printer: PlainPrinter<W>,
    announced: HashSet<u64>,
}

impl<W: Write> Lines<W> {
    fn line(&mut self, text: &str) -> io::Result<()> {
        self.printer.line(text)?;
        self.printer.get_mut().flush()
    }
}

impl<W: Write> Printer for Lines<W> {
    fn flush(&mut self) -> io::Result<()> {
        self.printer.get_mut().flush()
    }
    fn end_line(&mut self) -> io::Result<()> {
        self.printer.finish()
    }
}

/// Where plain mode writes: its lines, shared with the handler, which prints the client's own
/// events (a permission answer, a file write, a command) where they happen, before the agent
/// hears of them ([`SharedOutput::event`]).
type Out<W> = SharedOutput<Lines<W>>;

/// The error of the first write that failed, if one did.
fn written<W: Write>(out: &Out<W>) -> io::Result<()> {
    out.failed().map_or(Ok(()), |kind| Err(kind.into()))
}

/// Runs `print` with the lines (unless a write failed already); the first write error.
fn write<W: Write>(
    out: &Out<W>,
    print: impl FnOnce(&mut Lines<W>) -> io::Result<()>,
) -> io::Result<()> {
    out.with(print);
    written(out)
}

impl<W: Write> Sink for Lines<W> {
    fn message(&mut self, piece: Piece<'_>) -> io::Result<()> {
        Sink::message(&mut self.printer, piece)?;
        self.printer.get_mut().flush()
    }
    fn tool_call(&mut self, call: &ToolCall, first: bool) -> io::Result<()> {
        self.printer.tool_call(call, first)
    }
    fn plan(&mut self, plan: &[PlanItem]) -> io::Result<()> {
        self.printer.plan(plan)
    }
    fn notice(&mut self, entry: &NoticeEntry) -> io::Result<()> {
        // A repeat is counted, not announced again; a notice the center keeps quiet (muted,
        // do-not-disturb, a flood held back) is in the list (`/notices`), not announced.
        let quiet = matches!(
            entry.toast(),
            ToastState::ListOnly(
                ListOnlyReason::Muted | ListOnlyReason::DoNotDisturb | ListOnlyReason::FloodGuard
            )
        );
        if !self.announced.insert(entry.id().get()) || quiet {
            return Ok(());
        }
        self.line(&format!(
            "{NOTICE_PREFIX}{}",
            notice_plain::announcement(entry)
        ))
    }
    fn client(&mut self, event: &ClientEvent) -> io::Result<()> {
        self.printer.client(event)
    }
    fn note(&mut self, text: &str) -> io::Result<()> {
        self.line(&note_line(text))
    }
}

/// Runs `acp client --plain`.
pub async fn run_client(args: &Args) -> Result<(), Failure> {
    let (questions_tx, questions) = mpsc::channel::<Question>(8);
    let events = EventLog::new();
    let handler = CliHandler::new(Answers::Ask(questions_tx), args.services(), events.clone());
    // The agent's standard error goes to the run's log file, not between the lines.
    let agent_log = crate::commands::client::driver::agent_log::AgentLog::open(false);
    let target = args.target(&agent_log)?.quiet();
    let log = PeerLog::new();
    let (client, mut process) = setup::launch(args.builder(handler, &log), &target, args.timeout)
        .await
        .map_err(|failure| log.explain(failure))?;
    let lines = Lines {
        printer: PlainPrinter::new(io::stdout()),
        announced: HashSet::new(),
    };
    // The session is followed once it is open.
    let out = SharedOutput::new(lines, "", !args.no_notices);
    let mut session = Session {
        client: &client,
        args,
        questions,
        events,
        reader: LineReader::start(),
    };
    let result = session.run(&out).await;
    // The sink holds the client, whose handler holds the sink: letting go ends the cycle.
    session.events.clear_sink();
    out.with(Printer::end_line);
    setup::shutdown(&client, &mut process).await;
    result.map_err(|failure| log.explain(failure))
}

/// A plain-mode session in progress.
struct Session<'a> {
    client: &'a Client,
    args: &'a Args,
    questions: mpsc::Receiver<Question>,
    events: EventLog,
    reader: LineReader,
}

/// A failure to write the output.
fn output_failed(error: &io::Error) -> Failure {
    Failure::new(Exit::Failed, format!("cannot write the output: {error}"))
}

impl Session<'_> {
    async fn run<W: Write + Send + 'static>(&mut self, out: &Out<W>) -> Result<(), Failure> {
        let opened = self.open(out).await?;
        let id = opened.id.clone();
        out.follow(&id);
        let agent = self
            .client
            .agent()
            .name
            .clone()
            .unwrap_or_else(|| "the agent".to_owned());
        let intro = format!(
            "connected to {agent}, session {id}. Type a prompt and press Enter; a line of {MULTILINE_FENCE} starts and ends a prompt of several lines; /quit leaves; Ctrl-C cancels a turn"
        );
        write(out, |lines| lines.note(&intro)).map_err(|e| output_failed(&e))?;
        if opened.loaded {
            self.show(out).map_err(|e| output_failed(&e))?;
        } else {
            out.skip_transcript(self.client);
        }
        // The client's own events are printed as they happen, after what the agent sent
        // before them (not when the loop next looks, after what the agent sent since).
        {
            let (out, client) = (out.clone(), self.client.clone());
            self.events.set_sink(move |event| out.event(&client, event));
        }
        let mut interrupted = interrupts();
        loop {
            self.show(out).map_err(|e| output_failed(&e))?;
            let line = tokio::select! {
                line = self.reader.line() => line,
                _ = interrupted.changed() => {
                    // Ctrl-C at the prompt leaves; SIGTERM or SIGHUP leaves with 128 + N.
                    return match *interrupted.borrow_and_update() {
                        Some(signal) if signal != 2 => Err(Failure::new(
                            signal_exit(signal),
                            interruption(signal),
                        )),
                        _ => Ok(()),
                    };
                }
            };
            let Some(line) = line else { return Ok(()) };
            let prompt = if line.trim() == MULTILINE_FENCE {
                let mut lines = Vec::new();
                loop {
                    match self.reader.line().await {
                        None => return Ok(()),
                        Some(next) if next.trim() == MULTILINE_FENCE => break,
                        Some(next) => lines.push(next),
                    }
                }
                lines.join("\n")
            } else {
                line
            };
            if prompt.trim().is_empty() {
                continue;
            }
            match prompt.trim() {
                "/quit" | "/exit" => return Ok(()),
                "/notices" => {
                    self.list_notices(&id, out).map_err(|e| output_failed(&e))?;
                    continue;
                }
                _ => {}
            }
            if let Some(command) = slash::parse(&prompt) {
                let notes = self.client_command(&id, command).await;
                write(out, |lines| {
                    notes.iter().try_for_each(|note| lines.note(note))
                })
                .map_err(|e| output_failed(&e))?;
                continue;
            }
            self.turn(&id, &prompt, out, &mut interrupted).await?;
        }
    }

    /// Prints what is new in the conversation and the notices (the client's own events were
    /// printed as they happened).
    fn show<W: Write>(&self, out: &Out<W>) -> io::Result<()> {
        out.settle(self.client);
        written(out)
    }

    /// Prints what is new, leaving the line of a message that is still streaming open.
    fn stream<W: Write>(&self, out: &Out<W>) -> io::Result<()> {
        out.catch_up(self.client);
        written(out)
    }

    /// Opens the session, asking which sign-in method to use when the agent wants one.
    async fn open<W: Write>(&mut self, out: &Out<W>) -> Result<Opened, Failure> {
        let plan = Plan::of(self.args)?;
        let mut auth = plan.auth.clone();
        loop {
            let attempt = set_up(self.client.clone(), plan.clone(), auth.clone());
            tokio::pin!(attempt);
            // Questions (a terminal login) may come while signing in.
            let outcome = loop {
                tokio::select! {
                    outcome = &mut attempt => break outcome,
                    question = self.questions.recv() => {
                        if let Some(question) = question {
                            Self::answer(&mut self.reader, question, out).await.map_err(|e| output_failed(&e))?;
                        }
                    }
                }
            };
            match outcome {
                SetupEvent::Opened(opened) => return Ok(opened),
                SetupEvent::NeedsAuth(why) => {
                    let dialog = Dialog::auth(self.client.auth_methods(), &why);
                    match ask(&mut self.reader, &dialog, out)
                        .await
                        .map_err(|e| output_failed(&e))?
                    {
                        Some(id) => auth = Some(id),
                        None => return Err(Failure::new(Exit::Auth, why)),
                    }
                }
                SetupEvent::Failed(failure) => return Err(failure),
            }
        }
    }

    /// Runs one turn, printing it as it streams and answering the agent's questions.
    async fn turn<W: Write>(
        &mut self,
        session: &str,
        text: &str,
        out: &Out<W>,
        interrupted: &mut tokio::sync::watch::Receiver<Option<i32>>,
    ) -> Result<(), Failure> {
        let (done_tx, mut done) = oneshot::channel();
        {
            let (client, session, text) =
                (self.client.clone(), session.to_owned(), text.to_owned());
            tokio::spawn(async move {
                let _ = done_tx.send(client.prompt(&session, &text).await);
            });
        }
        let mut changes = self.client.changes();
        let mut cancelled = false;
        let outcome = loop {
            tokio::select! {
                outcome = &mut done => break outcome.ok(),
                changed = changes.changed() => {
                    if changed.is_err() {
                        break None;
                    }
                    // A message that streams on continues its line: one line per message,
                    // not one per piece.
                    self.stream(out).map_err(|e| output_failed(&e))?;
                }
                question = self.questions.recv() => {
                    if let Some(question) = question {
                        self.show(out).map_err(|e| output_failed(&e))?;
                        Self::answer(&mut self.reader, question, out).await.map_err(|e| output_failed(&e))?;
                    }
                }
                _ = interrupted.changed(), if !cancelled => {
                    cancelled = true;
                    let signal = *interrupted.borrow_and_update();
                    write(out, |lines| lines.note("cancelling the turn")).map_err(|e| output_failed(&e))?;
                    let _ = self.client.cancel(session).await;
                    if let Some(signal) = signal.filter(|signal| *signal != 2) {
                        // SIGTERM or SIGHUP: the turn is cancelled, then the client leaves.
                        let _ = tokio::time::timeout(CANCEL_WAIT, &mut done).await;
                        return Err(Failure::new(signal_exit(signal), interruption(signal)));
                    }
                }
                () = tokio::time::sleep(self.args.timeout.unwrap_or(Duration::MAX)), if self.args.timeout.is_some() && !cancelled => {
                    cancelled = true;
                    write(out, |lines| lines.note("the turn timed out (--timeout); cancelling it")).map_err(|e| output_failed(&e))?;
                    let _ = self.client.cancel(session).await;
                }
            }
        };
        self.show(out).map_err(|e| output_failed(&e))?;
        let note = match &outcome {
            Some(Ok(stop)) => format!("turn ended: {stop}"),
            Some(Err(error)) => format!("turn failed: {error}"),
            None => "the agent has gone".to_owned(),
        };
        write(out, |lines| lines.note(&note)).map_err(|e| output_failed(&e))?;
        if outcome.is_none() {
            return Err(Failure::new(
                Exit::AgentGone,
                "the agent exited during the session",
            ));
        }
        Ok(())
    }

    /// Asks the user the agent's question and sends the answer.
    async fn answer<W: Write>(
        reader: &mut LineReader,
        question: Question,
        out: &Out<W>,
    ) -> io::Result<()> {
        match question {
            Question::Permission(request, reply) => {
                let choice = ask(reader, &Dialog::permission(&request), out).await?;
                let _ = reply.send(
                    choice.map_or(PermissionDecision::Cancelled, PermissionDecision::Selected),
                );
            }
            Question::Write(question, reply) => {
                let choice = ask(reader, &Dialog::write(&question), out).await?;
                let _ = reply.send(choice.as_deref() == Some("allow"));
            }
            Question::Run(question, reply) => {
                let choice = ask(reader, &Dialog::run(&question), out).await?;
                let _ = reply.send(choice.as_deref() == Some("allow"));
            }
            Question::Login(command, reply) => {
                let running = format!(
                    "running the agent's login: {}",
                    command.program.to_string_lossy()
                );
                write(out, |lines| lines.note(&running))?;
                let outcome = tokio::task::spawn_blocking(move || run_login(&command))
                    .await
                    .unwrap_or_else(|error| Err(format!("the login task failed: {error}")));
                let ended = match &outcome {
                    Ok(()) => "the login command succeeded".to_owned(),
                    Err(reason) => format!("the login command failed: {reason}"),
                };
                write(out, |lines| lines.note(&ended))?;
                let _ = reply.send(outcome);
            }
        }
        Ok(())
    }

    /// The session's notices, oldest first, one line each.
    fn list_notices<W: Write>(&self, session: &str, out: &Out<W>) -> io::Result<()> {
        let lines: Vec<String> = self.client.with_notice_center(|center| {
            center
                .entries(session)
                .map(|entry| format!("{NOTICE_PREFIX}{}", notice_plain::line(entry)))
                .collect()
        });
        write(out, |out| {
            if lines.is_empty() {
                return out.note("no notices");
            }
            lines.iter().try_for_each(|line| out.line(line))
        })
    }

    /// `/help`, `/mode ID` and `/set CONFIG_ID VALUE`, as the lines saying how it went.
    async fn client_command(&self, session: &str, command: ClientCommand) -> Vec<String> {
        let line = match command {
            ClientCommand::Help => {
                let agent = self
                    .client
                    .session_transcript(session)
                    .map(|transcript| transcript.commands)
                    .unwrap_or_default();
                return slash::help(&agent, false);
            }
            ClientCommand::Mode(Some(mode)) => match self.client.set_mode(session, &mode).await {
                Ok(()) => format!("mode: {mode}"),
                Err(error) => format!("/mode {mode}: {error}"),
            },
            ClientCommand::Mode(None) => setup::modes_help(self.client, session),
            ClientCommand::Set(Some((id, value))) => {
                super::steps::set_option(self.client, session, &id, &value).await
            }
            ClientCommand::Set(None) => setup::options_help(self.client, session),
            ClientCommand::Invalid(message) => message,
        };
        vec![line]
    }
}

/// Prints a dialog as numbered lines and reads the choice: its id, or `None` for an empty
/// line (cancel) or the end of the input.
async fn ask<W: Write>(
    reader: &mut LineReader,
    dialog: &Dialog,
    out: &Out<W>,
) -> io::Result<Option<String>> {
    // Everything in a dialog may come from the agent.
    let one_line = |text: &str| terminal_safe(text).replace('\n', " ");
    // The dialog is written at once: nothing else comes between its lines.
    write(out, |out| {
        out.line(&format!("[question] {}", one_line(&dialog.title)))?;
        for line in &dialog.lines {
            if !line.is_empty() {
                out.line(&format!("  {}", one_line(line)))?;
            }
        }
        for (index, choice) in dialog.choices.iter().enumerate() {
            out.line(&format!(
                "  {}. {} ({})",
                index + 1,
                one_line(&choice.name),
                one_line(&choice.kind)
            ))?;
        }
        Ok(())
    })?;
    let hint = format!(
        "answer with a number from 1 to {} (an empty line cancels)",
        dialog.choices.len()
    );
    loop {
        write(out, |out| out.line(&hint))?;
        let Some(line) = reader.line().await else {
            return Ok(None);
        };
        let line = line.trim();
        if line.is_empty() {
            return Ok(None);
        }
        if let Some(choice) = line
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|n| dialog.choices.get(n))
        {
            return Ok(Some(choice.id.clone()));
        }
    }
}
