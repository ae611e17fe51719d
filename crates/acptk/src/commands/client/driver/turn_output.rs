//! What the driver needs of an output, and nothing of how it looks: the [`TurnOutput`] a turn
//! is printed to, the [`Renderer`] that makes one, and the [`TerminalTails`] it hands to show
//! a command's output under its tool call. The driver talks only to these; the rendering layer
//! implements them, and `acp client`'s entry, above both, hands the renderer to the driver.

use std::io::{self, Write};
use std::sync::Arc;

use acptk_runtime::agent::StopReason;
use acptk_runtime::client::Client;

use crate::commands::client::shared::events::ClientEvent;
use crate::commands::client::shared::exit::Failure;
use crate::commands::client::shared::format::Format;

/// The end of a terminal's output by terminal id (for showing a tool call's result).
pub type TerminalTails = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The output one session's turn is printed to, shared between the turn and the client's own
/// events so that both appear in the order they happened. A write that fails is remembered
/// ([`TurnOutput::failed`]) and nothing more is written.
pub trait TurnOutput: Send + Sync {
    /// Prints what is new in the conversation and the notices.
    fn catch_up(&self, client: &Client);
    /// Prints what is new in the conversation and ends the open line (before a question on
    /// the terminal).
    fn settle(&self, client: &Client);
    /// Prints what is new in the conversation, then `event`.
    fn event(&self, client: &Client, event: &ClientEvent);
    /// Marks everything now in the session's transcript and notice list as printed (what a
    /// load replayed, earlier turns of the session).
    fn skip_existing(&self, client: &Client);
    /// Prints the replayed history of a loaded session, marked as such.
    fn history(&self, client: &Client);
    /// The session the turn runs in (`loaded` when it was loaded rather than made).
    fn session(&self, client: &Client, session: &str, loaded: bool);
    /// The named session the turn runs in: its `name`, and `how` it was opened (`new`,
    /// `resumed`, `loaded`, `restarted`, `served`), with a `note` when it could not be
    /// continued.
    fn named_session(&self, name: &str, session: &str, how: &str, note: Option<&str>);
    /// How the turn ended.
    fn stop(&self, stop: &StopReason);
    /// A failure that ends the run.
    fn failure(&self, failure: &Failure);
    /// Ends the open line, writes what waits for the end (the final message of `quiet`), and
    /// flushes.
    fn finish(&self);
    /// The kind of the first write error, if a write failed (the output was closed).
    fn failed(&self) -> Option<io::ErrorKind>;
}

/// Makes outputs: how the driver gets a [`TurnOutput`] without knowing any printer.
pub trait Renderer: Send + Sync {
    /// An output of `format` writing to `out`, printing session `session` (its notices too
    /// when `notices`), with the end of each terminal's output under the tool calls that show
    /// terminals when `tails` is given.
    fn open(
        &self,
        format: Format,
        out: Box<dyn Write + Send>,
        session: &str,
        tails: Option<TerminalTails>,
        notices: bool,
    ) -> Arc<dyn TurnOutput>;

    /// Prints `failure` alone, in `format`, to `out` (a run that failed before its session
    /// opened).
    fn failure(&self, format: Format, out: Box<dyn Write + Send>, failure: &Failure);
}
