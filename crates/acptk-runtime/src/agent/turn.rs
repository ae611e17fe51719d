//! One prompt turn as the runtime keeps it: whether `session/cancel` cancelled it, the agent
//! message it streams into, how many of its calls are sending or waiting, whether it waits for
//! the user, and the tool calls it has announced and not yet finished.
//!
//! The [`Session`](super::Session) a prompt handler gets carries its turn. Every call through
//! it first [admits](Turn::enter) itself: after a cancellation the call fails with
//! [`Error::Cancelled`] and sends nothing. The runtime sends the turn's stop only once no
//! admitted call is still between its check and its send ([`Turn::settled`]), so that nothing
//! of a cancelled turn follows its stop.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use acptk_schema::{v1, v2};
use tokio::sync::{Notify, watch};

use super::ids::fresh_id;
use crate::error::Error;
use crate::lock::lock;

/// The state of one prompt turn.
#[derive(Debug)]
pub(crate) struct Turn {
    cancel: watch::Sender<bool>,
    /// The turn's stop was sent (or is being sent): it is over.
    ended: AtomicBool,
    /// The id of the agent message the turn streams into.
    message_id: Mutex<String>,
    /// How many requests to the client the turn is waiting for.
    waiting_on_user: Mutex<u32>,
    /// How many admitted calls of the turn are still running (an atomic: every streamed
    /// chunk passes here), and the wake-up of [`Self::settled`] when it drops to zero.
    busy: AtomicUsize,
    idle: Notify,
    /// The tool calls the turn announced that have no final status yet, oldest first.
    open_tools: Mutex<Vec<String>>,
}

/// An admitted call of a turn; the turn's stop waits until it is dropped.
#[derive(Debug)]
pub(crate) struct Busy<'a> {
    turn: &'a Turn,
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        if self.turn.busy.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.turn.idle.notify_waiters();
        }
    }
}

impl Turn {
    pub(crate) fn new() -> Self {
        Self {
            cancel: watch::channel(false).0,
            ended: AtomicBool::new(false),
            message_id: Mutex::new(fresh_id("msg")),
            waiting_on_user: Mutex::new(0),
            busy: AtomicUsize::new(0),
            idle: Notify::new(),
            open_tools: Mutex::new(Vec::new()),
        }
    }

    /// `session/cancel` (or `session/close`, or a deletion) cancelled the turn.
    pub(crate) fn cancel(&self) {
        if !self.ended.load(Ordering::SeqCst) {
            self.cancel.send_replace(true);
        }
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        *self.cancel.borrow()
    }

    /// Resolves once the turn is cancelled.
    pub(crate) async fn cancelled(&self) {
        let mut cancel = self.cancel.subscribe();
        let _ = cancel.wait_for(|cancelled| *cancelled).await;
    }

    /// Whether the turn is over (its stop was sent).
    pub(crate) fn is_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// The turn is over: nothing more of it is tracked.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::SeqCst);
    }

    /// Admits one call of the turn, or fails with [`Error::Cancelled`] once the turn was
    /// cancelled. The call is counted before the flag is read, so a cancellation either
    /// refuses it or waits for it ([`Self::settled`]).
    pub(crate) fn enter(&self) -> Result<Busy<'_>, Error> {
        self.busy.fetch_add(1, Ordering::SeqCst);
        let busy = Busy { turn: self };
        if self.is_cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(busy)
    }

    /// Resolves once no admitted call is running.
    pub(crate) async fn settled(&self) {
        loop {
            let idle = self.idle.notified();
            if self.busy.load(Ordering::SeqCst) == 0 {
                return;
            }
            idle.await;
        }
    }

    /// The id of the agent message the turn streams into.
    pub(crate) fn message_id(&self) -> String {
        lock(&self.message_id).clone()
    }

    /// Later text goes into a new agent message.
    pub(crate) fn new_message(&self) {
        if !self.is_cancelled() {
            *lock(&self.message_id) = fresh_id("msg");
        }
    }

    /// The turn starts waiting for the client; `true` when it was not waiting before (v2 then
    /// reports `requires_action`).
    pub(crate) fn wait_on_user(&self) -> bool {
        let mut waiting = lock(&self.waiting_on_user);
        *waiting += 1;
        *waiting == 1
    }

    /// The turn got an answer; `true` when it waits for nothing more and goes on (v2 then
    /// reports `running` again).
    pub(crate) fn user_answered(&self) -> bool {
        let mut waiting = lock(&self.waiting_on_user);
        *waiting = waiting.saturating_sub(1);
        *waiting == 0 && !self.is_cancelled()
    }

    /// Notes what a v1 update does to the turn's tool calls.
    pub(crate) fn track_v1(&self, update: &v1::SessionUpdate) {
        match update {
            v1::SessionUpdate::ToolCall(call) => {
                let done = call.status.as_ref().is_some_and(final_v1);
                self.note(call.tool_call_id.as_str(), done, true);
            }
            v1::SessionUpdate::ToolCallUpdate(update) => {
                let done = update.status.as_ref().is_some_and(final_v1);
                self.note(update.tool_call_id.as_str(), done, false);
            }
            _ => {}
        }
    }

    /// Notes what a v2 update does to the turn's tool calls (the first `tool_call_update` of
    /// an id announces it).
    pub(crate) fn track_v2(&self, update: &v2::SessionUpdate) {
        if let v2::SessionUpdate::ToolCallUpdate(update) = update {
            let done = finished(&update.status);
            self.note(update.tool_call_id.as_str(), done, true);
        }
    }

    fn note(&self, id: &str, done: bool, announces: bool) {
        if self.is_ended() {
            return;
        }
        let mut open = lock(&self.open_tools);
        let known = open.iter().position(|open| open == id);
        match (known, done) {
            (Some(index), true) => {
                open.remove(index);
            }
            (None, false) if announces => open.push(id.to_owned()),
            _ => {}
        }
    }

    /// Takes the tool calls still open, oldest first (the runtime closes them at the end).
    pub(crate) fn take_open_tools(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.open_tools))
    }
}

fn final_v1(status: &v1::ToolCallStatus) -> bool {
    matches!(
        status,
        v1::ToolCallStatus::Completed | v1::ToolCallStatus::Failed
    )
}

/// Whether a v2 `tool_call_update` sets a final status (completed, failed or cancelled).
pub(super) fn finished(status: &acptk_schema::Patch<v2::ToolCallStatus>) -> bool {
    matches!(
        status,
        acptk_schema::Patch::Set(
            v2::ToolCallStatus::Completed
                | v2::ToolCallStatus::Failed
                | v2::ToolCallStatus::Cancelled
        )
    )
}
