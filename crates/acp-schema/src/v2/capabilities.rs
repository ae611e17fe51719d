//! Capabilities (ACP v2): what each side supports, exchanged in `initialize` as
//! `capabilities`, plus the per-object capabilities carried by tool call and terminal updates.
//!
//! v2 capabilities are objects throughout: a feature is advertised by sending an object
//! (normally `{}`) and not advertised by omitting it (or sending `null`). A malformed value is
//! treated as absent.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// What the client may do with one tool call, sent by the agent in a tool call update.
    #[derive(Default)]
    pub struct ToolCallCapabilities {
        /// Present when the client may cancel this tool call with `tool_call/cancel`.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub cancel: Option<ToolCallCancelCapabilities>,
    }
}

impl ToolCallCapabilities {
    /// No operations allowed.
    pub fn new() -> Self {
        Self {
            cancel: None,
            meta: None,
        }
    }
}

setters!(ToolCallCapabilities { opt cancel: ToolCallCancelCapabilities });

wire_struct! {
    /// Marks that a tool call can be cancelled with `tool_call/cancel`. Sent as `{}`.
    #[derive(Default)]
    pub struct ToolCallCancelCapabilities {
    }
}

impl ToolCallCancelCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// What the agent supports, sent in its `initialize` response.
    ///
    /// ```json
    /// {"session": {"prompt": {"image": {}}, "mcp": {"http": {}}}}
    /// ```
    #[derive(Default)]
    pub struct AgentCapabilities {
        /// Session features: prompt content kinds, MCP transports, optional methods. Absent:
        /// baseline only.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub session: Option<SessionCapabilities>,
        /// Authentication features of the agent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub auth: Option<AgentAuthCapabilities>,
    }
}

impl AgentCapabilities {
    /// Capabilities with every optional feature unsupported.
    pub fn new() -> Self {
        Self {
            session: None,
            auth: None,
            meta: None,
        }
    }
}

setters!(AgentCapabilities { opt session: SessionCapabilities, opt auth: AgentAuthCapabilities });

wire_struct! {
    /// Session features an agent supports beyond the baseline.
    #[derive(Default)]
    pub struct SessionCapabilities {
        /// Which content kinds, beyond text and resource links, prompts may contain.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub prompt: Option<PromptCapabilities>,
        /// Which MCP server transports the agent can connect to.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub mcp: Option<McpCapabilities>,
        /// `session/delete` is supported.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub delete: Option<SessionDeleteCapabilities>,
        /// Session setup accepts `additionalDirectories`.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub additional_directories: Option<SessionAdditionalDirectoriesCapabilities>,
        /// Session setup accepts a client-supplied system prompt.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub system_prompt: Option<SessionSystemPromptCapabilities>,
    }
}

impl SessionCapabilities {
    /// No optional session features.
    pub fn new() -> Self {
        Self {
            prompt: None,
            mcp: None,
            delete: None,
            additional_directories: None,
            system_prompt: None,
            meta: None,
        }
    }
}

setters!(SessionCapabilities {
    opt prompt: PromptCapabilities,
    opt mcp: McpCapabilities,
    opt delete: SessionDeleteCapabilities,
    opt additional_directories: SessionAdditionalDirectoriesCapabilities,
    opt system_prompt: SessionSystemPromptCapabilities,
});

wire_struct! {
    /// The content kinds an agent accepts in `session/prompt` besides text and resource links,
    /// which every agent accepts. Clients must not send a kind that is not advertised.
    #[derive(Default)]
    pub struct PromptCapabilities {
        /// Image blocks are accepted.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub image: Option<PromptImageCapabilities>,
        /// Audio blocks are accepted.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub audio: Option<PromptAudioCapabilities>,
        /// Embedded resource blocks (`type: "resource"`, contents inline) are accepted.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub embedded_context: Option<PromptEmbeddedContextCapabilities>,
    }
}

impl PromptCapabilities {
    /// Text and resource links only.
    pub fn new() -> Self {
        Self {
            image: None,
            audio: None,
            embedded_context: None,
            meta: None,
        }
    }
}

setters!(PromptCapabilities {
    opt image: PromptImageCapabilities,
    opt audio: PromptAudioCapabilities,
    opt embedded_context: PromptEmbeddedContextCapabilities,
});

wire_struct! {
    /// Marks that prompts may contain images. Sent as `{}`.
    #[derive(Default)]
    pub struct PromptImageCapabilities {
    }
}

impl PromptImageCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Marks that prompts may contain audio. Sent as `{}`.
    #[derive(Default)]
    pub struct PromptAudioCapabilities {
    }
}

impl PromptAudioCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Marks that prompts may contain embedded resources. Sent as `{}`.
    #[derive(Default)]
    pub struct PromptEmbeddedContextCapabilities {
    }
}

impl PromptEmbeddedContextCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// The MCP server transports an agent can connect to. Clients must not offer servers over
    /// a transport that is not advertised.
    #[derive(Default)]
    pub struct McpCapabilities {
        /// Servers started as local processes speaking over stdio.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub stdio: Option<McpStdioCapabilities>,
        /// Servers reached over streamable HTTP.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub http: Option<McpHttpCapabilities>,
    }
}

impl McpCapabilities {
    /// No transports advertised.
    pub fn new() -> Self {
        Self {
            stdio: None,
            http: None,
            meta: None,
        }
    }
}

setters!(McpCapabilities { opt stdio: McpStdioCapabilities, opt http: McpHttpCapabilities });

wire_struct! {
    /// Marks support for stdio MCP servers. Sent as `{}`.
    #[derive(Default)]
    pub struct McpStdioCapabilities {
    }
}

impl McpStdioCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Marks support for HTTP MCP servers. Sent as `{}`.
    #[derive(Default)]
    pub struct McpHttpCapabilities {
    }
}

impl McpHttpCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Authentication features of the agent. It has no flags of its own yet (only `_meta`).
    #[derive(Default)]
    pub struct AgentAuthCapabilities {
    }
}

impl AgentAuthCapabilities {
    /// No authentication features.
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// What the client may do with one terminal, sent by the agent in a terminal update.
    #[derive(Default)]
    pub struct TerminalCapabilities {
        /// Present when the client may stop the terminal's command with `terminal/cancel`.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub cancel: Option<TerminalCancelCapabilities>,
    }
}

impl TerminalCapabilities {
    /// No operations allowed.
    pub fn new() -> Self {
        Self {
            cancel: None,
            meta: None,
        }
    }
}

setters!(TerminalCapabilities { opt cancel: TerminalCancelCapabilities });

wire_struct! {
    /// Marks that a terminal can be cancelled with `terminal/cancel`. Sent as `{}`.
    #[derive(Default)]
    pub struct TerminalCancelCapabilities {
    }
}

impl TerminalCancelCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// What the client supports, sent in the `initialize` request.
    ///
    /// ```json
    /// {"auth": {"terminal": {}}, "elicitation": {"form": {}}}
    /// ```
    #[derive(Default)]
    pub struct ClientCapabilities {
        /// Authentication features of the client.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub auth: Option<ClientAuthCapabilities>,
        /// Present when the client can answer `elicitation/create`; says which kinds.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub elicitation: Option<ElicitationCapabilities>,
    }
}

impl ClientCapabilities {
    /// Capabilities with every optional feature unsupported.
    pub fn new() -> Self {
        Self {
            auth: None,
            elicitation: None,
            meta: None,
        }
    }
}

setters!(ClientCapabilities {
    opt auth: ClientAuthCapabilities,
    opt elicitation: ElicitationCapabilities,
});

wire_struct! {
    /// Authentication features of the client.
    #[derive(Default)]
    pub struct ClientAuthCapabilities {
        /// Present when the client can run terminal-based authentication methods (starting
        /// the agent's login command in a terminal for the user).
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub terminal: Option<TerminalAuthCapabilities>,
    }
}

impl ClientAuthCapabilities {
    /// No authentication features.
    pub fn new() -> Self {
        Self {
            terminal: None,
            meta: None,
        }
    }
}

setters!(ClientAuthCapabilities { opt terminal: TerminalAuthCapabilities });

wire_struct! {
    /// Marks support for terminal-based authentication. Sent as `{}`.
    #[derive(Default)]
    pub struct TerminalAuthCapabilities {
    }
}

impl TerminalAuthCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self { meta: None }
    }
}
