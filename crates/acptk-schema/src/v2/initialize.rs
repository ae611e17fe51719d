//! The `initialize` handshake of ACP v2: version negotiation, implementation info and
//! capability exchange.

#[allow(unused_imports)]
use super::*;

impl ProtocolVersion {
    /// The newest version this module implements: [`ProtocolVersion::V2`].
    pub const LATEST: Self = Self::V2;
}

wire_struct! {
    /// The agent's answer to `initialize`.
    ///
    /// ```json
    /// {"protocolVersion": 2, "info": {"name": "my-agent", "version": "1.0.0"}, "capabilities": {}}
    /// ```
    pub struct InitializeResponse {
        /// The version both sides will speak: the client's version if the agent supports it,
        /// otherwise the newest version the agent supports. A client that cannot speak it
        /// should disconnect.
        pub protocol_version: ProtocolVersion,
        /// The agent's name and version.
        pub info: Implementation,
        /// What the agent can do. Absent or malformed means the defaults (nothing optional).
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub capabilities: AgentCapabilities,
        /// The ways a user can authenticate with the agent; absent when none is needed.
        /// Entries that do not decode are skipped; a malformed list is treated as empty.
        #[list("crate::de::lenient_items")]
        pub auth_methods: Vec<AuthMethod>,
    }
}

constructor! {
    /// Answers with `protocol_version` and `info`, default capabilities and no auth methods.
    InitializeResponse(protocol_version: impl Into<ProtocolVersion>, info: impl Into<Implementation>)
    { capabilities: Default::default(), auth_methods: Vec::new(), meta: None }
}

setters!(InitializeResponse { set capabilities: AgentCapabilities, set auth_methods: Vec<AuthMethod> });

wire_struct! {
    /// The first request of a connection, sent by the client to negotiate the protocol version
    /// and exchange capabilities.
    ///
    /// ```json
    /// {"protocolVersion": 2, "info": {"name": "my-editor", "version": "0.9.0"}, "capabilities": {}}
    /// ```
    pub struct InitializeRequest {
        /// The newest protocol version the client supports.
        pub protocol_version: ProtocolVersion,
        /// The client's name and version.
        pub info: Implementation,
        /// What the client can do. Absent or malformed means the defaults (nothing optional).
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub capabilities: ClientCapabilities,
    }
}

constructor! {
    /// Starts a handshake for `protocol_version` as `info`, with default capabilities.
    InitializeRequest(protocol_version: impl Into<ProtocolVersion>, info: impl Into<Implementation>)
    { capabilities: Default::default(), meta: None }
}

setters!(InitializeRequest { set capabilities: ClientCapabilities });
