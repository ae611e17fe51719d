//! Counters that make the engine's bookkeeping checkable.

/// Running totals since the engine was created.
///
/// Every notice received is, at any time, either counted in exactly one list entry or was
/// removed with its entry:
/// `received == NoticeCenter::live_notices() + evicted + cleared`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Notices passed to [`crate::NoticeCenter::push`].
    pub received: u64,
    /// Notices that made a new list entry.
    pub new_entries: u64,
    /// Notices folded into an existing entry.
    pub coalesced: u64,
    /// Notices removed with their entry because a list was full or a session was dropped to
    /// stay within [`crate::Policy::max_sessions`].
    pub evicted: u64,
    /// Notices removed by clearing or removing a session.
    pub cleared: u64,
    /// Sessions dropped to stay within [`crate::Policy::max_sessions`].
    pub sessions_dropped: u64,
    /// Toasts that became visible (at arrival or from the queue).
    pub shown: u64,
    /// New entries that had to wait in the queue.
    pub queued: u64,
    /// New entries that went to the list only (any reason).
    pub list_only: u64,
    /// Of those, the ones held back by the flood guard.
    pub flood_held: u64,
    /// Toasts that hid themselves when their time ran out.
    pub expired: u64,
    /// Toasts (visible or queued) the user dismissed.
    pub dismissed: u64,
    /// Announcements produced.
    pub announced: u64,
}
