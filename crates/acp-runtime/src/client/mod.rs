//! The client side: connect to an agent with [`ClientBuilder`], then drive it with
//! [`Client`].
//!
//! Everything the agent streams is sorted as it arrives: notices go to an
//! [`acp_notice_center::NoticeCenter`], everything else to a [`Transcript`], which by
//! construction never holds a notice. A client with a notice center advertises
//! `session.notices` in v1 automatically. A notice that arrives during a replay (v1: before
//! the `session/load` response; v2: before `replay_complete`) is not shown; it is counted
//! ([`Client::violations`]) and logged.

mod dispatch;
mod state;
pub mod transcript;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use acp_notice_center::{NoticeCenter, Policy};
use acp_schema::jsonrpc::RawValue;
use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{oneshot, watch};

pub use state::{Clock, Violations};
pub use transcript::{SessionTranscript, Transcript};

use crate::agent::{McpServerSpec, StopReason};
use crate::connection::{BoxFuture, Connection, ConnectionBuilder, decode_result, lock, to_raw};
use crate::error::Error;
use crate::transport::{AgentCommand, AgentProcess};
use crate::version::{ByVersion, SUPPORTED_VERSIONS, describe, peek_version};

/// One choice of a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionChoice {
    /// The option id to answer with.
    pub id: String,
    /// Its label.
    pub name: String,
    /// Its kind as sent (`allow_once`, `allow_always`, `reject_once`, `reject_always`).
    pub kind: String,
}

impl PermissionChoice {
    /// A choice with its option id, label and kind (`allow_once`, `reject_once`, ...).
    pub fn new(id: impl Into<String>, name: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            kind: kind.into(),
        }
    }
}

impl PermissionRequest {
    /// A request about `session_id` titled `title` offering `options`.
    pub fn new(
        session_id: impl Into<String>,
        title: impl Into<String>,
        options: Vec<PermissionChoice>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            title: title.into(),
            options,
        }
    }
}

/// A permission request from the agent, in either version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// The session it is about.
    pub session_id: String,
    /// What the agent wants to do.
    pub title: String,
    /// The choices offered.
    pub options: Vec<PermissionChoice>,
}

/// The answer to a [`PermissionRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionDecision {
    /// The user picked the option with this id.
    Selected(String),
    /// No choice (the turn was cancelled or the user dismissed the question).
    Cancelled,
}

/// Decides permission requests (for example by asking the user in a dialog).
pub type PermissionHandler =
    Arc<dyn Fn(PermissionRequest) -> BoxFuture<PermissionDecision> + Send + Sync>;

/// The agent on the other end of a client connection, as learnt from `initialize`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectedAgent {
    /// The negotiated protocol version.
    pub protocol_version: ProtocolVersion,
    /// The agent's capabilities.
    pub capabilities: ByVersion<v1::AgentCapabilities, v2::AgentCapabilities>,
    /// The agent's name, if it said.
    pub name: Option<String>,
}

impl ConnectedAgent {
    /// Whether sessions can be reopened with their history: v1 `loadSession`, always in v2
    /// (`session/resume` with a replay).
    pub fn can_load_sessions(&self) -> bool {
        match &self.capabilities {
            ByVersion::V1(capabilities) => capabilities.load_session,
            ByVersion::V2(_) => true,
        }
    }
}

/// Options of a client connection.
#[must_use]
pub struct ClientBuilder {
    protocol: ProtocolVersion,
    notices: bool,
    name: String,
    version: String,
    policy: Policy,
    clock: Option<Clock>,
    permissions: Option<PermissionHandler>,
    connection: ConnectionBuilder,
    transcript_limit: usize,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("protocol", &self.protocol)
            .field("notices", &self.notices)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            protocol: ProtocolVersion::V1,
            notices: true,
            name: "acp-runtime-client".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            policy: Policy::default(),
            clock: None,
            permissions: None,
            connection: ConnectionBuilder::new(),
            transcript_limit: transcript::DEFAULT_TRANSCRIPT_LIMIT,
        }
    }
}

impl ClientBuilder {
    /// Protocol v1, notices on, default notice policy, permission requests cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// The protocol version to propose (1 or 2; default 1). The client also accepts an
    /// older version the agent answers with, down to 1.
    pub fn protocol(mut self, version: ProtocolVersion) -> Self {
        self.protocol = version;
        self
    }

    /// Whether the client shows notices (default: yes). With notices, a v1 client advertises
    /// `session.notices`; without, notices are not advertised and any that arrive are ignored
    /// (and counted as violations in v1).
    pub fn notices(mut self, enabled: bool) -> Self {
        self.notices = enabled;
        self
    }

    /// The client's name and version sent in `initialize`.
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// The notice center's policy.
    pub fn notice_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// The clock for the notice center (default: time since the client was built).
    pub fn clock(mut self, clock: impl Fn() -> Duration + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// Who answers permission requests (default: every request is answered `cancelled`).
    pub fn permissions(
        mut self,
        handler: impl Fn(PermissionRequest) -> BoxFuture<PermissionDecision> + Send + Sync + 'static,
    ) -> Self {
        self.permissions = Some(Arc::new(handler));
        self
    }

    /// Connection options (line limit, queue sizes, logger).
    pub fn connection_options(mut self, options: ConnectionBuilder) -> Self {
        self.connection = options;
        self
    }

    /// The maximum number of transcript entries kept per session.
    pub fn transcript_limit(mut self, entries: usize) -> Self {
        self.transcript_limit = entries;
        self
    }

    /// Connects over `reader`/`writer` and runs `initialize`.
    pub async fn connect<R, W>(self, reader: R, writer: W) -> Result<Client, Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let clock = self.clock.clone().unwrap_or_else(|| {
            let epoch = Instant::now();
            Arc::new(move || epoch.elapsed())
        });
        let (changes, _) = watch::channel(0);
        let permissions = self.permissions.clone().unwrap_or_else(|| {
            Arc::new(|_request| Box::pin(async { PermissionDecision::Cancelled }))
        });
        let state = Arc::new(state::State {
            notices: Arc::new(Mutex::new(NoticeCenter::new(self.policy.clone()))),
            transcript: Arc::new(Mutex::new(Transcript::new(self.transcript_limit))),
            notices_enabled: self.notices,
            clock,
            version: OnceLock::new(),
            replaying: Mutex::new(HashSet::new()),
            turns: Mutex::new(HashMap::new()),
            during_replay: AtomicU64::new(0),
            unadvertised: AtomicU64::new(0),
            changes,
            permissions,
        });
        let connection = self.connection.clone().start(
            reader,
            writer,
            dispatch::ClientHandler::new(Arc::clone(&state)),
        );
        let agent = self.initialize(&connection).await?;
        let _ = state.version.set(agent.protocol_version);
        Ok(Client {
            inner: Arc::new(Inner {
                connection,
                agent,
                notices_advertised: self.notices,
                state,
            }),
        })
    }

    /// Launches `command` as a child process and connects to it over its stdio.
    pub async fn spawn(self, command: &AgentCommand) -> Result<(Client, AgentProcess), Error> {
        let mut process = command.spawn()?;
        let (stdout, stdin) = process
            .take_pipes()
            .ok_or_else(|| Error::Protocol("the agent's pipes are not available".to_owned()))?;
        let client = self.connect(stdout, stdin).await?;
        Ok((client, process))
    }

    async fn initialize(&self, connection: &Connection) -> Result<ConnectedAgent, Error> {
        let params = if self.protocol == ProtocolVersion::V1 {
            let mut capabilities = v1::ClientCapabilities::new();
            if self.notices {
                capabilities = capabilities.with_notices();
            }
            to_raw(
                &v1::InitializeRequest::new(ProtocolVersion::V1)
                    .client_capabilities(capabilities)
                    .client_info(v1::Implementation::new(
                        self.name.as_str(),
                        self.version.as_str(),
                    )),
            )?
        } else {
            to_raw(&v2::InitializeRequest::new(
                self.protocol.get(),
                v2::Implementation::new(self.name.as_str(), self.version.as_str()),
            ))?
        };
        let result = connection.request_raw("initialize", Some(params)).await?;
        let accepted: Vec<ProtocolVersion> = SUPPORTED_VERSIONS
            .iter()
            .copied()
            .filter(|version| *version <= self.protocol)
            .collect();
        let answered = peek_version(result.get()).ok_or_else(|| {
            Error::Protocol("the `initialize` response has no valid `protocolVersion`".to_owned())
        })?;
        if !accepted.contains(&answered) {
            return Err(Error::UnsupportedVersion {
                answered,
                supported: describe(&accepted),
            });
        }
        Ok(if answered == ProtocolVersion::V1 {
            let response: v1::InitializeResponse = decode_result("initialize", &result)?;
            ConnectedAgent {
                protocol_version: answered,
                capabilities: ByVersion::V1(response.agent_capabilities),
                name: response.agent_info.map(|info| info.name),
            }
        } else {
            let response: v2::InitializeResponse = decode_result("initialize", &result)?;
            ConnectedAgent {
                protocol_version: answered,
                capabilities: ByVersion::V2(response.capabilities),
                name: Some(response.info.name),
            }
        })
    }
}

struct Inner {
    connection: Connection,
    agent: ConnectedAgent,
    notices_advertised: bool,
    state: Arc<state::State>,
}

/// A connected client. Cheap to clone; clones share the connection, the notice center and
/// the transcript.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("agent", &self.inner.agent)
            .field("notices_advertised", &self.inner.notices_advertised)
            .finish_non_exhaustive()
    }
}

/// A server as v1 sends it; `None` for a transport v1 does not have.
fn mcp_v1(server: &McpServerSpec) -> Option<v1::McpServer> {
    match server {
        McpServerSpec::Stdio {
            name,
            command,
            args,
            env,
        } => Some(v1::McpServer::Stdio(v1::McpServerStdio::new(
            name.as_str(),
            command.as_str(),
            args.clone(),
            env.iter()
                .map(|(k, v)| v1::EnvVariable::new(k.as_str(), v.as_str()))
                .collect::<Vec<_>>(),
        ))),
        McpServerSpec::Remote {
            name,
            kind,
            url,
            headers,
        } => {
            let headers: Vec<v1::HttpHeader> = headers
                .iter()
                .map(|(k, v)| v1::HttpHeader::new(k.as_str(), v.as_str()))
                .collect();
            match kind.as_str() {
                "http" => Some(v1::McpServerHttp::new(name.as_str(), url.as_str(), headers).into()),
                "sse" => Some(v1::McpServerSse::new(name.as_str(), url.as_str(), headers).into()),
                _ => None,
            }
        }
    }
}

/// A server as v2 sends it; `None` for a transport v2 does not have.
fn mcp_v2(server: &McpServerSpec) -> Option<v2::McpServer> {
    match server {
        McpServerSpec::Stdio {
            name,
            command,
            args,
            env,
        } => Some(v2::McpServer::Stdio(
            v2::McpServerStdio::new(name.as_str(), command.as_str())
                .args(args.clone())
                .env(
                    env.iter()
                        .map(|(k, v)| v2::EnvVariable::new(k.as_str(), v.as_str()))
                        .collect::<Vec<_>>(),
                ),
        )),
        McpServerSpec::Remote {
            name,
            kind,
            url,
            headers,
        } if kind == "http" => Some(
            v2::McpServerHttp::new(name.as_str(), url.as_str())
                .headers(
                    headers
                        .iter()
                        .map(|(k, v)| v2::HttpHeader::new(k.as_str(), v.as_str()))
                        .collect::<Vec<_>>(),
                )
                .into(),
        ),
        McpServerSpec::Remote { .. } => None,
    }
}

impl Client {
    /// `specs` as the negotiated version sends them; a server whose transport that version
    /// does not have is left out, with a warning in the log.
    fn servers<T>(
        &self,
        specs: &[McpServerSpec],
        convert: fn(&McpServerSpec) -> Option<T>,
    ) -> Vec<T> {
        specs
            .iter()
            .filter_map(|spec| {
                let converted = convert(spec);
                if converted.is_none() {
                    self.inner.connection.logger().log(
                        crate::log::Level::Warn,
                        format!(
                            "left out MCP server `{}`: ACP v{} has no such transport",
                            spec.name(),
                            self.protocol_version()
                        ),
                    );
                }
                converted
            })
            .collect()
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.agent.protocol_version
    }

    /// Whether this client takes notices: in v1, whether it advertised `session.notices`.
    pub fn notices_advertised(&self) -> bool {
        self.inner.notices_advertised
    }

    /// The agent, as learnt from `initialize`.
    pub fn agent(&self) -> &ConnectedAgent {
        &self.inner.agent
    }

    /// The connection, to send requests of your own.
    pub fn connection(&self) -> &Connection {
        &self.inner.connection
    }

    /// The notice center that incoming notices are pushed into. Lock it briefly (never across
    /// an `.await`); feed it [`Client::now`] when you call `tick`.
    pub fn notice_center(&self) -> Arc<Mutex<NoticeCenter>> {
        Arc::clone(&self.inner.state.notices)
    }

    /// The transcript of every session. Lock it briefly (never across an `.await`).
    pub fn transcript(&self) -> Arc<Mutex<Transcript>> {
        Arc::clone(&self.inner.state.transcript)
    }

    /// Runs `f` with the notice center locked.
    pub fn with_notice_center<T>(&self, f: impl FnOnce(&mut NoticeCenter) -> T) -> T {
        f(&mut lock(&self.inner.state.notices))
    }

    /// Runs `f` with the transcript locked.
    pub fn with_transcript<T>(&self, f: impl FnOnce(&mut Transcript) -> T) -> T {
        f(&mut lock(&self.inner.state.transcript))
    }

    /// A copy of one session's transcript.
    pub fn session_transcript(&self, session: &str) -> Option<SessionTranscript> {
        lock(&self.inner.state.transcript).session(session).cloned()
    }

    /// The time on the notice center's clock.
    pub fn now(&self) -> Duration {
        (self.inner.state.clock)()
    }

    /// A receiver that changes whenever the transcript or the notice center changed (for
    /// redrawing a user interface).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.inner.state.changes.subscribe()
    }

    /// The agent's protocol violations survived so far.
    pub fn violations(&self) -> Violations {
        self.inner.state.violations()
    }

    /// Creates a session and returns its id.
    pub async fn new_session(
        &self,
        cwd: &str,
        mcp_servers: &[McpServerSpec],
    ) -> Result<String, Error> {
        let connection = &self.inner.connection;
        let id = if self.protocol_version() == ProtocolVersion::V1 {
            let servers: Vec<v1::McpServer> = self.servers(mcp_servers, mcp_v1);
            let request = v1::NewSessionRequest::new(cwd, servers);
            let response = connection
                .request::<v1::methods::SessionNew>(&request)
                .await?;
            response.session_id.as_str().to_owned()
        } else {
            let servers: Vec<v2::McpServer> = self.servers(mcp_servers, mcp_v2);
            let request = v2::NewSessionRequest::new(cwd).mcp_servers(servers);
            let response = connection
                .request::<v2::methods::SessionNew>(&request)
                .await?;
            response.session_id.as_str().to_owned()
        };
        self.with_transcript(|transcript| transcript.set_running(&id, false));
        self.inner.state.changed();
        Ok(id)
    }

    /// Reopens a session with its history: `session/load` in v1, `session/resume` with a
    /// replay from the start in v2. The session's transcript is rebuilt from the replay.
    /// Returns when the agent has answered; the replay is then in the transcript.
    pub async fn load_session(
        &self,
        session: &str,
        cwd: &str,
        mcp_servers: &[McpServerSpec],
    ) -> Result<(), Error> {
        if !self.inner.agent.can_load_sessions() {
            return Err(Error::Protocol(
                "the agent did not advertise `loadSession`".to_owned(),
            ));
        }
        let state = Arc::clone(&self.inner.state);
        self.with_transcript(|transcript| transcript.clear_session(session));
        lock(&state.replaying).insert(session.to_owned());
        let ended = {
            let state = Arc::clone(&state);
            let session = session.to_owned();
            Box::new(move || state.end_replay(&session)) as Box<dyn FnOnce() + Send>
        };
        let (method, params): (&str, Box<RawValue>) =
            if self.protocol_version() == ProtocolVersion::V1 {
                let servers: Vec<v1::McpServer> = self.servers(mcp_servers, mcp_v1);
                (
                    "session/load",
                    to_raw(&v1::LoadSessionRequest::new(servers, cwd, session))?,
                )
            } else {
                let servers: Vec<v2::McpServer> = self.servers(mcp_servers, mcp_v2);
                let request = v2::ResumeSessionRequest::new(session, cwd)
                    .mcp_servers(servers)
                    .replay_from(v2::ReplayFrom::Start(v2::ReplayFromStart::new()));
                ("session/resume", to_raw(&request)?)
            };
        let result = self
            .inner
            .connection
            .request_hooked(method, Some(params), Some(ended))
            .await;
        state.end_replay(session);
        state.changed();
        result.map(|_| ())
    }

    /// Sends a text prompt and waits for the end of the turn: the `session/prompt` response
    /// in v1, the idle `state_update` in v2. The prompt is added to the transcript at once.
    pub async fn prompt(&self, session: &str, text: &str) -> Result<StopReason, Error> {
        let state = &self.inner.state;
        self.with_transcript(|transcript| {
            transcript.push_user_message(session, text);
            transcript.set_running(session, true);
        });
        state.changed();
        let connection = &self.inner.connection;
        let result = if self.protocol_version() == ProtocolVersion::V1 {
            let request = v1::PromptRequest::new(session, vec![v1::ContentBlock::text(text)]);
            connection
                .request::<v1::methods::SessionPrompt>(&request)
                .await
                .map(|response| stop_from_v1(response.stop_reason))
        } else {
            let (tx, rx) = oneshot::channel();
            lock(&state.turns).insert(session.to_owned(), tx);
            let request = v2::PromptRequest::new(session, vec![v2::ContentBlock::text(text)]);
            match connection
                .request::<v2::methods::SessionPrompt>(&request)
                .await
            {
                Ok(_) => match rx.await {
                    Ok(Ok(stop)) => Ok(stop),
                    Ok(Err(message)) => Err(Error::Protocol(format!("the turn failed: {message}"))),
                    Err(_) => Err(Error::ConnectionClosed),
                },
                Err(error) => {
                    lock(&state.turns).remove(session);
                    Err(error)
                }
            }
        };
        self.with_transcript(|transcript| transcript.set_running(session, false));
        state.changed();
        result
    }

    /// Asks the agent to stop the running turn of `session` (`session/cancel`).
    pub async fn cancel(&self, session: &str) -> Result<(), Error> {
        if self.protocol_version() == ProtocolVersion::V1 {
            self.inner
                .connection
                .notify::<v1::methods::SessionCancel>(&v1::CancelNotification::new(session))
                .await
        } else {
            self.inner
                .connection
                .notify::<v2::methods::SessionCancel>(&v2::CancelSessionNotification::new(session))
                .await
        }
    }

    /// Waits until the connection has ended.
    pub async fn closed(&self) {
        self.inner.connection.closed().await;
    }

    /// Hangs up on the agent and waits until the connection has ended. Other clones of this
    /// client see the connection closed.
    pub async fn close(&self) {
        self.inner.connection.close();
        self.inner.connection.closed().await;
    }
}

pub(crate) fn stop_from_v1(stop: v1::StopReason) -> StopReason {
    match stop {
        v1::StopReason::MaxTokens => StopReason::MaxTokens,
        v1::StopReason::MaxTurnRequests => StopReason::MaxTurnRequests,
        v1::StopReason::Refusal => StopReason::Refusal,
        v1::StopReason::Cancelled => StopReason::Cancelled,
        _ => StopReason::EndTurn,
    }
}
