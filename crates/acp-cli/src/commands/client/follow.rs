//! Printing a session as it grows: what is new in the transcript and in the notice list since
//! the last look, as plain lines.
//!
//! The runtime keeps the conversation ([`Transcript`]) and the notices ([`NoticeCenter`]);
//! a [`Follower`] remembers how much of each it has printed. `acp client --prompt` looks after
//! every change (live output); `acp demo` looks at the end of each step (deterministic
//! output).

use std::collections::BTreeMap;
use std::io::{self, Write};

use acp_notice_center::NoticeCenter;
use acp_notice_center::render::plain;
use acp_runtime::client::Transcript;
use acp_runtime::client::transcript::Entry;

use super::plain::{PlainPrinter, notice_line, role_label, tool_line};

/// What was printed of one transcript entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// A message, up to this many bytes of its text.
    Message(usize),
    /// A tool call with this line.
    Tool(String),
    /// Something that is not printed piecewise.
    Other,
}

/// Remembers what of one session has been printed.
#[derive(Debug, Clone)]
pub struct Follower {
    session: String,
    seen: Vec<Seen>,
    /// Notice-list entries printed, by entry id, with the count they had.
    notices: BTreeMap<u64, u64>,
}

impl Follower {
    /// A follower of `session` that has printed nothing yet.
    #[must_use]
    pub fn new(session: impl Into<String>) -> Self {
        Self {
            session: session.into(),
            seen: Vec::new(),
            notices: BTreeMap::new(),
        }
    }

    /// The session followed.
    #[must_use]
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Marks everything now in the session's transcript as printed.
    pub fn skip_transcript(&mut self, transcript: &Transcript) {
        let mut sink = PlainPrinter::new(io::sink());
        let _ = self.transcript(transcript, &mut sink);
    }

    /// Prints what is new in the session's transcript: new entries, text added to messages,
    /// and tool calls whose title or status changed (as a new line).
    pub fn transcript<W: Write>(
        &mut self,
        transcript: &Transcript,
        out: &mut PlainPrinter<W>,
    ) -> io::Result<()> {
        let entries = transcript
            .session(&self.session)
            .map_or(&[][..], |session| session.entries.as_slice());
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
                    let label = role_label(message.role);
                    if text.len() > printed && text.is_char_boundary(printed) {
                        out.message(index, label, &text[printed..])?;
                    } else if text.len() < printed || !text.is_char_boundary(printed) {
                        // Replaced by a shorter text: print it whole.
                        out.line(&format!("{label}{text}"))?;
                    } else if seen.is_none() {
                        out.message(index, label, "")?;
                    }
                    self.record(index, Seen::Message(text.len()));
                }
                Entry::ToolCall(call) => {
                    let line = tool_line(call);
                    if !matches!(seen, Some(Seen::Tool(printed)) if *printed == line) {
                        out.line(&line)?;
                    }
                    self.record(index, Seen::Tool(line));
                }
                _ => {
                    if seen.is_none() {
                        out.line("[unsupported entry]")?;
                    }
                    self.record(index, Seen::Other);
                }
            }
        }
        Ok(())
    }

    /// Prints the session's notice-list entries that are new, or whose count went up since
    /// they were printed (`Warning x2: ...`).
    pub fn notices<W: Write>(
        &mut self,
        center: &NoticeCenter,
        out: &mut PlainPrinter<W>,
    ) -> io::Result<()> {
        let mut now_listed = BTreeMap::new();
        for entry in center.entries(&self.session) {
            let id = entry.id().get();
            if self
                .notices
                .get(&id)
                .is_none_or(|count| *count < entry.count())
            {
                out.line(&notice_line(&plain::line(entry)))?;
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
