//! The state of an open session, shared by every connection it is open on: its turn (one at a
//! time; later prompts are held), cancellation, current configuration, idempotency keys and
//! the tool calls and terminals the client may cancel.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::SystemTime;

use acptk_schema::v1::ProtocolVersion;
use tokio::sync::{OwnedMutexGuard, watch};

use super::config::SessionConfig;
use super::turn::Turn;
use crate::lock::lock;
use crate::store::ConfigValue;
use crate::store::{HistoryEntry, SessionMeta, SessionStore, StoreError};

/// Something the client may cancel on its own (v2 `tool_call/cancel`, `terminal/cancel`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Cancellable {
    ToolCall(String),
    Terminal(String),
}

/// One session's shared state.
pub(crate) struct SessionState {
    pub(crate) id: String,
    pub(crate) version: ProtocolVersion,
    pub(crate) store: Arc<dyn SessionStore>,
    /// The owner's name ([`SessionMeta::owner`]), fixed when the session was created.
    owner: Option<String>,
    meta: Mutex<SessionMeta>,
    /// Serialises this process's metadata changes of the session (each reads, changes and
    /// saves the stored metadata).
    meta_writes: tokio::sync::Mutex<()>,
    config: Mutex<SessionConfig>,
    /// The running turn.
    turn: Mutex<Option<Arc<Turn>>>,
    /// Held by the running turn; prompts wait for it in arrival order.
    slot: Arc<tokio::sync::Mutex<()>>,
    /// Bumped by every `session/cancel` and `session/close`: prompts still waiting give up.
    epoch: watch::Sender<u64>,
    /// v2 idempotency keys -> message ids, read from the history on first use.
    keys: Mutex<Option<HashMap<String, String>>>,
    cancellable: Mutex<HashMap<Cancellable, watch::Sender<bool>>>,
    deleted: AtomicBool,
}

impl std::fmt::Debug for SessionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionState")
            .field("id", &self.id)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// Marks the running turn until dropped (and frees the slot for the next prompt).
pub(crate) struct TurnGuard {
    state: Arc<SessionState>,
    _slot: OwnedMutexGuard<()>,
}

impl TurnGuard {
    /// Ends the turn; `true` when it was cancelled. The slot is freed when the guard drops.
    pub(crate) fn finish(&self) -> bool {
        match lock(&self.state.turn).take() {
            Some(turn) => {
                turn.end();
                turn.is_cancelled()
            }
            None => false,
        }
    }
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        self.finish();
    }
}

impl SessionState {
    pub(crate) fn new(
        meta: SessionMeta,
        config: SessionConfig,
        store: Arc<dyn SessionStore>,
    ) -> Arc<Self> {
        Arc::new(Self {
            id: meta.id.clone(),
            version: meta.protocol_version,
            store,
            owner: meta.owner.clone(),
            meta: Mutex::new(meta),
            meta_writes: tokio::sync::Mutex::new(()),
            config: Mutex::new(config),
            turn: Mutex::new(None),
            slot: Arc::new(tokio::sync::Mutex::new(())),
            epoch: watch::channel(0).0,
            keys: Mutex::new(None),
            cancellable: Mutex::new(HashMap::new()),
            deleted: AtomicBool::new(false),
        })
    }

    /// Records `entry` in the store.
    pub(crate) async fn record(&self, entry: HistoryEntry) -> Result<(), StoreError> {
        self.store.append(&self.id, entry).await
    }

    /// The owner's name; `None` for the local user.
    pub(crate) fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// A copy of the metadata.
    pub(crate) fn meta(&self) -> SessionMeta {
        lock(&self.meta).clone()
    }

    /// Changes the metadata with `change`, marks the session active now and saves it.
    ///
    /// The change is applied to the metadata as stored now, not to this state's copy: another
    /// process sharing the store may have changed other fields (a title, the archive flag, the
    /// mode, an option) since this one opened the session, and those stay. What was read is
    /// also taken into this state (see [`Self::refresh`]), so a turn that starts after this
    /// runs with the settings as stored.
    pub(crate) async fn update_meta(
        &self,
        change: impl FnOnce(&mut SessionMeta),
    ) -> Result<(), StoreError> {
        let _writing = self.meta_writes.lock().await;
        let mut meta = self.stored_meta().await?;
        self.refresh(&meta);
        change(&mut meta);
        self.save(meta).await
    }

    /// The session's metadata as stored now; [`StoreError::Unknown`] when it is gone.
    async fn stored_meta(&self) -> Result<SessionMeta, StoreError> {
        match self.store.meta(&self.id).await? {
            Some(meta) => Ok(meta),
            None => Err(StoreError::Unknown(self.id.clone())),
        }
    }

    /// Marks `meta` active now, saves it, and keeps it as this state's copy.
    async fn save(&self, mut meta: SessionMeta) -> Result<(), StoreError> {
        // The owner and the version never change.
        meta.owner.clone_from(&self.owner);
        meta.protocol_version = self.version;
        meta.updated_at = SystemTime::now();
        self.store.save_meta(&meta).await?;
        *lock(&self.meta) = meta;
        Ok(())
    }

    /// Takes the session's settings from `stored`, its metadata as just read from the store:
    /// the current mode and option values (those the agent still offers) and the rest of
    /// the metadata (title, working directory, directories, archive flag). Another process
    /// sharing the store may have changed any of them since this state was opened; the
    /// modes and options on offer are the agent's, and stay.
    pub(crate) fn refresh(&self, stored: &SessionMeta) {
        lock(&self.config).apply_stored(stored.mode.as_deref(), &stored.config);
        let mut meta = stored.clone();
        meta.owner.clone_from(&self.owner);
        meta.protocol_version = self.version;
        *lock(&self.meta) = meta;
    }

    /// A copy of the configuration.
    pub(crate) fn config(&self) -> SessionConfig {
        lock(&self.config).clone()
    }

    /// Changes the configuration and saves the current values.
    ///
    /// `change` applies to the current values as stored now (another process may have set
    /// a mode or an option since this one read them), so that it changes only what it means
    /// to; this state takes the result once it is saved.
    pub(crate) async fn update_config(
        &self,
        change: impl FnOnce(&mut SessionConfig),
    ) -> Result<SessionConfig, StoreError> {
        let _writing = self.meta_writes.lock().await;
        let mut meta = self.stored_meta().await?;
        let mut config = self.config();
        config.apply_stored(meta.mode.as_deref(), &meta.config);
        change(&mut config);
        meta.mode = config.modes.as_ref().map(|modes| modes.current.clone());
        meta.config = config.values();
        self.save(meta).await?;
        *lock(&self.config) = config.clone();
        Ok(config)
    }

    /// The current value of option `id` (the modes are not options here).
    pub(crate) fn config_value(&self, id: &str) -> Option<ConfigValue> {
        lock(&self.config).value(id)
    }

    /// The cancellation count now: a prompt notes it when it arrives.
    pub(crate) fn epoch(&self) -> u64 {
        *self.epoch.borrow()
    }

    /// Waits for the turn slot, in arrival order. `None` when a `session/cancel` or
    /// `session/close` arrived after the prompt (which noted [`Self::epoch`] as `arrived`)
    /// and before its turn could start; the prompt is then answered `-32800`.
    pub(crate) async fn hold(self: &Arc<Self>, arrived: u64) -> Option<TurnGuard> {
        let mut epoch = self.epoch.subscribe();
        let mine = arrived;
        // A cancellation wins over a slot that became free at the same moment (the turn it
        // cancelled just ended).
        let slot = tokio::select! {
            biased;
            _ = epoch.wait_for(|now| *now != mine) => return None,
            slot = Arc::clone(&self.slot).lock_owned() => slot,
        };
        Some(TurnGuard {
            state: Arc::clone(self),
            _slot: slot,
        })
    }

    /// Starts the turn held by `guard`, with a fresh agent message id.
    pub(crate) fn start_turn(&self, _guard: &TurnGuard) -> Arc<Turn> {
        let turn = Arc::new(Turn::new());
        *lock(&self.turn) = Some(Arc::clone(&turn));
        turn
    }

    /// The running turn, if there is one.
    pub(crate) fn current_turn(&self) -> Option<Arc<Turn>> {
        lock(&self.turn).clone()
    }

    /// `session/cancel`: the running turn is cancelled, and prompts still held give up.
    pub(crate) fn cancel(&self) {
        self.epoch
            .send_modify(|epoch| *epoch = epoch.wrapping_add(1));
        if let Some(turn) = self.current_turn() {
            turn.cancel();
        }
    }

    /// Waits until no turn is running (after [`Self::cancel`], for `session/close`).
    pub(crate) async fn idle(&self) {
        let _slot = self.slot.lock().await;
    }

    /// Whether a turn is running.
    pub(crate) fn is_running(&self) -> bool {
        lock(&self.turn).is_some()
    }

    /// The message id recorded for a v2 idempotency key, reading the history the first time.
    pub(crate) async fn key(&self, key: &str) -> Result<Option<String>, StoreError> {
        if let Some(keys) = lock(&self.keys).as_ref() {
            return Ok(keys.get(key).cloned());
        }
        let history = self.store.history(&self.id).await?;
        let read: HashMap<String, String> = history
            .into_iter()
            .filter_map(|entry| match entry {
                HistoryEntry::PromptKey { key, message_id } => Some((key, message_id)),
                _ => None,
            })
            .collect();
        let mut keys = lock(&self.keys);
        // A key remembered while the history was read is kept too.
        let keys = keys.get_or_insert_with(HashMap::new);
        for (key, message_id) in read {
            keys.entry(key).or_insert(message_id);
        }
        Ok(keys.get(key).cloned())
    }

    /// Remembers a v2 idempotency key (and records it).
    pub(crate) async fn remember_key(&self, key: &str, message_id: &str) -> Result<(), StoreError> {
        self.record(HistoryEntry::PromptKey {
            key: key.to_owned(),
            message_id: message_id.to_owned(),
        })
        .await?;
        if let Some(keys) = lock(&self.keys).as_mut() {
            keys.insert(key.to_owned(), message_id.to_owned());
        }
        Ok(())
    }

    /// Marks `item` cancellable by the client (or not).
    pub(crate) fn set_cancellable(&self, item: Cancellable, cancellable: bool) {
        let mut items = lock(&self.cancellable);
        if cancellable {
            items.entry(item).or_insert_with(|| watch::channel(false).0);
        } else {
            items.remove(&item);
        }
    }

    /// The client cancels `item`: `false` when it is not cancellable (unknown, already final,
    /// or never advertised as cancellable).
    pub(crate) fn cancel_item(&self, item: &Cancellable) -> bool {
        match lock(&self.cancellable).get(item) {
            Some(token) => {
                token.send_replace(true);
                true
            }
            None => false,
        }
    }

    /// Resolves when the client cancels `item` or `turn` (when given) is cancelled.
    pub(crate) async fn item_cancelled(&self, item: Cancellable, turn: Option<Arc<Turn>>) {
        let token = lock(&self.cancellable)
            .get(&item)
            .map(watch::Sender::subscribe);
        let own = async {
            match token {
                Some(mut token) => {
                    let _ = token.wait_for(|cancelled| *cancelled).await;
                }
                None => std::future::pending().await,
            }
        };
        let turn_cancelled = async {
            match &turn {
                Some(turn) => turn.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = own => {}
            () = turn_cancelled => {}
        }
    }

    pub(crate) fn mark_deleted(&self) {
        self.deleted.store(true, Ordering::Relaxed);
        self.cancel();
    }

    pub(crate) fn is_deleted(&self) -> bool {
        self.deleted.load(Ordering::Relaxed)
    }
}

/// The sessions open on any connection of one server, by id.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    sessions: Mutex<HashMap<String, Weak<SessionState>>>,
    /// The server is shutting down: no new turn starts.
    draining: AtomicBool,
}

impl Registry {
    /// Stops new turns from starting (see [`Self::is_draining`]).
    pub(crate) fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Whether the server is shutting down.
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// The sessions whose turn is running now.
    pub(crate) fn running(&self) -> Vec<Arc<SessionState>> {
        lock(&self.sessions)
            .values()
            .filter_map(Weak::upgrade)
            .filter(|state| state.is_running())
            .collect()
    }

    /// The open state of session `id`, if some connection has it open.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<SessionState>> {
        let mut sessions = lock(&self.sessions);
        match sessions.get(id).and_then(Weak::upgrade) {
            Some(state) => Some(state),
            None => {
                sessions.remove(id);
                None
            }
        }
    }

    /// Registers a newly opened state.
    pub(crate) fn insert(&self, state: &Arc<SessionState>) {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|_, weak| weak.strong_count() > 0);
        sessions.insert(state.id.clone(), Arc::downgrade(state));
    }

    /// Forgets session `id`.
    pub(crate) fn remove(&self, id: &str) {
        lock(&self.sessions).remove(id);
    }
}
