//! The toast board: visible toasts with their timers, and the overflow queue.
//!
//! A timer only runs while its toast is visible, the window has focus, and the toast is neither
//! hovered nor focused. A running timer is kept as "remaining time when it last started" plus
//! "when it last started"; pausing folds the elapsed time into the remaining time.

use std::collections::VecDeque;
use std::time::Duration;

use crate::entry::{Entry, EntryId};
use crate::incoming::SessionKey;

/// One visible toast.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub id: EntryId,
    pub session: SessionKey,
    pub shown_at: Duration,
    /// Full visible time for this toast (`None`: stays until dismissed).
    pub hide_after: Option<Duration>,
    /// Visible time left as of `running_since` (or now, when paused).
    pub remaining: Option<Duration>,
    /// When the timer last started running; `None` while paused.
    pub running_since: Option<Duration>,
    pub paused: bool,
}

impl Slot {
    /// When the toast hides itself if nothing changes; `None` if it is sticky or paused.
    pub fn deadline(&self) -> Option<Duration> {
        let since = self.running_since?;
        since.checked_add(self.remaining?)
    }

    /// Visible time left at `now`.
    pub fn remaining_at(&self, now: Duration) -> Option<Duration> {
        let remaining = self.remaining?;
        Some(match self.running_since {
            Some(since) => remaining.saturating_sub(now.saturating_sub(since)),
            None => remaining,
        })
    }
}

/// Visible toasts (in the order they appeared) and the toasts waiting for a slot.
#[derive(Debug)]
pub(crate) struct Board {
    pub visible: Vec<Slot>,
    pub queue: VecDeque<(SessionKey, EntryId)>,
    pub window_focused: bool,
    pub hovered: Option<EntryId>,
    pub focused: Option<EntryId>,
}

impl Board {
    pub fn new() -> Self {
        Self {
            visible: Vec::new(),
            queue: VecDeque::new(),
            window_focused: true,
            hovered: None,
            focused: None,
        }
    }

    fn should_run(&self, id: EntryId) -> bool {
        self.window_focused && self.hovered != Some(id) && self.focused != Some(id)
    }

    /// Shows a toast at `at`.
    pub fn show(
        &mut self,
        session: SessionKey,
        id: EntryId,
        hide_after: Option<Duration>,
        at: Duration,
    ) {
        let run = self.should_run(id);
        self.visible.push(Slot {
            id,
            session,
            shown_at: at,
            hide_after,
            remaining: hide_after,
            running_since: run.then_some(at),
            paused: !run,
        });
    }

    /// Starts a visible toast's timer over with a full `hide_after`.
    pub fn restart(&mut self, id: EntryId, hide_after: Option<Duration>, now: Duration) {
        if let Some(slot) = self.visible.iter_mut().find(|slot| slot.id == id) {
            slot.hide_after = hide_after;
            slot.remaining = hide_after;
            if slot.running_since.is_some() {
                slot.running_since = Some(now);
            }
        }
    }

    /// Brings every timer in line with the current window focus, hover and focus.
    pub fn refresh(&mut self, now: Duration) {
        for at in 0..self.visible.len() {
            let run = self.should_run(self.visible[at].id);
            let slot = &mut self.visible[at];
            match (run, slot.running_since) {
                (true, None) => slot.running_since = Some(now),
                (false, Some(since)) => {
                    slot.remaining = slot
                        .remaining
                        .map(|left| left.saturating_sub(now.saturating_sub(since)));
                    slot.running_since = None;
                }
                _ => {}
            }
            slot.paused = !run;
        }
    }

    /// The visible toast that runs out first, with the time it does. Ties go to the one shown
    /// first.
    pub fn earliest_deadline(&self) -> Option<(usize, Duration)> {
        self.visible
            .iter()
            .enumerate()
            .filter_map(|(at, slot)| Some((at, slot.deadline()?)))
            .min_by_key(|&(at, deadline)| (deadline, at))
    }

    pub fn take_visible(&mut self, id: EntryId) -> Option<Slot> {
        let at = self.visible.iter().position(|slot| slot.id == id)?;
        Some(self.visible.remove(at))
    }

    pub fn take_queued(&mut self, id: EntryId) -> Option<(SessionKey, EntryId)> {
        let at = self.queue.iter().position(|(_, queued)| *queued == id)?;
        self.queue.remove(at)
    }
}

/// A visible toast, as a renderer sees it.
#[derive(Debug, Clone, Copy)]
pub struct Toast<'a> {
    pub(crate) slot: &'a Slot,
    pub(crate) entry: &'a Entry,
}

impl<'a> Toast<'a> {
    /// The list entry the toast shows.
    #[must_use]
    pub fn entry(&self) -> &'a Entry {
        self.entry
    }

    /// The session the entry belongs to.
    #[must_use]
    pub fn session(&self) -> &'a SessionKey {
        &self.slot.session
    }

    /// When the toast became visible.
    #[must_use]
    pub fn shown_at(&self) -> Duration {
        self.slot.shown_at
    }

    /// Whether the timer is held by hover, focus or an unfocused window.
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.slot.paused
    }

    /// Whether the toast stays until dismissed.
    #[must_use]
    pub fn is_sticky(&self) -> bool {
        self.slot.hide_after.is_none()
    }

    /// When it hides itself if nothing changes; `None` while sticky or paused.
    #[must_use]
    pub fn deadline(&self) -> Option<Duration> {
        self.slot.deadline()
    }

    /// Visible, unpaused time left at `now`; `None` for a sticky toast.
    #[must_use]
    pub fn remaining(&self, now: Duration) -> Option<Duration> {
        self.slot.remaining_at(now)
    }
}
