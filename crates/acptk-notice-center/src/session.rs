//! The state kept for one session: its bounded notice list, the coalescing index and the muted
//! titles.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Duration;

use crate::entry::{Entry, EntryId};
use crate::incoming::SessionKey;
use crate::severity::Severity;

/// A hasher for keys that are already well-mixed 64-bit hashes: it passes them through.
#[derive(Default)]
pub(crate) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// One session's notices.
pub(crate) struct Session {
    pub key: SessionKey,
    /// Oldest first; ids strictly increase from front to back.
    entries: VecDeque<Entry>,
    /// Hash of (severity, title, description) to the newest entry with that hash. Only used
    /// for lookups, so its iteration order is never observable.
    index: HashMap<u64, EntryId, BuildHasherDefault<PassThrough>>,
    muted: BTreeSet<Box<str>>,
    /// When the session last received a notice or a command; the least recently active
    /// session is dropped first when there are too many.
    pub last_active: Duration,
}

impl Session {
    pub fn new(key: SessionKey, now: Duration) -> Self {
        Self {
            key,
            entries: VecDeque::new(),
            index: HashMap::default(),
            muted: BTreeSet::new(),
            last_active: now,
        }
    }

    pub fn entries(&self) -> &VecDeque<Entry> {
        &self.entries
    }

    pub fn find(&self, id: EntryId) -> Option<&Entry> {
        let at = self
            .entries
            .binary_search_by_key(&id, |entry| entry.id)
            .ok()?;
        self.entries.get(at)
    }

    pub fn find_mut(&mut self, id: EntryId) -> Option<&mut Entry> {
        let at = self
            .entries
            .binary_search_by_key(&id, |entry| entry.id)
            .ok()?;
        self.entries.get_mut(at)
    }

    /// The entry a new notice with these (sanitised) fields should be coalesced into: the
    /// newest identical entry, if its latest notice arrived at most `window` ago.
    pub fn coalesce_target(
        &mut self,
        key_hash: u64,
        fields: (&Severity, &str, Option<&str>),
        now: Duration,
        window: Duration,
    ) -> Option<&mut Entry> {
        let id = *self.index.get(&key_hash)?;
        let entry = self.find_mut(id)?;
        let (severity, title, description) = fields;
        let recent = now.saturating_sub(entry.last_seen) <= window;
        (recent && entry.same_as(severity, title, description)).then_some(entry)
    }

    /// Removes and returns the oldest entry if the list holds `capacity` entries or more.
    pub fn evict_if_full(&mut self, capacity: usize) -> Option<Entry> {
        if self.entries.len() < capacity {
            return None;
        }
        let oldest = self.entries.pop_front()?;
        if self.index.get(&oldest.key_hash) == Some(&oldest.id) {
            self.index.remove(&oldest.key_hash);
        }
        Some(oldest)
    }

    pub fn push(&mut self, entry: Entry) {
        self.index.insert(entry.key_hash, entry.id);
        self.entries.push_back(entry);
    }

    /// Empties the list (mutes stay) and returns how many notices it held.
    pub fn clear(&mut self) -> u64 {
        let notices = self.notice_count();
        self.entries.clear();
        self.index.clear();
        notices
    }

    /// How many notices the list stands for (the sum of the entry counts).
    pub fn notice_count(&self) -> u64 {
        self.entries.iter().map(|entry| entry.count).sum()
    }

    pub fn is_muted(&self, title: &str) -> bool {
        !self.muted.is_empty() && self.muted.contains(title)
    }

    pub fn muted(&self) -> &BTreeSet<Box<str>> {
        &self.muted
    }

    /// Mutes a (sanitised) title. Returns `false` when the limit is reached and the title is
    /// not already muted.
    pub fn mute(&mut self, title: &str, limit: usize) -> bool {
        if self.muted.contains(title) {
            return true;
        }
        if self.muted.len() >= limit {
            return false;
        }
        self.muted.insert(title.into());
        true
    }

    pub fn unmute(&mut self, title: &str) -> bool {
        self.muted.remove(title)
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("entries", &self.entries.len())
            .field("muted", &self.muted.len())
            .finish_non_exhaustive()
    }
}
