//! Shared test fixtures: a scriptable agent, client/agent pairs over in-memory pipes, and a
//! raw JSON-lines peer for misbehaving on purpose.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use acp_runtime::agent::{
    Agent, AgentFeatures, AgentServer, Prompt, Session, SessionSetup, StopReason,
};
use acp_runtime::client::{Client, ClientBuilder};
use acp_runtime::{Notice, ProtocolVersion, rpc};
use acp_schema::jsonrpc::ErrorObject;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::mpsc;

/// What the test agent does.
#[derive(Default)]
pub struct TestAgent {
    /// Sessions handed to `session_opened`, for the test to use.
    pub opened: Mutex<Option<mpsc::UnboundedSender<Session>>>,
    /// A notice sent from `session_opened` every time a session is opened.
    pub notice_on_open: Option<Notice>,
    /// Signals that a prompt started (for cancellation tests).
    pub started: Mutex<Option<mpsc::UnboundedSender<String>>>,
    /// What each `session_opened` was given, in order.
    pub setups: std::sync::Arc<Mutex<Vec<SessionSetup>>>,
    /// What the agent declares (the baseline when `None`).
    pub features: Option<AgentFeatures>,
}

impl TestAgent {
    pub fn new() -> (Self, mpsc::UnboundedReceiver<Session>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Self {
                opened: Mutex::new(Some(tx)),
                ..Self::default()
            },
            rx,
        )
    }
}

impl Agent for TestAgent {
    fn features(&self) -> AgentFeatures {
        self.features.clone().unwrap_or_default()
    }

    async fn session_opened(&self, session: Session, setup: SessionSetup) {
        self.setups.lock().unwrap().push(setup);
        if let Some(notice) = &self.notice_on_open {
            session.notice(notice).await.unwrap();
        }
        if let Some(tx) = self.opened.lock().unwrap().as_ref() {
            let _ = tx.send(session);
        }
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        match prompt.text.as_str() {
            "wait" => {
                if let Some(tx) = self.started.lock().unwrap().as_ref() {
                    let _ = tx.send(session.id().to_owned());
                }
                session.cancelled().await;
                Ok(StopReason::Cancelled)
            }
            "fail" => Err(rpc::internal("asked to fail")),
            text if text.starts_with("stop:") => Ok(StopReason::Other(text[5..].to_owned())),
            "ask" => {
                let outcome = ask_permission(&session).await;
                session.send_text(outcome).await.map_err(rpc::internal)?;
                Ok(StopReason::EndTurn)
            }
            text => {
                session.send_text("echo: ").await.map_err(rpc::internal)?;
                session
                    .send_text(text.to_owned())
                    .await
                    .map_err(rpc::internal)?;
                Ok(StopReason::EndTurn)
            }
        }
    }
}

async fn ask_permission(session: &Session) -> String {
    use acp_schema::{v1, v2};
    if session.protocol_version() == ProtocolVersion::V1 {
        let request = v1::RequestPermissionRequest::new(
            session.id(),
            v1::ToolCallUpdate::new("call_1").title("Delete everything"),
            vec![v1::PermissionOption::new(
                "allow",
                "Allow",
                v1::PermissionOptionKind::AllowOnce,
            )],
        );
        let response = session
            .connection()
            .request::<v1::methods::SessionRequestPermission>(&request)
            .await
            .unwrap();
        format!("{:?}", response.outcome)
    } else {
        let request = v2::RequestPermissionRequest::new(
            session.id(),
            "Delete everything",
            vec![v2::PermissionOption::new(
                "allow",
                "Allow",
                v2::PermissionOptionKind::AllowOnce,
            )],
        );
        let response = session
            .connection()
            .request::<v2::methods::SessionRequestPermission>(&request)
            .await
            .unwrap();
        format!("{:?}", response.outcome)
    }
}

/// Starts `server` on one end of a pipe and connects a client built by `builder` to the other.
pub async fn connect<A: Agent>(server: &AgentServer<A>, builder: ClientBuilder) -> Client {
    let (client_io, agent_io) = tokio::io::duplex(1 << 16);
    let (agent_read, agent_write) = tokio::io::split(agent_io);
    server.start(agent_read, agent_write);
    let (client_read, client_write) = tokio::io::split(client_io);
    builder.connect(client_read, client_write).await.unwrap()
}

/// A client builder for `version` with or without notices.
pub fn client(version: ProtocolVersion, notices: bool) -> ClientBuilder {
    ClientBuilder::new().protocol(version).notices(notices)
}

/// Waits until `check` holds for the client, re-checking after every change.
pub async fn until(client: &Client, mut check: impl FnMut(&Client) -> bool) {
    let mut changes = client.changes();
    while !check(client) {
        changes.changed().await.unwrap();
    }
}

/// A peer that speaks raw JSON lines.
pub struct RawPeer {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
}

impl RawPeer {
    pub fn new(io: DuplexStream) -> Self {
        let (reader, writer) = tokio::io::split(io);
        Self {
            reader: BufReader::new(reader),
            writer,
        }
    }

    pub async fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
        self.writer.flush().await.unwrap();
    }

    pub async fn send_json(&mut self, value: Value) {
        self.send(&value.to_string()).await;
    }

    /// Ends what this peer sends (the other side sees end of input); reading goes on.
    #[allow(dead_code)]
    pub async fn end_input(&mut self) {
        self.writer.shutdown().await.unwrap();
    }

    /// The next message, or `None` at the end of the stream.
    pub async fn recv(&mut self) -> Option<Value> {
        let mut line = String::new();
        if self.reader.read_line(&mut line).await.unwrap() == 0 {
            return None;
        }
        Some(serde_json::from_str(&line).unwrap())
    }

    pub async fn recv_some(&mut self) -> Value {
        self.recv().await.expect("a message")
    }
}
