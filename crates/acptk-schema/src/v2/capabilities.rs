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
        #[opt("crate::de::lenient_object")]
        pub cancel: Option<ToolCallCancelCapabilities>,
    }
}

default_new!(ToolCallCapabilities, "No operations allowed.");

setters!(ToolCallCapabilities { opt cancel: ToolCallCancelCapabilities });

marker_capability! {
    /// Marks that a tool call can be cancelled with `tool_call/cancel`. Sent as `{}`.
    ToolCallCancelCapabilities
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
        #[opt("crate::de::lenient_object")]
        pub session: Option<SessionCapabilities>,
        /// Authentication features of the agent.
        #[opt("crate::de::lenient_object")]
        pub auth: Option<AgentAuthCapabilities>,
        /// Present when the agent implements `providers/list`, `providers/set` and
        /// `providers/disable`.
        #[unstable("unstable_llm_providers")]
        #[opt("crate::de::lenient_object")]
        pub providers: Option<ProvidersCapabilities>,
    }
}

default_new!(
    AgentCapabilities,
    "Capabilities with every optional feature unsupported."
);

#[cfg(feature = "unstable_llm_providers")]
setters!(AgentCapabilities { opt providers: ProvidersCapabilities });

setters!(AgentCapabilities { opt session: SessionCapabilities, opt auth: AgentAuthCapabilities });

session_capabilities! {
    /// Session features an agent supports beyond the baseline.
    pub struct SessionCapabilities {
        /// Which content kinds, beyond text and resource links, prompts may contain.
        pub prompt: Option<PromptCapabilities>,
        /// Which MCP server transports the agent can connect to.
        pub mcp: Option<McpCapabilities>,
        /// `session/delete` is supported.
        pub delete: Option<SessionDeleteCapabilities>,
        /// Session setup accepts `additionalDirectories`.
        pub additional_directories: Option<SessionAdditionalDirectoriesCapabilities>,
        /// Session setup accepts a client-supplied system prompt.
        pub system_prompt: Option<SessionSystemPromptCapabilities>,
    }
}

wire_struct! {
    /// The content kinds an agent accepts in `session/prompt` besides text and resource links,
    /// which every agent accepts. Clients must not send a kind that is not advertised.
    #[derive(Default)]
    pub struct PromptCapabilities {
        /// Image blocks are accepted.
        #[opt("crate::de::lenient_object")]
        pub image: Option<PromptImageCapabilities>,
        /// Audio blocks are accepted.
        #[opt("crate::de::lenient_object")]
        pub audio: Option<PromptAudioCapabilities>,
        /// Embedded resource blocks (`type: "resource"`, contents inline) are accepted.
        #[opt("crate::de::lenient_object")]
        pub embedded_context: Option<PromptEmbeddedContextCapabilities>,
        /// `skill` blocks are accepted (one leading block, or any number with `inline`). An
        /// agent that lists skills must advertise it.
        #[unstable("unstable_agent_skills")]
        #[opt("crate::de::lenient_object")]
        pub skill: Option<PromptSkillCapabilities>,
    }
}

default_new!(PromptCapabilities, "Text and resource links only.");

setters!(PromptCapabilities {
    opt image: PromptImageCapabilities,
    opt audio: PromptAudioCapabilities,
    opt embedded_context: PromptEmbeddedContextCapabilities,
});

#[cfg(feature = "unstable_agent_skills")]
setters!(PromptCapabilities { opt skill: PromptSkillCapabilities });

marker_capability! {
    /// Marks that prompts may contain images. Sent as `{}`.
    PromptImageCapabilities
}

marker_capability! {
    /// Marks that prompts may contain audio. Sent as `{}`.
    PromptAudioCapabilities
}

marker_capability! {
    /// Marks that prompts may contain embedded resources. Sent as `{}`.
    PromptEmbeddedContextCapabilities
}

wire_struct! {
    /// The MCP server transports an agent can connect to. Clients must not offer servers over
    /// a transport that is not advertised.
    #[derive(Default)]
    pub struct McpCapabilities {
        /// Servers started as local processes speaking over stdio.
        #[opt("crate::de::lenient_object")]
        pub stdio: Option<McpStdioCapabilities>,
        /// Servers reached over streamable HTTP.
        #[opt("crate::de::lenient_object")]
        pub http: Option<McpHttpCapabilities>,
        /// MCP servers reached over the ACP connection itself (`"type": "acp"` servers,
        /// `mcp/message`).
        #[unstable("unstable_mcp_over_acp")]
        #[opt("crate::de::lenient_object")]
        pub acp: Option<McpAcpCapabilities>,
    }
}

default_new!(McpCapabilities, "No transports advertised.");

setters!(McpCapabilities { opt stdio: McpStdioCapabilities, opt http: McpHttpCapabilities });

#[cfg(feature = "unstable_mcp_over_acp")]
setters!(McpCapabilities { opt acp: McpAcpCapabilities });

#[cfg(feature = "unstable_mcp_over_acp")]
marker_capability! {
    /// Marks support for MCP servers reached over the ACP connection itself. Sent as `{}`.
    McpAcpCapabilities
}

marker_capability! {
    /// Marks support for stdio MCP servers. Sent as `{}`.
    McpStdioCapabilities
}

marker_capability! {
    /// Marks support for HTTP MCP servers. Sent as `{}`.
    McpHttpCapabilities
}

wire_struct! {
    /// Authentication features of the agent.
    #[derive(Default)]
    pub struct AgentAuthCapabilities {
        /// Present when the agent answers `auth/status` (and may send `auth/status_update`).
        #[unstable("unstable_auth_status")]
        #[opt("crate::de::lenient_object")]
        pub status: Option<AuthStatusCapabilities>,
    }
}

default_new!(AgentAuthCapabilities, "No authentication features.");

#[cfg(feature = "unstable_auth_status")]
setters!(AgentAuthCapabilities { opt status: AuthStatusCapabilities });

wire_struct! {
    /// What the client may do with one terminal, sent by the agent in a terminal update.
    #[derive(Default)]
    pub struct TerminalCapabilities {
        /// Present when the client may stop the terminal's command with `terminal/cancel`.
        #[opt("crate::de::lenient_object")]
        pub cancel: Option<TerminalCancelCapabilities>,
    }
}

default_new!(TerminalCapabilities, "No operations allowed.");

setters!(TerminalCapabilities { opt cancel: TerminalCancelCapabilities });

marker_capability! {
    /// Marks that a terminal can be cancelled with `terminal/cancel`. Sent as `{}`.
    TerminalCancelCapabilities
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
        #[opt("crate::de::lenient_object")]
        pub auth: Option<ClientAuthCapabilities>,
        /// Present when the client can answer `elicitation/create`; says which kinds.
        #[opt("crate::de::lenient_object")]
        pub elicitation: Option<ElicitationCapabilities>,
        /// Session-level features of the client (prompt suggestions, extra command kinds).
        #[cfg(any(feature = "unstable_prompt_suggestions", feature = "unstable_agent_skills"))]
        #[cfg_attr(
            feature = "schemars",
            schemars(extend(
                "x-unstable" = "unstable_prompt_suggestions,unstable_agent_skills"
            ))
        )]
        #[opt("crate::de::lenient_object")]
        pub session: Option<ClientSessionCapabilities>,
    }
}

default_new!(
    ClientCapabilities,
    "Capabilities with every optional feature unsupported."
);

setters!(ClientCapabilities {
    opt auth: ClientAuthCapabilities,
    opt elicitation: ElicitationCapabilities,
});

#[cfg(any(
    feature = "unstable_prompt_suggestions",
    feature = "unstable_agent_skills"
))]
setters!(ClientCapabilities { opt session: ClientSessionCapabilities });

#[cfg(any(
    feature = "unstable_prompt_suggestions",
    feature = "unstable_agent_skills"
))]
wire_struct! {
    /// Session-level features of the client (`clientCapabilities.session`). Only a group: `{}`
    /// advertises nothing; each field advertises one feature.
    #[derive(Default)]
    pub struct ClientSessionCapabilities {
        /// Present when the client can offer prompt suggestions
        /// (`prompt_suggestions_update`); says which content kinds beyond text and resource
        /// links they may hold. A malformed value is treated as absent.
        #[cfg(feature = "unstable_prompt_suggestions")]
        #[opt("crate::de::lenient_object")]
        pub prompt_suggestions: Option<PromptSuggestionsCapabilities>,
        /// The command entry kinds, beyond slash commands, that the client can show. A
        /// malformed value is treated as absent.
        #[cfg(feature = "unstable_agent_skills")]
        #[opt("crate::de::lenient_object")]
        pub commands: Option<CommandsCapabilities>,
    }
}

#[cfg(any(
    feature = "unstable_prompt_suggestions",
    feature = "unstable_agent_skills"
))]
default_new!(ClientSessionCapabilities, "No session-level features.");

#[cfg(feature = "unstable_prompt_suggestions")]
setters!(ClientSessionCapabilities { opt prompt_suggestions: PromptSuggestionsCapabilities });

#[cfg(feature = "unstable_agent_skills")]
setters!(ClientSessionCapabilities { opt commands: CommandsCapabilities });

wire_struct! {
    /// Authentication features of the client.
    #[derive(Default)]
    pub struct ClientAuthCapabilities {
        /// Present when the client can run terminal-based authentication methods (starting
        /// the agent's login command in a terminal for the user).
        #[opt("crate::de::lenient_object")]
        pub terminal: Option<TerminalAuthCapabilities>,
    }
}

default_new!(ClientAuthCapabilities, "No authentication features.");

setters!(ClientAuthCapabilities { opt terminal: TerminalAuthCapabilities });

marker_capability! {
    /// Marks support for terminal-based authentication. Sent as `{}`.
    TerminalAuthCapabilities
}
