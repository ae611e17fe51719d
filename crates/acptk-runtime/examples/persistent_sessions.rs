//! An agent whose sessions outlive it: a `FileStore` keeps each session (metadata and
//! history) in files, so after a restart a client lists them (`session/list`) and reopens one
//! (v1 `session/load`, v2 `session/resume` with `replayFrom`), getting its history replayed.
//! The agent only titles each session; the runtime does the rest. Its hooks see how a session
//! was opened.
//!
//! ```sh
//! acp client --prompt "remember me" -- cargo run -q -p acptk-runtime --example persistent_sessions -- /tmp/sessions
//! acp client --list-sessions -- cargo run -q -p acptk-runtime --example persistent_sessions -- /tmp/sessions
//! acp client --load SESSION_ID --prompt "again" -- cargo run -q -p acptk-runtime --example persistent_sessions -- /tmp/sessions
//! ```

use acptk_runtime::agent::SessionOrigin;
use acptk_runtime::prelude::*;

/// Notes what it is told, in sessions kept in files.
pub struct Diary;

impl Agent for Diary {
    async fn session_opened(&self, session: Session, setup: SessionSetup) {
        if matches!(
            setup.origin,
            SessionOrigin::Loaded | SessionOrigin::Resumed { .. }
        ) {
            let _ = session.notice(&Notice::info("Welcome back")).await;
        }
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        if session.title().is_none() {
            session
                .set_title(prompt.text.chars().take(40).collect::<String>())
                .await?;
        }
        session.send_text(format!("Noted: {}", prompt.text)).await?;
        Ok(StopReason::EndTurn)
    }
}

/// A server keeping its sessions under `dir`.
pub fn server(dir: &std::path::Path) -> Result<AgentServer<Diary>, Error> {
    Ok(AgentServer::new(Diary).store(FileStore::open(dir)?))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "diary-sessions".into());
    server(std::path::Path::new(&dir))?.serve_stdio().await?;
    Ok(())
}
