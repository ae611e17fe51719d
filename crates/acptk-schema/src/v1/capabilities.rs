//! Capabilities exchanged in `initialize` (ACP v1): what the agent supports
//! (`agentCapabilities`) and what the client supports (`clientCapabilities`).
//!
//! Omitted fields take their default (unsupported); a malformed value is treated like an
//! omitted one.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// What the agent supports, sent in its `initialize` response as `agentCapabilities`.
    ///
    /// ```json
    /// {"loadSession": true, "promptCapabilities": {"image": true}, "mcpCapabilities": {"http": true}}
    /// ```
    #[derive(Default)]
    pub struct AgentCapabilities {
        /// Whether the agent implements `session/load` (resuming a stored session with a
        /// replay of its history). Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub load_session: bool,
        /// Which content kinds, beyond text and resource links, prompts may contain.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub prompt_capabilities: PromptCapabilities,
        /// Which MCP server transports, beyond stdio, the agent can connect to.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub mcp_capabilities: McpCapabilities,
        /// Optional session methods and session setup options the agent supports.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub session_capabilities: SessionCapabilities,
        /// Authentication features of the agent.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub auth: AgentAuthCapabilities,
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

setters!(AgentCapabilities {
    set load_session: bool,
    set prompt_capabilities: PromptCapabilities,
    set mcp_capabilities: McpCapabilities,
    set session_capabilities: SessionCapabilities,
    set auth: AgentAuthCapabilities,
});

wire_struct! {
    /// The content kinds an agent accepts in `session/prompt` besides text and resource links,
    /// which every agent accepts. Clients must not send a kind whose flag is `false`.
    #[derive(Default)]
    pub struct PromptCapabilities {
        /// Image blocks are accepted. Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub image: bool,
        /// Audio blocks are accepted. Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub audio: bool,
        /// Embedded resource blocks (`type: "resource"`, contents inline) are accepted.
        /// Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub embedded_context: bool,
    }
}

default_new!(PromptCapabilities, "Text and resource links only.");

setters!(PromptCapabilities { set image: bool, set audio: bool, set embedded_context: bool });

wire_struct! {
    /// The MCP server transports an agent can use besides stdio, which every agent supports.
    /// Clients must not offer servers over a transport whose flag is `false`.
    #[derive(Default)]
    pub struct McpCapabilities {
        /// Streamable HTTP MCP servers are supported. Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub http: bool,
        /// SSE MCP servers (a transport deprecated by MCP) are supported. Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub sse: bool,
        /// MCP servers reached over the ACP connection itself (`"type": "acp"` servers,
        /// `mcp/message`) are supported. Default `false`; always written, like the other
        /// transport flags.
        #[unstable("unstable_mcp_over_acp")]
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub acp: bool,
    }
}

default_new!(McpCapabilities, "Stdio only.");

setters!(McpCapabilities { set http: bool, set sse: bool });

#[cfg(feature = "unstable_mcp_over_acp")]
setters!(McpCapabilities { set acp: bool });

session_capabilities! {
    /// Optional session methods and setup options an agent supports. Each field is an object
    /// (normally `{}`) when supported and absent otherwise.
    pub struct SessionCapabilities {
        /// `session/list` is supported.
        pub list: Option<SessionListCapabilities>,
        /// `session/delete` is supported.
        pub delete: Option<SessionDeleteCapabilities>,
        /// Session setup accepts `additionalDirectories`.
        pub additional_directories: Option<SessionAdditionalDirectoriesCapabilities>,
        /// Session setup accepts a client-supplied system prompt.
        pub system_prompt: Option<SessionSystemPromptCapabilities>,
        /// `session/resume` is supported (reattaching to a session without replaying its
        /// history).
        pub resume: Option<SessionResumeCapabilities>,
        /// `session/close` is supported.
        pub close: Option<SessionCloseCapabilities>,
    }
}

marker_capability! {
    /// Marks that `session/list` is supported. Sent as `{}`.
    SessionListCapabilities
}

marker_capability! {
    /// Marks that `session/resume` is supported. Sent as `{}`.
    SessionResumeCapabilities
}

marker_capability! {
    /// Marks that `session/close` is supported. Sent as `{}`.
    SessionCloseCapabilities
}

wire_struct! {
    /// Authentication features of the agent.
    #[derive(Default)]
    pub struct AgentAuthCapabilities {
        /// The agent implements `logout`, ending the current authentication. Absent: it does
        /// not.
        #[opt("crate::de::lenient_object")]
        pub logout: Option<LogoutCapabilities>,
        /// Present when the agent answers `auth/status` (and may send `auth/status_update`).
        #[unstable("unstable_auth_status")]
        #[opt("crate::de::lenient_object")]
        pub status: Option<AuthStatusCapabilities>,
    }
}

default_new!(AgentAuthCapabilities, "No authentication features.");

setters!(AgentAuthCapabilities { opt logout: LogoutCapabilities });

#[cfg(feature = "unstable_auth_status")]
setters!(AgentAuthCapabilities { opt status: AuthStatusCapabilities });

marker_capability! {
    /// Marks that the `logout` method is supported. Sent as `{}`.
    LogoutCapabilities
}

wire_struct! {
    /// What the client supports, sent in the `initialize` request as `clientCapabilities`.
    ///
    /// ```json
    /// {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true, "session": {"notices": {}}}
    /// ```
    ///
    /// Agents must not call a client method, or send an update kind, that the client did not
    /// advertise here.
    #[derive(Default)]
    pub struct ClientCapabilities {
        /// Which `fs/*` methods the client implements.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub fs: FileSystemCapabilities,
        /// Whether the client implements the `terminal/*` methods. Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub terminal: bool,
        /// Session-level extensions the client understands. Absent: none.
        #[opt("crate::de::lenient_object")]
        pub session: Option<ClientSessionCapabilities>,
        /// Present when the client can show subagent sessions (subagent updates and messages
        /// between sessions).
        #[opt("crate::de::lenient_object")]
        pub subagents: Option<SubagentCapabilities>,
        /// Present when the client understands plan operations (`plan_update` and
        /// `plan_removed` updates), in addition to the whole-plan `plan` update.
        #[opt("crate::de::lenient_object")]
        pub plan: Option<PlanCapabilities>,
        /// Authentication features of the client.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub auth: AuthCapabilities,
        /// Present when the client can answer `elicitation/create`; says which kinds.
        #[opt("crate::de::lenient_object")]
        pub elicitation: Option<ElicitationCapabilities>,
    }
}

default_new!(
    ClientCapabilities,
    "Capabilities with every optional feature unsupported."
);

setters!(ClientCapabilities {
    set fs: FileSystemCapabilities,
    set terminal: bool,
    opt session: ClientSessionCapabilities,
    opt subagents: SubagentCapabilities,
    opt plan: PlanCapabilities,
    set auth: AuthCapabilities,
    opt elicitation: ElicitationCapabilities,
});

wire_struct! {
    /// The file system methods a client implements, so the agent can read and write files as
    /// the editor sees them (including unsaved changes).
    #[derive(Default)]
    pub struct FileSystemCapabilities {
        /// `fs/read_text_file` is available. Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub read_text_file: bool,
        /// `fs/write_text_file` is available. Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub write_text_file: bool,
    }
}

default_new!(FileSystemCapabilities, "Neither method available.");

setters!(FileSystemCapabilities { set read_text_file: bool, set write_text_file: bool });

wire_struct! {
    /// Session-level extensions a client understands (`clientCapabilities.session`).
    ///
    /// Each field is an object (normally `{}`) when supported; omitted, `null` or malformed
    /// means not supported.
    #[derive(Default)]
    pub struct ClientSessionCapabilities {
        /// Present when the client understands context compaction updates
        /// (`compaction_update`, `compaction_summary_chunk`).
        #[opt("crate::de::lenient_object")]
        pub compaction: Option<CompactionCapabilities>,
        /// Which extra kinds of session config options the client can show.
        #[opt("crate::de::lenient_object")]
        pub config_options: Option<SessionConfigOptionsCapabilities>,
        /// Set when the client can present session notices (an object, normally `{}`).
        /// Absent, `null` or a value that is not an object all mean "not advertised".
        /// See [`ClientCapabilities::advertises_notices`].
        #[opt("crate::de::lenient_object")]
        pub notices: Option<NoticeCapabilities>,
        /// Present when the client can offer prompt suggestions (`prompt_suggestions_update`);
        /// says which content kinds beyond text and resource links they may hold.
        #[unstable("unstable_prompt_suggestions")]
        #[opt("crate::de::lenient_object")]
        pub prompt_suggestions: Option<PromptSuggestionsCapabilities>,
        /// Present when the client understands session cursors (`cursor_update`).
        #[unstable("unstable_session_cursors")]
        #[opt("crate::de::lenient_object")]
        pub cursors: Option<SessionCursorsCapabilities>,
    }
}

impl ClientSessionCapabilities {
    /// No session extensions.
    pub fn new() -> Self {
        Self {
            compaction: None,
            config_options: None,
            notices: None,
            #[cfg(feature = "unstable_prompt_suggestions")]
            prompt_suggestions: None,
            #[cfg(feature = "unstable_session_cursors")]
            cursors: None,
            meta: None,
        }
    }
}

setters!(ClientSessionCapabilities {
    opt compaction: CompactionCapabilities,
    opt config_options: SessionConfigOptionsCapabilities,
});

setters!(ClientSessionCapabilities { opt notices: NoticeCapabilities });

#[cfg(feature = "unstable_prompt_suggestions")]
setters!(ClientSessionCapabilities { opt prompt_suggestions: PromptSuggestionsCapabilities });

#[cfg(feature = "unstable_session_cursors")]
setters!(ClientSessionCapabilities { opt cursors: SessionCursorsCapabilities });

#[cfg(feature = "unstable_session_cursors")]
wire_struct! {
    no_meta
    /// Marks that the client understands session cursors (`cursor_update` session updates).
    /// Sent as `{}`; like the compaction capability it has no `_meta`.
    #[derive(Default)]
    pub struct SessionCursorsCapabilities {
    }
}

#[cfg(feature = "unstable_session_cursors")]
impl SessionCursorsCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self {}
    }
}

wire_struct! {
    no_meta
    /// Marks that the client understands context compaction updates. Sent as `{}`; unlike
    /// most capability objects it has no `_meta`.
    #[derive(Default)]
    pub struct CompactionCapabilities {
    }
}

impl CompactionCapabilities {
    /// The capability object (`{}`).
    pub fn new() -> Self {
        Self {}
    }
}

wire_struct! {
    /// The kinds of session config options a client can show beyond the baseline select
    /// options.
    #[derive(Default)]
    pub struct SessionConfigOptionsCapabilities {
        /// Present when the client can show boolean (on/off) options.
        #[opt("crate::de::lenient_object")]
        pub boolean: Option<BooleanConfigOptionCapabilities>,
    }
}

default_new!(SessionConfigOptionsCapabilities, "Select options only.");

setters!(SessionConfigOptionsCapabilities { opt boolean: BooleanConfigOptionCapabilities });

marker_capability! {
    /// Marks that the client can show boolean (on/off) session config options. Sent as `{}`.
    BooleanConfigOptionCapabilities
}

marker_capability! {
    /// Marks that the client can show subagent sessions. Sent as `{}`.
    SubagentCapabilities
}

marker_capability! {
    /// Marks that the client understands plan operations (`plan_update`, `plan_removed`). Sent as `{}`.
    PlanCapabilities
}

wire_struct! {
    /// Authentication features of the client.
    #[derive(Default)]
    pub struct AuthCapabilities {
        /// The client can run terminal-based authentication methods (starting the agent's
        /// login command in a terminal for the user). Default `false`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub terminal: bool,
    }
}

default_new!(AuthCapabilities, "No authentication features.");

setters!(AuthCapabilities { set terminal: bool });
