//! An editor embedding the client side: it launches an agent, opens a session in the project,
//! sends one prompt, shows what the agent streams as it arrives (messages, tool calls,
//! notices), answers the agent's permission requests, and serves it the project's files (only
//! inside the session's directory). The capabilities it advertises follow from its handler.
//!
//! ```sh
//! cargo run -q -p acptk-runtime --example editor_client -- "count these words" \
//!     cargo run -q -p acptk-runtime --example word_counter
//! ```

use std::collections::HashMap;

use acptk_runtime::client::transcript::{Entry, Role};
use acptk_runtime::client::{
    Action, Client, ClientBuilder, ClientHandler, Consent, LocalFiles, PermissionDecision,
    PermissionRequest, ReadFiles, WriteFiles,
};
use acptk_runtime::connection::BoxFuture;
use acptk_runtime::transport::AgentCommand;
use acptk_runtime::{Error, ProtocolVersion, agent::StopReason};

/// What the editor offers the agent: its files, and a permission policy (a real editor would
/// show a dialog here).
pub struct Editor {
    files: LocalFiles,
    allow: bool,
}

impl Editor {
    /// An editor that allows (or rejects) what the agent asks.
    pub fn new(allow: bool) -> Self {
        Self {
            files: LocalFiles::new(),
            allow,
        }
    }
}

impl ClientHandler for Editor {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<PermissionDecision> {
        let kind = if self.allow {
            "allow_once"
        } else {
            "reject_once"
        };
        println!("? {} -> {kind}", request.title);
        let choice = request.choice(kind).map(|choice| choice.id.clone());
        Box::pin(async move {
            choice.map_or(PermissionDecision::Cancelled, PermissionDecision::Selected)
        })
    }

    /// A file write (or a command) needs the user's consent as well: the same policy here.
    fn approve(&self, action: Action<'_>) -> BoxFuture<Consent> {
        let consent = match (self.allow, action) {
            (true, _) => Consent::Allowed,
            (false, Action::WriteFile(write)) => {
                Consent::Refused(format!("the user keeps {} as it is", write.path.display()))
            }
            (false, _) => Consent::Refused("the user said no".to_owned()),
        };
        Box::pin(async move { consent })
    }

    fn file_reader(&self) -> Option<&dyn ReadFiles> {
        Some(&self.files)
    }

    fn file_writer(&self) -> Option<&dyn WriteFiles> {
        Some(&self.files)
    }
}

/// The lines the editor shows for a session's transcript and notices now; each entry is one
/// line, rewritten as it grows.
pub fn view(client: &Client, session: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for entry in client
        .session_transcript(session)
        .unwrap_or_default()
        .entries
    {
        lines.push(match entry {
            Entry::Message(message) if message.role == Role::User => format!("> {}", message.text),
            Entry::Message(message) => message.text,
            Entry::ToolCall(call) => format!("[{}] {}", call.status, call.title),
            _ => continue,
        });
    }
    client.with_notice_center(|center| {
        for notice in center.entries(session) {
            lines.push(format!(
                "! {}: {}",
                notice.severity().as_str(),
                notice.title()
            ));
        }
    });
    lines
}

/// Opens a session in `cwd`, runs `prompt`, and prints the view whenever it changes.
pub async fn run_prompt(client: &Client, cwd: &str, prompt: &str) -> Result<StopReason, Error> {
    let session = client.new_session(cwd, &[]).await?;
    let mut changes = client.changes();
    let mut shown: HashMap<usize, String> = HashMap::new();
    let mut show = |lines: Vec<String>| {
        for (index, line) in lines.into_iter().enumerate() {
            if shown.get(&index) != Some(&line) {
                println!("{line}");
                shown.insert(index, line);
            }
        }
    };
    let turn = client.prompt(&session, prompt);
    tokio::pin!(turn);
    loop {
        tokio::select! {
            stop = &mut turn => {
                show(view(client, &session));
                return stop;
            }
            Ok(()) = changes.changed() => show(view(client, &session)),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(prompt), Some(program)) = (args.next(), args.next()) else {
        return Err("usage: editor_client PROMPT AGENT_COMMAND [ARGS...]".into());
    };
    let command = AgentCommand::new(program).args(args);
    let (client, mut agent) = ClientBuilder::new()
        .protocol(ProtocolVersion::V2)
        .handler(Editor::new(true))
        .spawn(&command)
        .await?;
    let cwd = std::env::current_dir()?.display().to_string();
    let stop = run_prompt(&client, &cwd, &prompt).await?;
    println!("-- {stop}");
    client.close().await;
    agent.shutdown().await?;
    Ok(())
}
