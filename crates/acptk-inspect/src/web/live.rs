//! Live updates: a task polls the database's `data_version` (it changes whenever a proxy
//! commits) and each page listening on `/api/events` gets a `change` event, then reads the
//! captures again. The same task moves into the database what a proxy killed while capturing
//! left in its spool ([`Store::recover`]), so that its last frames show up too.

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

/// Polls between two looks for the spools of killed proxies.
const RECOVER_EVERY: u32 = 10;

/// Starts the poller on `store` (a connection of its own). Returns the changes (a counter)
/// and the switch that stops the poller.
pub(super) fn watch(mut store: Store) -> (watch::Receiver<u64>, watch::Sender<bool>) {
    let (changes, receiver) = watch::channel(0u64);
    let (stop, mut stopped) = watch::channel(false);
    std::thread::spawn(move || {
        let mut last = store.data_version().ok();
        let mut count = 0u64;
        let mut polls = 0u32;
        let mut reported = false;
        while !*stopped.borrow_and_update() {
            if polls.is_multiple_of(RECOVER_EVERY)
                && let Err(error) = store.recover()
                && !std::mem::replace(&mut reported, true)
            {
                eprintln!("acp inspect: a killed proxy's capture could not be recovered: {error}");
            }
            polls = polls.wrapping_add(1);
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
