//! A complete ACP agent in a few lines: it answers every prompt by echoing it, in a mode the
//! user can switch, asks permission before its one tool call, and warns with a notice when
//! the prompt is empty. Sessions are kept in memory; pass a directory to keep them in files
//! (then a client can load them after a restart).
//!
//! Try it with the toolkit's client:
//!
//! ```sh
//! cargo build -p acp-cli
//! target/debug/acp client --allow --prompt "hello" -- cargo run -q -p acp-runtime --example echo_agent
//! ```

use acp_runtime::Notice;
use acp_runtime::agent::{
    Agent, AgentServer, FileStore, Modes, PermissionRequest, Prompt, Session, SessionConfig,
    SessionSetup, StopReason, ToolStatus,
};
use acp_schema::jsonrpc::ErrorObject;

struct Echo;

impl Agent for Echo {
    // What every new session offers: two modes (v1 `session/set_mode`; v2 a config option).
    async fn new_session(&self, _setup: &SessionSetup) -> Result<SessionConfig, ErrorObject> {
        Ok(SessionConfig::new().modes(
            Modes::new("plain")
                .mode("plain", "Plain")
                .mode("loud", "Loud"),
        ))
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        if prompt.text.trim().is_empty() {
            // A v1 client without `session.notices` gets an ordinary message instead.
            let notice = Notice::warning("Empty prompt");
            session.notice(&notice).await?;
            return Ok(StopReason::EndTurn);
        }
        let mut reply = format!("You said: {}", prompt.text);
        if session.mode().as_deref() == Some("loud") {
            reply = reply.to_uppercase();
        }
        session.send_text(reply).await?;

        // One tool call, run only with the user's permission.
        session
            .start_tool_call("count", "Count the characters", ToolStatus::Pending)
            .await?;
        let asked = PermissionRequest::new("count", "Count the characters");
        let outcome = session.request_permission(&asked).await?;
        if session.is_cancelled() {
            return Ok(StopReason::Cancelled);
        }
        let (status, result) = if outcome.allowed() {
            (
                ToolStatus::Completed,
                format!("{} characters", prompt.text.chars().count()),
            )
        } else {
            (ToolStatus::Failed, "not allowed".to_owned())
        };
        session
            .update_tool_call("count", status, Some(&result))
            .await?;
        Ok(StopReason::EndTurn)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = match std::env::args().nth(1) {
        Some(dir) => AgentServer::new(Echo).store(FileStore::open(dir)?),
        None => AgentServer::new(Echo),
    };
    server.serve_stdio().await?;
    Ok(())
}
