//! The unstable methods of the official protocol crate on the client side, each behind the
//! cargo feature of the same name.
//!
//! Typed calls to the agent, each refused before anything is sent when the agent did not
//! advertise the capability it needs (the gate of [`ConnectedAgent::supports`](super::ConnectedAgent::supports)):
//!
//! | call | method | capability |
//! |---|---|---|
//! | [`Client::list_providers`], [`Client::set_provider`], [`Client::disable_provider`] | `providers/*` | `providers` |
//! | [`Client::auth_status`] | `auth/status` | `auth.status` |
//! | [`Client::fork_session`] | `session/fork` | session `fork` |
//! | [`Client::archive_session`], [`Client::unarchive_session`] | `session/archive`, `session/unarchive` | session `archive` |
//! | [`Client::list_sessions_archived`] | `session/list` with an archive filter | session `archive` |
//! | [`Client::session_status`] | `session/status` | session `status` |
//! | [`Client::session_options`] | `session/options` | session `options` |
//! | [`Client::set_session_title`] | `session/set_title` | session `title` |
//! | [`Client::mcp_notify`] | `mcp/message` (notification) | MCP `acp` |
//!
//! What the agent may send: `mcp/message` requests go to the handler's [`McpOverAcp`]
//! service (`-32601` without one) and `auth/status_update` to
//! [`ClientHandler::auth_status_update`](super::ClientHandler::auth_status_update) (ignored by
//! default). Neither has a client capability in the protocol: a client offers `acp` MCP servers
//! in its session set-up only when it serves them.

// Each import serves only some of the unstable features, so which are used depends on
// the features built.
#![allow(unused_imports)]

use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::Client;
use super::controls::SessionControls;
use super::sessions::{SessionOptions, v1_controls, v2_controls, v2_dirs};
use super::shared::State;
use crate::connection::{BoxFuture, Reply};
use crate::error::Error;
use crate::rpc;
use crate::version::ByVersion;

/// Serves the client's `acp` MCP servers to the agent (`mcp/message` requests, cargo feature
/// `unstable_mcp_over_acp`).
#[cfg(feature = "unstable_mcp_over_acp")]
pub trait McpOverAcp: Send + Sync {
    /// Answers one inner MCP request for one of the client's servers. An inner MCP failure is
    /// an `Ok` response carrying the MCP error; `Err` is for failures of the ACP binding (an
    /// unknown server, for example).
    fn message(
        &self,
        request: crate::draft_payloads::McpRequest,
    ) -> BoxFuture<Result<crate::draft_payloads::McpResponse, ErrorObject>>;
}

/// Whether a v1 agent's capabilities advertise the unstable `method`; `None` for a method
/// that is not one of the unstable ones.
#[allow(unused_variables, unreachable_code)]
pub(super) fn supports_v1(capabilities: &v1::AgentCapabilities, method: &str) -> Option<bool> {
    #[allow(unused_variables)]
    let session = &capabilities.session_capabilities;
    Some(match method {
        #[cfg(feature = "unstable_llm_providers")]
        "providers/list" | "providers/set" | "providers/disable" => {
            capabilities.providers.is_some()
        }
        #[cfg(feature = "unstable_auth_status")]
        "auth/status" => capabilities.auth.status.is_some(),
        #[cfg(feature = "unstable_session_fork")]
        "session/fork" => session.fork.is_some(),
        #[cfg(feature = "unstable_session_archive")]
        "session/archive" | "session/unarchive" => session.archive.is_some(),
        #[cfg(feature = "unstable_session_status")]
        "session/status" => session.status.is_some(),
        #[cfg(feature = "unstable_session_options")]
        "session/options" => session.options.is_some(),
        #[cfg(feature = "unstable_session_set_title")]
        "session/set_title" => session.title.is_some(),
        #[cfg(feature = "unstable_mcp_over_acp")]
        "mcp/message" => capabilities.mcp_capabilities.acp,
        _ => return None,
    })
}

/// Whether a v2 agent's capabilities advertise the unstable `method`; `None` for a method
/// that is not one of the unstable ones.
#[allow(unused_variables, unreachable_code)]
pub(super) fn supports_v2(capabilities: &v2::AgentCapabilities, method: &str) -> Option<bool> {
    #[allow(unused_variables)]
    let session =
        |has: fn(&v2::SessionCapabilities) -> bool| capabilities.session.as_ref().is_some_and(has);
    Some(match method {
        #[cfg(feature = "unstable_llm_providers")]
        "providers/list" | "providers/set" | "providers/disable" => {
            capabilities.providers.is_some()
        }
        #[cfg(feature = "unstable_auth_status")]
        "auth/status" => capabilities
            .auth
            .as_ref()
            .is_some_and(|auth| auth.status.is_some()),
        #[cfg(feature = "unstable_session_fork")]
        "session/fork" => session(|session| session.fork.is_some()),
        #[cfg(feature = "unstable_session_archive")]
        "session/archive" | "session/unarchive" => session(|session| session.archive.is_some()),
        #[cfg(feature = "unstable_session_status")]
        "session/status" => session(|session| session.status.is_some()),
        #[cfg(feature = "unstable_session_options")]
        "session/options" => session(|session| session.options.is_some()),
        #[cfg(feature = "unstable_session_set_title")]
        "session/set_title" => session(|session| session.title.is_some()),
        #[cfg(feature = "unstable_mcp_over_acp")]
        "mcp/message" => {
            session(|session| session.mcp.as_ref().is_some_and(|mcp| mcp.acp.is_some()))
        }
        _ => return None,
    })
}

/// Writes the answer to one version's unstable agent requests and the hand-over of its
/// unstable notifications (the methods are the same in both versions, the types are not).
macro_rules! unstable_from_agent {
    ($request:ident, $notification:ident, $version:ident, $side:ident, $other:ident, $mismatch:literal) => {
        /// Answers an unstable request of the agent (any other answers `-32601`).
        #[allow(unused_variables)]
        pub(super) async fn $request(state: &State, request: $version::AgentRequest) -> Reply {
            match request {
                #[cfg(feature = "unstable_mcp_over_acp")]
                $version::AgentRequest::McpMessage(request) => match state.handler.mcp_over_acp() {
                    Some(service) => match service.message(ByVersion::$side(request)).await {
                        Ok(ByVersion::$side(response)) => Reply::ok(&response),
                        Ok(ByVersion::$other(_)) => Reply::error(rpc::internal($mismatch)),
                        Err(error) => Reply::error(error),
                    },
                    None => Reply::error(rpc::method_not_found("mcp/message")),
                },
                other => Reply::error(rpc::method_not_found(other.method())),
            }
        }

        /// Hands an unstable notification of the agent to the handler (others are ignored).
        #[allow(unused_variables)]
        pub(super) fn $notification(state: &State, notification: $version::AgentNotification) {
            #[cfg(feature = "unstable_auth_status")]
            if let $version::AgentNotification::AuthStatusUpdate(update) = notification {
                state.handler.auth_status_update(ByVersion::$side(update));
            }
        }
    };
}

unstable_from_agent!(
    request_v1,
    notification_v1,
    v1,
    V1,
    V2,
    "the MCP service answered a v1 request in v2"
);
unstable_from_agent!(
    request_v2,
    notification_v2,
    v2,
    V2,
    V1,
    "the MCP service answered a v2 request in v1"
);

/// An LLM provider as `providers/list` reports it.
#[cfg(feature = "unstable_llm_providers")]
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProviderSummary {
    /// Its id, for [`Client::set_provider`] and [`Client::disable_provider`].
    pub id: String,
    /// The API protocols it can speak (`openai`, `anthropic`, ...).
    pub supported: Vec<String>,
    /// Whether the agent needs it configured (it cannot be disabled).
    pub required: bool,
    /// Its current configuration: the protocol and the base URL; `None` when it is off.
    pub current: Option<(String, String)>,
}

/// Reads one provider of either version (the shapes are the same).
#[cfg(feature = "unstable_llm_providers")]
macro_rules! provider_summary {
    ($info:expr) => {{
        let info = $info;
        ProviderSummary {
            id: info.provider_id.as_str().to_owned(),
            supported: info
                .supported
                .iter()
                .map(|protocol| protocol.as_str().to_owned())
                .collect(),
            required: info.required,
            current: info.current.as_ref().map(|current| {
                (
                    current.api_type.as_str().to_owned(),
                    current.base_url.clone(),
                )
            }),
        }
    }};
}

/// What `session/status` reports.
#[cfg(feature = "unstable_session_status")]
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionStatusReport {
    /// `open` (in memory for some connection), `saved` (only stored), or a value this
    /// runtime does not know (to be treated like `saved`).
    pub status: String,
    /// v2: whether a turn is running, when the agent says; `None` in v1 and when absent.
    pub running: Option<bool>,
}

#[cfg(feature = "unstable_session_status")]
impl SessionStatusReport {
    /// Whether the agent has the session in memory.
    pub fn is_open(&self) -> bool {
        self.status == "open"
    }
}

impl Client {
    /// The agent's LLM providers (`providers/list`).
    #[cfg(feature = "unstable_llm_providers")]
    pub async fn list_providers(&self) -> Result<Vec<ProviderSummary>, Error> {
        self.agent().check("providers/list")?;
        request_in_version!(
            self,
            ProvidersList,
            v::ListProvidersRequest::new(),
            |response| response
                .providers
                .iter()
                .map(|info| provider_summary!(info))
                .collect()
        )
    }

    /// Replaces the configuration of provider `id` (`providers/set`): the API protocol, the
    /// base URL and the complete set of extra headers.
    #[cfg(feature = "unstable_llm_providers")]
    pub async fn set_provider(
        &self,
        id: &str,
        api_type: &str,
        base_url: &str,
        headers: &[(String, String)],
    ) -> Result<(), Error> {
        self.agent().check("providers/set")?;
        let headers: std::collections::BTreeMap<String, String> = headers.iter().cloned().collect();
        request_in_version!(
            self,
            ProvidersSet,
            v::SetProviderRequest::new(id, api_type, base_url).headers(headers)
        )
    }

    /// Switches provider `id` off (`providers/disable`).
    #[cfg(feature = "unstable_llm_providers")]
    pub async fn disable_provider(&self, id: &str) -> Result<(), Error> {
        self.agent().check("providers/disable")?;
        request_in_version!(self, ProvidersDisable, v::DisableProviderRequest::new(id))
    }

    /// The agent's authentication state (`auth/status`), in the connection's version.
    #[cfg(feature = "unstable_auth_status")]
    pub async fn auth_status(&self) -> Result<crate::draft_payloads::AuthStatus, Error> {
        self.agent().check("auth/status")?;
        let connection = &self.inner.connection;
        Ok(if self.protocol_version() == ProtocolVersion::V1 {
            ByVersion::V1(
                connection
                    .request::<v1::methods::AuthStatus>(&v1::AuthStatusRequest::new())
                    .await?,
            )
        } else {
            ByVersion::V2(
                connection
                    .request::<v2::methods::AuthStatus>(&v2::AuthStatusRequest::new())
                    .await?,
            )
        })
    }

    /// Forks session `source` into a new session set up with `options` (`session/fork`) and
    /// returns the new id; the new session is open here like one from
    /// [`Client::open_session`], with its controls in [`Client::session_controls`].
    #[cfg(feature = "unstable_session_fork")]
    pub async fn fork_session(
        &self,
        source: &str,
        options: &SessionOptions,
    ) -> Result<String, Error> {
        self.agent().check("session/fork")?;
        let connection = &self.inner.connection;
        let directories = self.directories(options);
        let opened = if self.protocol_version() == ProtocolVersion::V1 {
            let servers: Vec<v1::McpServer> =
                self.servers(&options.mcp_servers, super::mcp::mcp_v1);
            let request = v1::ForkSessionRequest::new(source, options.cwd.as_str())
                .mcp_servers(servers)
                .additional_directories(directories.clone());
            let response = connection
                .request::<v1::methods::SessionFork>(&request)
                .await?;
            super::sessions::Opened::parts(response)
        } else {
            let servers: Vec<v2::McpServer> =
                self.servers(&options.mcp_servers, super::mcp::mcp_v2);
            let request = v2::ForkSessionRequest::new(source, options.cwd.as_str())
                .mcp_servers(servers)
                .additional_directories(super::sessions::v2_dirs(&directories));
            let response = connection
                .request::<v2::methods::SessionFork>(&request)
                .await?;
            super::sessions::Opened::parts(response)
        };
        Ok(self.opened(opened, options, &directories))
    }

    /// Hides a session from the agent's default session list (`session/archive`); the
    /// agent closes it if it is open.
    #[cfg(feature = "unstable_session_archive")]
    pub async fn archive_session(&self, session: &str) -> Result<(), Error> {
        self.agent().check("session/archive")?;
        request_in_version!(self, SessionArchive, v::ArchiveSessionRequest::new(session))
    }

    /// Returns an archived session to the default list (`session/unarchive`).
    #[cfg(feature = "unstable_session_archive")]
    pub async fn unarchive_session(&self, session: &str) -> Result<(), Error> {
        self.agent().check("session/unarchive")?;
        request_in_version!(
            self,
            SessionUnarchive,
            v::UnarchiveSessionRequest::new(session)
        )
    }

    /// One page of `session/list` with an archive filter: `exclude` (the default list),
    /// `include` or `only`; each session says whether it is archived.
    #[cfg(feature = "unstable_session_archive")]
    pub async fn list_sessions_archived(
        &self,
        cwd: Option<&str>,
        cursor: Option<&str>,
        filter: &str,
    ) -> Result<super::SessionPage, Error> {
        self.agent().check("session/archive")?;
        self.list_page(cwd, cursor, Some(filter)).await
    }

    /// Whether the agent has a session in memory (`session/status`); changes nothing.
    #[cfg(feature = "unstable_session_status")]
    pub async fn session_status(&self, session: &str) -> Result<SessionStatusReport, Error> {
        self.agent().check("session/status")?;
        let connection = &self.inner.connection;
        Ok(if self.protocol_version() == ProtocolVersion::V1 {
            let response = connection
                .request::<v1::methods::SessionStatus>(&v1::SessionStatusRequest::new(session))
                .await?;
            SessionStatusReport {
                status: response.status.as_str().to_owned(),
                running: None,
            }
        } else {
            let response = connection
                .request::<v2::methods::SessionStatus>(&v2::SessionStatusRequest::new(session))
                .await?;
            SessionStatusReport {
                status: response.status.as_str().to_owned(),
                running: response.state.as_ref().and_then(|state| match state {
                    v2::StateUpdate::Running(_) => Some(true),
                    v2::StateUpdate::Idle(_) => Some(false),
                    _ => None,
                }),
            }
        })
    }

    /// The modes and config options a session set up with `options` would start with
    /// (`session/options`), or, with `session`, what reopening that stored session would
    /// give. Creates nothing.
    #[cfg(feature = "unstable_session_options")]
    pub async fn session_options(
        &self,
        options: &SessionOptions,
        session: Option<&str>,
    ) -> Result<SessionControls, Error> {
        self.agent().check("session/options")?;
        let connection = &self.inner.connection;
        let directories = self.directories(options);
        Ok(if self.protocol_version() == ProtocolVersion::V1 {
            let mut request = v1::SessionOptionsRequest::new(options.cwd.as_str())
                .additional_directories(directories);
            if let Some(session) = session {
                request = request.session_id(session);
            }
            let response = connection
                .request::<v1::methods::SessionOptions>(&request)
                .await?;
            v1_controls(response.modes.as_ref(), response.config_options.as_deref())
        } else {
            let mut request = v2::SessionOptionsRequest::new(options.cwd.as_str())
                .additional_directories(v2_dirs(&directories));
            if let Some(session) = session {
                request = request.session_id(session);
            }
            let response = connection
                .request::<v2::methods::SessionOptions>(&request)
                .await?;
            v2_controls(&response.config_options)
        })
    }

    /// Renames a session (`session/set_title`) and returns the title as the agent stored it,
    /// which is the one to show.
    #[cfg(feature = "unstable_session_set_title")]
    pub async fn set_session_title(&self, session: &str, title: &str) -> Result<String, Error> {
        self.agent().check("session/set_title")?;
        request_in_version!(
            self,
            SessionSetTitle,
            v::SetSessionTitleRequest::new(session, title),
            |response| response.title
        )
    }

    /// Sends the agent an inner MCP message about its request `request_id` to the client's
    /// `acp` server `server_id` (an `mcp/message` notification, such as a progress update).
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub async fn mcp_notify(
        &self,
        server_id: &str,
        request_id: &str,
        method: &str,
        params: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<(), Error> {
        self.agent().check("mcp/message")?;
        notify_in_version!(self, McpMessageNotify, {
            let mut message = v::MessageMcpNotification::new(server_id, request_id, method);
            if let Some(params) = params {
                message = message.params(params);
            }
            message
        })
    }
}
