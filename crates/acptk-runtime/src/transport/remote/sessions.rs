//! Counting the sessions a remote listener has open, per connection and across all of them,
//! from what the clients ask and what the service answers (see [`super::limits`]).
//!
//! **What "open" means.** A session is open on a connection from the answer that opened it
//! (a result to `session/new` or `session/fork`, or to `session/load` or `session/resume` of
//! a session the connection did not have open) until the service answers that connection's
//! `session/close` or `session/delete` of it with a result, or the connection ends. Only
//! answers count: a `session/close` sent as a notification, with `"jsonrpc":"1.0"`, or in any
//! other form the service refuses frees nothing.
//!
//! Across the listener, a session is open while some connection has it open, and for a while
//! after the last connection that had it open ended without closing it (the linger: the
//! server's idle timeout), so that hanging up and reconnecting does not walk around the
//! listener's cap. A session closed or deleted with a result stops counting at once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::lock::lock;

/// Sessions across every connection of one listener.
#[derive(Debug)]
pub(crate) struct SessionTable {
    max: usize,
    linger: Duration,
    inner: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    sessions: HashMap<String, Entry>,
    /// Requests that may open a session not in `sessions`, waiting for their answer.
    reserved: usize,
}

#[derive(Debug)]
struct Entry {
    /// The connections that have it open.
    holders: usize,
    /// When the last of them ended without closing it.
    left: Option<Instant>,
}

/// Whether a request that may open a session may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Yes; it holds a reservation until its answer (give it back with
    /// [`SessionTable::unreserve`] or turn it into a session with [`SessionTable::open`]).
    Reserved,
    /// Yes: the session it names counts already, so it needs no reservation.
    Counted,
    /// No: the listener has as many sessions open as it allows.
    Full,
}

impl SessionTable {
    /// A table of at most `max` sessions, counting a session left open for `linger` after its
    /// last connection ended.
    pub(crate) fn new(max: usize, linger: Duration) -> Self {
        Self {
            max: max.max(1),
            linger,
            inner: Mutex::new(Table::default()),
        }
    }

    /// The cap.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// How many sessions count now (reservations included).
    pub(crate) fn count(&self) -> usize {
        let mut table = lock(&self.inner);
        self.sweep(&mut table);
        table.sessions.len() + table.reserved
    }

    /// Forgets sessions whose linger is over.
    fn sweep(&self, table: &mut Table) {
        let linger = self.linger;
        table.sessions.retain(|_, entry| {
            entry.holders > 0 || entry.left.is_none_or(|left| left.elapsed() < linger)
        });
    }

    /// Asks for room for a request that may open a session (`named`: the session it loads or
    /// resumes, if any).
    pub(crate) fn admit(&self, named: Option<&str>) -> Admission {
        let mut table = lock(&self.inner);
        self.sweep(&mut table);
        if named.is_some_and(|id| table.sessions.contains_key(id)) {
            return Admission::Counted;
        }
        if table.sessions.len() + table.reserved >= self.max {
            return Admission::Full;
        }
        table.reserved += 1;
        Admission::Reserved
    }

    /// Gives back a reservation (the request failed).
    pub(crate) fn unreserve(&self) {
        let mut table = lock(&self.inner);
        table.reserved = table.reserved.saturating_sub(1);
    }

    /// A connection opened `id` (with a reservation when `reserved`).
    pub(crate) fn open(&self, id: &str, reserved: bool) {
        let mut table = lock(&self.inner);
        if reserved {
            table.reserved = table.reserved.saturating_sub(1);
        }
        let entry = table.sessions.entry(id.to_owned()).or_insert(Entry {
            holders: 0,
            left: None,
        });
        entry.holders += 1;
        entry.left = None;
    }

    /// A connection closed or deleted `id` (answered with a result): it no longer counts for
    /// that connection, and no longer at all when no other connection has it open.
    pub(crate) fn close(&self, id: &str) {
        let mut table = lock(&self.inner);
        if let Some(entry) = table.sessions.get_mut(id) {
            entry.holders = entry.holders.saturating_sub(1);
            if entry.holders == 0 {
                table.sessions.remove(id);
            }
        }
    }

    /// A connection that did not have `id` open closed or deleted it (answered with a
    /// result): when it only lingered, it no longer counts.
    pub(crate) fn forget(&self, id: &str) {
        let mut table = lock(&self.inner);
        if table
            .sessions
            .get(id)
            .is_some_and(|entry| entry.holders == 0)
        {
            table.sessions.remove(id);
        }
    }

    /// A connection that had `id` open ended without closing it: it lingers.
    pub(crate) fn leave(&self, id: &str) {
        let mut table = lock(&self.inner);
        if let Some(entry) = table.sessions.get_mut(id) {
            entry.holders = entry.holders.saturating_sub(1);
            if entry.holders == 0 {
                entry.left = Some(Instant::now());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_and_sessions_share_the_cap() {
        let table = SessionTable::new(2, Duration::from_secs(60));
        assert_eq!(table.admit(None), Admission::Reserved);
        assert_eq!(table.admit(None), Admission::Reserved);
        assert_eq!(table.admit(None), Admission::Full);
        // One request failed, the other opened `a`.
        table.unreserve();
        table.open("a", true);
        assert_eq!(table.count(), 1);
        assert_eq!(table.admit(None), Admission::Reserved);
        assert_eq!(table.count(), 2);
        // Loading a session that counts already needs no room.
        assert_eq!(table.admit(Some("a")), Admission::Counted);
        assert_eq!(table.admit(Some("b")), Admission::Full);
        table.unreserve();
        // A second holder, then both close it.
        table.open("a", false);
        table.close("a");
        assert_eq!(table.count(), 1);
        table.close("a");
        assert_eq!(table.count(), 0);
    }

    #[test]
    fn a_session_left_open_counts_until_its_linger_is_over() {
        let table = SessionTable::new(1, Duration::from_millis(50));
        assert_eq!(table.admit(None), Admission::Reserved);
        table.open("a", true);
        table.leave("a");
        assert_eq!(table.admit(None), Admission::Full);
        // Loading it again is allowed and stops the linger.
        assert_eq!(table.admit(Some("a")), Admission::Counted);
        table.open("a", false);
        std::thread::sleep(Duration::from_millis(80));
        assert_eq!(table.count(), 1);
        table.leave("a");
        std::thread::sleep(Duration::from_millis(80));
        assert_eq!(table.count(), 0);
        assert_eq!(table.admit(None), Admission::Reserved);
    }
}
