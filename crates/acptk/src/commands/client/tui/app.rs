//! The terminal client's state and what each key does to it, with no I/O: the event loop
//! ([`super::event_loop`]) feeds it and draws it with [`super::view::render`], and tests drive it
//! directly.
//!
//! The conversation and the notices are not copied here: the state shares the runtime
//! client's [`Transcript`] and [`NoticeCenter`], which the connection keeps up to date, and
//! only adds what the client itself knows (the prompt editor, dialogs, notes, the read mark,
//! what is folded or unfolded).

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_notice_center::NoticeCenter;
use acptk_notice_center::render::tui::Theme;
use acptk_runtime::client::{AuthKind, AuthMethod, LocalTerminals, PermissionDecision, Transcript};

pub use super::dialog::{Choice, Dialog, DialogKind, SecretInput};
pub use super::editor::{Editor, MAX_INPUT_BYTES};
use super::key::Key;
use super::line_cache::LineCache;
use super::slash::{self, ClientCommand, Completion};
use crate::commands::client::driver::agent_log::AgentLog;
use crate::commands::client::driver::peer_log::PeerLog;
use crate::commands::client::render::theme::Look;
use crate::commands::client::shared::lock;

/// The most client notes kept (the oldest go first).
pub const MAX_NOTES: usize = 500;

/// How many lines Page Up and Page Down scroll.
const PAGE: usize = 5;

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
    /// Start the agent again with these variables in its environment, then sign in with
    /// this `env_var` method.
    SignInWith(String, Vec<(String, String)>),
    /// Switch the session to this mode (`/mode ID`).
    SetMode(String),
    /// Set a config option (`/set CONFIG_ID VALUE`).
    SetOption(String, String),
    /// Cancel the running turn.
    CancelTurn,
    /// Stop waiting for the sign-in under way and show the picker again.
    CancelSignIn,
    /// Start the agent again (it has gone) and continue the session when it can.
    Restart,
    /// Leave the client.
    Quit,
}

/// A line from the client itself (turn ended, errors, its answers to the agent), placed after
/// the transcript entry that was last when it was written, or inside a tool call's block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// How many transcript entries came before it.
    pub after: usize,
    /// The position of the tool call entry it belongs to (drawn inside that call's block,
    /// under its header), if any.
    pub within: Option<usize>,
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
    /// The prompt editor (with the prompt history).
    pub editor: Editor,
    /// The status line's facts.
    pub status: Status,
    /// Whether the notice list panel is open.
    pub list_open: bool,
    /// The open dialog (permission, write confirmation, sign-in), if any.
    pub dialog: Option<Dialog>,
    /// How many lines the conversation is scrolled up from the bottom.
    pub scroll: usize,
    /// Colours on or off, for the notice widgets.
    pub theme: Theme,
    /// The styles of everything else (colours, high contrast).
    pub look: Look,
    /// Whether the agent's thoughts are folded to one line each (Ctrl-T).
    pub thoughts_folded: bool,
    /// Whether tool output is shown whole instead of its last lines (Ctrl-O).
    pub tools_unfolded: bool,
    /// The terminals the client runs for the agent, to show their output in tool calls.
    pub terminals: Option<LocalTerminals>,
    /// The agent's standard error, shown in the agent pane.
    pub agent_log: Option<AgentLog>,
    /// The agent's protocol problems, shown in the agent pane.
    pub peer_log: Option<PeerLog>,
    /// Whether the agent pane (standard error and protocol problems) is open (Ctrl-G).
    pub agent_pane: bool,
    /// Whether the agent has gone (then Ctrl-R restarts it).
    pub agent_gone: bool,
    /// The agent's sign-in methods (for the picker).
    pub auth_methods: Vec<AuthMethod>,
    /// Whether the agent is a process of ours, so that an `env_var` sign-in can ask for the
    /// values and start it again with them.
    pub agent_local: bool,
    /// Whether a sign-in is under way (Ctrl-C and Esc cancel it).
    pub signing_in: bool,
    /// The masked input of an `env_var` sign-in, while it is open.
    pub secret: Option<SecretInput>,
    /// The conversation's drawn lines, kept per entry between frames.
    pub(crate) cache: RefCell<LineCache>,
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
            editor: Editor::new(),
            list_open: false,
            dialog: None,
            scroll: 0,
            theme,
            look: Look::new(theme.color, false),
            thoughts_folded: false,
            tools_unfolded: false,
            terminals: None,
            agent_log: None,
            peer_log: None,
            agent_pane: false,
            agent_gone: false,
            auth_methods: Vec::new(),
            agent_local: false,
            secret: None,
            signing_in: false,
            cache: RefCell::new(LineCache::default()),
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

    /// Forgets what was drawn from the conversation and the read mark (after the agent was
    /// started again, with a new transcript and notice center).
    pub fn reset_view(&mut self) {
        self.cache = RefCell::new(LineCache::default());
        self.scroll = 0;
        self.list_open = false;
        self.read_mark = self
            .notices
            .as_ref()
            .map_or(0, |center| lock(center).stats().received);
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
            within: None,
            text: text.into(),
        });
    }

    /// Adds a line from the client where the conversation stood when it happened: after its
    /// first `after` entries, or inside the block of the tool call at position `within`. It
    /// goes before the notes written later about later places (a turn's end the loop saw
    /// first, say), so that the notes stay in the order of their places.
    pub fn note_at(&mut self, after: usize, within: Option<usize>, text: impl Into<String>) {
        if self.notes.len() >= MAX_NOTES {
            self.notes.remove(0);
        }
        let at = self
            .notes
            .iter()
            .rposition(|note| note.after <= after)
            .map_or(0, |last| last + 1);
        self.notes.insert(
            at,
            Note {
                after,
                within,
                text: text.into(),
            },
        );
    }

    /// Shows a dialog (a newer one replaces an open one; the event loop answers that one).
    pub fn ask(&mut self, dialog: Dialog) {
        self.dialog = Some(dialog);
    }

    /// The agent's commands for the session, as last announced.
    #[must_use]
    pub fn agent_commands(&self) -> Vec<acptk_runtime::client::transcript::Command> {
        self.session.as_deref().map_or_else(Vec::new, |session| {
            lock(&self.transcript)
                .session(session)
                .map_or_else(Vec::new, |transcript| transcript.commands.clone())
        })
    }

    /// How many times a conversation entry was rendered (not taken from the line cache)
    /// since the client started.
    #[must_use]
    pub fn entries_rendered(&self) -> u64 {
        self.cache.borrow().renders
    }

    /// The prompt being written.
    #[must_use]
    pub fn input(&self) -> String {
        self.editor.text()
    }

    /// Replaces the prompt being written.
    pub fn set_input(&mut self, text: &str) {
        self.editor.set_text(text);
    }

    /// The commands matching the prompt (while it is `/` and a partial name on one line).
    #[must_use]
    pub fn completions(&self) -> Vec<Completion> {
        match self.editor.lines() {
            [line] if line.starts_with('/') => slash::completions(line, &self.agent_commands()),
            _ => Vec::new(),
        }
    }

    /// Completes the command name being typed to the first match.
    fn complete(&mut self) {
        if let Some(first) = self.completions().first() {
            let text = format!("/{} ", first.name);
            self.editor.set_text(&text);
        }
    }

    /// Inserts pasted text into the prompt (never sends it); a paste too long for the
    /// prompt is refused with a line saying so.
    pub fn on_paste(&mut self, text: &str) {
        if let Some(secret) = &mut self.secret {
            secret
                .typed
                .push_str(text.lines().next().unwrap_or_default().trim());
            return;
        }
        if self.dialog.is_some() {
            return;
        }
        if let Err(reason) = self.editor.paste(text) {
            self.status.message = Some(reason);
        }
    }

    /// Marks the running turn as over, with a note in the conversation.
    pub fn turn_ended(&mut self, note: impl Into<String>) {
        self.status.busy = false;
        self.note(note);
    }

    /// Applies a key press at `now`; returns what the event loop must do, if anything.
    pub fn on_key(&mut self, key: Key, now: Duration) -> Option<Command> {
        if self.secret.is_some() {
            return self.on_secret_key(key);
        }
        if self.dialog.is_some() {
            return self.on_dialog_key(key);
        }
        match key {
            Key::Ctrl('c') | Key::Esc if self.signing_in => return Some(Command::CancelSignIn),
            Key::Ctrl('c') if self.status.busy => return Some(Command::CancelTurn),
            Key::Ctrl('c' | 'q') => return Some(Command::Quit),
            Key::Ctrl('n') => self.toggle_list(),
            Key::Ctrl('d') => self.dismiss_first(now),
            Key::Ctrl('x') => {
                if let Some(center) = &self.notices {
                    lock(center).dismiss_all(now);
                }
            }
            Key::Ctrl('t') => self.thoughts_folded = !self.thoughts_folded,
            Key::Ctrl('o') => self.tools_unfolded = !self.tools_unfolded,
            Key::Ctrl('g') => self.agent_pane = !self.agent_pane,
            Key::Ctrl('r') if self.agent_gone => return Some(Command::Restart),
            Key::Esc if self.agent_pane => self.agent_pane = false,
            Key::Esc if self.list_open => self.toggle_list(),
            Key::Esc => self.dismiss_first(now),
            Key::Enter => return self.submit(),
            Key::Tab => self.complete(),
            Key::PageUp => self.scroll = self.scroll.saturating_add(PAGE),
            Key::PageDown => self.scroll = self.scroll.saturating_sub(PAGE),
            Key::ScrollTop => self.scroll = usize::MAX,
            Key::ScrollBottom => self.scroll = 0,
            key => {
                self.editor.key(key);
            }
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
                if let Some(index) = c.to_digit(10).and_then(|d| usize::try_from(d).ok())
                    && (1..=count).contains(&index)
                {
                    dialog.selected = index - 1;
                }
            }
            Key::Enter => {
                let choice = dialog.choices.get(dialog.selected).map(|c| c.id.clone());
                let kind = dialog.kind;
                let dialog = self.dialog.take()?;
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
                    (DialogKind::Auth, Some(id)) => {
                        let why = dialog.lines.first().cloned().unwrap_or_default();
                        match self.secret_for(&id, &why) {
                            Some(secret) => {
                                self.secret = Some(secret);
                                return None;
                            }
                            None => Command::Authenticate(id),
                        }
                    }
                    (DialogKind::Auth, None) => Command::Quit,
                });
            }
            Key::Esc => {
                let kind = dialog.kind;
                self.dialog = None;
                return Some(match kind {
                    DialogKind::Permission => Command::Answer(PermissionDecision::Cancelled),
                    DialogKind::Write | DialogKind::Run => Command::AnswerWrite(false),
                    // Once a session is open, the picker (after a prompt the agent refused)
                    // can be closed; before, there is nothing to go back to.
                    DialogKind::Auth if self.session.is_some() => return None,
                    DialogKind::Auth => Command::Quit,
                });
            }
            // During a turn, Ctrl-C cancels it, as the status line says: what the dialog asks
            // is answered as cancelled (a permission) or refused, then the turn is cancelled.
            Key::Ctrl('c')
                if self.status.busy
                    && matches!(
                        dialog.kind,
                        DialogKind::Permission | DialogKind::Write | DialogKind::Run
                    ) =>
            {
                self.dialog = None;
                return Some(Command::CancelTurn);
            }
            Key::Ctrl('c' | 'q') => return Some(Command::Quit),
            _ => {}
        }
        None
    }

    /// The masked input for sign-in method `id` when it is an `env_var` method of a local
    /// agent with variables not set in this environment.
    fn secret_for(&self, id: &str, why: &str) -> Option<SecretInput> {
        let method = self.auth_methods.iter().find(|method| method.id == id)?;
        let AuthKind::EnvVar { vars } = &method.kind else {
            return None;
        };
        let missing: Vec<String> = vars
            .iter()
            .filter(|var| std::env::var_os(var).is_none_or(|value| value.is_empty()))
            .cloned()
            .collect();
        (self.agent_local && !missing.is_empty()).then(|| SecretInput::new(method, missing, why))
    }

    /// A key in the masked input: characters are typed, Enter takes the value (and, after the
    /// last variable, asks for the restart and sign-in), Esc and Ctrl-C go back to the picker.
    fn on_secret_key(&mut self, key: Key) -> Option<Command> {
        let secret = self.secret.as_mut()?;
        match key {
            Key::Char(c) => secret.typed.push(c),
            Key::Backspace => {
                secret.typed.pop();
            }
            Key::Ctrl('u') => secret.typed.clear(),
            Key::Enter if secret.accept() => {
                let secret = self.secret.take()?;
                return Some(Command::SignInWith(secret.method, secret.values));
            }
            Key::Esc | Key::Ctrl('c') => {
                let why = secret.why.clone();
                self.secret = None;
                self.ask(Dialog::auth(&self.auth_methods, &why));
            }
            Key::Ctrl('q') => return Some(Command::Quit),
            _ => {}
        }
        None
    }

    fn submit(&mut self) -> Option<Command> {
        let input = self.editor.text();
        if self.session.is_none() || input.trim().is_empty() {
            return None;
        }
        if let Some(command) = slash::parse(&input) {
            self.remember(&input);
            self.scroll = 0;
            return match command {
                ClientCommand::Help => {
                    for line in slash::help(&self.agent_commands(), true) {
                        self.note(line);
                    }
                    None
                }
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
        self.remember(&input);
        self.status.busy = true;
        self.scroll = 0;
        Some(Command::Submit(input))
    }

    /// Empties the editor and records what it held in the prompt history.
    fn remember(&mut self, input: &str) {
        self.editor.take();
        if let Err(error) = self.editor.history.push(input) {
            let file = self
                .editor
                .history
                .file()
                .map_or_else(String::new, |file| format!(" {}", file.display()));
            self.status.message = Some(format!("cannot save the prompt history{file}: {error}"));
        }
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
