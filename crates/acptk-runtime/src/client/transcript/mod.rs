//! The client's model of the conversation: per session, ordered entries built from the
//! replayable session updates (user and agent messages with their chunks merged, thoughts,
//! tool calls with their status and content: text, file diffs, terminals), plus the current
//! plan, commands, title, run state, modes and config options.
//!
//! Every change of an entry gives it a new [`Entry::revision`], a number no other entry of
//! the transcript has had before, so that a view can keep what it drew of an entry until the
//! entry changes.
//!
//! It is fed with `ReplayableUpdate`s only, which cannot be notices, so a transcript never
//! contains a notice.

use std::collections::{BTreeMap, HashMap};

use super::controls::SessionControls;
pub use super::diff_summary::DiffSummary;

mod wire;

/// The default maximum number of entries kept per session (the oldest go first).
pub const DEFAULT_TRANSCRIPT_LIMIT: usize = 10_000;

/// The longest text one message may grow to by streamed chunks (4 MiB); later chunks of that
/// message are dropped and the text ends with [`TRUNCATION_MARK`].
pub const MESSAGE_TEXT_LIMIT: usize = 4 * 1024 * 1024;

/// What ends a message whose streamed text hit [`MESSAGE_TEXT_LIMIT`].
pub const TRUNCATION_MARK: &str = " [...]";

/// The longest old or new text of a file diff kept (1 MiB); a longer one is dropped and the
/// diff is marked [`FileDiff::too_large`].
pub const DIFF_TEXT_LIMIT: usize = 1024 * 1024;

/// Appends `chunk` to the message unless its text would pass [`MESSAGE_TEXT_LIMIT`]; then the
/// message is marked truncated, ends with [`TRUNCATION_MARK`], and takes no more chunks.
fn append_bounded(message: &mut Message, chunk: &str) {
    if message.truncated {
        return;
    }
    if message.text.len() + chunk.len() <= MESSAGE_TEXT_LIMIT {
        message.text.push_str(chunk);
    } else {
        message.text.push_str(TRUNCATION_MARK);
        message.truncated = true;
    }
}

/// Who wrote a message entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// The user.
    User,
    /// The agent's reply.
    Agent,
    /// The agent's reasoning.
    Thought,
}

/// A message: chunks with the same message id merged into one text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The message id, when the agent gave one.
    pub id: Option<String>,
    /// The text so far (non-text blocks appear as a bracketed placeholder).
    pub text: String,
    /// Whether the text hit [`MESSAGE_TEXT_LIMIT`] and later chunks were dropped.
    pub truncated: bool,
    /// The client's own copy of a prompt it sent, which the agent has not echoed yet. The echo
    /// (v2 `user_message`, or a user chunk) takes the place of this copy instead of adding a
    /// second one.
    pub unconfirmed: bool,
    /// Changes with every change of the message (see [`Entry::revision`]).
    pub revision: u64,
}

impl Message {
    /// A new message entry (its revision is given when it is pushed).
    fn entry(role: Role, id: Option<String>, text: String, unconfirmed: bool) -> Entry {
        Entry::Message(Message {
            role,
            id,
            text,
            truncated: false,
            unconfirmed,
            revision: 0,
        })
    }
}

/// A tool call with its latest status.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool call id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its status as sent (`pending`, `in_progress`, `completed`, `failed`, ...).
    pub status: String,
    /// Its kind as sent (`read`, `edit`, `execute`, ...), when the agent gave one.
    pub kind: Option<String>,
    /// The text of its content blocks (diffs and terminals are in [`ToolCall::diffs`] and
    /// [`ToolCall::terminals`]).
    pub content: Vec<String>,
    /// The file changes its content shows, in order.
    pub diffs: Vec<FileDiff>,
    /// The terminals (by terminal id) whose output its content shows, in order.
    pub terminals: Vec<String>,
    /// Changes with every change of the tool call (see [`Entry::revision`]).
    pub revision: u64,
}

/// One path a [`FileDiff`] changes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChangedPath {
    /// What happened to it: `modify` (v1 diffs with old text), `add` (v1 diffs without),
    /// or the v2 `operation` (`add`, `delete`, `modify`, `move`, `copy`, or an unknown word).
    pub operation: String,
    /// The path.
    pub path: String,
    /// The path it came from, for a move or a copy.
    pub from: Option<String>,
}

/// A change to files shown by a tool call (`diff` content): v1 gives one path with its old
/// and new text, v2 the changed paths and, optionally, the whole change as patch text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileDiff {
    /// The changed paths.
    pub paths: Vec<ChangedPath>,
    /// v1: the text before the change (`None` for a new file).
    pub old_text: Option<String>,
    /// v1: the text after the change.
    pub new_text: Option<String>,
    /// v2: the change as patch text (`git diff` format), when the agent sent it.
    pub patch: Option<String>,
    /// Whether a text or the patch passed [`DIFF_TEXT_LIMIT`] and was dropped.
    pub too_large: bool,
    /// Per changed file, the lines added and removed (counted from the whole texts, also
    /// when they were too large to keep).
    pub summaries: Vec<DiffSummary>,
}

/// A tool call's content, read from the wire: texts, diffs, terminals.
#[derive(Debug, Default)]
struct ToolParts {
    texts: Vec<String>,
    diffs: Vec<FileDiff>,
    terminals: Vec<String>,
}

/// What a tool call update changes (absent fields stay as they are).
#[derive(Debug, Default)]
struct ToolChange {
    title: Option<String>,
    status: Option<String>,
    kind: Option<String>,
    content: Option<ToolParts>,
}

/// One entry of a session's transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Entry {
    /// A user message, agent message or thought.
    Message(Message),
    /// A tool call.
    ToolCall(ToolCall),
}

impl Entry {
    /// A number that changes whenever the entry changes and that no other entry of the
    /// transcript has had: equal revisions mean the same entry, unchanged.
    #[must_use]
    pub fn revision(&self) -> u64 {
        match self {
            Entry::Message(message) => message.revision,
            Entry::ToolCall(call) => call.revision,
        }
    }
}

/// One item of the agent's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanItem {
    /// What the step is.
    pub content: String,
    /// Its status as sent (`pending`, `in_progress`, `completed`).
    pub status: String,
}

/// A slash command the agent offers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Command {
    /// The name, without the `/`.
    pub name: String,
    /// What it does.
    pub description: String,
    /// What to type after it, if the agent says.
    pub hint: Option<String>,
}

/// The transcript of one session.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SessionTranscript {
    /// The conversation, in order.
    pub entries: Vec<Entry>,
    /// The agent's current plan (empty when none).
    pub plan: Vec<PlanItem>,
    /// The commands the agent offers.
    pub commands: Vec<Command>,
    /// The session title, if the agent set one.
    pub title: Option<String>,
    /// Whether a turn is running (v2 `state_update`; v1: between prompt and response).
    pub running: bool,
    /// The session's modes and config options.
    pub controls: super::controls::SessionControls,
    /// Where the newest tool call of each id is in `entries`, counted from the first entry
    /// the session ever had (`dropped` of them have gone from the front since): a tool call
    /// update finds its call at once instead of searching the transcript.
    tool_positions: HashMap<String, u64>,
    dropped: u64,
}

/// Equal when what they show is equal (the lookup index is not compared).
impl PartialEq for SessionTranscript {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
            && self.plan == other.plan
            && self.commands == other.commands
            && self.title == other.title
            && self.running == other.running
            && self.controls == other.controls
    }
}

impl Eq for SessionTranscript {}

impl SessionTranscript {
    /// The newest message of `role` with the message id `id`.
    fn message(&mut self, role: Role, id: &str) -> Option<&mut Message> {
        self.entries.iter_mut().rev().find_map(|entry| match entry {
            Entry::Message(m) if m.role == role && m.id.as_deref() == Some(id) => Some(m),
            _ => None,
        })
    }

    /// Where in `entries` the newest tool call with the id `id` is.
    fn tool_index(&self, id: &str) -> Option<usize> {
        let position = self.tool_positions.get(id)?.checked_sub(self.dropped)?;
        usize::try_from(position).ok()
    }

    /// The newest tool call with the id `id`.
    fn tool_call(&mut self, id: &str) -> Option<&mut ToolCall> {
        let index = self.tool_index(id)?;
        match self.entries.get_mut(index) {
            Some(Entry::ToolCall(call)) if call.id == id => Some(call),
            _ => None,
        }
    }

    /// The newest tool call with the id `id`.
    fn tool_call_ref(&self, id: &str) -> Option<&ToolCall> {
        match self.entries.get(self.tool_index(id)?) {
            Some(Entry::ToolCall(call)) if call.id == id => Some(call),
            _ => None,
        }
    }

    /// Adds `entry` at the end, first dropping the oldest entries past `limit` (the oldest
    /// eighth at once: amortised O(1) per entry instead of shifting the whole list for every
    /// new one).
    fn push(&mut self, entry: Entry, limit: usize) {
        if self.entries.len() >= limit {
            let excess = self.entries.len() + 1 - limit;
            let batch = excess.max(limit / 8).min(self.entries.len());
            self.entries.drain(..batch);
            self.dropped += batch as u64;
            let dropped = self.dropped;
            self.tool_positions.retain(|_, at| *at >= dropped);
        }
        if let Entry::ToolCall(call) = &entry {
            let at = self.dropped + self.entries.len() as u64;
            self.tool_positions.insert(call.id.clone(), at);
        }
        self.entries.push(entry);
    }

    /// The messages of the given role, in order.
    pub fn messages(&self, role: Role) -> impl Iterator<Item = &Message> + '_ {
        self.entries.iter().filter_map(move |entry| match entry {
            Entry::Message(message) if message.role == role => Some(message),
            _ => None,
        })
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> + '_ {
        self.entries.iter().filter_map(|entry| match entry {
            Entry::ToolCall(call) => Some(call),
            Entry::Message(_) => None,
        })
    }
}

/// The transcripts of all sessions of a client, by session id.
#[derive(Debug, Clone)]
pub struct Transcript {
    sessions: BTreeMap<String, SessionTranscript>,
    limit: usize,
    /// The last revision given to an entry.
    revision: u64,
}

impl Default for Transcript {
    fn default() -> Self {
        Self::new(DEFAULT_TRANSCRIPT_LIMIT)
    }
}

fn block_text(text: Option<&str>) -> String {
    text.map_or_else(|| "[non-text content]".to_owned(), str::to_owned)
}

impl Transcript {
    /// An empty transcript keeping up to `limit` entries per session.
    pub fn new(limit: usize) -> Self {
        Self {
            sessions: BTreeMap::new(),
            limit: limit.max(1),
            revision: 0,
        }
    }

    /// A new revision for an entry that is made or changed.
    fn next_revision(&mut self) -> u64 {
        self.revision += 1;
        self.revision
    }

    /// One session's transcript.
    pub fn session(&self, id: &str) -> Option<&SessionTranscript> {
        self.sessions.get(id)
    }

    /// The ids of the sessions, in order.
    pub fn session_ids(&self) -> impl Iterator<Item = &str> + '_ {
        self.sessions.keys().map(String::as_str)
    }

    /// Forgets a session's entries (before a replay rebuilds them).
    pub fn clear_session(&mut self, id: &str) {
        self.sessions.remove(id);
    }

    fn entry(&mut self, id: &str) -> &mut SessionTranscript {
        self.sessions.entry(id.to_owned()).or_default()
    }

    fn push(&mut self, session: &str, mut entry: Entry) {
        let revision = self.next_revision();
        match &mut entry {
            Entry::Message(message) => message.revision = revision,
            Entry::ToolCall(call) => call.revision = revision,
        }
        let limit = self.limit.max(1);
        self.entry(session).push(entry, limit);
    }

    /// Adds the user's own prompt (clients show it without waiting for the agent), marked
    /// [`Message::unconfirmed`] until the agent echoes it.
    pub fn push_user_message(&mut self, session: &str, text: &str) {
        self.push(
            session,
            Message::entry(Role::User, None, text.to_owned(), true),
        );
    }

    /// Gives the newest unconfirmed prompt without an id the id the agent assigned it (the v2
    /// `session/prompt` response), so that an echo arriving later replaces it.
    pub fn confirm_user_message(&mut self, session: &str, id: &str) {
        let transcript = self.entry(session);
        if transcript.message(Role::User, id).is_some() {
            return;
        }
        if let Some(message) = unconfirmed_prompt(transcript) {
            message.id = Some(id.to_owned());
        }
    }

    /// Takes an echo of the user's prompt: the unconfirmed prompt with this id, or else, when
    /// no message has this id, an unconfirmed prompt that is still the last entry, gets `text`
    /// and is confirmed. `false` when no prompt takes the echo (it is then an ordinary user
    /// message, or more text of one already confirmed).
    fn take_echo(&mut self, session: &str, id: Option<&str>, text: &str) -> bool {
        let revision = self.next_revision();
        let transcript = self.entry(session);
        if let Some(id) = id
            && let Some(message) = transcript.message(Role::User, id)
        {
            if !message.unconfirmed {
                return false;
            }
            message.text = text.to_owned();
            message.unconfirmed = false;
            message.revision = revision;
            return true;
        }
        match transcript.entries.last_mut() {
            Some(Entry::Message(message))
                if message.role == Role::User && message.unconfirmed && message.id.is_none() =>
            {
                message.id = id.map(str::to_owned);
                message.text = text.to_owned();
                message.unconfirmed = false;
                message.revision = revision;
                true
            }
            _ => false,
        }
    }

    /// Appends a chunk to the message `id` of `role` (a recent one with the same id, or the
    /// last message of that role when neither has an id), or starts a new message.
    pub fn append_chunk(&mut self, session: &str, role: Role, id: Option<&str>, text: &str) {
        if role == Role::User && self.take_echo(session, id, text) {
            return;
        }
        let revision = self.next_revision();
        let transcript = self.entry(session);
        // Without an id, only the very last entry may be continued.
        let continues_last = id.is_some()
            || matches!(transcript.entries.last(), Some(Entry::Message(m)) if m.role == role);
        let target = transcript
            .entries
            .iter_mut()
            .rev()
            .take(16)
            .find_map(|entry| match entry {
                Entry::Message(message)
                    if message.role == role && (id.is_none() || message.id.as_deref() == id) =>
                {
                    Some(message)
                }
                _ => None,
            });
        match target {
            Some(message) if continues_last => {
                append_bounded(message, text);
                message.revision = revision;
            }
            _ => self.push(
                session,
                Message::entry(role, id.map(str::to_owned), text.to_owned(), false),
            ),
        }
    }

    /// Replaces the whole text of message `id` (v2 `user_message` / `agent_message`), creating it.
    fn set_message(&mut self, session: &str, role: Role, id: &str, text: Option<String>) {
        if role == Role::User
            && let Some(text) = &text
            && self.take_echo(session, Some(id), text)
        {
            return;
        }
        let revision = self.next_revision();
        let transcript = self.entry(session);
        match transcript.message(role, id) {
            Some(message) => {
                if let Some(text) = text {
                    message.text = text;
                    message.revision = revision;
                }
            }
            None => self.push(
                session,
                Message::entry(role, Some(id.to_owned()), text.unwrap_or_default(), false),
            ),
        }
    }

    /// Creates or changes tool call `id`; the change's content replaces its content when
    /// given.
    fn upsert_tool_call(&mut self, session: &str, id: &str, change: ToolChange) {
        let revision = self.next_revision();
        let transcript = self.entry(session);
        match transcript.tool_call(id) {
            Some(call) => {
                if let Some(title) = change.title {
                    call.title = title;
                }
                if let Some(status) = change.status {
                    call.status = status;
                }
                if change.kind.is_some() {
                    call.kind = change.kind;
                }
                if let Some(content) = change.content {
                    call.content = content.texts;
                    call.diffs = content.diffs;
                    call.terminals = content.terminals;
                }
                call.revision = revision;
            }
            None => {
                let content = change.content.unwrap_or_default();
                self.push(
                    session,
                    Entry::ToolCall(ToolCall {
                        id: id.to_owned(),
                        title: change.title.unwrap_or_else(|| id.to_owned()),
                        status: change.status.unwrap_or_else(|| "pending".to_owned()),
                        kind: change.kind,
                        content: content.texts,
                        diffs: content.diffs,
                        terminals: content.terminals,
                        revision: 0,
                    }),
                );
            }
        }
    }

    /// Adds streamed content to tool call `id` (v2 `tool_call_content_chunk`), creating it.
    fn extend_tool_call(&mut self, session: &str, id: &str, more: ToolParts) {
        self.upsert_tool_call(session, id, ToolChange::default());
        let revision = self.next_revision();
        if let Some(call) = self.entry(session).tool_call(id) {
            call.content.extend(more.texts);
            call.diffs.extend(more.diffs);
            call.terminals.extend(more.terminals);
            call.revision = revision;
        }
    }

    /// The kind of tool call `id` of `session`, when the agent gave one.
    pub fn tool_kind(&self, session: &str, id: &str) -> Option<&str> {
        self.session(session)?.tool_call_ref(id)?.kind.as_deref()
    }

    /// Tool call `id` of `session` as the agent announced it, if it did.
    pub fn tool_call(&self, session: &str, id: &str) -> Option<&ToolCall> {
        self.session(session)?.tool_call_ref(id)
    }

    /// Sets whether a turn is running in a session.
    pub fn set_running(&mut self, session: &str, running: bool) {
        self.entry(session).running = running;
    }

    /// Replaces a session's modes and config options.
    pub fn set_controls(&mut self, session: &str, controls: SessionControls) {
        self.entry(session).controls = controls;
    }

    /// Changes a session's modes and config options in place.
    pub fn update_controls(&mut self, session: &str, change: impl FnOnce(&mut SessionControls)) {
        change(&mut self.entry(session).controls);
    }
}

/// The newest prompt of the client that is unconfirmed and has no id yet (looking back over
/// a few entries only).
fn unconfirmed_prompt(transcript: &mut SessionTranscript) -> Option<&mut Message> {
    transcript
        .entries
        .iter_mut()
        .rev()
        .take(64)
        .find_map(|entry| match entry {
            Entry::Message(m) if m.role == Role::User && m.unconfirmed && m.id.is_none() => Some(m),
            _ => None,
        })
}
