//! Every example runs: each agent of `examples/` is served over an in-memory pipe and driven
//! through the client side, in the versions and with the client capabilities it is about; the
//! editor example drives the guide's agent (word_counter) through its own handler.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

#[path = "../examples/cancellation.rs"]
mod cancellation;
#[path = "../examples/client_terminal.rs"]
mod client_terminal;
#[path = "../examples/editor_client.rs"]
mod editor_client;
#[path = "../examples/notice_agent.rs"]
mod notice_agent;
#[path = "../examples/permission_diff.rs"]
mod permission_diff;
#[path = "../examples/persistent_sessions.rs"]
mod persistent_sessions;
#[path = "../examples/word_counter.rs"]
mod word_counter;

use std::time::Duration;

use acptk_runtime::ProtocolVersion;
use acptk_runtime::agent::{Agent, AgentServer, StopReason};
use acptk_runtime::client::transcript::{Entry, Role};
use acptk_runtime::client::{
    Action, Client, ClientBuilder, ClientHandler, Consent, LocalFiles, LocalTerminals,
};
use acptk_runtime::connection::BoxFuture;

/// A client of `server`'s agent over a pipe.
async fn connect<A: Agent>(server: &AgentServer<A>, builder: ClientBuilder) -> Client {
    let (client_io, agent_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(agent_io);
    server.start(read, write);
    let (read, write) = tokio::io::split(client_io);
    builder.connect(read, write).await.unwrap()
}

/// What `pick` takes from the entries of the transcript of `session`, in order.
fn picked<T>(client: &Client, session: &str, pick: impl Fn(&Entry) -> Option<T>) -> Vec<T> {
    let transcript = client.session_transcript(session).unwrap();
    transcript.entries.iter().filter_map(pick).collect()
}

fn agent_text(client: &Client, session: &str) -> String {
    picked(client, session, |entry| match entry {
        Entry::Message(message) if message.role == Role::Agent => Some(message.text.clone()),
        _ => None,
    })
    .join("|")
}

fn tool_calls(client: &Client, session: &str) -> Vec<(String, String)> {
    picked(client, session, |entry| match entry {
        Entry::ToolCall(call) => Some((call.title.clone(), call.status.clone())),
        _ => None,
    })
}

#[tokio::test]
async fn the_notice_agent_falls_back_to_a_message_for_a_v1_client_without_notices() {
    let server = AgentServer::new(notice_agent::Notifier);
    for (version, notices) in [
        (ProtocolVersion::V1, true),
        (ProtocolVersion::V1, false),
        (ProtocolVersion::V2, true),
    ] {
        let builder = ClientBuilder::new().protocol(version).notices(notices);
        let client = connect(&server, builder).await;
        let session = client.new_session("/work", &[]).await.unwrap();
        assert_eq!(
            client.prompt(&session, "hi").await.unwrap(),
            StopReason::EndTurn
        );
        let text = agent_text(&client, &session);
        let shown = client.with_notice_center(|center| center.entry_count(&session));
        if notices {
            assert_eq!(shown, 1, "v{version}");
            assert!(text.contains("shows the notice"), "v{version}: {text}");
        } else {
            assert_eq!(shown, 0);
            assert!(
                text.starts_with("Warning: Search index is stale - "),
                "{text}"
            );
            assert!(text.contains("came as the message above"), "{text}");
        }
    }
}

#[tokio::test]
async fn the_permission_diff_agent_edits_only_when_allowed() {
    let project = tempfile::tempdir().unwrap();
    let cwd = project.path().display().to_string();
    let file = project.path().join("GREETING.md");
    for allow in [false, true] {
        std::fs::write(&file, "Hello\n").unwrap();
        let server = AgentServer::new(permission_diff::Editor);
        let builder = ClientBuilder::new().handler(editor_client::Editor::new(allow));
        let client = connect(&server, builder).await;
        let session = client.new_session(&cwd, &[]).await.unwrap();
        client.prompt(&session, "add a greeting").await.unwrap();
        let calls = tool_calls(&client, &session);
        let status = if allow { "completed" } else { "failed" };
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(calls[0].1, status);
        let content = std::fs::read_to_string(&file).unwrap();
        let expected = if allow {
            "Hello\nWelcome aboard!\n"
        } else {
            "Hello\n"
        };
        assert_eq!(content, expected);
    }
}

/// Runs commands and reads files for the agent, allowing everything.
struct Workstation {
    terminals: LocalTerminals,
    files: LocalFiles,
}

impl ClientHandler for Workstation {
    fn approve(&self, _action: Action<'_>) -> BoxFuture<Consent> {
        Box::pin(async { Consent::Allowed })
    }
    fn terminals(&self) -> Option<&dyn acptk_runtime::client::Terminals> {
        Some(&self.terminals)
    }
    fn file_reader(&self) -> Option<&dyn acptk_runtime::client::ReadFiles> {
        Some(&self.files)
    }
}

#[tokio::test]
async fn the_terminal_agent_runs_a_command_in_a_client_terminal() {
    let project = tempfile::tempdir().unwrap();
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(project.path().join(name), "x").unwrap();
    }
    let cwd = project.path().display().to_string();
    let server = AgentServer::new(client_terminal::Runner);
    let handler = Workstation {
        terminals: LocalTerminals::new(),
        files: LocalFiles::new(),
    };
    let client = connect(&server, ClientBuilder::new().handler(handler)).await;
    let session = client.new_session(&cwd, &[]).await.unwrap();
    client.prompt(&session, "list").await.unwrap();
    let calls = tool_calls(&client, &session);
    assert_eq!(calls, [("ls -1".to_owned(), "completed".to_owned())]);
    let content = client.session_transcript(&session).unwrap().entries;
    let Some(Entry::ToolCall(call)) = content.last() else {
        panic!("{content:?}")
    };
    assert!(call.content.iter().any(|c| c == "3 entries"), "{call:?}");
    // Without a terminal, it says so.
    let plain = connect(&server, ClientBuilder::new()).await;
    let session = plain.new_session(&cwd, &[]).await.unwrap();
    plain.prompt(&session, "list").await.unwrap();
    assert_eq!(
        agent_text(&plain, &session),
        "This client runs no commands for me."
    );
}

#[tokio::test]
async fn the_persistent_agent_lists_and_reopens_its_sessions_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    for version in [ProtocolVersion::V1, ProtocolVersion::V2] {
        let id = {
            let server = persistent_sessions::server(dir.path()).unwrap();
            let client = connect(&server, ClientBuilder::new().protocol(version)).await;
            let id = client.new_session("/work", &[]).await.unwrap();
            client.prompt(&id, "buy milk").await.unwrap();
            id
        };
        // A new server on the same directory, as after a restart.
        let server = persistent_sessions::server(dir.path()).unwrap();
        let client = connect(&server, ClientBuilder::new().protocol(version)).await;
        let listed = client.list_sessions(None, None).await.unwrap();
        let entry = listed.sessions.iter().find(|s| s.id == id).unwrap();
        assert_eq!(entry.title.as_deref(), Some("buy milk"));
        client.load_session(&id, "/work", &[]).await.unwrap();
        assert_eq!(agent_text(&client, &id), "Noted: buy milk", "v{version}");
        // The welcome notice is live, after the replay.
        let shown = client.with_notice_center(|center| center.entry_count(&id));
        assert_eq!(shown, 1, "v{version}");
    }
}

#[tokio::test]
async fn the_counting_agent_stops_at_once_when_cancelled() {
    for version in [ProtocolVersion::V1, ProtocolVersion::V2] {
        let pause = Duration::from_millis(20);
        let server = AgentServer::new(cancellation::Counter { pause });
        let client = connect(&server, ClientBuilder::new().protocol(version)).await;
        let session = client.new_session("/work", &[]).await.unwrap();
        let turn = client.prompt(&session, "count");
        let cancel = async {
            tokio::time::sleep(Duration::from_millis(120)).await;
            client.cancel(&session).await.unwrap();
        };
        let (stop, ()) = tokio::join!(turn, cancel);
        assert_eq!(stop.unwrap(), StopReason::Cancelled, "v{version}");
        let text = agent_text(&client, &session);
        assert!(!text.contains("100"), "{text}");
        // Its tool call was closed by the runtime.
        let calls = tool_calls(&client, &session);
        let closed = if version == ProtocolVersion::V1 {
            "failed"
        } else {
            "cancelled"
        };
        assert_eq!(calls, [("Counting".to_owned(), closed.to_owned())]);
    }
}

#[tokio::test]
async fn the_editor_client_shows_the_word_counter_turn() {
    let project = tempfile::tempdir().unwrap();
    let server = AgentServer::new(word_counter::WordCounter);
    for (version, allow) in [(ProtocolVersion::V1, true), (ProtocolVersion::V2, false)] {
        let builder = ClientBuilder::new()
            .protocol(version)
            .handler(editor_client::Editor::new(allow));
        let client = connect(&server, builder).await;
        let cwd = project.path().display().to_string();
        let stop = editor_client::run_prompt(&client, &cwd, "three little words")
            .await
            .unwrap();
        assert_eq!(stop, StopReason::EndTurn);
        let session = client
            .transcript()
            .lock()
            .unwrap()
            .session_ids()
            .next()
            .unwrap()
            .to_owned();
        let view = editor_client::view(&client, &session);
        let status = if allow { "completed" } else { "failed" };
        assert_eq!(
            view,
            [
                "> three little words".to_owned(),
                "Your prompt has 3 words. ".to_owned(),
                format!("[{status}] Save the count"),
            ],
            "v{version}"
        );
    }
}
