//! An agent with long turns that the user can cancel. Nothing special is needed: after
//! `session/cancel` every call of the turn fails with `Error::Cancelled`, so `?` ends the
//! handler; the runtime has already told the client `cancelled` (v1: the prompt's answer; v2:
//! the idle state), closed the tool call left open, and sends nothing more of the turn. Work
//! that makes no runtime call for a while races `Session::cancelled`.
//!
//! ```sh
//! acp client --prompt "count to a hundred" -- cargo run -q -p acptk-runtime --example cancellation
//! # press Ctrl-C while it counts
//! ```

use std::time::Duration;

use acptk_runtime::agent::{ToolCall, ToolKind};
use acptk_runtime::prelude::*;

/// Counts to a hundred, slowly.
pub struct Counter {
    /// The pause between numbers.
    pub pause: Duration,
}

impl Agent for Counter {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let call = session
            .start_tool_call(ToolCall::new("Counting").kind(ToolKind::Think))
            .await?;
        for number in 1..=100 {
            // A pause that makes no call: stop waiting as soon as the turn is cancelled.
            tokio::select! {
                () = tokio::time::sleep(self.pause) => {}
                () = session.cancelled() => return Err(Error::Cancelled.into()),
            }
            session.send_text(format!("{number} ")).await?;
        }
        call.complete("Counted to 100").await?;
        Ok(StopReason::EndTurn)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pause = Duration::from_millis(100);
    AgentServer::new(Counter { pause }).serve_stdio().await?;
    Ok(())
}
