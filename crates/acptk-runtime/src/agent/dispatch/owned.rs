//! The sessions as one connection's principal sees them: the one place where a session id
//! from a request is looked up in the store or among the open sessions.
//!
//! Every method that names a stored session resolves it here (`session/load`, `resume`,
//! `delete`, `fork`, `archive`, `unarchive`, `set_title`, `status`, `options`), and
//! `session/list` lists through here; the methods that need the session open on the
//! connection (`prompt`, `cancel`, `close`, `set_mode`, `set_config_option`,
//! `tool_call/cancel`, `terminal/cancel`) find only what this connection opened, which it
//! could only open through here. Another principal's session is simply not there: the store
//! answers as for an id it does not know, so every reply is the unknown id's reply.

use std::sync::Arc;

use crate::agent::open_sessions::{Registry, SessionState};
use crate::principal::Principal;
use crate::store::{SessionMeta, SessionStore, StoreError};

/// The store and the open sessions of a server, seen by one principal.
pub(in crate::agent) struct Owned {
    store: Arc<dyn SessionStore>,
    registry: Arc<Registry>,
    principal: Principal,
}

impl Owned {
    pub(in crate::agent) fn new(
        store: Arc<dyn SessionStore>,
        registry: Arc<Registry>,
        principal: Principal,
    ) -> Self {
        Self {
            store,
            registry,
            principal,
        }
    }

    /// The principal this view is for.
    pub(super) fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The whole store, for the state of a session already resolved here (or just created).
    pub(super) fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// The metadata of session `id` when it is the principal's; `None` when it is unknown or
    /// another's. A named principal cannot tell whose an unreadable session is, so for it
    /// that is unknown too; the local principal gets the store's error (its files are the
    /// local user's own to repair).
    pub(super) async fn meta(&self, id: &str) -> Result<Option<SessionMeta>, StoreError> {
        match self.store.meta(id).await {
            Ok(Some(meta)) if self.principal.owns(&meta) => Ok(Some(meta)),
            Ok(_) => Ok(None),
            Err(_) if !self.principal.is_local() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// The metadata of every readable session of the principal.
    pub(super) async fn list(&self) -> Result<Vec<SessionMeta>, StoreError> {
        let mut sessions = self.store.list_owned(self.principal.name()).await?;
        sessions.retain(|meta| self.principal.owns(meta));
        Ok(sessions)
    }

    /// Records a new session owned by the principal; returns its metadata as stored.
    pub(super) async fn create(&self, mut meta: SessionMeta) -> Result<SessionMeta, StoreError> {
        meta.owner = self.principal.owner();
        self.store.create(&meta).await?;
        Ok(meta)
    }

    /// The open state of session `id` (on any connection), when it is the principal's.
    pub(super) fn state(&self, id: &str) -> Option<Arc<SessionState>> {
        self.registry
            .get(id)
            .filter(|state| state.owner() == self.principal.name())
    }

    /// Whether the server is shutting down (no new turn starts).
    pub(super) fn is_draining(&self) -> bool {
        self.registry.is_draining()
    }

    /// Registers the state of a session opened here.
    pub(super) fn register(&self, state: &Arc<SessionState>) {
        self.registry.insert(state);
    }

    /// Forgets the open state of session `id`, which must be the principal's (checked with
    /// [`Self::meta`] first).
    pub(super) fn forget(&self, id: &str) {
        if self.state(id).is_some() {
            self.registry.remove(id);
        }
    }
}
