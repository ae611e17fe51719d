//! The engine: [`NoticeCenter`].

mod controls;
mod view;

use std::collections::BTreeMap;
use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use crate::announce::{self, Announcement};
use crate::entry::{Entry, EntryId, ListOnlyReason, ToastState};
use crate::flood::FloodWindow;
use crate::incoming::{IncomingNotice, SessionKey};
use crate::policy::{Overflow, Policy};
use crate::sanitize;
use crate::session::Session;
use crate::severity::{Politeness, Severity};
use crate::stats::Stats;
use crate::toasts::Board;

/// The client-side presentation engine for session notices.
///
/// A deterministic state machine: no threads, no I/O, no clock of its own. Every call that can
/// change state takes `now`, the host's monotonic time as a [`Duration`] since any epoch it
/// likes (a fake clock in tests). Time never runs backwards inside the engine: an earlier
/// `now` than the last one seen is treated as the last one.
///
/// Every notice lands in its session's bounded list ([`NoticeCenter::entries`]); toasts
/// ([`NoticeCenter::toasts`]) are a view of some of those entries. Nothing is sent back to the
/// agent: dismissing and muting are local.
///
/// The host's loop:
/// 1. [`push`](Self::push) each notice as it arrives, and speak the returned
///    [`Announcement`], if any;
/// 2. report hover, keyboard focus and window focus
///    ([`set_hovered`](Self::set_hovered), [`set_focused`](Self::set_focused),
///    [`set_window_focused`](Self::set_window_focused)) and user commands
///    ([`dismiss`](Self::dismiss), [`mute_title`](Self::mute_title), ...);
/// 3. call [`tick`](Self::tick) at [`next_deadline`](Self::next_deadline) (or on every
///    frame), then draw [`toasts`](Self::toasts).
///
/// A host with room for one toast, whose user hovers, dismisses and turns on do-not-disturb
/// (times in seconds since the host's epoch):
///
/// ```
/// use std::time::Duration;
/// use acptk_notice_center::{
///     IncomingNotice, ListOnlyReason, NoticeCenter, Policy, Severity, ToastState,
/// };
///
/// let secs = Duration::from_secs;
/// let mut center = NoticeCenter::new(Policy::builder().max_visible(1).build());
///
/// let info = center.push("s1", IncomingNotice::new(Severity::Info, "Indexing"), secs(0));
/// let warning = center.push("s1", IncomingNotice::new(Severity::Warning, "Low disk"), secs(1));
/// assert_eq!(info.toast, ToastState::Visible);
/// assert_eq!(warning.toast, ToastState::Queued); // waits for the one slot
///
/// // The pointer rests on the info toast from 2 s to 30 s: its 8 s do not run meanwhile.
/// center.set_hovered(Some(info.entry), secs(2));
/// center.tick(secs(30));
/// assert_eq!(center.toasts().next().map(|toast| toast.entry().id()), Some(info.entry));
/// center.set_hovered(None, secs(30));
/// assert_eq!(center.next_deadline(), Some(secs(36))); // the 6 s left
///
/// // It hides itself; the warning takes the slot and stays until dismissed.
/// center.tick(secs(36));
/// assert_eq!(center.toasts().next().map(|toast| toast.entry().id()), Some(warning.entry));
/// assert_eq!(center.next_deadline(), None);
/// assert!(center.dismiss(warning.entry, secs(40)));
/// assert_eq!(center.toasts().count(), 0);
///
/// // Do-not-disturb: only errors toast (and are announced); the rest goes to the list, silently.
/// center.set_do_not_disturb(true, secs(41));
/// let quiet = center.push("s1", IncomingNotice::new(Severity::Info, "Synced"), secs(42));
/// assert_eq!(quiet.toast, ToastState::ListOnly(ListOnlyReason::DoNotDisturb));
/// assert!(quiet.announcement.is_none());
/// assert_eq!(center.entry_count("s1"), 3);
/// ```
#[derive(Debug)]
pub struct NoticeCenter {
    policy: Policy,
    sessions: BTreeMap<SessionKey, Session>,
    board: Board,
    flood: FloodWindow,
    hasher: RandomState,
    next_id: u64,
    now: Duration,
    stats: Stats,
    live: u64,
}

/// What [`NoticeCenter::push`] did with a notice.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Receipt {
    /// The entry the notice went into.
    pub entry: EntryId,
    /// Whether it was folded into an existing identical entry.
    pub coalesced: bool,
    /// The entry's count after this notice.
    pub count: u64,
    /// Where the entry stands as a toast.
    pub toast: ToastState,
    /// What to tell the screen reader, for a new entry that is announced.
    pub announcement: Option<Announcement>,
}

impl Default for NoticeCenter {
    fn default() -> Self {
        Self::new(Policy::default())
    }
}

impl NoticeCenter {
    /// An empty engine with the given policy, at time zero.
    #[must_use]
    pub fn new(policy: Policy) -> Self {
        Self {
            policy,
            sessions: BTreeMap::new(),
            board: Board::new(),
            flood: FloodWindow::default(),
            hasher: RandomState::new(),
            next_id: 1,
            now: Duration::ZERO,
            stats: Stats::default(),
            live: 0,
        }
    }

    /// Takes in one notice for `session` (the ACP session id) at `now`.
    ///
    /// The title and description are sanitised ([`crate::sanitize`]). If an identical notice
    /// (same severity, title and description after sanitising) arrived in the same session
    /// within the coalescing window, its entry's count goes up, a visible toast's timer starts
    /// over, and nothing is announced. Otherwise a new entry is made (evicting the oldest when
    /// the list is full) and the policy decides whether it toasts now, waits, or stays in the
    /// list, in this order: muted title, severity preset without toasts, do-not-disturb (only
    /// errors toast), flood guard, free slot, overflow.
    pub fn push(&mut self, session: &str, notice: IncomingNotice<'_>, now: Duration) -> Receipt {
        let now = self.advance(now);
        self.stats.received += 1;
        let title = sanitize::title(notice.title);
        let description = notice
            .description
            .map(sanitize::description)
            .filter(|text| !text.is_empty());
        let severity = notice.severity;
        let key_hash = self
            .hasher
            .hash_one((&severity, &*title, description.as_deref()));
        self.ensure_session(session, now);

        if let Some(receipt) = self.try_coalesce(
            session,
            key_hash,
            (&severity, &title, description.as_deref()),
            now,
        ) {
            return receipt;
        }

        // A new entry. Make room first: evicting a visible toast frees a slot for the queue.
        let capacity = self.policy.list_capacity();
        let (evicted, muted, key) = match self.sessions.get_mut(session) {
            Some(state) => (
                state.evict_if_full(capacity),
                state.is_muted(&title),
                state.key.clone(),
            ),
            None => (None, false, SessionKey::new(session)),
        };
        if let Some(old) = evicted {
            self.stats.evicted += old.count;
            self.live -= old.count;
            self.forget_toast(&old, now);
        }

        let toast = self.route(&severity, muted, now);
        let id = EntryId(self.next_id);
        self.next_id += 1;
        let politeness = self.policy.preset(&severity).politeness();
        let silenced = matches!(
            toast,
            ToastState::ListOnly(
                ListOnlyReason::Muted | ListOnlyReason::DoNotDisturb | ListOnlyReason::FloodGuard
            )
        );
        let announcement = (!silenced && politeness != Politeness::Off).then(|| Announcement {
            entry: id,
            session: key.clone(),
            politeness,
            text: announce::sentence(&severity, &title, description.as_deref()),
        });
        let hide_after = self.policy.hide_after(&severity);
        let entry = Entry {
            id,
            severity,
            title: title.into(),
            description: description.map(Into::into),
            count: 1,
            first_seen: now,
            last_seen: now,
            toast,
            key_hash,
        };
        if let Some(state) = self.sessions.get_mut(session) {
            state.push(entry);
            self.live += 1;
            self.stats.new_entries += 1;
        }
        match toast {
            ToastState::Visible => {
                self.board.show(key, id, hide_after, now);
                self.stats.shown += 1;
            }
            ToastState::Queued => {
                self.board.queue.push_back((key, id));
                self.stats.queued += 1;
            }
            ToastState::ListOnly(reason) => {
                self.stats.list_only += 1;
                if reason == ListOnlyReason::FloodGuard {
                    self.stats.flood_held += 1;
                }
            }
            _ => {}
        }
        if announcement.is_some() {
            self.stats.announced += 1;
        }
        Receipt {
            entry: id,
            coalesced: false,
            count: 1,
            toast,
            announcement,
        }
    }

    /// Lets time pass up to `now`: toasts whose visible time ran out hide themselves, and
    /// waiting toasts take their slots. Returns how many toasts hid themselves.
    pub fn tick(&mut self, now: Duration) -> usize {
        let before = self.stats.expired;
        self.advance(now);
        usize::try_from(self.stats.expired - before).unwrap_or(usize::MAX)
    }

    /// Folds the notice into an existing identical entry, if there is a recent one.
    fn try_coalesce(
        &mut self,
        session: &str,
        key_hash: u64,
        fields: (&Severity, &str, Option<&str>),
        now: Duration,
    ) -> Option<Receipt> {
        let window = self.policy.coalesce_window()?;
        let state = self.sessions.get_mut(session)?;
        let entry = state.coalesce_target(key_hash, fields, now, window)?;
        entry.count += 1;
        entry.last_seen = now;
        let receipt = Receipt {
            entry: entry.id,
            coalesced: true,
            count: entry.count,
            toast: entry.toast,
            announcement: None,
        };
        self.live += 1;
        self.stats.coalesced += 1;
        if receipt.toast == ToastState::Visible {
            let hide_after = self.policy.hide_after(fields.0);
            self.board.restart(receipt.entry, hide_after, now);
        }
        Some(receipt)
    }

    /// Decides where a new entry goes as a toast (recording it with the flood guard).
    fn route(&mut self, severity: &Severity, muted: bool, now: Duration) -> ToastState {
        let policy = &self.policy;
        if muted {
            return ToastState::ListOnly(ListOnlyReason::Muted);
        }
        if !policy.preset(severity).toasts() {
            return ToastState::ListOnly(ListOnlyReason::NoToast);
        }
        if policy.do_not_disturb() && *severity != Severity::Error {
            return ToastState::ListOnly(ListOnlyReason::DoNotDisturb);
        }
        if let Some(guard) = policy.flood_guard()
            && !self.flood.admit(guard, now)
        {
            return ToastState::ListOnly(ListOnlyReason::FloodGuard);
        }
        if self.board.visible.len() < policy.max_visible() {
            return ToastState::Visible;
        }
        match policy.overflow() {
            Overflow::Queue if self.board.queue.len() < policy.max_queued() => ToastState::Queued,
            _ => ToastState::ListOnly(ListOnlyReason::Overflow),
        }
    }

    /// Makes sure `session` has state, dropping the least recently active session when there
    /// are too many.
    fn ensure_session(&mut self, session: &str, now: Duration) {
        if let Some(state) = self.sessions.get_mut(session) {
            state.last_active = now;
            return;
        }
        while self.sessions.len() >= self.policy.max_sessions() {
            let Some(stalest) = self
                .sessions
                .values()
                .min_by_key(|state| state.last_active)
                .map(|state| state.key.clone())
            else {
                break;
            };
            if let Some(removed) = self.drop_session(stalest.as_str(), now) {
                self.stats.evicted += removed;
                self.stats.sessions_dropped += 1;
            }
        }
        let key = SessionKey::new(session);
        self.sessions.insert(key.clone(), Session::new(key, now));
    }

    /// Removes a session with its toasts; returns how many notices its list held.
    fn drop_session(&mut self, session: &str, now: Duration) -> Option<u64> {
        let mut state = self.sessions.remove(session)?;
        let removed = state.clear();
        self.live -= removed;
        self.forget_session_toasts(session, now);
        Some(removed)
    }

    /// Takes the toasts of `session` off the board (visible and queued) and refills slots.
    fn forget_session_toasts(&mut self, session: &str, now: Duration) {
        self.board
            .visible
            .retain(|slot| slot.session.as_str() != session);
        self.board.queue.retain(|(key, _)| key.as_str() != session);
        self.fill_slots(now);
    }

    /// Takes a removed entry's toast off the board and refills the slot it held.
    fn forget_toast(&mut self, entry: &Entry, now: Duration) {
        match entry.toast {
            ToastState::Visible => {
                self.board.take_visible(entry.id);
                self.fill_slots(now);
            }
            ToastState::Queued => {
                self.board.take_queued(entry.id);
            }
            _ => {}
        }
    }

    /// Moves waiting toasts into free slots, their timers starting at `at`.
    fn fill_slots(&mut self, at: Duration) {
        while self.board.visible.len() < self.policy.max_visible() {
            let Some((key, id)) = self.board.queue.pop_front() else {
                break;
            };
            let Some(entry) = self
                .sessions
                .get_mut(&key)
                .and_then(|state| state.find_mut(id))
            else {
                continue;
            };
            entry.toast = ToastState::Visible;
            let hide_after = self.policy.hide_after(&entry.severity);
            self.board.show(key, id, hide_after, at);
            self.stats.shown += 1;
        }
    }

    /// Sets the state of the entry `id` of `session`, if it still exists.
    fn set_toast_state(&mut self, session: &str, id: EntryId, toast: ToastState) {
        if let Some(entry) = self
            .sessions
            .get_mut(session)
            .and_then(|state| state.find_mut(id))
        {
            entry.toast = toast;
        }
    }

    /// Brings the engine to `now` (never backwards): expires toasts in deadline order, each
    /// freed slot taken by the next waiting toast at the moment it freed.
    fn advance(&mut self, now: Duration) -> Duration {
        let now = now.max(self.now);
        while let Some((at, deadline)) = self.board.earliest_deadline() {
            if deadline > now {
                break;
            }
            let slot = self.board.visible.remove(at);
            self.set_toast_state(slot.session.as_str(), slot.id, ToastState::Expired);
            self.stats.expired += 1;
            self.fill_slots(deadline);
        }
        self.now = now;
        now
    }
}
