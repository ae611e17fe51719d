//! An agent that runs a command in a terminal of the client (`terminal/*`, v1, when the client
//! advertised `terminal`) and shows it live in a tool call. If the turn is cancelled while the
//! command runs, the wait fails with the cancellation, and the agent still kills and releases
//! the terminal (those two calls go out after a cancellation, to clean up).
//!
//! ```sh
//! acp client --allow --prompt "list the files" -- cargo run -q -p acptk-runtime --example client_terminal
//! ```

use acptk_runtime::agent::{ClientFeature, TerminalCommand, ToolCall, ToolCallChange, ToolKind};
use acptk_runtime::prelude::*;

/// Lists the session directory in a client terminal.
pub struct Runner;

impl Agent for Runner {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        if !session.client().supports(ClientFeature::Terminal) {
            session
                .send_text("This client runs no commands for me.")
                .await?;
            return Ok(StopReason::EndTurn);
        }
        let call = session
            .start_tool_call(ToolCall::new("ls -1").kind(ToolKind::Execute))
            .await?;
        let command = TerminalCommand::new("ls").arg("-1").cwd(session.cwd());
        let terminal = session.create_terminal(&command).await?;
        call.update(ToolCallChange::new().terminal(&terminal))
            .await?;
        let exit = match terminal.wait_for_exit().await {
            Ok(exit) => exit,
            Err(error) => {
                let _ = terminal.kill().await;
                let _ = terminal.release().await;
                return Err(error.into());
            }
        };
        let output = terminal.output().await?;
        terminal.release().await?;
        if exit.exit_code == Some(0) {
            call.complete(format!("{} entries", output.output.lines().count()))
                .await?;
        } else {
            call.fail(format!("ls ended with {exit:?}")).await?;
        }
        Ok(StopReason::EndTurn)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    AgentServer::new(Runner).serve_stdio().await?;
    Ok(())
}
