//! The example agent behind a gate: what it sends when a session opens waits until the demo
//! opens the gate. The demo reads the replayed history first, so the live messages that
//! follow the replay (the re-sent MCP notice, or its fallback message) never mix into it,
//! however the tasks happen to be scheduled.

use std::sync::Arc;

use acptk_runtime::agent::{
    Agent, AgentFeatures, AgentInfo, Prompt, Session, SessionOrigin, SessionSetup, StopReason,
};
use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::v1::ProtocolVersion;
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

/// Whether `setup` opened the session with a v2 `session/resume`, whose hook runs before the
/// response.
pub fn resumed_in_v2(session: &Session, setup: &SessionSetup) -> bool {
    matches!(setup.origin, SessionOrigin::Resumed { .. })
        && session.protocol_version() == ProtocolVersion::V2
}

impl Agent for Gated {
    fn info(&self) -> AgentInfo {
        self.inner.info()
    }

    fn features(&self) -> AgentFeatures {
        self.inner.features()
    }

    async fn session_opened(&self, session: Session, setup: SessionSetup) {
        // A v2 resume runs this hook before its response, after `replay_complete`: the
        // protocol itself keeps what it sends apart from the replay, and the demo, which opens
        // the gate only once the response came, would wait for ever.
        if !resumed_in_v2(&session, &setup) {
            // The semaphore is never closed, so acquiring only fails if it were; then go on.
            if let Ok(permit) = self.permits.acquire().await {
                permit.forget();
            }
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
