//! Proxy chains (cargo feature `unstable_proxy_chains`): the messages between a conductor and
//! the proxies it runs between a client and an agent. Ordinary clients and agents never see
//! them. Same shape in every protocol version; the method tables are `ProxyRequest` /
//! `ProxyResponse` and `ProxyNotification` in this version's `methods`.
//!
//! The conductor starts every component that has a successor with `proxy/initialize` instead
//! of `initialize` (same params and answer); before answering, the proxy initialises its
//! successor through `proxy/successor`. From then on `proxy/successor` carries every message
//! between a proxy and its successor, in both directions, wrapped with its method and params.
//! The wrapped request's result or error comes back unchanged as that of the `proxy/successor`
//! request; `$/cancel_request` for it is never forwarded to another hop.

#[allow(unused_imports)]
use super::*;

use serde::{Deserialize, Serialize};

/// `proxy/initialize` parameters: exactly the `initialize` params, telling the component to run
/// as a proxy. The protocol version is the one the conductor selected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
#[non_exhaustive]
pub struct InitializeProxyRequest {
    /// The `initialize` params, unchanged.
    pub initialize: InitializeRequest,
}

impl InitializeProxyRequest {
    /// Wraps the `initialize` params to send.
    pub fn new(initialize: InitializeRequest) -> Self {
        Self { initialize }
    }
}

impl From<InitializeRequest> for InitializeProxyRequest {
    fn from(initialize: InitializeRequest) -> Self {
        Self::new(initialize)
    }
}

/// The answer to `proxy/initialize`: exactly an `initialize` answer, built from the
/// successor's, with the capabilities of the chain from this proxy on. The proxy does not
/// change `protocolVersion`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
#[non_exhaustive]
pub struct InitializeProxyResponse {
    /// The `initialize` answer, unchanged.
    pub initialize: InitializeResponse,
}

impl InitializeProxyResponse {
    /// Wraps the `initialize` answer to send.
    pub fn new(initialize: InitializeResponse) -> Self {
        Self { initialize }
    }
}

impl From<InitializeResponse> for InitializeProxyResponse {
    fn from(initialize: InitializeResponse) -> Self {
        Self::new(initialize)
    }
}

twin_structs! {
    {
        /// The method of the wrapped message.
        pub method: String,
        /// The params of the wrapped message, unchanged (an object or an array; its
        /// own `_meta` stays inside). Absent or `null`: it has none.
        #[opt]
        pub params: Option<crate::RawJson>,
    }
    /// An envelope for a `method` message without params.
    new(method: impl Into<String>) { params: None, meta: None }
    setters { opt params: crate::RawJson }
    /// `proxy/successor` request parameters: a request to pass on, from a proxy to its
    /// successor or (sent by the conductor) from the successor to the proxy. The envelope's
    /// `_meta` belongs to this hop only and is not copied into the unwrapped request.
    ///
    /// ```json
    /// {"method": "session/prompt", "params": {"sessionId": "s1", "prompt": []}}
    /// ```
    ProxySuccessorRequest;
    /// `proxy/successor` notification parameters: a notification to pass on, in either
    /// direction. The envelope's `_meta` belongs to this hop only.
    ProxySuccessorNotification;
}

/// The answer to a `proxy/successor` request: the wrapped request's result, unchanged (any
/// JSON value, `null` included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
#[non_exhaustive]
pub struct ProxySuccessorResponse(pub crate::RawJson);

impl ProxySuccessorResponse {
    /// Wraps the successor's result.
    pub fn new(result: crate::RawJson) -> Self {
        Self(result)
    }
}
