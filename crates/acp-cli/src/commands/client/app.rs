//! The terminal client's state and what each key does to it, with no I/O: the event loop
//! ([`super::tui`]) feeds it and draws it with [`super::view::render`], and tests drive it
//! directly.
//!
//! The conversation and the notices are not copied here: the state shares the runtime
//! client's [`Transcript`] and [`NoticeCenter`], which the connection keeps up to date, and
//! only adds what the client itself knows (input line, dialogs, notes, the read mark).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use acp_notice_center::NoticeCenter;
use acp_notice_center::render::tui::Theme;
use acp_runtime::client::{PermissionDecision, Transcript};

pub use super::dialog::{Choice, Dialog, DialogKind};
use super::slash::{self, ClientCommand, Completion};

/// The longest input line kept, in bytes; further typing is ignored.
pub const MAX_INPUT_BYTES: usize = 16 * 1024;

/// The most client notes kept (the oldest go first).
pub const MAX_NOTES: usize = 500;

/// How many lines Page Up and Page Down scroll.
const PAGE: usize = 5;

/// Locks a shared model, also after a panic elsewhere (the data is only ever read or
/// appended to, so it stays usable).
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A key press, independent of the terminal library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Key {
    /// A printable character.
    Char(char),
    /// A letter typed with Ctrl held.
    Ctrl(char),
    /// Enter.
    Enter,
    /// Backspace.
    Backspace,
    /// Escape.
    Esc,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// End.
    End,
    /// Tab.
    Tab,
}

/// What the user asked for that the event loop must carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Command {
    /// Send this prompt to the agent.
    Submit(String),
    /// Answer the open permission request.
    Answer(PermissionDecision),
    /// Answer the open write confirmation (`true`: write).
    AnswerWrite(bool),
    /// Sign in with this auth method (from the sign-in picker).
    Authenticate(String),
    /// Switch the session to this mode (`/mode ID`).
    SetMode(String),
    /// Set a config option (`/set CONFIG_ID VALUE`).
    SetOption(String, String),
    /// Cancel the running turn.
    CancelTurn,
    /// Leave the client.
    Quit,
}

/// A line from the client itself (turn ended, errors), placed after the transcript entry
/// that was last when it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// How many transcript entries came before it.
    pub after: usize,
    /// The text.
    pub text: String,
}

/// Facts shown in the status line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// The negotiated protocol version (1 or 2).
    pub protocol: u16,
    /// Whether this client shows notices (in v1: advertised `session.notices`).
    pub notices: bool,
    /// The agent's name, when it gave one.
    pub agent: Option<String>,
    /// Whether a turn is running.
    pub busy: bool,
    /// Notices the agent sent during a replay (a protocol violation; they were not shown).
    pub violations: u64,
    /// The latest message from the client (errors, "connected", ...).
    pub message: Option<String>,
    /// The version the client asked for, when the agent answered an older one.
    pub proposed: Option<u16>,
    /// The current mode's label, if the session has modes.
    pub mode: Option<String>,
    /// The current model's label, if the session has a model option.
    pub model: Option<String>,
}

/// Everything the terminal client shows.
#[derive(Debug)]
pub struct AppState {
    /// The conversation of every session, kept by the runtime.
    pub transcript: Arc<Mutex<Transcript>>,
    /// The notice center, unless notices are off.
    pub notices: Option<Arc<Mutex<NoticeCenter>>>,
    /// The session id, once the session exists.
    pub session: Option<String>,
    /// Lines from the client, in order.
    pub notes: Vec<Note>,
    /// The input line.
    pub input: String,
    /// The status line's facts.
    pub status: Status,
    /// Whether the notice list panel is open.
    pub list_open: bool,
    /// The open dialog (permission, write confirmation, sign-in), if any.
    pub dialog: Option<Dialog>,
    /// How many lines the conversation is scrolled up from the bottom.
    pub scroll: usize,
    /// Colours on or off.
    pub theme: Theme,
    /// How many notices the center had received when the list was last open.
    read_mark: u64,
}

impl AppState {
    /// A client for `protocol` reading `transcript`, with `notices` unless notices are off.
    #[must_use]
    pub fn new(
        protocol: u16,
        transcript: Arc<Mutex<Transcript>>,
        notices: Option<Arc<Mutex<NoticeCenter>>>,
        theme: Theme,
    ) -> Self {
        let read_mark = notices
            .as_ref()
            .map_or(0, |center| lock(center).stats().received);
        Self {
            transcript,
            status: Status {
                protocol,
                notices: notices.is_some(),
                ..Status::default()
            },
            notices,
            session: None,
            notes: Vec::new(),
            input: String::new(),
            list_open: false,
            dialog: None,
            scroll: 0,
            theme,
            read_mark,
        }
    }

    /// Notices received since the list was last open (0 while it is open).
    #[must_use]
    pub fn unread(&self) -> u64 {
        match (&self.notices, self.list_open) {
            (Some(center), false) => lock(center).stats().received.saturating_sub(self.read_mark),
            _ => 0,
        }
    }

    /// Lets time pass for the toasts.
    pub fn tick(&mut self, now: Duration) {
        if let Some(center) = &self.notices {
            lock(center).tick(now);
        }
    }

    /// When the next toast hides itself, if one will.
    #[must_use]
    pub fn next_deadline(&self) -> Option<Duration> {
        self.notices
            .as_ref()
            .and_then(|center| lock(center).next_deadline())
    }

    /// Adds a line from the client after the current end of the conversation.
    pub fn note(&mut self, text: impl Into<String>) {
        let after = self.session.as_deref().map_or(0, |session| {
            lock(&self.transcript)
                .session(session)
                .map_or(0, |transcript| transcript.entries.len())
        });
        if self.notes.len() >= MAX_NOTES {
            self.notes.remove(0);
        }
        self.notes.push(Note {
            after,
            text: text.into(),
        });
    }

    /// Shows a dialog (a newer one replaces an open one; the event loop answers that one).
    pub fn ask(&mut self, dialog: Dialog) {
        self.dialog = Some(dialog);
    }

    /// The agent's commands for the session, as last announced.
    #[must_use]
    pub fn agent_commands(&self) -> Vec<acp_runtime::client::transcript::Command> {
        self.session.as_deref().map_or_else(Vec::new, |session| {
            lock(&self.transcript)
                .session(session)
                .map_or_else(Vec::new, |transcript| transcript.commands.clone())
        })
    }

    /// The commands matching the input line (while it is `/` and a partial name).
    #[must_use]
    pub fn completions(&self) -> Vec<Completion> {
        if !self.input.starts_with('/') {
            return Vec::new();
        }
        slash::completions(&self.input, &self.agent_commands())
    }

    /// Completes the command name being typed to the first match.
    fn complete(&mut self) {
        if let Some(first) = self.completions().first() {
            self.input = format!("/{} ", first.name);
        }
    }

    /// Marks the running turn as over, with a note in the conversation.
    pub fn turn_ended(&mut self, note: impl Into<String>) {
        self.status.busy = false;
        self.note(note);
    }

    /// Applies a key press at `now`; returns what the event loop must do, if anything.
    pub fn on_key(&mut self, key: Key, now: Duration) -> Option<Command> {
        if self.dialog.is_some() {
            return self.on_dialog_key(key);
        }
        match key {
            Key::Ctrl('c') if self.status.busy => return Some(Command::CancelTurn),
            Key::Ctrl('c' | 'q') => return Some(Command::Quit),
            Key::Ctrl('n') => self.toggle_list(),
            Key::Ctrl('d') => self.dismiss_first(now),
            Key::Ctrl('x') => {
                if let Some(center) = &self.notices {
                    lock(center).dismiss_all(now);
                }
            }
            Key::Esc if self.list_open => self.toggle_list(),
            Key::Esc => self.dismiss_first(now),
            Key::Enter => return self.submit(),
            Key::Tab => self.complete(),
            Key::Backspace => {
                self.input.pop();
            }
            Key::Char(c) if self.input.len() + c.len_utf8() <= MAX_INPUT_BYTES => {
                self.input.push(c);
            }
            Key::Up => self.scroll = self.scroll.saturating_add(1),
            Key::PageUp => self.scroll = self.scroll.saturating_add(PAGE),
            Key::Down => self.scroll = self.scroll.saturating_sub(1),
            Key::PageDown => self.scroll = self.scroll.saturating_sub(PAGE),
            Key::End => self.scroll = 0,
            _ => {}
        }
        None
    }

    fn on_dialog_key(&mut self, key: Key) -> Option<Command> {
        let dialog = self.dialog.as_mut()?;
        let count = dialog.choices.len();
        match key {
            Key::Up => dialog.selected = dialog.selected.saturating_sub(1),
            Key::Down if dialog.selected + 1 < count => dialog.selected += 1,
            Key::Char(c) => {
                if let Some(index) = c.to_digit(10).and_then(|d| usize::try_from(d).ok()) {
                    if (1..=count).contains(&index) {
                        dialog.selected = index - 1;
                    }
                }
            }
            Key::Enter => {
                let choice = dialog.choices.get(dialog.selected).map(|c| c.id.clone());
                let kind = dialog.kind;
                self.dialog = None;
                return Some(match (kind, choice) {
                    (DialogKind::Permission, Some(id)) => {
                        Command::Answer(PermissionDecision::Selected(id))
                    }
                    (DialogKind::Permission, None) => {
                        Command::Answer(PermissionDecision::Cancelled)
                    }
                    (DialogKind::Write | DialogKind::Run, choice) => {
                        Command::AnswerWrite(choice.as_deref() == Some("allow"))
                    }
                    (DialogKind::Auth, Some(id)) => Command::Authenticate(id),
                    (DialogKind::Auth, None) => Command::Quit,
                });
            }
            Key::Esc => {
                let kind = dialog.kind;
                self.dialog = None;
                return Some(match kind {
                    DialogKind::Permission => Command::Answer(PermissionDecision::Cancelled),
                    DialogKind::Write | DialogKind::Run => Command::AnswerWrite(false),
                    DialogKind::Auth => Command::Quit,
                });
            }
            Key::Ctrl('c' | 'q') => return Some(Command::Quit),
            _ => {}
        }
        None
    }

    fn submit(&mut self) -> Option<Command> {
        if self.session.is_none() || self.input.trim().is_empty() {
            return None;
        }
        if let Some(command) = slash::parse(&self.input) {
            self.input.clear();
            self.scroll = 0;
            return match command {
                ClientCommand::Mode(Some(id)) => Some(Command::SetMode(id)),
                ClientCommand::Set(Some((id, value))) => Some(Command::SetOption(id, value)),
                ClientCommand::Mode(None) => {
                    self.note("usage: /mode ID (the status line shows the current mode)");
                    None
                }
                ClientCommand::Set(None) => {
                    self.note("usage: /set CONFIG_ID VALUE");
                    None
                }
                ClientCommand::Invalid(message) => {
                    self.note(message);
                    None
                }
            };
        }
        if self.status.busy {
            return None;
        }
        let text = std::mem::take(&mut self.input);
        self.status.busy = true;
        self.scroll = 0;
        Some(Command::Submit(text))
    }

    fn toggle_list(&mut self) {
        let Some(center) = &self.notices else {
            return;
        };
        // Opening and closing both mark everything received so far as read.
        self.read_mark = lock(center).stats().received;
        self.list_open = !self.list_open;
    }

    fn dismiss_first(&mut self, now: Duration) {
        let Some(center) = &self.notices else {
            return;
        };
        let mut center = lock(center);
        let first = center.toasts().next().map(|toast| toast.entry().id());
        if let Some(id) = first {
            center.dismiss(id, now);
        }
    }
}
