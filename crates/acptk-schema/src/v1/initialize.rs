//! The `initialize` handshake of ACP v1: version negotiation and capability exchange.

#[allow(unused_imports)]
use super::*;

impl ProtocolVersion {
    /// The newest version this module implements: [`ProtocolVersion::V1`].
    pub const LATEST: Self = Self::V1;
}

wire_struct! {
    /// The agent's answer to `initialize`.
    ///
    /// ```json
    /// {"protocolVersion": 1, "agentCapabilities": {"loadSession": true}, "authMethods": []}
    /// ```
    pub struct InitializeResponse {
        /// The version both sides will speak: the client's version if the agent supports it,
        /// otherwise the newest version the agent supports. A client that cannot speak it
        /// should disconnect.
        pub protocol_version: ProtocolVersion,
        /// What the agent can do. Absent or malformed means the defaults (nothing optional).
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub agent_capabilities: AgentCapabilities,
        /// The ways a user can authenticate with the agent; empty when none is needed. Entries
        /// that do not decode are skipped; a malformed list is treated as empty.
        #[serde(default, deserialize_with = "crate::de::lenient_items")]
        pub auth_methods: Vec<AuthMethod>,
        /// The agent's name and version. A malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub agent_info: Option<Implementation>,
    }
}

constructor! {
    /// Answers with `protocol_version`, default capabilities and no auth methods.
    InitializeResponse(protocol_version: impl Into<ProtocolVersion>)
    {
        agent_capabilities: Default::default(),
        auth_methods: Default::default(),
        agent_info: None,
        meta: None,
    }
}

setters!(InitializeResponse {
    set agent_capabilities: AgentCapabilities,
    set auth_methods: Vec<AuthMethod>,
    opt agent_info: Implementation,
});

wire_struct! {
    /// The first request of a connection, sent by the client to negotiate the protocol version
    /// and exchange capabilities.
    ///
    /// ```json
    /// {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}}
    /// ```
    pub struct InitializeRequest {
        /// The newest protocol version the client supports.
        pub protocol_version: ProtocolVersion,
        /// What the client can do. Absent or malformed means the defaults (nothing optional).
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub client_capabilities: ClientCapabilities,
        /// The client's name and version. A malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub client_info: Option<Implementation>,
    }
}

constructor! {
    /// Starts a handshake for `protocol_version` with default capabilities.
    InitializeRequest(protocol_version: impl Into<ProtocolVersion>)
    { client_capabilities: Default::default(), client_info: None, meta: None }
}

setters!(InitializeRequest {
    set client_capabilities: ClientCapabilities,
    opt client_info: Implementation,
});
