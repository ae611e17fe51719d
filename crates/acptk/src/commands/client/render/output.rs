//! The output of `acp client --prompt`: plain text (`--format text`), JSON lines (`json`) or
//! only the agent's final message (`quiet`), and the shared printer that keeps everything in
//! the order it happened: what the agent streamed, and what the client did for it (a
//! permission answered, a command run or refused) printed where it was decided.
//!
//! A write that fails (the reader closed the pipe: `acp client ... | head -1`) is kept, and
//! nothing more is written: the run ends quietly with exit 141.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use acptk_notice_center::Entry as NoticeEntry;
use acptk_runtime::agent::StopReason;
use acptk_runtime::client::transcript::{PlanItem, Role, ToolCall};
use acptk_runtime::client::{AuthKind, Client};
use acptk_runtime::rpc;
use serde_json::{Value, json};

use super::follow::{Follower, Piece, Sink};
use super::json::JsonPrinter;
use super::plain::PlainPrinter;
use crate::commands::client::driver::turn_output::{Renderer, TerminalTails, TurnOutput};
use crate::commands::client::shared::events::ClientEvent;
use crate::commands::client::shared::exit::Failure;
use crate::commands::client::shared::format::Format;
use crate::commands::client::shared::lock;

/// Prints only the text of the last agent message, when the turn has ended.
#[derive(Debug)]
pub struct QuietPrinter<W: Write> {
    out: W,
    /// The transcript position of the last agent message and its text so far.
    last: Option<(usize, String)>,
}

impl<W: Write> QuietPrinter<W> {
    /// A printer writing to `out`.
    pub fn new(out: W) -> Self {
        Self { out, last: None }
    }

    /// Writes the last agent message (and a line break when it has none).
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some((_, text)) = self.last.take() {
            self.out.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                self.out.write_all(b"\n")?;
            }
        }
        self.out.flush()
    }
}

impl<W: Write> Sink for QuietPrinter<W> {
    fn message(&mut self, piece: Piece<'_>) -> io::Result<()> {
        if piece.message.role != Role::Agent {
            return Ok(());
        }
        match &mut self.last {
            Some((last, so_far)) if *last == piece.key && !piece.whole => {
                so_far.push_str(piece.text);
            }
            _ => self.last = Some((piece.key, piece.text.to_owned())),
        }
        Ok(())
    }
}

/// The printer of any format.
#[derive(Debug)]
pub enum Output<W: Write> {
    /// Plain text.
    Text(PlainPrinter<W>),
    /// JSON lines.
    Json(JsonPrinter<W>),
    /// The final message only.
    Quiet(QuietPrinter<W>),
}

impl<W: Write> Output<W> {
    /// A printer of `format` writing to `out`.
    pub fn new(format: Format, out: W) -> Self {
        match format {
            Format::Text => Output::Text(PlainPrinter::new(out)),
            Format::Json => Output::Json(JsonPrinter::new(out)),
            Format::Quiet => Output::Quiet(QuietPrinter::new(out)),
        }
    }

    /// Shows the end of each terminal's output with the tool calls that show terminals.
    #[must_use]
    pub fn with_terminal_tails(mut self, tails: TerminalTails) -> Self {
        match &mut self {
            Output::Text(printer) => printer.set_terminal_tails(tails),
            Output::Json(printer) => printer.set_terminal_tails(tails),
            Output::Quiet(_) => {}
        }
        self
    }

    /// Marks what follows as replayed history (JSON: `"history": true`; text: a heading).
    pub fn history(&mut self, history: bool) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.line(&super::plain::note_line(if history {
                "history of the session"
            } else {
                "end of history"
            })),
            Output::Json(printer) => {
                printer.set_history(history);
                Ok(())
            }
            Output::Quiet(_) => Ok(()),
        }
    }

    /// The session event (JSON only: text mode says it on standard error).
    pub fn session(&mut self, client: &Client, session: &str, loaded: bool) -> io::Result<()> {
        if let Output::Json(printer) = self {
            let agent = client.agent();
            printer.write(&[
                ("type", json!("session")),
                ("sessionId", json!(session)),
                ("protocolVersion", json!(agent.protocol_version.get())),
                ("proposedVersion", json!(agent.proposed.get())),
                ("agent", json!(agent.name)),
                ("loaded", json!(loaded)),
            ])?;
        }
        Ok(())
    }

    /// The named session the turn runs in (JSON only: text mode says it on standard error):
    /// its name, and `how` it was opened (`new`, `resumed`, `loaded`, `restarted`, `served`),
    /// with a note when it could not be continued.
    pub fn named_session(
        &mut self,
        name: &str,
        session: &str,
        how: &str,
        note: Option<&str>,
    ) -> io::Result<()> {
        if let Output::Json(printer) = self {
            printer.write(&[
                ("type", json!("named_session")),
                ("name", json!(name)),
                ("sessionId", json!(session)),
                ("how", json!(how)),
                ("note", json!(note)),
            ])?;
        }
        Ok(())
    }

    /// How the turn ended.
    pub fn stop(&mut self, stop: &StopReason) -> io::Result<()> {
        match self {
            Output::Text(printer) => {
                printer.line(&super::plain::note_line(&format!("turn ended: {stop}")))
            }
            Output::Json(printer) => printer.write(&[
                ("type", json!("stop")),
                ("stopReason", json!(stop.as_str())),
            ]),
            Output::Quiet(_) => Ok(()),
        }
    }

    /// A failure: in JSON an `error` event with the JSON-RPC error's code, message and data
    /// and, when authentication is needed, the sign-in methods; text and quiet print it on
    /// standard error only (later).
    pub fn failure(&mut self, failure: &Failure) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.finish(),
            Output::Quiet(printer) => printer.out.flush(),
            Output::Json(printer) => {
                let object = failure.rpc.as_deref();
                let mut fields = vec![
                    ("type", json!("error")),
                    ("code", json!(object.map(|o| o.code))),
                    (
                        "message",
                        json!(
                            object.map_or_else(|| failure.message.clone(), |o| o.message.clone())
                        ),
                    ),
                    (
                        "data",
                        object.and_then(|o| o.data.clone()).unwrap_or(Value::Null),
                    ),
                    ("detail", json!(object.and_then(rpc::detail))),
                    ("exitCode", json!(failure.exit.code())),
                ];
                if !failure.auth_methods.is_empty() {
                    let methods: Vec<Value> = failure
                        .auth_methods
                        .iter()
                        .map(|method| {
                            let vars = match &method.kind {
                                AuthKind::EnvVar { vars } => json!(vars),
                                _ => Value::Null,
                            };
                            json!({
                                "id": method.id,
                                "name": method.name,
                                "description": method.description,
                                "kind": method.kind_word(),
                                "vars": vars,
                            })
                        })
                        .collect();
                    fields.push(("authMethods", Value::Array(methods)));
                }
                if !failure.missing_vars.is_empty() {
                    fields.push(("missingVars", json!(failure.missing_vars)));
                }
                printer.write(&fields)?;
                printer.flush()
            }
        }
    }

    /// Writes what is pending without ending an open message line.
    pub fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.get_mut().flush(),
            Output::Json(printer) => printer.flush(),
            Output::Quiet(_) => Ok(()),
        }
    }

    /// Ends an open message line (text) and flushes, so that something else can be written
    /// to the terminal.
    pub fn end_line(&mut self) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.finish(),
            Output::Json(printer) => printer.flush(),
            Output::Quiet(_) => Ok(()),
        }
    }

    /// Ends the open line (text), writes the final message (quiet), and flushes.
    pub fn finish(&mut self) -> io::Result<()> {
        match self {
            Output::Text(printer) => printer.finish(),
            Output::Json(printer) => printer.flush(),
            Output::Quiet(printer) => printer.finish(),
        }
    }
}

impl<W: Write> Sink for Output<W> {
    fn message(&mut self, piece: Piece<'_>) -> io::Result<()> {
        match self {
            Output::Text(p) => Sink::message(p, piece),
            Output::Json(p) => p.message(piece),
            Output::Quiet(p) => p.message(piece),
        }
    }
    fn tool_call(&mut self, call: &ToolCall, first: bool) -> io::Result<()> {
        match self {
            Output::Text(p) => p.tool_call(call, first),
            Output::Json(p) => p.tool_call(call, first),
            Output::Quiet(p) => p.tool_call(call, first),
        }
    }
    fn plan(&mut self, plan: &[PlanItem]) -> io::Result<()> {
        match self {
            Output::Text(p) => p.plan(plan),
            Output::Json(p) => p.plan(plan),
            Output::Quiet(p) => p.plan(plan),
        }
    }
    fn notice(&mut self, entry: &NoticeEntry) -> io::Result<()> {
        match self {
            Output::Text(p) => p.notice(entry),
            Output::Json(p) => p.notice(entry),
            Output::Quiet(p) => p.notice(entry),
        }
    }
    fn client(&mut self, event: &ClientEvent) -> io::Result<()> {
        match self {
            Output::Text(p) => p.client(event),
            Output::Json(p) => p.client(event),
            Output::Quiet(p) => p.client(event),
        }
    }
    fn note(&mut self, text: &str) -> io::Result<()> {
        match self {
            Output::Text(p) => p.note(text),
            Output::Json(p) => p.note(text),
            Output::Quiet(p) => p.note(text),
        }
    }
}

/// A printer a [`SharedOutput`] drives: it is handed what is new in the conversation
/// ([`Sink`]) and writes out what it holds, with or without ending an open message line.
pub trait Printer: Sink {
    /// Writes what is pending without ending an open message line.
    fn flush(&mut self) -> io::Result<()>;
    /// Ends an open message line and flushes, so that something else can be written to the
    /// terminal.
    fn end_line(&mut self) -> io::Result<()>;
}

impl<W: Write> Printer for Output<W> {
    fn flush(&mut self) -> io::Result<()> {
        Output::flush(self)
    }
    fn end_line(&mut self) -> io::Result<()> {
        Output::end_line(self)
    }
}

/// What is printed of one session, shared between the turn and the client's own events.
struct Shown<P> {
    follower: Follower,
    out: P,
    notices: bool,
    /// The first write error; nothing is written after it.
    failed: Option<io::ErrorKind>,
}

impl<P: Printer> Shown<P> {
    /// Runs `print` unless a write failed already, and remembers its failure.
    fn print(&mut self, print: impl FnOnce(&mut Self) -> io::Result<()>) {
        if self.failed.is_some() {
            return;
        }
        if let Err(error) = print(self) {
            self.failed = Some(error.kind());
        }
    }

    fn catch_up(&mut self, client: &Client) -> io::Result<()> {
        let Self {
            follower,
            out,
            notices,
            ..
        } = self;
        client.with_transcript(|transcript| follower.transcript(transcript, out))?;
        if *notices {
            client.with_notice_center(|center| follower.notices(center, out))?;
        }
        Ok(())
    }
}

/// The printer of a session, shared: what is new in the conversation is printed before
/// each event of the client's, so that both appear in the order they happened (`acp client
/// --prompt` and `--plain`).
pub struct SharedOutput<P> {
    shown: Arc<Mutex<Shown<P>>>,
}

impl<P> Clone for SharedOutput<P> {
    fn clone(&self) -> Self {
        Self {
            shown: Arc::clone(&self.shown),
        }
    }
}

impl<P: Printer> SharedOutput<P> {
    /// Prints session `session` to `out` (notices too when `notices`).
    pub fn new(out: P, session: &str, notices: bool) -> Self {
        Self {
            shown: Arc::new(Mutex::new(Shown {
                follower: Follower::new(session),
                out,
                notices,
                failed: None,
            })),
        }
    }

    /// Prints session `session` from now on, from what it holds now on (what was printed of
    /// another is forgotten).
    pub fn follow(&self, session: &str) {
        lock(&self.shown).follower = Follower::new(session);
    }

    /// Runs `print` with the printer (unless a write failed already).
    pub fn with(&self, print: impl FnOnce(&mut P) -> io::Result<()>) {
        lock(&self.shown).print(|shown| print(&mut shown.out));
    }

    /// Prints what is new in the conversation and the notices.
    pub fn catch_up(&self, client: &Client) {
        lock(&self.shown).print(|shown| {
            shown.catch_up(client)?;
            shown.out.flush()
        });
    }

    /// Prints what is new in the conversation and ends the open line (before a question on
    /// the terminal).
    pub fn settle(&self, client: &Client) {
        lock(&self.shown).print(|shown| {
            shown.catch_up(client)?;
            shown.out.end_line()
        });
    }

    /// Prints what is new in the conversation, then `event`.
    pub fn event(&self, client: &Client, event: &ClientEvent) {
        lock(&self.shown).print(|shown| {
            shown.catch_up(client)?;
            shown.out.client(event)?;
            shown.out.flush()
        });
    }

    /// Marks everything now in the session's transcript as printed.
    pub fn skip_transcript(&self, client: &Client) {
        let follower = &mut lock(&self.shown).follower;
        client.with_transcript(|transcript| follower.skip_transcript(transcript));
    }

    /// Marks everything now in the session's transcript and notice list as printed (what a
    /// load replayed, earlier turns of the session).
    pub fn skip_existing(&self, client: &Client) {
        self.skip_transcript(client);
        let mut shown = lock(&self.shown);
        let Shown {
            follower, notices, ..
        } = &mut *shown;
        if *notices {
            let mut sink = PlainPrinter::new(io::sink());
            client.with_notice_center(|center| {
                let _ = follower.notices(center, &mut sink);
            });
        }
    }

    /// The kind of the first write error, if a write failed (the output was closed).
    #[must_use]
    pub fn failed(&self) -> Option<io::ErrorKind> {
        lock(&self.shown).failed
    }
}

impl<W: Write> SharedOutput<Output<W>> {
    /// Prints the replayed history of a loaded session, marked as such.
    pub fn history(&self, client: &Client) {
        lock(&self.shown).print(|shown| {
            shown.out.history(true)?;
            let Shown { follower, out, .. } = shown;
            client.with_transcript(|transcript| follower.transcript(transcript, out))?;
            shown.out.history(false)
        });
    }
}

impl<W: Write + Send + 'static> TurnOutput for SharedOutput<Output<W>> {
    fn catch_up(&self, client: &Client) {
        SharedOutput::catch_up(self, client);
    }
    fn settle(&self, client: &Client) {
        SharedOutput::settle(self, client);
    }
    fn event(&self, client: &Client, event: &ClientEvent) {
        SharedOutput::event(self, client, event);
    }
    fn skip_existing(&self, client: &Client) {
        SharedOutput::skip_existing(self, client);
    }
    fn history(&self, client: &Client) {
        SharedOutput::history(self, client);
    }
    fn session(&self, client: &Client, session: &str, loaded: bool) {
        self.with(|printer| printer.session(client, session, loaded));
    }
    fn named_session(&self, name: &str, session: &str, how: &str, note: Option<&str>) {
        self.with(|printer| printer.named_session(name, session, how, note));
    }
    fn stop(&self, stop: &StopReason) {
        self.with(|printer| printer.stop(stop));
    }
    fn failure(&self, failure: &Failure) {
        self.with(|printer| printer.failure(failure));
    }
    fn finish(&self) {
        self.with(Output::finish);
    }
    fn failed(&self) -> Option<io::ErrorKind> {
        SharedOutput::failed(self)
    }
}

/// The renderer of `acp client --prompt`: plain text, JSON lines or the final message, as
/// [`Output`] prints them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Printers;

impl Renderer for Printers {
    fn open(
        &self,
        format: Format,
        out: Box<dyn Write + Send>,
        session: &str,
        tails: Option<TerminalTails>,
        notices: bool,
    ) -> Arc<dyn TurnOutput> {
        let mut output = Output::new(format, out);
        if let Some(tails) = tails {
            output = output.with_terminal_tails(tails);
        }
        Arc::new(SharedOutput::new(output, session, notices))
    }

    fn failure(&self, format: Format, out: Box<dyn Write + Send>, failure: &Failure) {
        let _ = Output::new(format, out).failure(failure);
    }
}
