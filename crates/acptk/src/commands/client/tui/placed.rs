//! The client's own events (a permission answer, a file write, a command run) placed in the
//! terminal UI's conversation where they happened.
//!
//! The place is taken when the event happens, in the handler's task, before the agent hears
//! the answer: whatever the agent sends after the answer (the tool call's result, its next
//! message) comes after the event in the conversation, however late the event loop gets to
//! drawing it. A permission answer about a tool call goes inside that call's block.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use acptk_runtime::client::Transcript;
use acptk_runtime::client::transcript::Entry;
use tokio::sync::Notify;

use crate::commands::client::shared::events::{ClientEvent, MAX_PENDING_EVENTS};
use crate::commands::client::shared::lock;

/// An event and where it goes in its session's conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The event.
    pub event: ClientEvent,
    /// How many entries the session's transcript had when it happened.
    pub after: usize,
    /// The position of the tool call entry it is about, when it names one the transcript
    /// holds (the latest of that id).
    pub within: Option<usize>,
}

/// Where `event` goes in `transcript`, as it stands now.
#[must_use]
pub fn place(transcript: &Transcript, event: &ClientEvent) -> Placed {
    let entries = transcript
        .session(event.session())
        .map_or(&[][..], |session| session.entries.as_slice());
    let within = event.tool_call_id().and_then(|id| {
        entries
            .iter()
            .rposition(|entry| matches!(entry, Entry::ToolCall(call) if call.id == id))
    });
    Placed {
        event: event.clone(),
        after: entries.len(),
        within,
    }
}

/// What the handler and the event loop share.
#[derive(Debug)]
struct Inner {
    /// The transcript of the current connection to the agent.
    transcript: Arc<Mutex<Transcript>>,
    /// Events placed and not yet taken, oldest first.
    pending: VecDeque<Placed>,
}

/// Events placed as they happen, waiting for the event loop (which is woken for them).
#[derive(Debug, Clone)]
pub struct PlacedEvents {
    inner: Arc<Mutex<Inner>>,
    arrived: Arc<Notify>,
}

impl PlacedEvents {
    /// Places events in `transcript`.
    #[must_use]
    pub fn new(transcript: Arc<Mutex<Transcript>>) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                transcript,
                pending: VecDeque::new(),
            })),
            arrived: Arc::new(Notify::new()),
        }
    }

    /// Places later events in `transcript` (the agent was started again).
    pub fn follow(&self, transcript: Arc<Mutex<Transcript>>) {
        lock(&self.inner).transcript = transcript;
    }

    /// Places `event` where the conversation stands now and wakes the event loop. The
    /// oldest waiting event goes when [`MAX_PENDING_EVENTS`] wait already.
    pub fn record(&self, event: &ClientEvent) {
        let transcript = Arc::clone(&lock(&self.inner).transcript);
        let placed = place(&lock(&transcript), event);
        {
            let mut inner = lock(&self.inner);
            if inner.pending.len() >= MAX_PENDING_EVENTS {
                inner.pending.pop_front();
            }
            inner.pending.push_back(placed);
        }
        self.arrived.notify_one();
    }

    /// Takes every waiting event, oldest first.
    #[must_use]
    pub fn take(&self) -> Vec<Placed> {
        lock(&self.inner).pending.drain(..).collect()
    }

    /// Waits until an event was recorded since the last wait returned.
    pub async fn arrived(&self) {
        self.arrived.notified().await;
    }
}
