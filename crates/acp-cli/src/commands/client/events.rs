//! What the client itself does for the agent (answering a permission request, writing or
//! refusing a file, running a command), recorded while the turn streams so that the output
//! shows it in order with the conversation.

use std::sync::{Arc, Mutex};

use super::app::lock;

/// One thing the client did for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientEvent {
    /// A permission request and its answer.
    Permission {
        /// What the agent asked to do.
        title: String,
        /// The option chosen (id, label, kind), or `None` for "cancelled".
        choice: Option<(String, String, String)>,
    },
    /// A file the agent asked to write.
    FileWrite {
        /// The path as the agent sent it.
        path: String,
        /// The length of the new content in bytes.
        bytes: usize,
        /// Whether it was written.
        allowed: bool,
        /// Why not, when it was not.
        reason: Option<String>,
    },
    /// A command the agent ran in a terminal.
    Terminal {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

/// The most events kept before the printer takes them (older ones go first).
pub const MAX_PENDING_EVENTS: usize = 1000;

/// Events waiting to be printed, shared between the handler and the printer.
#[derive(Debug, Clone, Default)]
pub struct EventLog {
    events: Arc<Mutex<Vec<ClientEvent>>>,
}

impl EventLog {
    /// An empty log.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an event.
    pub fn push(&self, event: ClientEvent) {
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
