//! What an agent supports, declared once, and everything derived from it: the capabilities
//! `initialize` advertises, the gate that answers `-32601` for every method that is not
//! advertised, and the checks of what clients send (prompt content, MCP transports, setup
//! fields).
//!
//! The agent declares [`AgentFeatures`] ([`Agent::features`](super::Agent::features)); the
//! session store declares [`StoreFeatures`]. [`Offer`] combines the two, and both the
//! advertised capabilities and the method gate are written from [`Offer::answers`], so they
//! cannot disagree: a capability is advertised exactly when every method it implies is
//! answered, and a method that no capability implies answers `-32601`.

pub(crate) mod draft_methods;

use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use self::draft_methods::UnstableFeatures;
use crate::store::StoreFeatures;

/// Builder methods that set one field each (`value` as given, or `Some(value)` for `opt`).
macro_rules! builder {
    ($type:ident { $($(#[doc = $doc:expr])* $(#[cfg($cfg:meta)])? $field:ident: $value:ty),+ $(,)? }) => {
        impl $type {
            $(
                $(#[doc = $doc])*
                $(#[cfg($cfg)])?
                #[must_use]
                pub fn $field(mut self, value: $value) -> Self {
                    self.$field = value;
                    self
                }
            )+
        }
    };
}

/// The `systemPrompt` capability object of one version (the types are distinct per version).
macro_rules! system_prompt_capability {
    ($version:ident, $modes:expr) => {{
        let capability = $version::SessionSystemPromptCapabilities::new();
        if $modes.override_prompt {
            capability.mode(
                $version::SessionSystemPromptModeCapabilities::new()
                    .r#override($version::SessionSystemPromptOverrideCapabilities::new()),
            )
        } else {
            capability
        }
    }};
}

/// Adds to `$session` (of `$version`) the session set-up capabilities both versions spell
/// alike: further directories and the system prompt, as `$offer` advertises them.
macro_rules! setup_capabilities {
    ($offer:expr, $session:ident, $version:ident) => {
        if $offer.features.additional_directories {
            $session = $session
                .additional_directories($version::SessionAdditionalDirectoriesCapabilities::new());
        }
        if let Some(modes) = $offer.features.system_prompt {
            $session = $session.system_prompt(system_prompt_capability!($version, modes));
        }
    };
}

/// The `authMethods` of one version (the types are distinct per version, the fields alike).
macro_rules! auth_methods {
    ($offer:expr, $version:ident) => {
        $offer
            .features
            .auth_methods
            .iter()
            .map(|method| {
                let entry =
                    $version::AuthMethodAgent::new(method.id.as_str(), method.name.as_str());
                $version::AuthMethod::Agent(match &method.description {
                    Some(description) => entry.description(description.as_str()),
                    None => entry,
                })
            })
            .collect()
    };
}

/// What an agent supports beyond the baseline of the protocol, declared by
/// [`Agent::features`](super::Agent::features).
///
/// Everything here is both advertised and enforced: a prompt with an image is refused with
/// `-32602` unless [`PromptContent::image`] is set, a session with an HTTP MCP server unless
/// [`McpTransports::http`] is set, and so on. Listing authentication methods makes the runtime
/// answer `authenticate`/`logout` (v1) and `auth/login`/`auth/logout` (v2) through
/// [`Agent::authenticate`](super::Agent::authenticate) and
/// [`Agent::logout`](super::Agent::logout).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentFeatures {
    /// Content kinds accepted in prompts beyond text and resource links.
    pub prompt: PromptContent,
    /// MCP server transports the agent can use.
    pub mcp: McpTransports,
    /// Authentication methods the agent handles itself (empty: no authentication).
    pub auth_methods: Vec<AuthMethodSpec>,
    /// Session setup accepts `additionalDirectories`.
    pub additional_directories: bool,
    /// Session setup accepts a client system prompt (`append` mode; `override` too when set).
    pub system_prompt: Option<SystemPromptModes>,
    /// The unstable methods the agent implements itself (see [`UnstableFeatures`]).
    pub unstable: UnstableFeatures,
}

impl AgentFeatures {
    /// The baseline: text and resource links, no MCP transport beyond v1's stdio servers
    /// (which every v1 agent takes), no authentication.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an authentication method.
    #[must_use]
    pub fn auth_method(mut self, method: AuthMethodSpec) -> Self {
        self.auth_methods.push(method);
        self
    }

    /// Accepts a client system prompt in session setup.
    #[must_use]
    pub fn system_prompt(mut self, modes: SystemPromptModes) -> Self {
        self.system_prompt = Some(modes);
        self
    }
}

/// Content kinds a prompt may contain besides text and resource links (which every agent
/// accepts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptContent {
    /// Image blocks.
    pub image: bool,
    /// Audio blocks.
    pub audio: bool,
    /// Embedded resources (`type: "resource"`).
    pub embedded_context: bool,
}

builder!(AgentFeatures {
    /// Sets the accepted prompt content.
    prompt: PromptContent,
    /// Sets the MCP transports.
    mcp: McpTransports,
    /// Accepts `additionalDirectories` in session setup.
    additional_directories: bool,
    /// Declares the unstable methods the agent implements itself.
    unstable: UnstableFeatures,
});

builder!(PromptContent {
    /// Accepts images.
    image: bool,
    /// Accepts audio.
    audio: bool,
    /// Accepts embedded resources.
    embedded_context: bool,
});

impl PromptContent {
    /// Text and resource links only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks a v1 prompt; the error names the first block that is not accepted.
    pub(crate) fn check_v1(&self, blocks: &[v1::ContentBlock]) -> Result<(), String> {
        self.check(blocks.iter().map(|block| match block {
            v1::ContentBlock::Image(_) => "image",
            v1::ContentBlock::Audio(_) => "audio",
            v1::ContentBlock::Resource(_) => "resource",
            _ => "text",
        }))
    }

    /// Checks a v2 prompt; the error names the first block that is not accepted.
    pub(crate) fn check_v2(&self, blocks: &[v2::ContentBlock]) -> Result<(), String> {
        self.check(blocks.iter().map(|block| match block {
            v2::ContentBlock::Text(_) | v2::ContentBlock::ResourceLink(_) => "text",
            other => other.tag(),
        }))
    }

    /// Checks the kinds of a prompt's blocks (`text` for those every agent takes).
    fn check<'a>(&self, kinds: impl Iterator<Item = &'a str>) -> Result<(), String> {
        for kind in kinds {
            let accepted = match kind {
                "text" => true,
                "image" => self.image,
                "audio" => self.audio,
                "resource" => self.embedded_context,
                _ => false,
            };
            if !accepted {
                return Err(refused_block(kind));
            }
        }
        Ok(())
    }
}

fn refused_block(kind: &str) -> String {
    format!("this agent does not accept `{kind}` content blocks in prompts (not advertised)")
}

/// MCP server transports an agent can use (none declared by default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpTransports {
    /// Local servers over stdio, advertised in v2 (`session.mcp.stdio`). Off by default. v1
    /// has no capability for them: every v1 agent takes stdio servers, so a v1 session may name
    /// them whatever this says.
    pub stdio: bool,
    /// Streamable HTTP servers.
    pub http: bool,
    /// SSE servers (v1 only; v2 has no SSE transport).
    pub sse: bool,
    /// Further transports by their `type` (v2 keeps unknown ones; v1 refuses them while
    /// decoding). Accepted, but not advertised: ACP has no capability for them.
    pub other: Vec<String>,
    /// MCP servers the client provides over the ACP connection itself (`acp` servers,
    /// reached with `mcp/message`); advertised as `mcpCapabilities.acp`.
    #[cfg(feature = "unstable_mcp_over_acp")]
    pub acp: bool,
}

builder!(McpTransports {
    /// Sets stdio support (advertised in v2).
    stdio: bool,
    /// Sets HTTP support.
    http: bool,
    /// Sets SSE support (v1).
    sse: bool,
    /// Sets support for `acp` servers (MCP over the ACP connection).
    #[cfg(feature = "unstable_mcp_over_acp")]
    acp: bool,
});

impl McpTransports {
    /// No transport declared (v1 sessions still take stdio servers).
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts servers of another transport `kind`.
    #[must_use]
    pub fn other(mut self, kind: impl Into<String>) -> Self {
        self.other.push(kind.into());
        self
    }

    /// Checks the transport kinds of a session's servers (`stdio`, `http`, `sse`, or another)
    /// on a connection of `version`.
    pub(crate) fn check<'a>(
        &self,
        version: ProtocolVersion,
        kinds: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), String> {
        for kind in kinds {
            let supported = match kind {
                "stdio" => self.stdio || version == ProtocolVersion::V1,
                "http" => self.http,
                "sse" => self.sse,
                #[cfg(feature = "unstable_mcp_over_acp")]
                "acp" => self.acp,
                other => self.other.iter().any(|kind| kind == other),
            };
            if !supported {
                return Err(format!(
                    "this agent does not support `{kind}` MCP servers (not advertised)"
                ));
            }
        }
        Ok(())
    }
}

/// An authentication method the agent handles itself (`authenticate` / `auth/login`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthMethodSpec {
    /// Its id, which the client sends back.
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
}

impl AuthMethodSpec {
    /// A method `id` labelled `name`.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// How a client system prompt may be applied, besides appending (always supported once
/// [`AgentFeatures::system_prompt`] is set).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SystemPromptModes {
    /// The client's prompt may replace the agent's own (`override`).
    pub override_prompt: bool,
}

builder!(SystemPromptModes {
    /// Also accepts `override`.
    override_prompt: bool,
});

impl SystemPromptModes {
    /// Append only.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Every request method an agent handles, in both versions (one name per concept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AgentMethod {
    /// `authenticate` (v1), `auth/login` (v2).
    Authenticate,
    /// `logout` (v1), `auth/logout` (v2).
    Logout,
    /// `session/new`.
    NewSession,
    /// `session/load` (v1).
    LoadSession,
    /// `session/resume`.
    ResumeSession,
    /// `session/list`.
    ListSessions,
    /// `session/close`.
    CloseSession,
    /// `session/delete`.
    DeleteSession,
    /// `session/set_mode` (v1).
    SetMode,
    /// `session/set_config_option`.
    SetConfigOption,
    /// `session/prompt`.
    Prompt,
    /// `tool_call/cancel` (v2).
    CancelToolCall,
    /// `terminal/cancel` (v2).
    CancelTerminal,
    /// `providers/list`, `providers/set` and `providers/disable` (one capability).
    #[cfg(feature = "unstable_llm_providers")]
    Providers,
    /// `auth/status`.
    #[cfg(feature = "unstable_auth_status")]
    AuthStatus,
    /// `session/fork`.
    #[cfg(feature = "unstable_session_fork")]
    ForkSession,
    /// `session/archive` and `session/unarchive` (one capability).
    #[cfg(feature = "unstable_session_archive")]
    ArchiveSession,
    /// `session/status`.
    #[cfg(feature = "unstable_session_status")]
    SessionStatus,
    /// `session/options`.
    #[cfg(feature = "unstable_session_options")]
    SessionOptions,
    /// `session/set_title`.
    #[cfg(feature = "unstable_session_set_title")]
    SetSessionTitle,
}

impl AgentMethod {
    /// The method of a decoded v1 request (`None` for `initialize` and extensions).
    pub(crate) fn of_v1(request: &v1::ClientRequest) -> Option<Self> {
        use v1::ClientRequest as R;
        Some(match request {
            R::Authenticate(_) => Self::Authenticate,
            R::Logout(_) => Self::Logout,
            R::SessionNew(_) => Self::NewSession,
            R::SessionLoad(_) => Self::LoadSession,
            R::SessionResume(_) => Self::ResumeSession,
            R::SessionList(_) => Self::ListSessions,
            R::SessionClose(_) => Self::CloseSession,
            R::SessionDelete(_) => Self::DeleteSession,
            R::SessionSetMode(_) => Self::SetMode,
            R::SessionSetConfigOption(_) => Self::SetConfigOption,
            R::SessionPrompt(_) => Self::Prompt,
            other => return draft_methods::of_v1(other),
        })
    }

    /// The method of a decoded v2 request (`None` for `initialize` and extensions).
    pub(crate) fn of_v2(request: &v2::ClientRequest) -> Option<Self> {
        use v2::ClientRequest as R;
        Some(match request {
            R::AuthLogin(_) => Self::Authenticate,
            R::AuthLogout(_) => Self::Logout,
            R::SessionNew(_) => Self::NewSession,
            R::SessionResume(_) => Self::ResumeSession,
            R::SessionList(_) => Self::ListSessions,
            R::SessionClose(_) => Self::CloseSession,
            R::SessionDelete(_) => Self::DeleteSession,
            R::SessionSetConfigOption(_) => Self::SetConfigOption,
            R::SessionPrompt(_) => Self::Prompt,
            R::ToolCallCancel(_) => Self::CancelToolCall,
            R::TerminalCancel(_) => Self::CancelTerminal,
            other => return draft_methods::of_v2(other),
        })
    }
}

/// What an agent server offers on a connection: the agent's features with its store's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    features: AgentFeatures,
    store: StoreFeatures,
}

impl Offer {
    /// The offer of an agent with `features` over a store with `store`.
    pub fn new(features: AgentFeatures, store: StoreFeatures) -> Self {
        Self { features, store }
    }

    /// The agent's declared features.
    pub fn features(&self) -> &AgentFeatures {
        &self.features
    }

    /// The store's features.
    pub fn store(&self) -> StoreFeatures {
        self.store
    }

    /// Whether `method` is answered on a connection of `version`; when not, it answers
    /// `-32601`. This one function decides both that and what `initialize` advertises.
    pub fn answers(&self, method: AgentMethod, version: ProtocolVersion) -> bool {
        let v1 = version == ProtocolVersion::V1;
        match method {
            // Non-empty `authMethods` commits the agent to both methods, in both versions.
            AgentMethod::Authenticate | AgentMethod::Logout => {
                !self.features.auth_methods.is_empty()
            }
            // Replay needs history; v2 has no `session/load`.
            AgentMethod::LoadSession => v1 && self.store.history,
            AgentMethod::DeleteSession => self.store.delete,
            // Answered by the runtime from the store, in both versions (v2 baseline).
            AgentMethod::NewSession
            | AgentMethod::ResumeSession
            | AgentMethod::ListSessions
            | AgentMethod::CloseSession
            | AgentMethod::Prompt
            | AgentMethod::SetConfigOption => true,
            AgentMethod::SetMode => v1,
            AgentMethod::CancelToolCall | AgentMethod::CancelTerminal => !v1,
            #[allow(unreachable_patterns)]
            unstable => draft_methods::answers(self, unstable),
        }
    }

    /// The v1 `agentCapabilities`.
    pub fn v1_capabilities(&self) -> v1::AgentCapabilities {
        let answers = |method| self.answers(method, ProtocolVersion::V1);
        let prompt = self.features.prompt;
        let mcp = &self.features.mcp;
        let mut session = v1::SessionCapabilities::new();
        if answers(AgentMethod::ListSessions) {
            session = session.list(v1::SessionListCapabilities::new());
        }
        if answers(AgentMethod::DeleteSession) {
            session = session.delete(v1::SessionDeleteCapabilities::new());
        }
        if answers(AgentMethod::ResumeSession) {
            session = session.resume(v1::SessionResumeCapabilities::new());
        }
        if answers(AgentMethod::CloseSession) {
            session = session.close(v1::SessionCloseCapabilities::new());
        }
        setup_capabilities!(self, session, v1);
        let mut auth = v1::AgentAuthCapabilities::new();
        if answers(AgentMethod::Logout) {
            auth = auth.logout(v1::LogoutCapabilities::new());
        }
        let session = draft_methods::v1_session(self, session);
        let capabilities = v1::AgentCapabilities::new()
            .load_session(answers(AgentMethod::LoadSession))
            .prompt_capabilities(
                v1::PromptCapabilities::new()
                    .image(prompt.image)
                    .audio(prompt.audio)
                    .embedded_context(prompt.embedded_context),
            )
            .mcp_capabilities(v1::McpCapabilities::new().http(mcp.http).sse(mcp.sse))
            .session_capabilities(session)
            .auth(auth);
        draft_methods::v1_agent(self, capabilities)
    }

    /// The v2 `capabilities`. `session` is always present: the runtime answers every baseline
    /// session method (`session/new`, `list`, `resume`, `close`, `prompt`, `cancel`).
    pub fn v2_capabilities(&self) -> v2::AgentCapabilities {
        let prompt = self.features.prompt;
        let mcp = &self.features.mcp;
        let mut content = v2::PromptCapabilities::new();
        if prompt.image {
            content = content.image(v2::PromptImageCapabilities::new());
        }
        if prompt.audio {
            content = content.audio(v2::PromptAudioCapabilities::new());
        }
        if prompt.embedded_context {
            content = content.embedded_context(v2::PromptEmbeddedContextCapabilities::new());
        }
        let mut transports = v2::McpCapabilities::new();
        if mcp.stdio {
            transports = transports.stdio(v2::McpStdioCapabilities::new());
        }
        if mcp.http {
            transports = transports.http(v2::McpHttpCapabilities::new());
        }
        let mut session = v2::SessionCapabilities::new()
            .prompt(content)
            .mcp(transports);
        if self.answers(AgentMethod::DeleteSession, ProtocolVersion::V2) {
            session = session.delete(v2::SessionDeleteCapabilities::new());
        }
        setup_capabilities!(self, session, v2);
        let session = draft_methods::v2_session(self, session);
        draft_methods::v2_agent(self, v2::AgentCapabilities::new().session(session))
    }

    /// The v1 `authMethods`.
    pub fn v1_auth_methods(&self) -> Vec<v1::AuthMethod> {
        auth_methods!(self, v1)
    }

    /// The v2 `authMethods`.
    pub fn v2_auth_methods(&self) -> Vec<v2::AuthMethod> {
        auth_methods!(self, v2)
    }

    /// Checks the setup fields of a session request against what is advertised.
    pub(crate) fn check_setup(
        &self,
        additional_directories: &[String],
        system_prompt: Option<&str>,
    ) -> Result<(), String> {
        if !additional_directories.is_empty() && !self.features.additional_directories {
            return Err(
                "this agent does not accept `additionalDirectories` (not advertised)".to_owned(),
            );
        }
        match (system_prompt, self.features.system_prompt) {
            (None, _) | (Some("append"), Some(_)) => Ok(()),
            (Some("override"), Some(modes)) if modes.override_prompt => Ok(()),
            (Some(mode), Some(_)) => Err(format!(
                "this agent does not support the system prompt mode `{mode}`"
            )),
            (Some(_), None) => {
                Err("this agent does not accept a `systemPrompt` (not advertised)".to_owned())
            }
        }
    }
}
