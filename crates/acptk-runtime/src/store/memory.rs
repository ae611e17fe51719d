//! The in-memory store: sessions last as long as the process (and the store value).

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::{HistoryEntry, SessionMeta, SessionStore, StoreError, StoreFeatures, StoreFuture};
use crate::lock::lock;

/// The default maximum number of history entries per session in a [`MemoryStore`].
pub const DEFAULT_MAX_ENTRIES: usize = 100_000;

#[derive(Debug)]
struct Stored {
    meta: SessionMeta,
    history: Vec<HistoryEntry>,
}

/// Sessions kept in memory: the library default. Every connection served by the same
/// [`AgentServer`](crate::agent::AgentServer) shares them, so a client can reconnect and load a
/// session it created earlier; nothing survives the process.
///
/// Each session holds at most [`DEFAULT_MAX_ENTRIES`] history entries (see
/// [`MemoryStore::max_entries`]); beyond that, recording fails with [`StoreError::Full`] and
/// nothing already recorded is lost.
///
/// What the store keeps decides what the agent advertises:
///
/// ```
/// use acptk_runtime::agent::{AgentMethod, AgentServer, MemoryStore};
/// use acptk_runtime::ProtocolVersion;
/// # use acptk_runtime::prelude::*;
/// # struct Echo;
/// # impl Agent for Echo {
/// #     async fn prompt(&self, _: Session, _: Prompt) -> Result<StopReason, ErrorObject> {
/// #         Ok(StopReason::EndTurn)
/// #     }
/// # }
///
/// // The default store of `AgentServer::new`, with a smaller cap per session.
/// let server = AgentServer::new(Echo).store(MemoryStore::new().max_entries(1_000));
/// assert!(server.offer().answers(AgentMethod::LoadSession, ProtocolVersion::V1));
///
/// // No history: sessions can be listed and resumed, not loaded with a replay.
/// let ephemeral = AgentServer::new(Echo).store(MemoryStore::without_history());
/// assert!(!ephemeral.offer().answers(AgentMethod::LoadSession, ProtocolVersion::V1));
/// assert!(ephemeral.offer().answers(AgentMethod::ListSessions, ProtocolVersion::V1));
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    sessions: Mutex<BTreeMap<String, Stored>>,
    history: bool,
    max_entries: usize,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    /// An empty store that keeps history.
    pub fn new() -> Self {
        Self {
            sessions: Mutex::new(BTreeMap::new()),
            history: true,
            max_entries: DEFAULT_MAX_ENTRIES,
        }
    }

    /// An empty store that keeps no history: sessions can be listed, resumed and closed, but
    /// not loaded with a replay, so the agent does not advertise `loadSession`. This is what
    /// `acp agent --ephemeral` uses.
    pub fn without_history() -> Self {
        Self {
            history: false,
            ..Self::new()
        }
    }

    /// Sets the maximum number of history entries per session (at least 1).
    #[must_use]
    pub fn max_entries(mut self, entries: usize) -> Self {
        self.max_entries = entries.max(1);
        self
    }
}

impl MemoryStore {
    fn create_now(&self, meta: &SessionMeta) -> Result<(), StoreError> {
        let mut sessions = lock(&self.sessions);
        if sessions.contains_key(&meta.id) {
            return Err(StoreError::Exists(meta.id.clone()));
        }
        sessions.insert(
            meta.id.clone(),
            Stored {
                meta: meta.clone(),
                history: Vec::new(),
            },
        );
        Ok(())
    }

    fn save_meta_now(&self, meta: &SessionMeta) -> Result<(), StoreError> {
        match lock(&self.sessions).get_mut(&meta.id) {
            Some(stored) => {
                stored.meta.clone_from(meta);
                Ok(())
            }
            None => Err(StoreError::Unknown(meta.id.clone())),
        }
    }

    fn append_now(
        &self,
        id: &str,
        entries: impl ExactSizeIterator<Item = HistoryEntry>,
    ) -> Result<(), StoreError> {
        let mut sessions = lock(&self.sessions);
        let Some(stored) = sessions.get_mut(id) else {
            return Err(StoreError::Unknown(id.to_owned()));
        };
        if !self.history {
            return Ok(());
        }
        if stored.history.len() + entries.len() > self.max_entries {
            return Err(StoreError::Full {
                id: id.to_owned(),
                used: stored.history.len() as u64,
                limit: self.max_entries as u64,
                unit: "entries",
            });
        }
        stored.history.extend(entries);
        Ok(())
    }
}

impl SessionStore for MemoryStore {
    fn features(&self) -> StoreFeatures {
        StoreFeatures::new(false).history(self.history)
    }

    fn create<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.create_now(meta) })
    }

    fn meta<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionMeta>> {
        Box::pin(async move {
            Ok(lock(&self.sessions)
                .get(id)
                .map(|stored| stored.meta.clone()))
        })
    }

    fn save_meta<'a>(&'a self, meta: &'a SessionMeta) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.save_meta_now(meta) })
    }

    fn append<'a>(&'a self, id: &'a str, entry: HistoryEntry) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.append_now(id, std::iter::once(entry)) })
    }

    fn append_batch<'a>(&'a self, id: &'a str, entries: Vec<HistoryEntry>) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.append_now(id, entries.into_iter()) })
    }

    fn history<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<HistoryEntry>> {
        Box::pin(async move {
            lock(&self.sessions)
                .get(id)
                .map(|stored| stored.history.clone())
                .ok_or_else(|| StoreError::Unknown(id.to_owned()))
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<SessionMeta>> {
        Box::pin(async move {
            Ok(lock(&self.sessions)
                .values()
                .map(|stored| stored.meta.clone())
                .collect())
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move { Ok(lock(&self.sessions).remove(id).is_some()) })
    }
}
