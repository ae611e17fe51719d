//! An agent that proposes an edit: a tool call showing the change as a diff, run only when the
//! user allows it. The diff goes on the wire in each version's form (v1: old and new text; v2:
//! the changed path and a `git_patch`); the edit itself goes through the client
//! (`fs/write_text_file`, v1), when the client offers it.
//!
//! ```sh
//! acp client --allow --allow-write --prompt "add a greeting" -- cargo run -q -p acptk-runtime --example permission_diff
//! ```

use acptk_runtime::agent::{ClientFeature, Diff, ToolCall, ToolKind};
use acptk_runtime::prelude::*;

/// Proposes one edit per turn.
pub struct Editor;

impl Agent for Editor {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let path = format!("{}/GREETING.md", session.cwd().trim_end_matches('/'));
        let (old, new) = ("Hello\n", "Hello\nWelcome aboard!\n");
        let edit = ToolCall::new("Add a welcome line to GREETING.md")
            .kind(ToolKind::Edit)
            .location_at(&path, 2)
            .diff(Diff::new(&path, new).old_text(old));
        let call = session.start_tool_call(edit).await?;
        if !call.request_permission().await?.allowed() {
            call.fail("The user did not allow the edit.").await?;
            return Ok(StopReason::EndTurn);
        }
        if session.client().supports(ClientFeature::WriteTextFile) {
            session.write_text_file(&path, new).await?;
            call.complete("Edited.").await?;
        } else {
            call.fail("This client cannot write files for me.").await?;
        }
        Ok(StopReason::EndTurn)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    AgentServer::new(Editor).serve_stdio().await?;
    Ok(())
}
