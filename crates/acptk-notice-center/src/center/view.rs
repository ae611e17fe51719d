//! Reading the engine's state.

use std::time::Duration;

use super::NoticeCenter;
use crate::entry::{Entry, EntryId};
use crate::incoming::SessionKey;
use crate::policy::Policy;
use crate::stats::Stats;
use crate::toasts::Toast;

impl NoticeCenter {
    /// The policy in force (including the current do-not-disturb, never-auto-hide and
    /// multiplier settings).
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The latest time the engine has seen.
    #[must_use]
    pub fn now(&self) -> Duration {
        self.now
    }

    /// The visible toasts, in the order they appeared (never more than
    /// [`Policy::max_visible`]).
    pub fn toasts(&self) -> impl Iterator<Item = Toast<'_>> + '_ {
        self.board.visible.iter().filter_map(|slot| {
            let entry = self.sessions.get(&slot.session)?.find(slot.id)?;
            Some(Toast { slot, entry })
        })
    }

    /// How many toasts are visible.
    #[must_use]
    pub fn visible_count(&self) -> usize {
        self.board.visible.len()
    }

    /// The toasts waiting for a slot, first to show first, with their sessions.
    pub fn queued(&self) -> impl Iterator<Item = (&SessionKey, &Entry)> + '_ {
        self.board.queue.iter().filter_map(|(session, id)| {
            let entry = self.sessions.get(session)?.find(*id)?;
            Some((session, entry))
        })
    }

    /// How many toasts are waiting.
    #[must_use]
    pub fn queued_count(&self) -> usize {
        self.board.queue.len()
    }

    /// The earliest time at which a toast will hide itself if nothing else happens; the host
    /// should [`tick`](Self::tick) then. `None` when no timer is running.
    #[must_use]
    pub fn next_deadline(&self) -> Option<Duration> {
        self.board.earliest_deadline().map(|(_, deadline)| deadline)
    }

    /// The sessions the engine holds state for, ordered by id.
    pub fn sessions(&self) -> impl Iterator<Item = &SessionKey> + '_ {
        self.sessions.keys()
    }

    /// A session's notice list, oldest first (empty for an unknown session).
    pub fn entries(&self, session: &str) -> impl DoubleEndedIterator<Item = &Entry> + '_ {
        self.sessions
            .get(session)
            .into_iter()
            .flat_map(|state| state.entries().iter())
    }

    /// How many entries a session's list holds.
    #[must_use]
    pub fn entry_count(&self, session: &str) -> usize {
        self.sessions
            .get(session)
            .map_or(0, |state| state.entries().len())
    }

    /// One entry of a session's list.
    #[must_use]
    pub fn entry(&self, session: &str, id: EntryId) -> Option<&Entry> {
        self.sessions.get(session)?.find(id)
    }

    /// A session's muted titles, in sorted order.
    pub fn muted_titles(&self, session: &str) -> impl Iterator<Item = &str> + '_ {
        self.sessions
            .get(session)
            .into_iter()
            .flat_map(|state| state.muted().iter().map(|t| &**t))
    }

    /// Running totals.
    #[must_use]
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// How many notices the lists currently stand for (the sum of all entry counts).
    #[must_use]
    pub fn live_notices(&self) -> u64 {
        self.live
    }

    /// Whether the host reported the window as focused (the default).
    #[must_use]
    pub fn window_focused(&self) -> bool {
        self.board.window_focused
    }
}
