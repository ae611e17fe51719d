//! The unstable agent methods of the official protocol crate (each behind the cargo feature of
//! the same name), and what they add to [`Offer`]: which of them are answered and what that
//! makes `initialize` advertise.
//!
//! | method | answered when | by |
//! |---|---|---|
//! | `session/fork` | the store keeps history | the runtime (copy of the history), then [`Agent::fork_session`](crate::agent::Agent::fork_session) |
//! | `session/archive`, `session/unarchive` | always | the runtime (a flag in the store), after [`Agent::archive_session`](crate::agent::Agent::archive_session) |
//! | `session/set_title` | always | the runtime (the title in the store), after [`Agent::set_session_title`](crate::agent::Agent::set_session_title) |
//! | `session/status` | always | the runtime (open here or elsewhere, or only stored) |
//! | `session/options` | [`UnstableFeatures::session_options`] | [`Agent::session_options`](crate::agent::Agent::session_options) |
//! | `providers/*` | [`UnstableFeatures::providers`] | [`Agent::list_providers`](crate::agent::Agent::list_providers) and its siblings |
//! | `auth/status` | [`UnstableFeatures::auth_status`] | [`Agent::auth_status`](crate::agent::Agent::auth_status) |
//!
//! The agent's own unstable calls to the client, `mcp/message` requests to the client's `acp`
//! MCP servers and `auth/status_update` notifications, are on
//! [`ClientConnection`](crate::agent::ClientConnection), each behind its gate.
//!
//! The requests and results of `providers/*`, `auth/status` and `mcp/message` have the same
//! shape in both versions but distinct types; the handlers get and give them as
//! [`ByVersion`] values in the connection's version.

// Each import serves only some of the unstable features, so which are used depends on
// the features built.
#![allow(unused_imports)]

use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::{AgentMethod, Offer};
use crate::version::ByVersion;

/// Which unstable methods an agent implements itself (the others the runtime answers from
/// the session store, or they answer `-32601`). Part of [`AgentFeatures`](crate::agent::AgentFeatures);
/// each flag exists with its cargo feature.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnstableFeatures {
    /// `providers/list`, `providers/set` and `providers/disable` are implemented
    /// ([`Agent::list_providers`](crate::agent::Agent::list_providers) and its siblings); advertised
    /// as `providers`.
    #[cfg(feature = "unstable_llm_providers")]
    pub providers: bool,
    /// `auth/status` is implemented ([`Agent::auth_status`](crate::agent::Agent::auth_status));
    /// advertised as `auth.status`.
    #[cfg(feature = "unstable_auth_status")]
    pub auth_status: bool,
    /// `session/options` is implemented ([`Agent::session_options`](crate::agent::Agent::session_options));
    /// advertised as `sessionCapabilities.options`, which also makes the runtime apply the
    /// initial `configOptions` of session set-up requests.
    #[cfg(feature = "unstable_session_options")]
    pub session_options: bool,
}

impl UnstableFeatures {
    /// None of the agent-implemented unstable methods.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares the `providers/*` handlers.
    #[cfg(feature = "unstable_llm_providers")]
    #[must_use]
    pub fn providers(mut self, implemented: bool) -> Self {
        self.providers = implemented;
        self
    }

    /// Declares the `auth/status` handler.
    #[cfg(feature = "unstable_auth_status")]
    #[must_use]
    pub fn auth_status(mut self, implemented: bool) -> Self {
        self.auth_status = implemented;
        self
    }

    /// Declares the `session/options` handler.
    #[cfg(feature = "unstable_session_options")]
    #[must_use]
    pub fn session_options(mut self, implemented: bool) -> Self {
        self.session_options = implemented;
        self
    }
}

/// What `session/options` asks about: a new session in `cwd`, or (with `session_id`) what
/// reopening a stored one would give.
#[cfg(feature = "unstable_session_options")]
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OptionsQuery {
    /// The working directory.
    pub cwd: String,
    /// Further directories.
    pub additional_directories: Vec<String>,
    /// A stored session (known to the store: the runtime answers `-32002` otherwise).
    pub session_id: Option<String>,
}

/// Writes the function that names the unstable method of one version's decoded request
/// (the request enums of both versions have the same unstable variants).
macro_rules! unstable_method_of {
    ($name:ident, $version:ident) => {
        /// The unstable method of a decoded request, if it is one.
        #[allow(unused_variables, unreachable_code)]
        pub(crate) fn $name(request: &$version::ClientRequest) -> Option<AgentMethod> {
            #[allow(unused_imports)]
            use $version::ClientRequest as R;
            Some(match request {
                #[cfg(feature = "unstable_llm_providers")]
                R::ProvidersList(_) | R::ProvidersSet(_) | R::ProvidersDisable(_) => {
                    AgentMethod::Providers
                }
                #[cfg(feature = "unstable_auth_status")]
                R::AuthStatus(_) => AgentMethod::AuthStatus,
                #[cfg(feature = "unstable_session_fork")]
                R::SessionFork(_) => AgentMethod::ForkSession,
                #[cfg(feature = "unstable_session_archive")]
                R::SessionArchive(_) | R::SessionUnarchive(_) => AgentMethod::ArchiveSession,
                #[cfg(feature = "unstable_session_status")]
                R::SessionStatus(_) => AgentMethod::SessionStatus,
                #[cfg(feature = "unstable_session_options")]
                R::SessionOptions(_) => AgentMethod::SessionOptions,
                #[cfg(feature = "unstable_session_set_title")]
                R::SessionSetTitle(_) => AgentMethod::SetSessionTitle,
                _ => return None,
            })
        }
    };
}

unstable_method_of!(of_v1, v1);
unstable_method_of!(of_v2, v2);

/// Whether an unstable `method` is answered (the stable ones are decided in
/// [`Offer::answers`]). The same in both versions.
#[allow(unused_variables)]
pub(crate) fn answers(offer: &Offer, method: AgentMethod) -> bool {
    #[allow(unused_variables)]
    let unstable = offer.features().unstable;
    match method {
        #[cfg(feature = "unstable_llm_providers")]
        AgentMethod::Providers => unstable.providers,
        #[cfg(feature = "unstable_auth_status")]
        AgentMethod::AuthStatus => unstable.auth_status,
        // The copy needs the source's history.
        #[cfg(feature = "unstable_session_fork")]
        AgentMethod::ForkSession => offer.store().history,
        // Answered from the store's session metadata, which every store keeps.
        #[cfg(feature = "unstable_session_archive")]
        AgentMethod::ArchiveSession => true,
        #[cfg(feature = "unstable_session_set_title")]
        AgentMethod::SetSessionTitle => true,
        #[cfg(feature = "unstable_session_status")]
        AgentMethod::SessionStatus => true,
        #[cfg(feature = "unstable_session_options")]
        AgentMethod::SessionOptions => unstable.session_options,
        _ => false,
    }
}

/// Adds the unstable session capabilities of one version's `SessionCapabilities` (the
/// capability types are distinct per version, the rule is the same).
macro_rules! unstable_session_capabilities {
    ($version:ident, $offer:expr, $session:expr) => {{
        #[allow(unused_mut)]
        let mut session = $session;
        #[allow(unused_variables)]
        let answers = |method| crate::agent::features::draft_methods::answers($offer, method);
        #[cfg(feature = "unstable_session_fork")]
        if answers(AgentMethod::ForkSession) {
            session = session.fork($version::SessionForkCapabilities::new());
        }
        #[cfg(feature = "unstable_session_archive")]
        if answers(AgentMethod::ArchiveSession) {
            session = session.archive($version::SessionArchiveCapabilities::new());
        }
        #[cfg(feature = "unstable_session_status")]
        if answers(AgentMethod::SessionStatus) {
            session = session.status($version::SessionStatusCapabilities::new());
        }
        #[cfg(feature = "unstable_session_options")]
        if answers(AgentMethod::SessionOptions) {
            session = session.options($version::SessionOptionsCapabilities::new());
        }
        #[cfg(feature = "unstable_session_set_title")]
        if answers(AgentMethod::SetSessionTitle) {
            session = session.title($version::SessionTitleCapabilities::new());
        }
        session
    }};
}

/// The v1 session capabilities with the unstable ones this offer answers.
pub(crate) fn v1_session(
    offer: &Offer,
    session: v1::SessionCapabilities,
) -> v1::SessionCapabilities {
    unstable_session_capabilities!(v1, offer, session)
}

/// The v2 session capabilities with the unstable ones this offer answers.
pub(crate) fn v2_session(
    offer: &Offer,
    session: v2::SessionCapabilities,
) -> v2::SessionCapabilities {
    unstable_session_capabilities!(v2, offer, session)
}

/// The v1 `agentCapabilities` with the unstable top-level and auth capabilities.
#[allow(unused_mut, unused_variables)]
pub(crate) fn v1_agent(
    offer: &Offer,
    mut capabilities: v1::AgentCapabilities,
) -> v1::AgentCapabilities {
    #[cfg(feature = "unstable_llm_providers")]
    if answers(offer, AgentMethod::Providers) {
        capabilities = capabilities.providers(v1::ProvidersCapabilities::new());
    }
    #[cfg(feature = "unstable_auth_status")]
    if answers(offer, AgentMethod::AuthStatus) {
        capabilities.auth = capabilities.auth.status(v1::AuthStatusCapabilities::new());
    }
    #[cfg(feature = "unstable_mcp_over_acp")]
    {
        capabilities.mcp_capabilities = capabilities.mcp_capabilities.acp(offer.features().mcp.acp);
    }
    capabilities
}

/// The v2 `capabilities` with the unstable top-level, auth and MCP capabilities.
#[allow(unused_mut, unused_variables)]
pub(crate) fn v2_agent(
    offer: &Offer,
    mut capabilities: v2::AgentCapabilities,
) -> v2::AgentCapabilities {
    #[cfg(feature = "unstable_llm_providers")]
    if answers(offer, AgentMethod::Providers) {
        capabilities = capabilities.providers(v2::ProvidersCapabilities::new());
    }
    #[cfg(feature = "unstable_auth_status")]
    if answers(offer, AgentMethod::AuthStatus) {
        let auth = capabilities.auth.take().unwrap_or_default();
        capabilities = capabilities.auth(auth.status(v2::AuthStatusCapabilities::new()));
    }
    #[cfg(feature = "unstable_mcp_over_acp")]
    if offer.features().mcp.acp
        && let Some(session) = capabilities.session.take()
    {
        let mcp = session
            .mcp
            .clone()
            .unwrap_or_default()
            .acp(v2::McpAcpCapabilities::new());
        capabilities = capabilities.session(session.mcp(mcp));
    }
    capabilities
}
