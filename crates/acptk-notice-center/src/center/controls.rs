//! Host-reported events and user commands.

use std::time::Duration;

use super::NoticeCenter;
use crate::entry::{EntryId, ListOnlyReason, ToastState};
use crate::error::Error;
use crate::sanitize;
use crate::severity::Severity;

impl NoticeCenter {
    /// Reports whether the application window has focus. While it does not, no toast timer
    /// runs.
    pub fn set_window_focused(&mut self, focused: bool, now: Duration) {
        let now = self.advance(now);
        self.board.window_focused = focused;
        self.board.refresh(now);
    }

    /// Reports which toast the pointer is over (`None`: none). A hovered toast's timer does
    /// not run.
    pub fn set_hovered(&mut self, toast: Option<EntryId>, now: Duration) {
        let now = self.advance(now);
        self.board.hovered = toast;
        self.board.refresh(now);
    }

    /// Reports which toast has keyboard focus (`None`: none). A focused toast's timer does not
    /// run. The engine never moves focus itself.
    pub fn set_focused(&mut self, toast: Option<EntryId>, now: Duration) {
        let now = self.advance(now);
        self.board.focused = toast;
        self.board.refresh(now);
    }

    /// Dismisses one toast, visible or waiting. Its entry stays in the list. Returns whether
    /// there was such a toast. Local only: the agent is not told.
    pub fn dismiss(&mut self, id: EntryId, now: Duration) -> bool {
        let now = self.advance(now);
        if let Some(slot) = self.board.take_visible(id) {
            self.set_toast_state(slot.session.as_str(), id, ToastState::Dismissed);
            self.stats.dismissed += 1;
            self.fill_slots(now);
            return true;
        }
        if let Some((session, _)) = self.board.take_queued(id) {
            self.set_toast_state(session.as_str(), id, ToastState::Dismissed);
            self.stats.dismissed += 1;
            return true;
        }
        false
    }

    /// Dismisses every toast, visible and waiting. Entries stay in their lists. Returns how
    /// many toasts were dismissed.
    pub fn dismiss_all(&mut self, now: Duration) -> usize {
        self.advance(now);
        let visible = std::mem::take(&mut self.board.visible);
        let queued = std::mem::take(&mut self.board.queue);
        let count = visible.len() + queued.len();
        for slot in visible {
            self.set_toast_state(slot.session.as_str(), slot.id, ToastState::Dismissed);
        }
        for (session, id) in queued {
            self.set_toast_state(session.as_str(), id, ToastState::Dismissed);
        }
        self.stats.dismissed += count as u64;
        count
    }

    /// Empties a session's notice list and takes its toasts away. Muted titles stay. Returns
    /// how many notices the list held.
    pub fn clear_session(&mut self, session: &str, now: Duration) -> u64 {
        let now = self.advance(now);
        let Some(state) = self.sessions.get_mut(session) else {
            return 0;
        };
        state.last_active = now;
        let removed = state.clear();
        self.live -= removed;
        self.stats.cleared += removed;
        self.forget_session_toasts(session, now);
        removed
    }

    /// Forgets a session entirely (list, toasts and muted titles), for example when it is
    /// closed. Returns whether the session was known.
    pub fn remove_session(&mut self, session: &str, now: Duration) -> bool {
        let now = self.advance(now);
        match self.drop_session(session, now) {
            Some(removed) => {
                self.stats.cleared += removed;
                true
            }
            None => false,
        }
    }

    /// Mutes a title for one session: later notices with that title (compared after
    /// sanitising) go to the list only and are not announced, and current toasts with it are
    /// taken down. Fails when the session already has
    /// [`Policy::max_muted_titles`](crate::Policy::max_muted_titles) muted titles.
    pub fn mute_title(&mut self, session: &str, title: &str, now: Duration) -> Result<(), Error> {
        let now = self.advance(now);
        self.ensure_session(session, now);
        let title = sanitize::title(title);
        let limit = self.policy.max_muted_titles();
        let Some(state) = self.sessions.get_mut(session) else {
            return Ok(());
        };
        if !state.mute(&title, limit) {
            return Err(Error::MuteLimitReached { limit });
        }
        let matches = |id: EntryId| state.find(id).is_some_and(|entry| *entry.title == *title);
        let hidden: Vec<EntryId> = self
            .board
            .visible
            .iter()
            .filter(|slot| slot.session.as_str() == session && matches(slot.id))
            .map(|slot| slot.id)
            .chain(
                self.board
                    .queue
                    .iter()
                    .filter(|(key, id)| key.as_str() == session && matches(*id))
                    .map(|(_, id)| *id),
            )
            .collect();
        for id in hidden {
            self.board.take_visible(id);
            self.board.take_queued(id);
            self.set_toast_state(session, id, ToastState::ListOnly(ListOnlyReason::Muted));
        }
        self.fill_slots(now);
        Ok(())
    }

    /// Unmutes a title for one session. Returns whether it was muted.
    pub fn unmute_title(&mut self, session: &str, title: &str, now: Duration) -> bool {
        self.advance(now);
        let title = sanitize::title(title);
        self.sessions
            .get_mut(session)
            .is_some_and(|state| state.unmute(&title))
    }

    /// Turns do-not-disturb on or off. While on, only errors toast; turning it on also sends
    /// waiting non-error toasts to the list. Visible toasts stay.
    pub fn set_do_not_disturb(&mut self, on: bool, now: Duration) {
        self.advance(now);
        self.policy.set_do_not_disturb(on);
        if !on {
            return;
        }
        let queued = std::mem::take(&mut self.board.queue);
        for (session, id) in queued {
            let is_error = self
                .sessions
                .get(&session)
                .and_then(|state| state.find(id))
                .is_some_and(|entry| entry.severity == Severity::Error);
            if is_error {
                self.board.queue.push_back((session, id));
            } else {
                self.set_toast_state(
                    session.as_str(),
                    id,
                    ToastState::ListOnly(ListOnlyReason::DoNotDisturb),
                );
            }
        }
    }

    /// Turns "never auto-hide" on or off. On: every visible toast becomes sticky at once. Off:
    /// visible toasts get their severity's full time again, starting now.
    pub fn set_never_auto_hide(&mut self, on: bool, now: Duration) {
        let now = self.advance(now);
        self.policy.set_never_auto_hide(on);
        self.retime_visible(now);
    }

    /// Sets the user's factor on auto-hide times (clamped like
    /// [`PolicyBuilder::duration_multiplier`](crate::PolicyBuilder::duration_multiplier)).
    /// Visible toasts get their new full time, starting now.
    pub fn set_duration_multiplier(&mut self, factor: f64, now: Duration) {
        let now = self.advance(now);
        self.policy.set_duration_multiplier(factor);
        self.retime_visible(now);
    }

    /// Restarts every visible toast's timer with the current policy's time.
    fn retime_visible(&mut self, now: Duration) {
        let retimed: Vec<(EntryId, Option<Duration>)> = self
            .board
            .visible
            .iter()
            .map(|slot| {
                let hide_after = self
                    .sessions
                    .get(&slot.session)
                    .and_then(|state| state.find(slot.id))
                    .and_then(|entry| self.policy.hide_after(&entry.severity));
                (slot.id, hide_after)
            })
            .collect();
        for (id, hide_after) in retimed {
            self.board.restart(id, hide_after, now);
        }
    }
}
