//! The requests and results of the unstable methods `providers/*`, `auth/status` and
//! `mcp/message` (each behind the cargo feature of the same name): the same shape in both
//! versions but distinct types, so [`ByVersion`] values in the connection's version. The
//! agent gets and gives them in its handlers, the client in its calls.

// Each import serves only some of the unstable features.
#![allow(unused_imports)]

use acptk_schema::{v1, v2};

use crate::version::ByVersion;

/// `providers/list`, in the connection's version.
#[cfg(feature = "unstable_llm_providers")]
pub type ListProviders = ByVersion<v1::ListProvidersRequest, v2::ListProvidersRequest>;
/// The answer to [`ListProviders`], in the same version.
#[cfg(feature = "unstable_llm_providers")]
pub type ProviderList = ByVersion<v1::ListProvidersResponse, v2::ListProvidersResponse>;
/// `providers/set`, in the connection's version.
#[cfg(feature = "unstable_llm_providers")]
pub type SetProvider = ByVersion<v1::SetProviderRequest, v2::SetProviderRequest>;
/// `providers/disable`, in the connection's version.
#[cfg(feature = "unstable_llm_providers")]
pub type DisableProvider = ByVersion<v1::DisableProviderRequest, v2::DisableProviderRequest>;
/// `auth/status`, in the connection's version.
#[cfg(feature = "unstable_auth_status")]
pub type AuthStatusQuery = ByVersion<v1::AuthStatusRequest, v2::AuthStatusRequest>;
/// The answer to [`AuthStatusQuery`], in the same version.
#[cfg(feature = "unstable_auth_status")]
pub type AuthStatus = ByVersion<v1::AuthStatusResponse, v2::AuthStatusResponse>;
/// An `auth/status_update` notification for the client, in the connection's version.
#[cfg(feature = "unstable_auth_status")]
pub type AuthStatusUpdate =
    ByVersion<v1::AuthStatusUpdateNotification, v2::AuthStatusUpdateNotification>;
/// An `mcp/message` notification from the client (an MCP message about a request the agent
/// made to one of the client's `acp` MCP servers), in the connection's version.
#[cfg(feature = "unstable_mcp_over_acp")]
pub type McpNotification = ByVersion<v1::MessageMcpNotification, v2::MessageMcpNotification>;
/// An `mcp/message` request to one of the client's `acp` MCP servers, in the connection's
/// version.
#[cfg(feature = "unstable_mcp_over_acp")]
pub type McpRequest = ByVersion<v1::MessageMcpRequest, v2::MessageMcpRequest>;
/// The client's answer to an [`McpRequest`], in the same version.
#[cfg(feature = "unstable_mcp_over_acp")]
pub type McpResponse = ByVersion<v1::MessageMcpResponse, v2::MessageMcpResponse>;
