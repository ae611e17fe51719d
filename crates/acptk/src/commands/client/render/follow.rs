//! Following a session as it grows: what is new in the transcript and in the notice list since
//! the last look, handed to a [`Sink`] (plain lines, or JSON objects).
//!
//! The runtime keeps the conversation ([`Transcript`]) and the notices ([`NoticeCenter`]);
//! a [`Follower`] remembers how much of each it has passed on. `acp client --prompt` looks
//! after every change (live output); `acp demo` looks at the end of each step (deterministic
//! output).

use std::collections::BTreeMap;
use std::io;

use acptk_notice_center::{Entry as NoticeEntry, NoticeCenter};
use acptk_runtime::client::Transcript;
use acptk_runtime::client::transcript::{Entry, Message, PlanItem, ToolCall};

use crate::commands::client::shared::events::ClientEvent;

/// More text of a message of the transcript, as a [`Sink`] gets it.
#[derive(Debug, Clone, Copy)]
pub struct Piece<'a> {
    /// The message's position in the transcript (a number that tells messages apart).
    pub key: usize,
    /// The message.
    pub message: &'a Message,
    /// The new text; with `whole`, all of it.
    pub text: &'a str,
    /// Whether the message's text was replaced, so that `text` is all of it.
    pub whole: bool,
}

impl<'a> Piece<'a> {
    fn of(key: usize, message: &'a Message, text: &'a str, whole: bool) -> Self {
        Self {
            key,
            message,
            text,
            whole,
        }
    }
}

/// Where a follower sends what is new. Each kind of news is dropped unless the sink takes it.
pub trait Sink {
    /// More text of a message (see [`Piece`]).
    fn message(&mut self, _piece: Piece<'_>) -> io::Result<()> {
        Ok(())
    }
    /// A tool call that is new (`first`) or whose title, status or content changed.
    fn tool_call(&mut self, _call: &ToolCall, _first: bool) -> io::Result<()> {
        Ok(())
    }
    /// The agent's plan, when it changed.
    fn plan(&mut self, _plan: &[PlanItem]) -> io::Result<()> {
        Ok(())
    }
    /// A notice-list entry that is new, or whose count went up.
    fn notice(&mut self, _entry: &NoticeEntry) -> io::Result<()> {
        Ok(())
    }
    /// Something the client itself did (a permission answer, a file write, a command run).
    fn client(&mut self, _event: &ClientEvent) -> io::Result<()> {
        Ok(())
    }
    /// A line from the client about the session (`turn ended: end_turn`, ...).
    fn note(&mut self, _text: &str) -> io::Result<()> {
        Ok(())
    }
}

/// A sink that drops everything, for marking what is there as passed on.
struct Discard;

impl Sink for Discard {}

/// What was passed on of one transcript entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// A message, up to this many bytes of its text.
    Message(usize),
    /// A tool call in this state (title, status, content).
    Tool(String, String, Vec<String>),
    /// Something that is not passed on piecewise.
    Other,
}

/// Remembers what of one session has been passed on.
#[derive(Debug, Clone)]
pub struct Follower {
    session: String,
    seen: Vec<Seen>,
    plan: Vec<PlanItem>,
    /// Notice-list entries passed on, by entry id, with the count they had.
    notices: BTreeMap<u64, u64>,
}

impl Follower {
    /// A follower of `session` that has passed on nothing yet.
    #[must_use]
    pub fn new(session: impl Into<String>) -> Self {
        Self {
            session: session.into(),
            seen: Vec::new(),
            plan: Vec::new(),
            notices: BTreeMap::new(),
        }
    }

    /// The session followed.
    #[must_use]
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Marks everything now in the session's transcript as passed on.
    pub fn skip_transcript(&mut self, transcript: &Transcript) {
        let _ = self.transcript(transcript, &mut Discard);
    }

    /// Passes on what is new in the session's transcript: new entries, text added to
    /// messages, tool calls that changed, and the plan when it changed.
    pub fn transcript<S: Sink>(&mut self, transcript: &Transcript, out: &mut S) -> io::Result<()> {
        let Some(session) = transcript.session(&self.session) else {
            return Ok(());
        };
        let entries = session.entries.as_slice();
        // The transcript drops its oldest entries past its limit; start over from what is left.
        self.seen.truncate(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let seen = self.seen.get(index);
            match entry {
                Entry::Message(message) => {
                    let printed = match seen {
                        Some(Seen::Message(len)) => *len,
                        _ => 0,
                    };
                    let text = &message.text;
                    if text.len() > printed && text.is_char_boundary(printed) {
                        out.message(Piece::of(index, message, &text[printed..], false))?;
                    } else if text.len() < printed || !text.is_char_boundary(printed) {
                        // Replaced by another text: pass it on whole.
                        out.message(Piece::of(index, message, text, true))?;
                    } else if seen.is_none() {
                        out.message(Piece::of(index, message, "", false))?;
                    }
                    self.record(index, Seen::Message(text.len()));
                }
                Entry::ToolCall(call) => {
                    let state = Seen::Tool(
                        call.title.clone(),
                        call.status.clone(),
                        call.content.clone(),
                    );
                    match seen {
                        Some(previous) if *previous == state => {}
                        Some(Seen::Tool(..)) => out.tool_call(call, false)?,
                        _ => out.tool_call(call, true)?,
                    }
                    self.record(index, state);
                }
                _ => {
                    if seen.is_none() {
                        out.note("[unsupported entry]")?;
                    }
                    self.record(index, Seen::Other);
                }
            }
        }
        if session.plan != self.plan {
            self.plan.clone_from(&session.plan);
            out.plan(&self.plan)?;
        }
        Ok(())
    }

    /// Passes on the session's notice-list entries that are new, or whose count went up since
    /// they were passed on (`Warning x2: ...`).
    pub fn notices<S: Sink>(&mut self, center: &NoticeCenter, out: &mut S) -> io::Result<()> {
        let mut now_listed = BTreeMap::new();
        for entry in center.entries(&self.session) {
            let id = entry.id().get();
            if self
                .notices
                .get(&id)
                .is_none_or(|count| *count < entry.count())
            {
                out.notice(entry)?;
            }
            now_listed.insert(id, entry.count());
        }
        // Only entries still in the (bounded) list are remembered.
        self.notices = now_listed;
        Ok(())
    }

    fn record(&mut self, index: usize, seen: Seen) {
        match self.seen.get_mut(index) {
            Some(slot) => *slot = seen,
            None => self.seen.push(seen),
        }
    }
}
