//! Steering a running proxy from outside: stop reading the client, stop forwarding, and learn
//! when the agent's input was closed.

use tokio::sync::watch;

/// What has been asked of the proxy, and what it did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct State {
    /// Stop reading the client, as if its input had ended.
    close_client: bool,
    /// Stop forwarding in both directions.
    stop: bool,
    /// The client's direction ended and the agent's input is closed.
    client_done: bool,
}

/// A handle on a running [`run`](super::run) (clone it freely).
///
/// ```
/// use acptk_check::proxy::Control;
/// let control = Control::new();
/// control.close_client(); // e.g. on SIGTERM: the agent's input is closed next
/// ```
#[derive(Debug, Clone)]
pub struct Control {
    state: watch::Sender<State>,
}

impl Default for Control {
    fn default() -> Self {
        Self::new()
    }
}

impl Control {
    /// A handle for one proxy run.
    pub fn new() -> Self {
        Self {
            state: watch::Sender::new(State::default()),
        }
    }

    /// Stops reading what the client sends, as if its input had ended: what was read is
    /// recorded and forwarded, then the agent's input is closed. The agent's output is still
    /// forwarded until it ends.
    pub fn close_client(&self) {
        self.state.send_modify(|s| s.close_client = true);
    }

    /// Stops forwarding in both directions: what was read is recorded and forwarded, both
    /// writers are closed, and [`run`](super::run) returns. For when the agent is gone but
    /// something else holds its output open.
    pub fn stop(&self) {
        self.state.send_modify(|s| s.stop = true);
    }

    /// Waits until the client's direction has ended (its input ended, it failed, or
    /// [`Self::close_client`] was called) and the agent's input is closed.
    pub async fn client_done(&self) {
        let mut rx = self.state.subscribe();
        // The sender lives in `self`, so waiting cannot fail.
        let _ = rx.wait_for(|s| s.client_done).await;
    }

    /// Marks the client's direction as ended.
    pub(crate) fn set_client_done(&self) {
        self.state.send_modify(|s| s.client_done = true);
    }

    /// A watcher for the direction that reads from the client (`client`) or from the agent.
    pub(crate) fn watcher(&self, client: bool) -> Watcher {
        Watcher {
            rx: self.state.subscribe(),
            client,
        }
    }
}

/// Tells one direction of the proxy when to stop reading.
pub(crate) struct Watcher {
    rx: watch::Receiver<State>,
    client: bool,
}

/// Whether the direction that reads from the client (`client`) or the agent should stop.
fn stops(state: &State, client: bool) -> bool {
    state.stop || (client && state.close_client)
}

impl Watcher {
    /// Whether this direction should stop now.
    pub(crate) fn is_stopped(&self) -> bool {
        stops(&self.rx.borrow(), self.client)
    }

    /// Waits until this direction should stop.
    pub(crate) async fn stopped(&mut self) {
        let client = self.client;
        // The sender outlives every run that watches it; if it were gone, never stop.
        if self.rx.wait_for(|s| stops(s, client)).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
