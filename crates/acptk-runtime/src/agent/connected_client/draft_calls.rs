//! The agent's unstable calls to the client, each behind its cargo feature and its gate:
//!
//! * [`ClientConnection::mcp_request`] (`mcp/message`, `unstable_mcp_over_acp`): only to an
//!   `acp` MCP server that the client offered in a session set-up on this connection, and
//!   only when the agent advertised `acp` servers; the protocol has no client capability for
//!   it, so the client's offer is the gate.
//! * [`ClientConnection::auth_status_update`] (`auth/status_update`, `unstable_auth_status`):
//!   only when the agent advertised `auth.status` on this connection.
//!
//! A call that fails its gate returns [`Error::Protocol`] and sends nothing.

// Each import serves only some of the unstable features, so which are used depends on
// the features built.
#![allow(unused_imports)]

use std::sync::{Arc, Mutex};

use acptk_schema::{v1, v2};

use super::ClientConnection;
use crate::agent::features::{AgentMethod, Offer};
use crate::error::Error;
use crate::lock::lock;
use crate::version::ByVersion;

/// What the unstable calls of one connection check before sending.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gates {
    /// The agent advertised `acp` MCP servers.
    #[cfg(feature = "unstable_mcp_over_acp")]
    mcp_over_acp: bool,
    /// The ids of the `acp` MCP servers the client offered on this connection.
    #[cfg(feature = "unstable_mcp_over_acp")]
    acp_servers: Arc<Mutex<Vec<String>>>,
    /// The agent advertised `auth.status`.
    #[cfg(feature = "unstable_auth_status")]
    auth_status: bool,
}

impl ClientConnection {
    /// The same connection with the gates of what `offer` advertises.
    #[allow(unused_variables, unused_mut)]
    pub(crate) fn gated_by(mut self, offer: &Offer) -> Self {
        #[cfg(feature = "unstable_mcp_over_acp")]
        {
            self.unstable.mcp_over_acp = offer.features().mcp.acp;
        }
        #[cfg(feature = "unstable_auth_status")]
        {
            self.unstable.auth_status =
                crate::agent::features::draft_methods::answers(offer, AgentMethod::AuthStatus);
        }
        self
    }

    /// Notes the ids of the `acp` MCP servers a session set-up offered
    /// ([`McpServerSpec::acp_server_id`](crate::agent::McpServerSpec::acp_server_id)).
    #[allow(unused_variables)]
    pub(crate) fn offered_servers<'a>(&self, server_ids: impl Iterator<Item = &'a str>) {
        #[cfg(feature = "unstable_mcp_over_acp")]
        {
            let mut known = lock(&self.unstable.acp_servers);
            for server_id in server_ids {
                if !known.iter().any(|known| known == server_id) {
                    known.push(server_id.to_owned());
                }
            }
        }
    }

    /// Sends one inner MCP request to one of the client's `acp` MCP servers (`mcp/message`)
    /// and returns the client's answer, which carries the inner MCP result or error. The
    /// request must be of the connection's version ([`Error::WrongVersion`] otherwise) and
    /// name a server the client offered here ([`Error::Protocol`] otherwise, sending nothing).
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub async fn mcp_request(
        &self,
        request: crate::agent::McpRequest,
    ) -> Result<crate::agent::McpResponse, Error> {
        self.may_send(
            request.version(),
            self.unstable.mcp_over_acp,
            "this agent did not advertise `acp` MCP servers, so it cannot send `mcp/message` (nothing was sent)",
        )?;
        let server = match &request {
            ByVersion::V1(request) => request.server_id.to_string(),
            ByVersion::V2(request) => request.server_id.to_string(),
        };
        if !lock(&self.unstable.acp_servers).contains(&server) {
            return Err(Error::Protocol(format!(
                "the client offered no `acp` MCP server `{server}` on this connection (nothing was sent)"
            )));
        }
        Ok(match request {
            ByVersion::V1(request) => {
                ByVersion::V1(self.call::<v1::methods::McpMessage>(None, &request).await?)
            }
            ByVersion::V2(request) => {
                ByVersion::V2(self.call::<v2::methods::McpMessage>(None, &request).await?)
            }
        })
    }

    /// Tells the client that the agent's authentication state changed
    /// (`auth/status_update`). Needs `auth.status` advertised by this agent
    /// ([`UnstableFeatures::auth_status`](crate::agent::UnstableFeatures::auth_status)) and an
    /// update of the connection's version; otherwise nothing is sent.
    #[cfg(feature = "unstable_auth_status")]
    pub async fn auth_status_update(
        &self,
        update: crate::agent::AuthStatusUpdate,
    ) -> Result<(), Error> {
        self.may_send(
            update.version(),
            self.unstable.auth_status,
            "this agent did not advertise `auth.status`, so it sends no `auth/status_update` (nothing was sent)",
        )?;
        match update {
            ByVersion::V1(update) => {
                self.connection
                    .notify::<v1::methods::AuthStatusUpdate>(&update)
                    .await
            }
            ByVersion::V2(update) => {
                self.connection
                    .notify::<v2::methods::AuthStatusUpdate>(&update)
                    .await
            }
        }
    }

    /// Whether a call of `version` that needs what the agent advertised (`advertised`) may
    /// be sent: [`Error::WrongVersion`] for another version, [`Error::Protocol`] with
    /// `refusal` when the agent did not advertise it.
    #[cfg(any(feature = "unstable_mcp_over_acp", feature = "unstable_auth_status"))]
    fn may_send(
        &self,
        version: v1::ProtocolVersion,
        advertised: bool,
        refusal: &str,
    ) -> Result<(), Error> {
        if version != self.protocol_version() {
            return Err(Error::WrongVersion {
                expected: version,
                actual: self.protocol_version(),
            });
        }
        if !advertised {
            return Err(Error::Protocol(refusal.to_owned()));
        }
        Ok(())
    }
}
