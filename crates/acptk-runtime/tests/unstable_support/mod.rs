//! An agent that implements every unstable handler, for the unstable tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use acptk_runtime::ByVersion;
use acptk_runtime::agent::{
    Agent, AgentFeatures, AuthStatus, AuthStatusQuery, ClientConnection, ConfigOption,
    DisableProvider, ListProviders, McpNotification, McpTransports, Modes, OptionsQuery, Prompt,
    ProviderList, Session, SessionConfig, SessionSetup, SetProvider, StopReason, UnstableFeatures,
};
use acptk_runtime::rpc;
use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::{v1, v2};

/// What every session of [`FullAgent`] offers: two modes and one boolean option.
pub fn config() -> SessionConfig {
    SessionConfig::new()
        .modes(Modes::new("ask").mode("ask", "Ask").mode("code", "Code"))
        .option(ConfigOption::boolean("fast", "Fast", false))
}

/// Implements providers, auth status, session options and MCP notifications; records what
/// it was asked in `events`.
#[derive(Default)]
pub struct FullAgent {
    /// The handlers that ran, in order.
    pub events: Arc<Mutex<Vec<String>>>,
}

impl FullAgent {
    fn event(&self, event: String) {
        self.events.lock().unwrap().push(event);
    }
}

impl Agent for FullAgent {
    fn features(&self) -> AgentFeatures {
        AgentFeatures::new()
            .mcp(McpTransports::new().acp(true))
            .unstable(
                UnstableFeatures::new()
                    .providers(true)
                    .auth_status(true)
                    .session_options(true),
            )
    }

    async fn new_session(&self, _setup: &SessionSetup) -> Result<SessionConfig, ErrorObject> {
        Ok(config())
    }

    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let client = session.client_connection();
        let v1 = session.protocol_version() == acptk_runtime::ProtocolVersion::V1;
        // `mcp:SERVER`: one `tools/list` to the client's `acp` server SERVER.
        if let Some(server) = prompt.text.strip_prefix("mcp:") {
            let request = if v1 {
                ByVersion::V1(v1::MessageMcpRequest::new(server, "r1", "tools/list"))
            } else {
                ByVersion::V2(v2::MessageMcpRequest::new(server, "r1", "tools/list"))
            };
            let outcome = match client.mcp_request(request).await {
                Ok(ByVersion::V1(response)) => {
                    format!("ok:{}", serde_json::to_string(&response).unwrap())
                }
                Ok(ByVersion::V2(response)) => {
                    format!("ok:{}", serde_json::to_string(&response).unwrap())
                }
                Err(error) => format!("error:{error}"),
            };
            self.event(format!("mcp {outcome}"));
            return Ok(StopReason::EndTurn);
        }
        // `auth`: an `auth/status_update` saying the user must sign in.
        if prompt.text == "auth" {
            let update = if v1 {
                ByVersion::V1(v1::AuthStatusUpdateNotification::new(
                    v1::AuthState::Unauthenticated,
                ))
            } else {
                ByVersion::V2(v2::AuthStatusUpdateNotification::new(
                    v2::AuthState::Unauthenticated,
                ))
            };
            let outcome = match client.auth_status_update(update).await {
                Ok(()) => "ok".to_owned(),
                Err(error) => format!("error:{error}"),
            };
            self.event(format!("auth {outcome}"));
            return Ok(StopReason::EndTurn);
        }
        session
            .send_text(format!("echo: {}", prompt.text))
            .await
            .map_err(rpc::internal)?;
        Ok(StopReason::EndTurn)
    }

    async fn list_providers(
        &self,
        _client: &ClientConnection,
        request: ListProviders,
    ) -> Result<ProviderList, ErrorObject> {
        self.event("providers/list".to_owned());
        Ok(match request {
            ByVersion::V1(_) => {
                ByVersion::V1(v1::ListProvidersResponse::new(vec![v1::ProviderInfo::new(
                    "main",
                    vec![v1::LlmProtocol::OpenAi],
                    true,
                )]))
            }
            ByVersion::V2(_) => {
                ByVersion::V2(v2::ListProvidersResponse::new(vec![v2::ProviderInfo::new(
                    "main",
                    vec![v2::LlmProtocol::OpenAi],
                    true,
                )]))
            }
        })
    }

    async fn set_provider(
        &self,
        _client: &ClientConnection,
        request: SetProvider,
    ) -> Result<(), ErrorObject> {
        let (id, url) = match &request {
            ByVersion::V1(request) => (request.provider_id.to_string(), request.base_url.clone()),
            ByVersion::V2(request) => (request.provider_id.to_string(), request.base_url.clone()),
        };
        self.event(format!("providers/set:{id}={url}"));
        Ok(())
    }

    async fn disable_provider(
        &self,
        _client: &ClientConnection,
        request: DisableProvider,
    ) -> Result<(), ErrorObject> {
        let id = match &request {
            ByVersion::V1(request) => request.provider_id.to_string(),
            ByVersion::V2(request) => request.provider_id.to_string(),
        };
        self.event(format!("providers/disable:{id}"));
        Ok(())
    }

    async fn auth_status(
        &self,
        _client: &ClientConnection,
        request: AuthStatusQuery,
    ) -> Result<AuthStatus, ErrorObject> {
        Ok(match request {
            ByVersion::V1(_) => {
                ByVersion::V1(v1::AuthStatusResponse::new(v1::AuthState::NotRequired))
            }
            ByVersion::V2(_) => {
                ByVersion::V2(v2::AuthStatusResponse::new(v2::AuthState::NotRequired))
            }
        })
    }

    async fn session_options(&self, query: &OptionsQuery) -> Result<SessionConfig, ErrorObject> {
        self.event(format!("session/options:{}", query.cwd));
        Ok(config())
    }

    async fn mcp_notification(&self, _client: ClientConnection, notification: McpNotification) {
        let method = match &notification {
            ByVersion::V1(message) => message.method.clone(),
            ByVersion::V2(message) => message.method.clone(),
        };
        self.event(format!("mcp/message:{method}"));
    }
}
