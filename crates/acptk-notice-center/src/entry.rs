//! One entry of a session's notice list.

use std::fmt;
use std::time::Duration;

use crate::severity::Severity;

/// A local identity for a list entry, unique within one [`crate::NoticeCenter`] and
/// increasing in arrival order. ACP notices have no id; this one never leaves the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryId(pub(crate) u64);

impl EntryId {
    /// The number behind the id.
    #[must_use]
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for EntryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Where an entry stands as a toast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToastState {
    /// Shown as a toast now.
    Visible,
    /// Waiting for a free toast slot.
    Queued,
    /// Was shown and hid itself when its time ran out.
    Expired,
    /// Was shown or queued and the user dismissed it (or dismissed all).
    Dismissed,
    /// In the list only, never (or no longer) a toast, for the given reason.
    ListOnly(ListOnlyReason),
}

impl ToastState {
    /// Whether the entry is a visible toast.
    #[must_use]
    pub fn is_visible(self) -> bool {
        self == Self::Visible
    }
}

/// Why an entry is in the list only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListOnlyReason {
    /// Its title is muted for its session (not announced either).
    Muted,
    /// Do-not-disturb is on and it is not an error (not announced either).
    DoNotDisturb,
    /// It arrived in a burst that the flood guard held back (not announced either).
    FloodGuard,
    /// All toast slots (and the queue, if any) were taken.
    Overflow,
    /// Its severity's preset does not toast.
    NoToast,
}

/// One entry of a session's notice list: a notice, or several identical ones coalesced.
///
/// All text is already sanitised (see [`crate::sanitize`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub(crate) id: EntryId,
    pub(crate) severity: Severity,
    pub(crate) title: Box<str>,
    pub(crate) description: Option<Box<str>>,
    pub(crate) count: u64,
    pub(crate) first_seen: Duration,
    pub(crate) last_seen: Duration,
    pub(crate) toast: ToastState,
    pub(crate) key_hash: u64,
}

impl Entry {
    /// The entry's local id.
    #[must_use]
    pub fn id(&self) -> EntryId {
        self.id
    }

    /// The severity.
    #[must_use]
    pub fn severity(&self) -> &Severity {
        &self.severity
    }

    /// The sanitised title (never empty).
    #[must_use]
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The sanitised description, if the notice had one with something printable in it.
    #[must_use]
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// How many identical notices this entry stands for (at least 1).
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// When the first of them arrived.
    #[must_use]
    pub fn first_seen(&self) -> Duration {
        self.first_seen
    }

    /// When the latest of them arrived.
    #[must_use]
    pub fn last_seen(&self) -> Duration {
        self.last_seen
    }

    /// Where the entry stands as a toast.
    #[must_use]
    pub fn toast(&self) -> ToastState {
        self.toast
    }

    /// Whether another notice with these sanitised fields is the same notice.
    pub(crate) fn same_as(
        &self,
        severity: &Severity,
        title: &str,
        description: Option<&str>,
    ) -> bool {
        self.severity == *severity
            && *self.title == *title
            && self.description.as_deref() == description
    }
}
