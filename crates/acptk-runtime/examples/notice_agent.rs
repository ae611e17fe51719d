//! An agent that warns with a notice. A v2 client, or a v1 client that advertised
//! `session.notices`, gets a `notice` update (shown aside, never history); a v1 client without
//! it gets the same words as an agent message (`Warning: ...`), which is history like any
//! message. `Session::notice` says which happened.
//!
//! ```sh
//! acp client --prompt "hello" -- cargo run -q -p acptk-runtime --example notice_agent
//! acp client --no-notices --prompt "hello" -- cargo run -q -p acptk-runtime --example notice_agent
//! ```

use acptk_runtime::NoticeDelivery;
use acptk_runtime::prelude::*;

/// Warns with a notice in every turn.
pub struct Notifier;

impl Agent for Notifier {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let notice = Notice::warning("Search index is stale")
            .description("Results may miss files changed in the last hour.");
        let reply = match session.notice(&notice).await? {
            NoticeDelivery::Sent => "(the client shows the notice on its own)",
            NoticeDelivery::FellBack => "(the notice came as the message above)",
            _ => "(the notice was dropped)",
        };
        session.new_message();
        session
            .send_text(format!("Here are your results {reply}."))
            .await?;
        Ok(StopReason::EndTurn)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    AgentServer::new(Notifier).serve_stdio().await?;
    Ok(())
}
