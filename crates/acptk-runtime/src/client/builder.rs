//! Building a client: options, `initialize`, and the fall-back to v1 when a v2 request meets a
//! v1 agent.
//!
//! # Asking for v2 and meeting a v1 agent
//!
//! A v1 agent answers a v2 `initialize` with version 1 (v1 agents answer with the latest
//! version they support), and reads the client's capabilities from `clientCapabilities`,
//! which a v2 request does not have (v2 calls them `capabilities`). Without them the agent
//! would believe the client offers nothing, `session.notices` included. So:
//!
//! * [`ClientBuilder::spawn`] launches the agent again and initializes it as v1, with the
//!   full v1 capabilities ([`VersionFallback::Restarted`]). The first process is shut down
//!   first (its input closed, then the grace period, `SIGTERM`, `SIGKILL`).
//! * [`ClientBuilder::connect`] cannot relaunch anything, so its v2 `initialize` also carries
//!   the v1 fields `clientCapabilities` and `clientInfo` ([`VersionFallback::SameRequest`]).
//!   Both versions' schemas allow properties they do not define in `initialize` params, and
//!   the two versions' field names do not overlap, so a v2 agent ignores the v1 fields and a
//!   v1 agent reads them. (An agent that rewrites the request before reading it, as the
//!   TypeScript SDK's protocol router does for a v1-only agent, may still drop them: that is
//!   why a spawned agent is relaunched instead.)

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use acptk_notice_center::{NoticeCenter, Policy};
use acptk_schema::method::RequestMethod;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;

use super::auth::offered_methods;
use super::dispatch::ClientDispatch;
use super::handler::{ClientHandler, NoServices, Offered};
use super::permission::{PermissionDecision, PermissionRequest};
use super::shared::{Clock, State};
use super::transcript::{self, Transcript};
use super::{Client, ConnectedAgent, Inner, VersionFallback};
use crate::connection::{BoxFuture, Connection, ConnectionBuilder, decode_result_with, to_raw};
use crate::error::Error;
use crate::transport::{AgentCommand, AgentProcess, MessageReader, MessageWriter};
use crate::version::{ByVersion, SUPPORTED_VERSIONS, describe, peek_version};

/// A handler that only answers permission requests, with a function.
struct PermissionFn<F>(F);

impl<F> ClientHandler for PermissionFn<F>
where
    F: Fn(PermissionRequest) -> BoxFuture<PermissionDecision> + Send + Sync + 'static,
{
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<PermissionDecision> {
        (self.0)(request)
    }
}

/// Options of a client connection: set them, then [`connect`](Self::connect) over a pair of
/// byte streams, [`spawn`](Self::spawn) an agent as a child process, or (feature `remote`)
/// connect to a remote agent's URL.
///
/// A v2 client that answers permission requests, connected to an agent over an in-memory
/// pipe (an editor would use [`Self::spawn`] with the agent's command):
///
/// ```
/// use acptk_runtime::agent::{ToolCall, ToolKind};
/// use acptk_runtime::client::transcript::Entry;
/// use acptk_runtime::client::{ClientBuilder, PermissionDecision};
/// use acptk_runtime::prelude::*;
/// use acptk_runtime::ProtocolVersion;
///
/// /// Asks before it "saves", and says what happened.
/// struct Careful;
///
/// impl Agent for Careful {
///     async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
///         let call = session.start_tool_call(ToolCall::new("Save").kind(ToolKind::Edit)).await?;
///         if call.request_permission().await?.allowed() {
///             call.complete("Saved").await?;
///         } else {
///             call.fail("Not allowed").await?;
///         }
///         Ok(StopReason::EndTurn)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), acptk_runtime::Error> {
/// let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
/// let (agent_read, agent_write) = tokio::io::split(agent_io);
/// AgentServer::new(Careful).start(agent_read, agent_write);
///
/// let (client_read, client_write) = tokio::io::split(client_io);
/// let client = ClientBuilder::new()
///     .protocol(ProtocolVersion::V2)
///     .info("my-editor", "0.3.0")
///     // A real editor asks the user; this one allows once whenever it may.
///     .permissions(|request| {
///         let choice = request.choice("allow_once").map(|choice| choice.id.clone());
///         Box::pin(async move {
///             choice.map_or(PermissionDecision::Cancelled, PermissionDecision::Selected)
///         })
///     })
///     .connect(client_read, client_write)
///     .await?;
/// assert_eq!(client.protocol_version(), ProtocolVersion::V2);
/// assert!(client.agent().can_load_sessions());
///
/// let session = client.new_session("/tmp", &[]).await?;
/// assert_eq!(client.prompt(&session, "save it").await?, StopReason::EndTurn);
/// let transcript = client.session_transcript(&session).unwrap_or_default();
/// let statuses: Vec<&str> = transcript.entries.iter().filter_map(|entry| match entry {
///     Entry::ToolCall(call) => Some(call.status.as_str()),
///     _ => None,
/// }).collect();
/// assert_eq!(statuses, ["completed"]);
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct ClientBuilder {
    protocol: ProtocolVersion,
    notices: bool,
    name: String,
    version: String,
    policy: Policy,
    clock: Option<Clock>,
    handler: Option<Arc<dyn ClientHandler>>,
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
            name: "acptk-runtime-client".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            policy: Policy::default(),
            clock: None,
            handler: None,
            connection: ConnectionBuilder::new(),
            transcript_limit: transcript::DEFAULT_TRANSCRIPT_LIMIT,
        }
    }
}

impl ClientBuilder {
    /// Protocol v1, notices on, default notice policy, no services (permission requests
    /// cancelled).
    pub fn new() -> Self {
        Self::default()
    }

    /// The protocol version to propose (1 or 2; default 1). The client also accepts an
    /// older version the agent answers with, down to 1 (see the module docs for what happens
    /// to the capabilities then).
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

    /// What this client offers the agent and how it answers its requests (default:
    /// [`NoServices`]). The capabilities sent in `initialize` are derived from it.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// A shared handler (see [`ClientBuilder::handler`]).
    pub fn shared_handler(mut self, handler: Arc<dyn ClientHandler>) -> Self {
        self.handler = Some(handler);
        self
    }

    /// A handler that answers permission requests with `handler` and offers nothing else (a
    /// shorthand for [`ClientBuilder::handler`]).
    pub fn permissions(
        self,
        handler: impl Fn(PermissionRequest) -> BoxFuture<PermissionDecision> + Send + Sync + 'static,
    ) -> Self {
        self.handler(PermissionFn(handler))
    }

    /// Connection options (line limit, queue sizes, logger). Lines from the agent that are not
    /// JSON are always skipped without an answer
    /// ([`ConnectionBuilder::skip_unparsable`]).
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
        self.connect_inner(reader, writer, None).await
    }

    /// Launches `command` as a child process and connects to it over its stdio. When a v2
    /// request meets a v1 agent, the agent is launched again and initialized as v1 (see the
    /// module docs).
    pub async fn spawn(self, command: &AgentCommand) -> Result<(Client, AgentProcess), Error> {
        let (client, mut process) = self.spawn_once(command, self.protocol).await?;
        if self.protocol == ProtocolVersion::V1 || client.protocol_version() != ProtocolVersion::V1
        {
            return Ok((client, process));
        }
        // A v1 agent: end this one and start over as v1.
        client.close().await;
        let _ = process.shutdown().await;
        let (client, process) = self.spawn_once(command, ProtocolVersion::V1).await?;
        let mut agent = client.inner.agent.clone();
        agent.proposed = self.protocol;
        agent.fallback = Some(VersionFallback::Restarted);
        Ok((client.with_agent(agent), process))
    }

    async fn spawn_once(
        &self,
        command: &AgentCommand,
        protocol: ProtocolVersion,
    ) -> Result<(Client, AgentProcess), Error> {
        let mut process = command.spawn()?;
        let (stdout, stdin) = process
            .take_pipes()
            .ok_or_else(|| Error::Protocol("the agent's pipes are not available".to_owned()))?;
        let builder = ClientBuilder {
            protocol,
            notices: self.notices,
            name: self.name.clone(),
            version: self.version.clone(),
            policy: self.policy.clone(),
            clock: self.clock.clone(),
            handler: self.handler.clone(),
            connection: self.connection.clone(),
            transcript_limit: self.transcript_limit,
        };
        match builder
            .connect_inner(stdout, stdin, Some(command.clone()))
            .await
        {
            Ok(client) => Ok((client, process)),
            Err(error) => {
                // Nothing may outlive a failed start.
                let _ = process.shutdown().await;
                Err(error)
            }
        }
    }

    async fn connect_inner<R, W>(
        self,
        reader: R,
        writer: W,
        command: Option<AgentCommand>,
    ) -> Result<Client, Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.connect_with(command, |options, dispatch| {
            options.start(reader, writer, dispatch)
        })
        .await
    }

    /// Connects over a message transport (a WebSocket, the channels of an HTTP connection)
    /// and runs `initialize`. Asking for v2 and meeting a v1 agent works as with
    /// [`Self::connect`] (the same request carries both versions' fields).
    pub async fn connect_transport<R, W>(self, reader: R, writer: W) -> Result<Client, Error>
    where
        R: MessageReader,
        W: MessageWriter,
    {
        self.connect_with(None, |options, dispatch| {
            options.start_transport(reader, writer, dispatch)
        })
        .await
    }

    /// Starts the connection with `start` (on whatever transport it uses) and runs
    /// `initialize`.
    async fn connect_with(
        self,
        command: Option<AgentCommand>,
        start: impl FnOnce(ConnectionBuilder, ClientDispatch) -> Connection,
    ) -> Result<Client, Error> {
        let clock = self.clock.clone().unwrap_or_else(|| {
            let epoch = Instant::now();
            Arc::new(move || epoch.elapsed())
        });
        let (changes, _) = watch::channel(0);
        let handler = self.handler.clone().unwrap_or_else(|| Arc::new(NoServices));
        let offered = Offered::of(handler.as_ref(), command.is_some());
        let state = Arc::new(State {
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
            handler,
            scopes: Mutex::new(HashMap::new()),
        });
        // An agent's stray output (a login prompt on its standard output) is skipped, never
        // answered.
        let connection = start(
            self.connection.clone().skip_unparsable(true),
            ClientDispatch::new(Arc::clone(&state)),
        );
        let agent = match self.initialize(&connection, &offered).await {
            Ok(agent) => agent,
            Err(error) => {
                connection.close();
                connection.closed().await;
                return Err(error);
            }
        };
        let _ = state.version.set(agent.protocol_version);
        Ok(Client {
            inner: Arc::new(Inner {
                connection,
                agent,
                notices_advertised: self.notices,
                offered,
                agent_command: command,
                state,
            }),
        })
    }

    async fn initialize(
        &self,
        connection: &Connection,
        offered: &Offered,
    ) -> Result<ConnectedAgent, Error> {
        let v1_capabilities = offered.v1_capabilities(self.notices);
        let v1_info = v1::Implementation::new(self.name.as_str(), self.version.as_str());
        let params = if self.protocol == ProtocolVersion::V1 {
            v1::methods::Initialize::encode_params(
                &v1::InitializeRequest::new(ProtocolVersion::V1)
                    .client_capabilities(v1_capabilities)
                    .client_info(v1_info),
            )
            .map_err(Error::Encode)?
        } else {
            let request = v2::InitializeRequest::new(
                self.protocol.get(),
                v2::Implementation::new(self.name.as_str(), self.version.as_str()),
            )
            .capabilities(offered.v2_capabilities());
            // The v1 fields too, for a v1 agent (see the module docs).
            let mut value = serde_json::to_value(&request).map_err(Error::Encode)?;
            if let Some(object) = value.as_object_mut() {
                object.insert(
                    "clientCapabilities".to_owned(),
                    serde_json::to_value(&v1_capabilities).map_err(Error::Encode)?,
                );
                object.insert(
                    "clientInfo".to_owned(),
                    serde_json::to_value(&v1_info).map_err(Error::Encode)?,
                );
            }
            to_raw(&value)?
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
        let auth_methods = offered_methods(&result);
        let fallback = (answered < self.protocol).then_some(VersionFallback::SameRequest);
        Ok(if answered == ProtocolVersion::V1 {
            let response = decode_result_with(
                "initialize",
                &result,
                v1::methods::Initialize::decode_result,
            )?;
            ConnectedAgent {
                protocol_version: answered,
                proposed: self.protocol,
                fallback,
                capabilities: ByVersion::V1(response.agent_capabilities),
                name: response.agent_info.map(|info| info.name),
                auth_methods,
            }
        } else {
            let response = decode_result_with(
                "initialize",
                &result,
                v2::methods::Initialize::decode_result,
            )?;
            ConnectedAgent {
                protocol_version: answered,
                proposed: self.protocol,
                fallback,
                capabilities: ByVersion::V2(response.capabilities),
                name: Some(response.info.name),
                auth_methods,
            }
        })
    }
}
