//! The agent side: implement [`Agent`], serve it with [`AgentServer`].
//!
//! The runtime answers `initialize` (negotiating v1 or v2), creates, loads and resumes
//! sessions, records their history and replays it, and runs prompt turns by the lifecycle of
//! the negotiated version:
//!
//! * v1: `session/prompt` is answered when [`Agent::prompt`] returns, with its stop reason.
//! * v2: `session/prompt` is answered at once with the user message's `messageId`; the turn
//!   then runs, framed by `state_update` `running` and `idle` (with the stop reason).
//!
//! Session set-up hooks ([`Agent::session_opened`]) run after the response to `session/new`,
//! `session/load` or `session/resume`, so anything they send (notices included) is live and
//! never part of a replay.

mod dispatch;

pub(crate) use dispatch::decode_error;
mod session;
mod store;

use std::future::Future;
use std::sync::Arc;

use acp_schema::jsonrpc::{ErrorObject, RawValue};
use acp_schema::method::Extension;
use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};
use tokio::io::{AsyncRead, AsyncWrite};

pub use session::{CommandSpec, Session, ToolStatus};
pub use store::{DEFAULT_HISTORY_LIMIT, History, SessionStore};

use crate::connection::{Connection, ConnectionBuilder};
use crate::error::rpc;
use crate::notice::FallbackPolicy;
use crate::version::{ByVersion, SUPPORTED_VERSIONS};

/// The client on the other end of an agent connection, as learnt from `initialize`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectedClient {
    /// The negotiated protocol version.
    pub protocol_version: ProtocolVersion,
    /// The client's capabilities, in the types of the version its `initialize` was written in.
    pub capabilities: ByVersion<v1::ClientCapabilities, v2::ClientCapabilities>,
    /// The client's name and version, if it said.
    pub name: Option<String>,
}

impl ConnectedClient {
    /// Whether the client may receive `notice` session updates: always in v2, and in v1 when
    /// it advertised `clientCapabilities.session.notices`.
    pub fn accepts_notices(&self) -> bool {
        match &self.capabilities {
            ByVersion::V1(capabilities) => capabilities.advertises_notices(),
            ByVersion::V2(_) => true,
        }
    }
}

/// How a session came to be open on this connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionOrigin {
    /// `session/new`.
    New,
    /// `session/load` (v1); the history was replayed.
    Loaded,
    /// `session/resume` (v2); `replayed` tells whether the history was replayed.
    Resumed {
        /// Whether a replay was asked for and sent.
        replayed: bool,
    },
}

/// An MCP server the client asked the agent to use, in either version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpServerSpec {
    /// A server started as a local process speaking MCP over stdio.
    Stdio {
        /// Its name.
        name: String,
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables (name, value).
        env: Vec<(String, String)>,
    },
    /// A server reached over the network (HTTP, SSE, or a kind this runtime does not know).
    Remote {
        /// Its name.
        name: String,
        /// The transport kind (`http`, `sse`, ...).
        kind: String,
        /// Its endpoint; empty when a kind this runtime does not know carried none.
        url: String,
        /// HTTP headers to send with every request (name, value).
        headers: Vec<(String, String)>,
    },
}

impl McpServerSpec {
    /// The server's name.
    pub fn name(&self) -> &str {
        match self {
            McpServerSpec::Stdio { name, .. } | McpServerSpec::Remote { name, .. } => name,
        }
    }

    pub(crate) fn from_v1(server: &v1::McpServer) -> Self {
        match server {
            v1::McpServer::Stdio(stdio) => local(
                &stdio.name,
                &stdio.command,
                &stdio.args,
                stdio.env.iter().map(|var| (&var.name, &var.value)),
            ),
            v1::McpServer::Http(http) => remote(
                &http.name,
                "http",
                &http.url,
                http.headers.iter().map(|h| (&h.name, &h.value)),
            ),
            v1::McpServer::Sse(sse) => remote(
                &sse.name,
                "sse",
                &sse.url,
                sse.headers.iter().map(|h| (&h.name, &h.value)),
            ),
            other => remote(
                other.name(),
                other.tag().unwrap_or_default(),
                "",
                std::iter::empty(),
            ),
        }
    }

    pub(crate) fn from_v2(server: &v2::McpServer) -> Self {
        match server {
            v2::McpServer::Stdio(stdio) => local(
                &stdio.name,
                stdio.command.as_str(),
                &stdio.args,
                stdio.env.iter().map(|var| (&var.name, &var.value)),
            ),
            v2::McpServer::Http(http) => remote(
                &http.name,
                "http",
                &http.url,
                http.headers.iter().map(|h| (&h.name, &h.value)),
            ),
            v2::McpServer::Other(unknown) => {
                // A transport this runtime does not know: keep what its fields say.
                let text = |key: &str| {
                    unknown
                        .fields()
                        .get(key)
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                };
                remote(text("name"), unknown.tag(), text("url"), std::iter::empty())
            }
            other => remote("", other.tag(), "", std::iter::empty()),
        }
    }
}

/// A local server from its wire fields.
fn local<'a>(
    name: &str,
    command: &str,
    args: &[String],
    env: impl Iterator<Item = (&'a String, &'a String)>,
) -> McpServerSpec {
    McpServerSpec::Stdio {
        name: name.to_owned(),
        command: command.to_owned(),
        args: args.to_vec(),
        env: env.map(|(n, v)| (n.clone(), v.clone())).collect(),
    }
}

/// A network server from its wire fields.
fn remote<'a>(
    name: &str,
    kind: &str,
    url: &str,
    headers: impl Iterator<Item = (&'a String, &'a String)>,
) -> McpServerSpec {
    McpServerSpec::Remote {
        name: name.to_owned(),
        kind: kind.to_owned(),
        url: url.to_owned(),
        headers: headers.map(|(n, v)| (n.clone(), v.clone())).collect(),
    }
}

/// What the client sent when it opened a session.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionSetup {
    /// How the session was opened.
    pub origin: SessionOrigin,
    /// The working directory.
    pub cwd: String,
    /// The MCP servers to use.
    pub mcp_servers: Vec<McpServerSpec>,
}

impl SessionSetup {
    pub(crate) fn new(
        origin: SessionOrigin,
        cwd: impl Into<String>,
        mcp_servers: impl IntoIterator<Item = McpServerSpec>,
    ) -> Self {
        Self {
            origin,
            cwd: cwd.into(),
            mcp_servers: mcp_servers.into_iter().collect(),
        }
    }
}

/// A user prompt, in either version.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Prompt {
    /// The text blocks of the prompt, joined with newlines.
    pub text: String,
    /// The request as received.
    pub request: ByVersion<v1::PromptRequest, v2::PromptRequest>,
}

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// The turn ended normally.
    EndTurn,
    /// The model reached its token limit.
    MaxTokens,
    /// The turn reached the limit of model requests.
    MaxTurnRequests,
    /// The model declined to continue.
    Refusal,
    /// The client cancelled the turn.
    Cancelled,
    /// A stop reason this runtime does not know (a newer protocol's), by its wire name. A
    /// client sees it when a v2 agent sends one. An agent returning it reaches a v2 client
    /// as written; a v1 client gets `end_turn`, since v1's list of stop reasons is closed.
    Other(String),
}

impl StopReason {
    /// The stop reason for a wire name: a known one, else [`StopReason::Other`].
    pub fn from_wire(name: &str) -> StopReason {
        match name {
            "end_turn" => StopReason::EndTurn,
            "max_tokens" => StopReason::MaxTokens,
            "max_turn_requests" => StopReason::MaxTurnRequests,
            "refusal" => StopReason::Refusal,
            "cancelled" => StopReason::Cancelled,
            other => StopReason::Other(other.to_owned()),
        }
    }

    /// The wire name (`end_turn`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::MaxTokens => "max_tokens",
            StopReason::MaxTurnRequests => "max_turn_requests",
            StopReason::Refusal => "refusal",
            StopReason::Cancelled => "cancelled",
            StopReason::Other(name) => name,
        }
    }

    pub(crate) fn to_v1(&self) -> v1::StopReason {
        match self {
            StopReason::MaxTokens => v1::StopReason::MaxTokens,
            StopReason::MaxTurnRequests => v1::StopReason::MaxTurnRequests,
            StopReason::Refusal => v1::StopReason::Refusal,
            StopReason::Cancelled => v1::StopReason::Cancelled,
            StopReason::EndTurn | StopReason::Other(_) => v1::StopReason::EndTurn,
        }
    }

    pub(crate) fn to_v2(&self) -> v2::IdleStopReason {
        match self {
            StopReason::EndTurn => v2::IdleStopReason::EndTurn,
            StopReason::MaxTokens => v2::IdleStopReason::MaxTokens,
            StopReason::MaxTurnRequests => v2::IdleStopReason::MaxTurnRequests,
            StopReason::Refusal => v2::IdleStopReason::Refusal,
            StopReason::Cancelled => v2::IdleStopReason::Cancelled,
            StopReason::Other(name) => match StopReason::from_wire(name) {
                StopReason::Other(name) => {
                    v2::IdleStopReason::unknown(name, Default::default())
                        // `error` is known to the schema but is not a plain stop reason here.
                        .unwrap_or(v2::IdleStopReason::EndTurn)
                }
                known => known.to_v2(),
            },
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request the runtime does not handle itself, passed through to
/// [`Agent::other_request`] decoded in the connection's version.
pub type OtherRequest = ByVersion<v1::ClientRequest, v2::ClientRequest>;

/// An ACP agent. Implement the turn ([`Agent::prompt`]); everything else has a default.
///
/// Methods return `impl Future + Send`; implement them with `async fn`.
pub trait Agent: Send + Sync + 'static {
    /// The agent's name and version, sent in the `initialize` response.
    fn name(&self) -> (String, String) {
        (
            "acp-runtime-agent".to_owned(),
            env!("CARGO_PKG_VERSION").to_owned(),
        )
    }

    /// Called after a session was created, loaded or resumed on a connection, once the
    /// response (and any replay) has been sent. Notices sent from here are live events. It
    /// counts as part of the request that opened the session (its in-flight slot stays taken
    /// until it returns): spawn work that should run on.
    fn session_opened(
        &self,
        session: Session,
        setup: SessionSetup,
    ) -> impl Future<Output = ()> + Send {
        let _ = (session, setup);
        async {}
    }

    /// Runs one prompt turn: stream updates through `session`, return why the turn ended.
    /// An error answers the v1 prompt with it, and ends a v2 turn with an `error` stop reason.
    fn prompt(
        &self,
        session: Session,
        prompt: Prompt,
    ) -> impl Future<Output = Result<StopReason, ErrorObject>> + Send;

    /// Called when the client sends `session/cancel`; the runtime has already flagged the
    /// turn ([`Session::cancelled`]).
    fn cancel(&self, session: Session) -> impl Future<Output = ()> + Send {
        let _ = session;
        async {}
    }

    /// Handles an extension request (`_`-prefixed method). Default: `-32601`.
    fn extension_request(
        &self,
        client: Arc<ConnectedClient>,
        request: Extension,
    ) -> impl Future<Output = Result<Box<RawValue>, ErrorObject>> + Send {
        let _ = client;
        async move { Err(rpc::method_not_found(&request.method)) }
    }

    /// Handles an extension notification. Default: ignored.
    fn extension_notification(
        &self,
        client: Arc<ConnectedClient>,
        notification: Extension,
    ) -> impl Future<Output = ()> + Send {
        let _ = (client, notification);
        async {}
    }

    /// Handles any other request of the method table (`authenticate`, `session/list`, ...).
    /// Default: `-32601`.
    fn other_request(
        &self,
        client: Arc<ConnectedClient>,
        request: OtherRequest,
    ) -> impl Future<Output = Result<Box<RawValue>, ErrorObject>> + Send {
        let _ = client;
        let method = match &request {
            ByVersion::V1(request) => request.method().to_owned(),
            ByVersion::V2(request) => request.method().to_owned(),
        };
        async move { Err(rpc::method_not_found(&method)) }
    }
}

#[derive(Debug, Clone)]
struct Options {
    versions: Vec<ProtocolVersion>,
    fallback: FallbackPolicy,
    connection: ConnectionBuilder,
}

/// Serves an [`Agent`] on connections. Cheap to clone; clones share the agent and the
/// [`SessionStore`], so sessions outlive connections (a client can reconnect and load them).
///
/// ```no_run
/// # use acp_runtime::agent::{Agent, AgentServer, Prompt, Session, StopReason};
/// # struct Echo;
/// # impl Agent for Echo {
/// #     async fn prompt(&self, s: Session, p: Prompt) -> Result<StopReason, acp_schema::jsonrpc::ErrorObject> { Ok(StopReason::EndTurn) }
/// # }
/// # async fn run() -> Result<(), acp_runtime::Error> {
/// let server = AgentServer::new(Echo);
/// server.serve_stdio().await
/// # }
/// ```
pub struct AgentServer<A> {
    agent: Arc<A>,
    store: SessionStore,
    options: Options,
}

impl<A> Clone for AgentServer<A> {
    fn clone(&self) -> Self {
        Self {
            agent: Arc::clone(&self.agent),
            store: self.store.clone(),
            options: self.options.clone(),
        }
    }
}

impl<A: Agent> AgentServer<A> {
    /// A server for `agent` with a fresh store, both protocol versions, and the
    /// [`FallbackPolicy::AgentMessage`] notice fallback.
    pub fn new(agent: A) -> Self {
        Self {
            agent: Arc::new(agent),
            store: SessionStore::new(),
            options: Options {
                versions: SUPPORTED_VERSIONS.to_vec(),
                fallback: FallbackPolicy::default(),
                connection: ConnectionBuilder::new(),
            },
        }
    }

    /// Uses `store` for sessions (to share it with another server).
    #[must_use]
    pub fn store(mut self, store: SessionStore) -> Self {
        self.store = store;
        self
    }

    /// What to do with notices for v1 clients without `session.notices`.
    #[must_use]
    pub fn notice_fallback(mut self, policy: FallbackPolicy) -> Self {
        self.options.fallback = policy;
        self
    }

    /// The protocol versions to accept (default: 1 and 2). Versions the runtime does not
    /// implement are ignored; an empty list keeps the default.
    #[must_use]
    pub fn versions(mut self, versions: &[ProtocolVersion]) -> Self {
        let mut chosen: Vec<ProtocolVersion> = versions
            .iter()
            .copied()
            .filter(|version| SUPPORTED_VERSIONS.contains(version))
            .collect();
        chosen.sort();
        chosen.dedup();
        if !chosen.is_empty() {
            self.options.versions = chosen;
        }
        self
    }

    /// Connection options (line limit, queue sizes, logger).
    #[must_use]
    pub fn connection_options(mut self, options: ConnectionBuilder) -> Self {
        self.options.connection = options;
        self
    }

    /// The session store.
    pub fn sessions(&self) -> &SessionStore {
        &self.store
    }

    /// The agent.
    pub fn agent(&self) -> &Arc<A> {
        &self.agent
    }

    /// Starts serving one connection on `reader`/`writer` and returns at once.
    pub fn start<R, W>(&self, reader: R, writer: W) -> Connection
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let handler = dispatch::AgentHandler::new(
            Arc::clone(&self.agent),
            self.store.clone(),
            self.options.versions.clone(),
            self.options.fallback,
        );
        self.options
            .connection
            .clone()
            .start(reader, writer, handler)
    }

    /// Serves one connection until the client hangs up.
    pub async fn serve<R, W>(&self, reader: R, writer: W) -> Result<(), crate::Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.start(reader, writer).closed().await;
        Ok(())
    }

    /// Serves one connection on standard input/output until the client hangs up.
    pub async fn serve_stdio(&self) -> Result<(), crate::Error> {
        let (stdin, stdout) = crate::transport::stdio();
        self.serve(stdin, stdout).await
    }
}
