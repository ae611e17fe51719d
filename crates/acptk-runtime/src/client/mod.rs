//! The client side: connect to an agent with [`ClientBuilder`], then drive it with
//! [`Client`].
//!
//! * **What the agent may ask** (permission, files, terminals, elicitation, terminal logins)
//!   is answered by a [`ClientHandler`]; the capabilities advertised in `initialize` are
//!   derived from what the handler offers. [`LocalFiles`] and [`LocalTerminals`] are ready-made
//!   services for a client that works on the local machine.
//! * **What the client may ask** has a typed call each: [`Client::authenticate`] and
//!   [`Client::logout`], the session calls ([`Client::open_session`],
//!   [`Client::load_session_with`], [`Client::resume_session`], [`Client::list_sessions`],
//!   [`Client::close_session`], [`Client::delete_session`]), the session controls
//!   ([`Client::set_mode`], [`Client::set_config_option`]) and the turn ([`Client::prompt`],
//!   [`Client::cancel`]).
//! * **What the agent streams** is sorted as it arrives: notices go to an
//!   [`acptk_notice_center::NoticeCenter`], everything else to a [`Transcript`], which by
//!   construction never holds a notice. A client with a notice center advertises
//!   `session.notices` in v1 automatically. A notice that arrives during a replay (v1: before
//!   the `session/load` response; v2: before `replay_complete`) is not shown; it is counted
//!   ([`Client::violations`]) and logged.

#[macro_use]
mod versioned;

mod auth;
mod builder;
pub mod controls;
mod diff_summary;
mod dispatch;
mod draft_methods;
mod fs;
mod handler;
mod mcp;
mod permission;
#[cfg(feature = "remote")]
mod remote;
mod sessions;
mod shared;
mod terminals;
pub mod transcript;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_notice_center::NoticeCenter;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};
use tokio::sync::{oneshot, watch};

pub use auth::{AuthKind, AuthMethod};
pub use builder::ClientBuilder;
pub use controls::{
    ConfigKind, ConfigOption, ConfigValue, ModeState, SessionControls, SessionMode,
};
#[cfg(feature = "unstable_mcp_over_acp")]
pub use draft_methods::McpOverAcp;
#[cfg(feature = "unstable_llm_providers")]
pub use draft_methods::ProviderSummary;
#[cfg(feature = "unstable_session_status")]
pub use draft_methods::SessionStatusReport;
pub use fs::{LocalFiles, MAX_READ_BYTES};
pub use handler::{
    Action, ClientHandler, Consent, CreateTerminal, ElicitationComplete, ElicitationModes,
    ElicitationRequest, ElicitationResponse, Elicitations, LoginCommand, NoServices, Offered,
    ReadFiles, ReadTextFile, SessionScope, TerminalExit, TerminalLogin, TerminalOutput,
    TerminalRef, Terminals, WriteFiles, WriteTextFile,
};
pub use permission::{PermissionChoice, PermissionDecision, PermissionRequest};
pub use sessions::{SessionOptions, SessionPage, SessionSummary};
pub use shared::{Clock, Violations};
pub use terminals::{
    DEFAULT_OUTPUT_LIMIT, LocalTerminals, MAX_TERMINALS, RELEASED_KEPT, RELEASED_TAIL_BYTES,
    TerminalTail,
};
pub use transcript::{SessionTranscript, Transcript};

use crate::connection::Connection;
use crate::error::Error;
use crate::lock::lock;
use crate::mcp_server::McpServerSpec;
use crate::stop_reason::StopReason;
use crate::transport::AgentCommand;
use crate::version::ByVersion;

/// How the client ended up speaking an older version than it proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum VersionFallback {
    /// The agent answered the first `initialize` with an older version and read the client's
    /// capabilities from the v1 fields that request also carried.
    SameRequest,
    /// The agent answered v1 to a v2 request, so it was launched again and initialized as v1.
    Restarted,
}

/// The agent on the other end of a client connection, as learnt from `initialize`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectedAgent {
    /// The negotiated protocol version.
    pub protocol_version: ProtocolVersion,
    /// The version the client proposed.
    pub proposed: ProtocolVersion,
    /// How the client fell back to an older version, if it did.
    pub fallback: Option<VersionFallback>,
    /// The agent's capabilities.
    pub capabilities: ByVersion<v1::AgentCapabilities, v2::AgentCapabilities>,
    /// The agent's name, if it said.
    pub name: Option<String>,
    /// The sign-in methods it offered (every kind, see [`AuthMethod`]).
    pub auth_methods: Vec<AuthMethod>,
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

    /// Whether session set-up may carry additional directories.
    pub fn accepts_additional_directories(&self) -> bool {
        match &self.capabilities {
            ByVersion::V1(capabilities) => capabilities
                .session_capabilities
                .additional_directories
                .is_some(),
            ByVersion::V2(capabilities) => capabilities
                .session
                .as_ref()
                .is_some_and(|session| session.additional_directories.is_some()),
        }
    }

    /// Whether the agent takes MCP servers of `server`'s transport in session set-up: in v1
    /// stdio always, `http` and `sse` when `mcpCapabilities` says so; in v2 each transport
    /// (`stdio`, `http`) only when `session.mcp` lists it. A transport the version has no
    /// capability for (v2 `sse`, a kind this runtime does not know) is never taken.
    pub fn accepts_mcp_server(&self, server: &McpServerSpec) -> bool {
        match &self.capabilities {
            ByVersion::V1(capabilities) => {
                let mcp = &capabilities.mcp_capabilities;
                match server.kind() {
                    "stdio" => true,
                    "http" => mcp.http,
                    "sse" => mcp.sse,
                    #[cfg(feature = "unstable_mcp_over_acp")]
                    "acp" => mcp.acp,
                    _ => false,
                }
            }
            ByVersion::V2(capabilities) => {
                let Some(mcp) = capabilities
                    .session
                    .as_ref()
                    .and_then(|session| session.mcp.as_ref())
                else {
                    return false;
                };
                match server.kind() {
                    "stdio" => mcp.stdio.is_some(),
                    "http" => mcp.http.is_some(),
                    #[cfg(feature = "unstable_mcp_over_acp")]
                    "acp" => mcp.acp.is_some(),
                    _ => false,
                }
            }
        }
    }

    /// Whether the agent advertised the client-side method `method`. Methods every agent
    /// implements (`session/new`, `session/prompt`, ... and the v2 baseline `session/list`,
    /// `session/resume`, `session/close`) count as advertised; `authenticate`/`auth/login`
    /// need a non-empty list of auth methods. The unstable methods (with their cargo
    /// features) need the capability each implies.
    pub fn supports(&self, method: &str) -> bool {
        let unstable = match &self.capabilities {
            ByVersion::V1(capabilities) => draft_methods::supports_v1(capabilities, method),
            ByVersion::V2(capabilities) => draft_methods::supports_v2(capabilities, method),
        };
        if let Some(advertised) = unstable {
            return advertised;
        }
        match &self.capabilities {
            ByVersion::V1(capabilities) => {
                let session = &capabilities.session_capabilities;
                match method {
                    "session/load" => capabilities.load_session,
                    "session/list" => session.list.is_some(),
                    "session/resume" => session.resume.is_some(),
                    "session/close" => session.close.is_some(),
                    "session/delete" => session.delete.is_some(),
                    "logout" => capabilities.auth.logout.is_some(),
                    "authenticate" => !self.auth_methods.is_empty(),
                    _ => true,
                }
            }
            ByVersion::V2(capabilities) => match method {
                "session/delete" => capabilities
                    .session
                    .as_ref()
                    .is_some_and(|session| session.delete.is_some()),
                "auth/login" | "auth/logout" => !self.auth_methods.is_empty(),
                _ => true,
            },
        }
    }

    /// `Ok` when [`ConnectedAgent::supports`] the method, else an error naming it.
    pub fn check(&self, method: &str) -> Result<(), Error> {
        if self.supports(method) {
            Ok(())
        } else {
            Err(Error::Protocol(format!(
                "the agent did not advertise `{method}` in its capabilities"
            )))
        }
    }
}

struct Inner {
    connection: Connection,
    agent: ConnectedAgent,
    notices_advertised: bool,
    offered: Offered,
    agent_command: Option<AgentCommand>,
    state: Arc<shared::State>,
}

/// A connected client. Cheap to clone; clones share the connection, the notice center and
/// the transcript.
///
/// Made by [`ClientBuilder`]. Sessions belong to the agent, not to the connection: a second
/// connection to the same agent lists a session and loads it, its history replayed into this
/// client's transcript:
///
/// ```
/// use acptk_runtime::client::transcript::Entry;
/// use acptk_runtime::client::{Client, ClientBuilder};
/// use acptk_runtime::prelude::*;
///
/// struct Echo;
///
/// impl Agent for Echo {
///     async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
///         session.send_text(format!("You said: {}", prompt.text)).await?;
///         Ok(StopReason::EndTurn)
///     }
/// }
///
/// /// A new connection to `server`, over an in-memory pipe.
/// async fn connect(server: &AgentServer<Echo>) -> Result<Client, acptk_runtime::Error> {
///     let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
///     let (agent_read, agent_write) = tokio::io::split(agent_io);
///     server.start(agent_read, agent_write);
///     let (client_read, client_write) = tokio::io::split(client_io);
///     ClientBuilder::new().connect(client_read, client_write).await
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), acptk_runtime::Error> {
/// let server = AgentServer::new(Echo);
///
/// let first = connect(&server).await?;
/// let session = first.new_session("/work/project", &[]).await?;
/// first.prompt(&session, "hello").await?;
/// first.close().await;
///
/// let second = connect(&server).await?;
/// let page = second.list_sessions(Some("/work/project"), None).await?;
/// assert_eq!(page.sessions.len(), 1);
/// assert_eq!(page.sessions[0].id, session);
///
/// second.load_session(&session, "/work/project", &[]).await?;
/// let transcript = second.session_transcript(&session).unwrap_or_default();
/// let texts: Vec<&str> = transcript.entries.iter().filter_map(|entry| match entry {
///     Entry::Message(message) => Some(message.text.as_str()),
///     _ => None,
/// }).collect();
/// assert_eq!(texts, ["hello", "You said: hello"]);
/// # Ok(())
/// # }
/// ```
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

impl Client {
    /// The same client with other facts about the agent (after a relaunch).
    fn with_agent(self, agent: ConnectedAgent) -> Self {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.agent = agent;
                Client {
                    inner: Arc::new(inner),
                }
            }
            Err(inner) => Client { inner },
        }
    }

    /// `specs` as the negotiated version sends them; a server whose transport that version
    /// does not have, or that the agent did not advertise
    /// ([`ConnectedAgent::accepts_mcp_server`]), is left out, with a warning in the log.
    fn servers<T>(
        &self,
        specs: &[McpServerSpec],
        convert: fn(&McpServerSpec) -> Option<T>,
    ) -> Vec<T> {
        let warn = |spec: &McpServerSpec, why: String| {
            self.inner.connection.logger().log(
                crate::log::Level::Warn,
                format!("left out MCP server `{}`: {why}", spec.name()),
            );
        };
        specs
            .iter()
            .filter_map(|spec| {
                let Some(converted) = convert(spec) else {
                    warn(
                        spec,
                        format!("ACP v{} has no such transport", self.protocol_version()),
                    );
                    return None;
                };
                if !self.agent().accepts_mcp_server(spec) {
                    warn(
                        spec,
                        format!(
                            "the agent did not advertise the `{}` transport",
                            spec.kind()
                        ),
                    );
                    return None;
                }
                Some(converted)
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

    /// What this client offered the agent in `initialize`.
    pub fn offered(&self) -> Offered {
        self.inner.offered
    }

    /// The agent, as learnt from `initialize`.
    pub fn agent(&self) -> &ConnectedAgent {
        &self.inner.agent
    }

    /// The command the agent was launched with, when this client launched it.
    pub fn agent_command(&self) -> Option<&AgentCommand> {
        self.inner.agent_command.as_ref()
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

    /// The directories a session was opened with here.
    pub fn session_scope(&self, session: &str) -> Option<SessionScope> {
        lock(&self.inner.state.scopes).get(session).cloned()
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

    /// Sends a text prompt and waits for the end of the turn: the `session/prompt` response
    /// in v1, the idle `state_update` in v2 (a v2 turn that ends with an `error` stop reason
    /// fails with [`Error::Rpc`] carrying the agent's error). The prompt is added to the
    /// transcript at once; the v2 echo of it (`user_message`) takes its place rather than
    /// adding a second copy.
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
                Ok(response) => {
                    self.with_transcript(|transcript| {
                        transcript.confirm_user_message(session, response.message_id.as_str());
                    });
                    match rx.await {
                        Ok(Ok(stop)) => Ok(stop),
                        Ok(Err(error)) => Err(Error::Rpc(error)),
                        Err(_) => Err(Error::ConnectionClosed),
                    }
                }
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

    /// Hangs up on the agent and waits until the connection has ended (the agent sees the
    /// end of its input). Other clones of this client see the connection closed.
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
