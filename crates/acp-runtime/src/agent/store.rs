//! The agent's in-memory session store: each session's protocol version, working directory
//! and history.
//!
//! History entries are `ReplayableUpdate`s, the session updates that may be replayed. That
//! type has no notice variant, so a notice can never be recorded or replayed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};

use crate::connection::lock;
use crate::version::ByVersion;

/// The default maximum number of history entries kept per session.
pub const DEFAULT_HISTORY_LIMIT: usize = 100_000;

/// The recorded history of one session, in the types of the version it was created with.
pub type History = ByVersion<Vec<v1::ReplayableUpdate>, Vec<v2::ReplayableUpdate>>;

#[derive(Debug)]
struct Stored {
    cwd: String,
    history: History,
}

#[derive(Debug)]
struct Inner {
    sessions: Mutex<BTreeMap<String, Stored>>,
    next_id: AtomicU64,
    history_limit: usize,
}

/// Sessions kept in memory, shared by every connection served with the same store (so a
/// client can reconnect and load a session it created earlier). Cheap to clone.
#[derive(Debug, Clone)]
pub struct SessionStore {
    inner: Arc<Inner>,
}

impl Default for SessionStore {
    fn default() -> Self {
        Self::new()
    }
}

impl SessionStore {
    /// An empty store keeping up to [`DEFAULT_HISTORY_LIMIT`] entries per session.
    pub fn new() -> Self {
        Self::with_history_limit(DEFAULT_HISTORY_LIMIT)
    }

    /// An empty store keeping up to `limit` history entries per session (the oldest go
    /// first).
    pub fn with_history_limit(limit: usize) -> Self {
        Self {
            inner: Arc::new(Inner {
                sessions: Mutex::new(BTreeMap::new()),
                next_id: AtomicU64::new(1),
                history_limit: limit.max(1),
            }),
        }
    }

    /// A fresh identifier with the given prefix (`sess_1`, `msg_7`, ...), unique in this store.
    pub fn fresh_id(&self, prefix: &str) -> String {
        format!(
            "{prefix}_{}",
            self.inner.next_id.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// Creates an empty session.
    pub(crate) fn create(&self, id: &str, version: ProtocolVersion, cwd: &str) {
        let history = if version == ProtocolVersion::V1 {
            ByVersion::V1(Vec::new())
        } else {
            ByVersion::V2(Vec::new())
        };
        lock(&self.inner.sessions).insert(
            id.to_owned(),
            Stored {
                cwd: cwd.to_owned(),
                history,
            },
        );
    }

    /// The ids of the stored sessions, in order.
    pub fn session_ids(&self) -> Vec<String> {
        lock(&self.inner.sessions).keys().cloned().collect()
    }

    /// The protocol version a session was created with.
    pub fn version(&self, id: &str) -> Option<ProtocolVersion> {
        lock(&self.inner.sessions)
            .get(id)
            .map(|stored| stored.history.version())
    }

    /// The working directory a session was created or last loaded with.
    pub fn cwd(&self, id: &str) -> Option<String> {
        lock(&self.inner.sessions)
            .get(id)
            .map(|stored| stored.cwd.clone())
    }

    /// A copy of a session's history.
    pub fn history(&self, id: &str) -> Option<History> {
        lock(&self.inner.sessions)
            .get(id)
            .map(|stored| stored.history.clone())
    }

    /// A copy of the history of a v1 session.
    pub fn history_v1(&self, id: &str) -> Option<Vec<v1::ReplayableUpdate>> {
        match self.history(id)? {
            ByVersion::V1(history) => Some(history),
            ByVersion::V2(_) => None,
        }
    }

    /// A copy of the history of a v2 session.
    pub fn history_v2(&self, id: &str) -> Option<Vec<v2::ReplayableUpdate>> {
        match self.history(id)? {
            ByVersion::V2(history) => Some(history),
            ByVersion::V1(_) => None,
        }
    }

    pub(crate) fn set_cwd(&self, id: &str, cwd: &str) {
        if let Some(stored) = lock(&self.inner.sessions).get_mut(id) {
            cwd.clone_into(&mut stored.cwd);
        }
    }

    pub(crate) fn record_v1(&self, id: &str, update: v1::ReplayableUpdate) {
        let limit = self.inner.history_limit;
        if let Some(Stored {
            history: ByVersion::V1(history),
            ..
        }) = lock(&self.inner.sessions).get_mut(id)
        {
            push_bounded(history, update, limit);
        }
    }

    pub(crate) fn record_v2(&self, id: &str, update: v2::ReplayableUpdate) {
        let limit = self.inner.history_limit;
        if let Some(Stored {
            history: ByVersion::V2(history),
            ..
        }) = lock(&self.inner.sessions).get_mut(id)
        {
            push_bounded(history, update, limit);
        }
    }
}

fn push_bounded<T>(history: &mut Vec<T>, entry: T, limit: usize) {
    if history.len() >= limit {
        let excess = history.len() + 1 - limit;
        history.drain(..excess);
    }
    history.push(entry);
}
