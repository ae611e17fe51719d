//! The example agent behind a gate: what it sends when a session opens waits until the demo
//! opens the gate. The demo reads the replayed history first, so the live messages that
//! follow the replay (the re-sent MCP notice, or its fallback message) never mix into it,
//! however the tasks happen to be scheduled.

use std::sync::Arc;

use acp_runtime::agent::{
    Agent, AgentFeatures, AgentInfo, Prompt, Session, SessionSetup, StopReason,
};
use acp_schema::jsonrpc::ErrorObject;
use tokio::sync::Semaphore;

use super::super::agent::ExampleAgent;

/// [`ExampleAgent`] whose session set-up waits for [`Gate::open`].
#[derive(Debug)]
pub struct Gated {
    inner: ExampleAgent,
    permits: Arc<Semaphore>,
}

/// Lets one waiting (or the next) session set-up of a [`Gated`] agent run.
#[derive(Debug, Clone)]
pub struct Gate(Arc<Semaphore>);

impl Gate {
    /// Lets one session set-up run.
    pub fn open(&self) {
        self.0.add_permits(1);
    }
}

impl Gated {
    /// `inner` behind a closed gate, and the gate.
    #[must_use]
    pub fn new(inner: ExampleAgent) -> (Self, Gate) {
        let permits = Arc::new(Semaphore::new(0));
        let gate = Gate(Arc::clone(&permits));
        (Self { inner, permits }, gate)
    }
}

impl Agent for Gated {
    fn info(&self) -> AgentInfo {
        self.inner.info()
    }

    fn features(&self) -> AgentFeatures {
        self.inner.features()
    }

    async fn session_opened(&self, session: Session, setup: SessionSetup) {
        // The semaphore is never closed, so acquiring only fails if it were; then go on.
        if let Ok(permit) = self.permits.acquire().await {
            permit.forget();
        }
        self.inner.session_opened(session, setup).await;
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        self.inner.prompt(session, prompt).await
    }

    async fn cancel(&self, session: Session) {
        self.inner.cancel(session).await;
    }
}
