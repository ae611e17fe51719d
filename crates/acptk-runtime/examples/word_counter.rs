//! The agent of the user guide's "Writing an agent" chapter: it streams a reply, warns with a
//! notice (an agent message for a v1 client without notices), asks permission for a tool
//! call with a diff, stops when the turn is cancelled, and keeps its sessions in files, where
//! a client lists and loads them again after a restart.
//!
//! ```sh
//! cargo build -p acptk
//! target/debug/acp client --allow --prompt "count these words" -- cargo run -q -p acptk-runtime --example word_counter
//! ```

use acptk_runtime::agent::{Diff, ToolCall, ToolKind};
use acptk_runtime::prelude::*;

/// Counts the words of each prompt.
pub struct WordCounter;

impl Agent for WordCounter {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("word-counter", "0.1.0").title("Word counter")
    }

    async fn new_session(&self, _setup: &SessionSetup) -> Result<SessionConfig, ErrorObject> {
        let modes = Modes::new("plain").mode("plain", "Plain");
        Ok(SessionConfig::new().modes(modes.mode("loud", "Loud")))
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let words = prompt.text.split_whitespace().count();
        if words == 0 {
            // A v1 client without `session.notices` gets it as an agent message.
            let notice = Notice::warning("Empty prompt").description("Type some words to count.");
            session.notice(&notice).await?;
            return Ok(StopReason::EndTurn);
        }
        let mut reply = format!("Your prompt has {words} words. ");
        if session.mode().as_deref() == Some("loud") {
            reply = reply.to_uppercase();
        }
        // Streamed a word at a time. After `session/cancel` every call fails, so `?` ends the
        // turn, and the client has already been told `cancelled`.
        for word in reply.split_inclusive(' ') {
            session.send_text(word).await?;
        }
        // A tool call with a diff, run only with the user's permission.
        let path = format!("{}/count.txt", session.cwd().trim_end_matches('/'));
        let edit = ToolCall::new("Save the count").kind(ToolKind::Edit);
        let call = session
            .start_tool_call(edit.diff(Diff::new(&path, format!("{words}\n"))))
            .await?;
        if call.request_permission().await?.allowed() {
            call.complete(format!("Saved {words} to {path}")).await?;
        } else {
            call.fail("Not allowed").await?;
        }
        Ok(StopReason::EndTurn)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Sessions in files: `session/list`, `load` and `resume` work across restarts.
    let store = FileStore::open(std::env::args().nth(1).unwrap_or("sessions".into()))?;
    AgentServer::new(WordCounter)
        .store(store)
        .serve_stdio()
        .await?;
    Ok(())
}
