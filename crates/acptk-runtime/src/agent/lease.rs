//! A turn's lease on its session: taken from the store before the turn starts, renewed every
//! third of its duration while the turn runs, given up when the turn ends.
//!
//! With a store that several processes share, this is what keeps one turn at a time per
//! session across processes: the store refuses the lease to a second process
//! ([`StoreError::Leased`], answered `-32010`), and refuses appends from a process whose
//! lease another one took over after it expired. When a renewal finds the lease taken, the
//! turn is cancelled here: its updates could not be recorded any more.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::open_sessions::SessionState;
use crate::log::{Level, Logger};
use crate::store::StoreError;

/// The shortest renewal interval, whatever the lease's duration.
const MIN_RENEWAL: Duration = Duration::from_millis(10);

/// A lease held for the running turn of one session (see the module documentation).
pub(crate) struct TurnLease {
    stop: Option<oneshot::Sender<()>>,
    keeper: Option<JoinHandle<()>>,
}

impl TurnLease {
    /// Takes the lease of `state`'s session for `duration` and keeps renewing it; fails with
    /// the store's error (another process holds it, the session is gone, the store is down).
    pub(crate) async fn take(
        state: &Arc<SessionState>,
        duration: Duration,
        logger: Logger,
    ) -> Result<Self, StoreError> {
        state.store.lease(&state.id, duration).await?;
        let (stop, stopped) = oneshot::channel();
        let keeper = tokio::spawn(keep(Arc::clone(state), duration, stopped, logger));
        Ok(Self {
            stop: Some(stop),
            keeper: Some(keeper),
        })
    }

    /// Stops renewing the lease and gives it up; returns once the store has it released, so
    /// that another process may start the session's next turn as soon as this one's end is
    /// reported.
    pub(crate) async fn release(mut self) {
        self.stop.take();
        if let Some(keeper) = self.keeper.take() {
            let _ = keeper.await;
        }
    }
}

impl Drop for TurnLease {
    /// A lease not released explicitly (the turn's task ended another way) is given up by its
    /// keeper, in the background.
    fn drop(&mut self) {
        self.stop.take();
    }
}

/// Renews the lease every third of `duration` until `stopped` (then releases it), or until
/// the store says another process took it (then cancels the turn).
async fn keep(
    state: Arc<SessionState>,
    duration: Duration,
    mut stopped: oneshot::Receiver<()>,
    logger: Logger,
) {
    let every = (duration / 3).max(MIN_RENEWAL);
    loop {
        tokio::select! {
            _ = &mut stopped => break,
            () = tokio::time::sleep(every) => {}
        }
        match state.store.lease(&state.id, duration).await {
            Ok(()) => {}
            Err(error @ (StoreError::Leased { .. } | StoreError::Unknown(_))) => {
                logger.log(
                    Level::Warn,
                    format!(
                        "session `{}`: the turn lost its lease and is cancelled: {error}",
                        state.id
                    ),
                );
                state.cancel();
                return;
            }
            Err(error) => logger.log(
                Level::Warn,
                format!(
                    "session `{}`: renewing the turn's lease failed (trying again in {} ms): {error}",
                    state.id,
                    every.as_millis()
                ),
            ),
        }
    }
    if let Err(error) = state.store.release(&state.id).await {
        logger.log(
            Level::Warn,
            format!(
                "session `{}`: giving up the turn's lease failed (it expires by itself): {error}",
                state.id
            ),
        );
    }
}
