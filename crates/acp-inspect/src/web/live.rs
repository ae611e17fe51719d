//! Live updates: a task polls the database's `data_version` (it changes whenever a proxy
//! commits) and each page listening on `/api/events` gets a `change` event, then reads the
//! captures again.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::watch;

use super::Shared;
use crate::Store;

/// How often the database is asked whether anything changed.
const POLL: Duration = Duration::from_millis(200);

/// Starts the poller on `store` (a connection of its own). Returns the changes (a counter)
/// and the switch that stops the poller.
pub(super) fn watch(store: Store) -> (watch::Receiver<u64>, watch::Sender<bool>) {
    let (changes, receiver) = watch::channel(0u64);
    let (stop, mut stopped) = watch::channel(false);
    std::thread::spawn(move || {
        let mut last = store.data_version().ok();
        let mut count = 0u64;
        while !*stopped.borrow_and_update() {
            std::thread::sleep(POLL);
            let now = store.data_version().ok();
            if now != last {
                last = now;
                count += 1;
                if changes.send(count).is_err() {
                    break;
                }
            }
        }
    });
    (receiver, stop)
}

/// `/api/events`: one `change` event per batch of commits; the stream ends when the poller
/// stops.
pub(super) async fn events(
    State(shared): State<Arc<Shared>>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let mut changes = shared.live.clone();
    changes.mark_unchanged();
    let stream = futures_util::stream::unfold(changes, |mut changes| async move {
        changes.changed().await.ok()?;
        let count = *changes.borrow_and_update();
        Some((
            Ok(Event::default().event("change").data(count.to_string())),
            changes,
        ))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
