//! What the client itself does for the agent (answering a permission request, writing or
//! refusing a file, running a command), recorded while the turn streams so that the output
//! shows it in order with the conversation.

use std::sync::{Arc, Mutex};

use crate::commands::client::shared::lock;

/// Who made a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecidedBy {
    /// The permission policy.
    Policy,
    /// The user, asked on the terminal or in the terminal UI.
    User,
    /// Nobody could be asked (no terminal): `--non-interactive-permissions`.
    NoTerminal,
    /// The client itself (a request it refuses whatever the policy, such as a path outside
    /// the session's directories).
    Client,
}

impl DecidedBy {
    /// The word for it, in the output.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            DecidedBy::Policy => "policy",
            DecidedBy::User => "user",
            DecidedBy::NoTerminal => "no_terminal",
            DecidedBy::Client => "client",
        }
    }
}

/// One thing the client did for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientEvent {
    /// A permission request and its answer.
    Permission {
        /// The session it is about.
        session: String,
        /// The tool call it is about, when the agent named one.
        tool_call_id: Option<String>,
        /// What the agent asked to do.
        title: String,
        /// The kind of tool call it is about, when known.
        tool_kind: Option<String>,
        /// The option chosen (id, label, kind), or `None` for "cancelled".
        choice: Option<(String, String, String)>,
        /// Who decided.
        by: DecidedBy,
    },
    /// A file the agent asked to write.
    FileWrite {
        /// The session it is about.
        session: String,
        /// The path as the agent sent it.
        path: String,
        /// The length of the new content in bytes.
        bytes: usize,
        /// Whether it was written.
        allowed: bool,
        /// Why not, when it was not.
        reason: Option<String>,
    },
    /// A command the agent asked to run in a terminal.
    Terminal {
        /// The session it is about.
        session: String,
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// The directory it runs in (as asked, or the session's).
        cwd: String,
        /// Whether it was run.
        allowed: bool,
        /// Why not, when it was not.
        reason: Option<String>,
    },
}

impl ClientEvent {
    /// The session the event is about.
    #[must_use]
    pub fn session(&self) -> &str {
        match self {
            ClientEvent::Permission { session, .. }
            | ClientEvent::FileWrite { session, .. }
            | ClientEvent::Terminal { session, .. } => session,
        }
    }

    /// The tool call the event is about, when the agent named one.
    #[must_use]
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            ClientEvent::Permission { tool_call_id, .. } => tool_call_id.as_deref(),
            ClientEvent::FileWrite { .. } | ClientEvent::Terminal { .. } => None,
        }
    }
}

/// Where events go as they happen, instead of waiting in the log (one-shot mode prints them
/// at once, in order with the conversation).
type EventSink = Arc<dyn Fn(&ClientEvent) + Send + Sync>;

/// The most events kept before the printer takes them (older ones go first).
pub const MAX_PENDING_EVENTS: usize = 1000;

/// Events waiting to be printed, shared between the handler and the printer; or, once a sink
/// is set, handed to it as they happen.
#[derive(Clone, Default)]
pub struct EventLog {
    events: Arc<Mutex<Vec<ClientEvent>>>,
    sink: Arc<Mutex<Option<EventSink>>>,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog")
            .field("pending", &lock(&self.events).len())
            .field("sink", &lock(&self.sink).is_some())
            .finish()
    }
}

impl EventLog {
    /// An empty log.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Hands every later event to `sink` as it happens (the events already waiting first),
    /// until [`EventLog::clear_sink`].
    pub fn set_sink(&self, sink: impl Fn(&ClientEvent) + Send + Sync + 'static) {
        let sink: EventSink = Arc::new(sink);
        *lock(&self.sink) = Some(Arc::clone(&sink));
        for event in self.take() {
            sink(&event);
        }
    }

    /// Stops handing events to the sink (which may hold what holds this log: the cycle ends
    /// here); later events wait in the log again.
    pub fn clear_sink(&self) {
        lock(&self.sink).take();
    }

    /// Records an event (or hands it to the sink).
    pub fn push(&self, event: ClientEvent) {
        let sink = lock(&self.sink).clone();
        if let Some(sink) = sink {
            sink(&event);
            return;
        }
        let mut events = lock(&self.events);
        if events.len() >= MAX_PENDING_EVENTS {
            events.remove(0);
        }
        events.push(event);
    }

    /// Takes every recorded event, oldest first.
    #[must_use]
    pub fn take(&self) -> Vec<ClientEvent> {
        std::mem::take(&mut *lock(&self.events))
    }
}
