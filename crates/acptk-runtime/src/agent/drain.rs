//! Shutting an agent server down without losing a turn: [`AgentServer::drain`].

use std::time::Duration;

use tokio::time::Instant;

use super::{Agent, AgentServer};
use crate::log::Level;

/// How long cancelled turns get to end once the grace period ran out.
pub const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// How often the turns are looked at while waiting.
const POLL: Duration = Duration::from_millis(20);

/// What [`AgentServer::drain`] did with the turns that were running.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Drained {
    /// Turns that ended by themselves within the grace period.
    pub finished: usize,
    /// Turns cancelled when the grace period ran out, which then ended.
    pub cancelled: usize,
    /// Turns still running [`CANCEL_WAIT`] after their cancellation (the agent did not stop
    /// them); their leases were given up all the same.
    pub abandoned: usize,
}

impl<A: Agent> AgentServer<A> {
    /// Shuts the server's turns down: from now on no new turn starts (a prompt is answered
    /// `-32011`, [`rpc::SHUTTING_DOWN`](crate::rpc::SHUTTING_DOWN), and changes nothing);
    /// running turns get `grace` to end by themselves; those still running are then cancelled
    /// (as by `session/cancel`: they end `cancelled`, with what they recorded) and get
    /// [`CANCEL_WAIT`] more; finally the store gives up every lease this process holds
    /// ([`SessionStore::shutdown`](super::SessionStore::shutdown)), so that other instances
    /// may take the sessions over at once. Connections stay open: close them afterwards.
    pub async fn drain(&self, grace: Duration) -> Drained {
        self.registry.start_draining();
        let running = self.registry.running().len();
        let deadline = Instant::now() + grace;
        while !self.registry.running().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
        let late = self.registry.running();
        for state in &late {
            state.cancel();
        }
        let deadline = Instant::now() + CANCEL_WAIT;
        while !self.registry.running().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
        let abandoned = self.registry.running().len();
        let logger = self.options.connection.get_logger();
        if let Err(error) = self.store.shutdown().await {
            logger.log(
                Level::Warn,
                format!("shutting down: the session store did not give up its leases: {error}"),
            );
        }
        if abandoned > 0 {
            logger.log(
                Level::Warn,
                format!("shutting down: {abandoned} turns did not end after their cancellation"),
            );
        }
        Drained {
            finished: running.saturating_sub(late.len()),
            cancelled: late.len().saturating_sub(abandoned),
            abandoned,
        }
    }
}
