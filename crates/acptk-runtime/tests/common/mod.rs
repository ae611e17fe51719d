//! Shared test fixtures: a scriptable agent, client/agent pairs over in-memory pipes, and a
//! raw JSON-lines peer for misbehaving on purpose.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod cluster;
pub mod fn_handler;
pub mod wire;

use std::sync::{Arc, Mutex};

use acptk_runtime::agent::{
    Agent, AgentFeatures, AgentServer, ClientConnection, ConfigValue, Prompt, Session,
    SessionConfig, SessionSetup, StopReason, ToolCall,
};
use acptk_runtime::client::transcript::Role;
use acptk_runtime::client::{Client, ClientBuilder};
use acptk_runtime::{Notice, ProtocolVersion, rpc};
use acptk_schema::jsonrpc::ErrorObject;
use serde_json::{Value, json};
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
    /// What every session offers (nothing when `None`).
    pub config: Option<SessionConfig>,
    /// The hooks that ran, in order (`set_mode:ID`, `close:SESSION`, ...).
    pub events: Arc<Mutex<Vec<String>>>,
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

impl TestAgent {
    fn event(&self, event: String) {
        self.events.lock().unwrap().push(event);
    }
}

impl Agent for TestAgent {
    fn features(&self) -> AgentFeatures {
        self.features.clone().unwrap_or_default()
    }

    async fn authenticate(
        &self,
        _client: &ClientConnection,
        method_id: &str,
    ) -> Result<(), ErrorObject> {
        self.event(format!("authenticate:{method_id}"));
        Ok(())
    }

    async fn logout(&self, _client: &ClientConnection) -> Result<(), ErrorObject> {
        self.event("logout".to_owned());
        Ok(())
    }

    async fn new_session(&self, setup: &SessionSetup) -> Result<SessionConfig, ErrorObject> {
        if setup.cwd == "/refused" {
            return Err(rpc::auth_required("sign in first"));
        }
        Ok(self.config.clone().unwrap_or_default())
    }

    async fn set_mode(&self, _session: &Session, mode_id: &str) -> Result<(), ErrorObject> {
        self.event(format!("set_mode:{mode_id}"));
        if mode_id == "locked" {
            return Err(rpc::invalid_params("the locked mode cannot be chosen now"));
        }
        Ok(())
    }

    async fn set_config_option(
        &self,
        _session: &Session,
        option_id: &str,
        value: &ConfigValue,
    ) -> Result<(), ErrorObject> {
        self.event(format!("set_config_option:{option_id}={value:?}"));
        Ok(())
    }

    async fn close_session(&self, session: Session) {
        self.event(format!("close:{}", session.id()));
    }

    async fn delete_session(&self, id: &str) -> Result<(), ErrorObject> {
        self.event(format!("delete:{id}"));
        Ok(())
    }

    async fn cancel(&self, session: Session) {
        self.event(format!("cancel:{}", session.id()));
    }

    async fn cancel_tool_call(
        &self,
        _session: Session,
        tool_call_id: &str,
    ) -> Result<(), ErrorObject> {
        self.event(format!("cancel_tool_call:{tool_call_id}"));
        Ok(())
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
        let started = || {
            if let Some(tx) = self.started.lock().unwrap().as_ref() {
                let _ = tx.send(session.id().to_owned());
            }
        };
        match prompt.text.as_str() {
            "wait" => {
                started();
                session.cancelled().await;
                Ok(StopReason::Cancelled)
            }
            // Ignores the cancellation: tries one more update, then claims a normal end.
            "wait then end" => {
                started();
                session.cancelled().await;
                let late = session.send_text("late").await;
                self.event(format!(
                    "late:{}",
                    late.err().map_or("sent", |e| {
                        if e.is_cancelled() {
                            "cancelled"
                        } else {
                            "failed"
                        }
                    })
                ));
                Ok(StopReason::EndTurn)
            }
            // Fails because of the cancellation.
            "wait then fail" => {
                started();
                session.cancelled().await;
                Err(rpc::internal("aborted by the cancellation"))
            }
            // A cancellable tool call that waits for the client's `tool_call/cancel`.
            "cancellable tool" => {
                if session.protocol_version() != ProtocolVersion::V1 {
                    use acptk_schema::v2;
                    let call = v2::ToolCallUpdate::new("call_c")
                        .title("Long job")
                        .status(v2::ToolCallStatus::InProgress)
                        .capabilities(
                            v2::ToolCallCapabilities::new()
                                .cancel(v2::ToolCallCancelCapabilities::new()),
                        );
                    session.send_v2(call.into()).await.map_err(rpc::internal)?;
                }
                started();
                session.tool_call_cancelled("call_c").await;
                if session.is_cancelled() {
                    return Ok(StopReason::Cancelled);
                }
                if session.protocol_version() != ProtocolVersion::V1 {
                    use acptk_schema::v2;
                    let done =
                        v2::ToolCallUpdate::new("call_c").status(v2::ToolCallStatus::Cancelled);
                    session.send_v2(done.into()).await.map_err(rpc::internal)?;
                }
                session
                    .send_text("the job was cancelled")
                    .await
                    .map_err(rpc::internal)?;
                Ok(StopReason::EndTurn)
            }
            "fail" => Err(rpc::internal("asked to fail")),
            // A runtime error ended with `?`.
            "read?" => {
                session.read_text_file("/work/a.txt", None, None).await?;
                Ok(StopReason::EndTurn)
            }
            text if text.starts_with("stop:") => Ok(StopReason::Other(text[5..].to_owned())),
            "ask" => {
                let outcome = ask_permission(&session).await;
                session.send_text(outcome).await.map_err(rpc::internal)?;
                Ok(StopReason::EndTurn)
            }
            // The typed permission request.
            "permission" => {
                let call = session
                    .start_tool_call(ToolCall::new("Delete everything"))
                    .await?;
                started();
                let outcome = call.request_permission().await?;
                let text = if outcome.allowed() {
                    "allowed"
                } else {
                    "not allowed"
                };
                session
                    .send_text(format!("{text}: {outcome:?}"))
                    .await
                    .map_err(rpc::internal)?;
                Ok(StopReason::EndTurn)
            }
            text if text.starts_with("call:") => {
                let report = client_call(&session, &text[5..]).await;
                session.send_text(report).await.map_err(rpc::internal)?;
                Ok(StopReason::EndTurn)
            }
            text if text.starts_with("title:") => {
                session.set_title(&text[6..]).await.map_err(rpc::internal)?;
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

/// Runs one typed call to the client and says how it went (`ok: ...` or `error: ...`).
async fn client_call(session: &Session, call: &str) -> String {
    use acptk_runtime::agent::TerminalCommand;
    use acptk_schema::{v1, v2};
    let result: Result<String, acptk_runtime::Error> = match call {
        "read" => {
            session
                .read_text_file("/work/a.txt", Some(2), Some(1))
                .await
        }
        "write" => session
            .write_text_file("/work/b.txt", "new text")
            .await
            .map(|()| "written".to_owned()),
        "terminal" => {
            async {
                let terminal = session
                    .create_terminal(&TerminalCommand::new("ls").arg("-l").cwd("/work"))
                    .await?;
                let output = terminal.output().await?;
                let exit = terminal.wait_for_exit().await?;
                terminal.kill().await?;
                let id = terminal.id().to_owned();
                terminal.release().await?;
                Ok(format!("{id}: {} {:?}", output.output, exit.exit_code))
            }
            .await
        }
        "form" | "url" => {
            // A form asking for a name, or a sign-in URL, in version `$version`; the action
            // the client answered with.
            macro_rules! elicit {
                ($version:ident, $schema:expr) => {{
                    let scope = $version::ElicitationSessionScope::new(session.id());
                    let request = if call == "form" {
                        $version::CreateElicitationRequest::form("Your name?", scope, $schema)
                    } else {
                        let url = "https://example.invalid/";
                        $version::CreateElicitationRequest::url("Sign in", scope, "e1", url)
                    };
                    session
                        .elicit(&request)
                        .await
                        .map(|answer| format!("{:?}", answer.action))
                }};
            }
            if session.protocol_version() == ProtocolVersion::V1 {
                elicit!(v1, v1::ElicitationSchema::new())
            } else {
                elicit!(
                    v2,
                    v2::ElicitationSchema::new(std::collections::BTreeMap::new())
                )
            }
        }
        other => Ok(format!("unknown call {other}")),
    };
    match result {
        Ok(text) => format!("ok: {text}"),
        Err(error) => format!("error: {error}"),
    }
}

async fn ask_permission(session: &Session) -> String {
    use acptk_schema::{v1, v2};
    // Asks with the one option "allow" in version `$version`; the outcome, debug-printed.
    macro_rules! ask {
        ($version:ident, $subject:expr) => {{
            let allow = $version::PermissionOption::new(
                "allow",
                "Allow",
                $version::PermissionOptionKind::AllowOnce,
            );
            let request =
                $version::RequestPermissionRequest::new(session.id(), $subject, vec![allow]);
            let response = session
                .connection()
                .request::<$version::methods::SessionRequestPermission>(&request)
                .await
                .unwrap();
            format!("{:?}", response.outcome)
        }};
    }
    if session.protocol_version() == ProtocolVersion::V1 {
        ask!(
            v1,
            v1::ToolCallUpdate::new("call_1").title("Delete everything")
        )
    } else {
        ask!(v2, "Delete everything")
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

/// The texts of the messages of `role` in a session's transcript, in order.
pub fn texts(client: &Client, session: &str, role: Role) -> Vec<String> {
    let transcript = client.session_transcript(session);
    let transcript = transcript.expect("the client has a transcript of the session");
    transcript.messages(role).map(|m| m.text.clone()).collect()
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

/// The `initialize` result of a raw agent speaking `version` (v2 names itself `raw`).
pub fn init_result(version: u16) -> Value {
    if version == 1 {
        json!({"protocolVersion": 1})
    } else {
        json!({"protocolVersion": version, "info": {"name": "raw", "version": "0"}})
    }
}

/// A client built by `builder`, connected over a pipe to a raw peer that plays the agent and
/// answers `initialize` with `result`; returns both and the client's `initialize` request.
pub async fn raw_agent_answering(
    builder: ClientBuilder,
    result: Value,
) -> (Client, RawPeer, Value) {
    let (client_io, agent_io) = tokio::io::duplex(1 << 16);
    let mut agent = RawPeer::new(agent_io);
    let (read, write) = tokio::io::split(client_io);
    let connecting = tokio::spawn(builder.connect(read, write));
    let init = agent.recv_some().await;
    assert_eq!(init["method"], "initialize", "{init}");
    agent
        .send_json(json!({"jsonrpc": "2.0", "id": init["id"], "result": result}))
        .await;
    (connecting.await.unwrap().unwrap(), agent, init)
}

/// As [`raw_agent_answering`], with the raw agent speaking `version`.
pub async fn raw_agent(builder: ClientBuilder, version: u16) -> (Client, RawPeer, Value) {
    raw_agent_answering(builder, init_result(version)).await
}

/// A raw peer that plays the client of `server` (started on the other end of a pipe), not
/// initialised yet.
pub fn raw_client_of<A: Agent>(server: &AgentServer<A>) -> RawPeer {
    let (client_io, agent_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(agent_io);
    server.start(read, write);
    RawPeer::new(client_io)
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

    /// Answers `request` with `result`.
    pub async fn reply(&mut self, request: &Value, result: Value) {
        self.send_json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await;
    }

    /// Answers the next request with `result`; the request.
    pub async fn answer_next(&mut self, result: Value) -> Value {
        let request = self.recv_some().await;
        self.reply(&request, result).await;
        request
    }

    /// Sends the request `method` with `params` and id `id`, and returns the answer to it
    /// (skipping anything else that comes first).
    pub async fn ask(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send_json(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.recv_some().await;
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
    }
}

/// The ids of stored sessions, in the order given.
pub fn ids(sessions: Vec<acptk_runtime::agent::SessionMeta>) -> Vec<String> {
    sessions.into_iter().map(|meta| meta.id).collect()
}

/// Creates the empty session `id` of `version` in `cwd` in `store`.
pub async fn create_empty(
    store: &dyn acptk_runtime::agent::SessionStore,
    id: &str,
    version: ProtocolVersion,
    cwd: &str,
) {
    let meta = acptk_runtime::agent::SessionMeta::new(id, version, cwd);
    store.create(&meta).await.unwrap();
}
