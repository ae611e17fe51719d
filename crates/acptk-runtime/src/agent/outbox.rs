//! A session's outbox: the updates of one session on one connection, recorded in the store in
//! groups and sent in order once recorded.
//!
//! A recorded update must be in the store before the client may see it. Doing that one update
//! at a time costs one store transaction per update (one disk sync with PostgreSQL's durable
//! settings). Instead, a send call queues the update, already encoded, and returns; a drain
//! task started when the queue fills from empty takes everything queued, records the history
//! entries among it with one [`SessionStore::append_batch`], then sends the lot in queue order,
//! and goes on until the queue is empty. Updates a handler sends in a burst therefore share
//! one transaction, while the handler goes on producing the next ones.
//!
//! Rules:
//! * Order: everything for the session on this connection goes through the queue while it is
//!   not empty (unrecorded updates too: notices, state), so the client sees the updates in the
//!   order they were sent. Requests to the client and the end of a turn wait for the queue to
//!   empty first ([`Outbox::flush`]).
//! * Bounded: at most [`MAX_QUEUED`] updates wait; a send call waits for room beyond that (and
//!   behind it, the connection's own bounded queue).
//! * Failure: when a group cannot be recorded, none of it is sent, and the next send call of
//!   the session (or the flush at the end of the turn) fails with the store's error, so the
//!   history never lacks an update the client saw, and the handler learns of the failure.
//!
//! A store that does not ask for groups ([`SessionStore::groups_appends`]: the memory store)
//! skips the queue: each update is recorded and sent in the call that sends it, and a
//! failure to record fails that call.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use crate::connection::Connection;
use crate::error::Error;
use crate::lock::lock;
use crate::store::{HistoryEntry, SessionStore, StoreError};

/// How many updates may wait for the store before a send call waits for room.
pub(crate) const MAX_QUEUED: usize = 1024;

/// One queued update: the history entry to record (none for a notice or state) and the
/// encoded message to send once it is recorded.
struct Item {
    entry: Option<HistoryEntry>,
    line: Vec<u8>,
}

#[derive(Default)]
struct Queue {
    items: VecDeque<Item>,
    /// A drain task runs.
    draining: bool,
    /// The failure of a group no call has reported yet.
    failure: Option<StoreError>,
    /// Updates queued so far (a flush waits until this many are done).
    queued: u64,
}

struct Shared {
    store: Arc<dyn SessionStore>,
    /// The store groups appends ([`SessionStore::groups_appends`]); otherwise nothing is
    /// queued.
    groups: bool,
    id: String,
    connection: Connection,
    queue: Mutex<Queue>,
    /// Updates done so far (recorded and sent, or dropped with their group).
    done: watch::Sender<u64>,
}

/// The outbox of one session on one connection. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let queue = lock(&self.shared.queue);
        f.debug_struct("Outbox")
            .field("queued", &queue.items.len())
            .field("draining", &queue.draining)
            .finish()
    }
}

impl Outbox {
    pub(crate) fn new(store: Arc<dyn SessionStore>, id: String, connection: Connection) -> Self {
        Self {
            shared: Arc::new(Shared {
                groups: store.groups_appends(),
                store,
                id,
                connection,
                queue: Mutex::new(Queue::default()),
                done: watch::channel(0).0,
            }),
        }
    }

    /// Queues `line` for sending, after recording `entry` when there is one. Returns once it
    /// is queued; fails, queueing nothing, with the failure of an earlier group not reported
    /// yet, or when the connection is closed.
    pub(crate) async fn push(
        &self,
        entry: Option<HistoryEntry>,
        line: Vec<u8>,
    ) -> Result<(), Error> {
        let shared = &self.shared;
        if shared.connection.is_closed() {
            return Err(Error::ConnectionClosed);
        }
        if !shared.groups {
            // A store that does not group (memory): recorded and sent in this call.
            if let Some(entry) = entry {
                shared.store.append(&shared.id, entry).await?;
            }
            return shared.connection.send_encoded(line).await;
        }
        let mut done = shared.done.subscribe();
        loop {
            let direct = {
                let mut queue = lock(&shared.queue);
                if let Some(failure) = queue.failure.take() {
                    return Err(Error::Store(failure));
                }
                if queue.items.is_empty() && !queue.draining && entry.is_none() {
                    // Nothing is ahead of it and nothing to record: sent now.
                    true
                } else if queue.items.len() < MAX_QUEUED {
                    queue.items.push_back(Item { entry, line });
                    queue.queued += 1;
                    if !queue.draining {
                        queue.draining = true;
                        tokio::spawn(drain(Arc::clone(shared)));
                    }
                    return Ok(());
                } else {
                    false
                }
            };
            if direct {
                return shared.connection.send_encoded(line).await;
            }
            if done.changed().await.is_err() {
                return Err(Error::ConnectionClosed);
            }
        }
    }

    /// Waits until everything queued so far is recorded and sent; fails with the failure of a
    /// group not reported yet.
    pub(crate) async fn flush(&self) -> Result<(), Error> {
        let shared = &self.shared;
        let target = lock(&shared.queue).queued;
        let mut done = shared.done.subscribe();
        // The sender lives in `shared`, which `self` keeps: the wait cannot fail.
        let _ = done.wait_for(|done| *done >= target).await;
        match lock(&shared.queue).failure.take() {
            Some(failure) => Err(Error::Store(failure)),
            None => Ok(()),
        }
    }
}

/// Records and sends what is queued, group after group, until the queue is empty.
async fn drain(shared: Arc<Shared>) {
    loop {
        let group = {
            let mut queue = lock(&shared.queue);
            if queue.items.is_empty() {
                queue.draining = false;
                return;
            }
            std::mem::take(&mut queue.items)
        };
        let count = group.len() as u64;
        let mut lines = Vec::with_capacity(group.len());
        let mut entries = Vec::new();
        for item in group {
            entries.extend(item.entry);
            lines.push(item.line);
        }
        let recorded = if entries.is_empty() {
            Ok(())
        } else {
            shared.store.append_batch(&shared.id, entries).await
        };
        match recorded {
            Ok(()) => {
                for line in lines {
                    // A closed connection drops the rest; the history has them, as it
                    // would for updates sent into a connection that dies before delivering.
                    if shared.connection.send_encoded(line).await.is_err() {
                        break;
                    }
                }
            }
            Err(failure) => {
                let mut queue = lock(&shared.queue);
                if queue.failure.is_none() {
                    queue.failure = Some(failure);
                }
            }
        }
        shared.done.send_modify(|done| *done += count);
    }
}
