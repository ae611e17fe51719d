//! The example agent's behaviour: canned streamed reply, one tool call, notices.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use acp_runtime::agent::{
    Agent, CommandSpec, McpServerSpec, Prompt, Session, SessionSetup, StopReason, ToolStatus,
};
use acp_runtime::{Notice, rpc};
use acp_schema::jsonrpc::ErrorObject;

use super::mcp::unavailable_reason;
use super::notice_command::parse_notice_command;

/// Options of the example agent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExampleOptions {
    /// Delay between reply chunks (zero in tests).
    pub chunk_delay: Duration,
    /// Words per reply chunk.
    pub words_per_chunk: usize,
}

impl Default for ExampleOptions {
    fn default() -> Self {
        Self {
            chunk_delay: super::DEFAULT_DELAY,
            words_per_chunk: 3,
        }
    }
}

impl ExampleOptions {
    /// The defaults: 40 ms between chunks of three words.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the delay between reply chunks.
    #[must_use]
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }
}

/// The example agent. Serve it with `acp_runtime::agent::AgentServer`.
#[derive(Debug, Default)]
pub struct ExampleAgent {
    options: ExampleOptions,
    tool_calls: AtomicU64,
}

impl ExampleAgent {
    /// An agent with the given options.
    pub fn new(options: ExampleOptions) -> Self {
        Self {
            options,
            tool_calls: AtomicU64::new(0),
        }
    }

    /// Streams `text` in chunks of a few words; `false` when the turn was cancelled.
    async fn stream(&self, session: &Session, text: &str) -> Result<bool, ErrorObject> {
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        for chunk in words.chunks(self.options.words_per_chunk.max(1)) {
            if !self.pause(session).await {
                return Ok(false);
            }
            session
                .send_text(chunk.concat())
                .await
                .map_err(rpc::internal)?;
        }
        Ok(true)
    }

    /// Waits the chunk delay; `false` when the turn was cancelled meanwhile.
    async fn pause(&self, session: &Session) -> bool {
        if session.is_cancelled() {
            return false;
        }
        if self.options.chunk_delay.is_zero() {
            return true;
        }
        tokio::select! {
            () = tokio::time::sleep(self.options.chunk_delay) => !session.is_cancelled(),
            () = session.cancelled() => false,
        }
    }
}

/// The reply to an ordinary prompt.
fn reply_text(prompt: &str) -> String {
    let words = prompt.split_whitespace().count();
    format!(
        "Hello! I am the example agent of the ACP toolkit. I have no language model, so I \
         answer every prompt the same way: your prompt had {words} words. Let me count them \
         with a small tool call. Type /notice SEVERITY TITLE -- DESCRIPTION to make me send \
         a notice. "
    )
}

impl Agent for ExampleAgent {
    fn name(&self) -> (String, String) {
        (
            "acp-example-agent".to_owned(),
            env!("CARGO_PKG_VERSION").to_owned(),
        )
    }

    async fn session_opened(&self, session: Session, setup: SessionSetup) {
        let commands = [CommandSpec::new("notice", "Send a notice to this client")
            .hint("SEVERITY TITLE [-- DESCRIPTION]")];
        if session.set_commands(&commands).await.is_err() {
            return;
        }
        for server in &setup.mcp_servers {
            let McpServerSpec::Stdio { name, command, .. } = server else {
                continue;
            };
            let Some(reason) = unavailable_reason(command) else {
                continue;
            };
            let notice = match Notice::new("warning", format!("MCP server {name} unavailable")) {
                Ok(notice) => notice.description(reason),
                Err(_) => continue,
            };
            if session.notice(&notice).await.is_err() {
                return;
            }
        }
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        if let Some(command) = parse_notice_command(&prompt.text) {
            match command {
                Ok(command) => {
                    let mut notice = Notice::new(command.severity, command.title)
                        .map_err(rpc::invalid_params)?;
                    if let Some(description) = command.description {
                        notice = notice.description(description);
                    }
                    session.notice(&notice).await.map_err(rpc::internal)?;
                }
                Err(message) => {
                    session.send_text(message).await.map_err(rpc::internal)?;
                }
            }
            return Ok(StopReason::EndTurn);
        }
        if !self.stream(&session, &reply_text(&prompt.text)).await? {
            return Ok(StopReason::Cancelled);
        }
        let call = format!(
            "call_{}",
            self.tool_calls.fetch_add(1, Ordering::Relaxed) + 1
        );
        session
            .start_tool_call(&call, "Count the words of the prompt", ToolStatus::Pending)
            .await
            .map_err(rpc::internal)?;
        if !self.pause(&session).await {
            return Ok(StopReason::Cancelled);
        }
        session
            .update_tool_call(&call, ToolStatus::InProgress, None)
            .await
            .map_err(rpc::internal)?;
        if !self.pause(&session).await {
            return Ok(StopReason::Cancelled);
        }
        let words = prompt.text.split_whitespace().count();
        let chars = prompt.text.chars().count();
        let result = format!("{words} words, {chars} characters");
        session
            .update_tool_call(&call, ToolStatus::Completed, Some(&result))
            .await
            .map_err(rpc::internal)?;
        session.new_message();
        if !self.stream(&session, &format!("Done: {result}.")).await? {
            return Ok(StopReason::Cancelled);
        }
        Ok(StopReason::EndTurn)
    }
}
