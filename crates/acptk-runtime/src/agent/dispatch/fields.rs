//! The setup fields of every request that opens a session (`session/new`, `load`, `resume`,
//! `fork`, in both versions), read into one form by one piece of code: the request types
//! differ only by version, so [`SetupRequest`] is implemented for each of them by one macro.

use acptk_schema::{v1, v2};

use super::Initialized;
use crate::agent::setup::prompt_text;
use crate::agent::{McpServerSpec, SessionConfig, SessionOrigin, SessionSetup, SystemPromptSpec};
use crate::connection::Reply;
use crate::rpc;
#[cfg(feature = "unstable_session_options")]
use crate::store::ConfigValue;

/// The setup fields of a session request, in one form.
pub(super) struct Fields {
    pub(super) id: String,
    cwd: String,
    additional_directories: Vec<String>,
    mcp_servers: Vec<McpServerSpec>,
    system_prompt: Option<SystemPromptSpec>,
    /// The initial config option values (`configOptions`), in order.
    #[cfg(feature = "unstable_session_options")]
    initial: Vec<(String, Option<ConfigValue>)>,
}

/// A request that opens a session, in either version.
pub(super) trait SetupRequest {
    /// Its fields, checked: a repeated initial option or a system prompt that is not text is
    /// refused with the reason.
    fn fields(self) -> Result<Fields, String>;
}

/// Implements [`SetupRequest`] for request types of one version: `$id` reads the session id
/// the request names (`String::new()` for `session/new`).
macro_rules! setup_request {
    ($version:ident, $from:ident: $($request:ty => |$r:ident| $id:expr),+ $(,)?) => {$(
        impl SetupRequest for $request {
            fn fields(self) -> Result<Fields, String> {
                let $r = self;
                Ok(Fields {
                    #[cfg(feature = "unstable_session_options")]
                    initial: unique($r.config_options.iter().map(|entry| {
                        (entry.config_id.as_str().to_owned(), ConfigValue::$from(&entry.value))
                    }))?,
                    id: $id,
                    system_prompt: $r
                        .system_prompt
                        .map(|prompt| {
                            system_prompt(
                                prompt.mode.as_str(),
                                prompt.content.iter().map($version::ContentBlock::as_text),
                            )
                        })
                        .transpose()?,
                    mcp_servers: $r.mcp_servers.iter().map(McpServerSpec::$from).collect(),
                    cwd: $r.cwd.as_str().to_owned(),
                    additional_directories: $r
                        .additional_directories
                        .iter()
                        .map(|dir| dir.as_str().to_owned())
                        .collect(),
                })
            }
        }
    )+};
}

setup_request!(v1, from_v1:
    v1::NewSessionRequest => |r| String::new(),
    v1::LoadSessionRequest => |r| r.session_id.to_string(),
    v1::ResumeSessionRequest => |r| r.session_id.to_string(),
);
setup_request!(v2, from_v2:
    v2::NewSessionRequest => |r| String::new(),
    v2::ResumeSessionRequest => |r| r.session_id.to_string(),
);
#[cfg(feature = "unstable_session_fork")]
setup_request!(v1, from_v1: v1::ForkSessionRequest => |r| r.session_id.to_string());
#[cfg(feature = "unstable_session_fork")]
setup_request!(v2, from_v2: v2::ForkSessionRequest => |r| r.session_id.to_string());

/// The initial values in order; an option named twice is refused.
#[cfg(feature = "unstable_session_options")]
fn unique(
    entries: impl Iterator<Item = (String, Option<ConfigValue>)>,
) -> Result<Vec<(String, Option<ConfigValue>)>, String> {
    let mut seen = std::collections::HashSet::new();
    entries
        .map(|(id, value)| {
            if seen.insert(id.clone()) {
                Ok((id, value))
            } else {
                Err(format!("`configOptions` names the option `{id}` twice"))
            }
        })
        .collect()
}

/// Applies the initial values of `setup` to `config`, in order, when the agent advertised
/// `sessionCapabilities.options`: an unknown option, or a value the option does not allow,
/// is skipped.
#[allow(unused_variables)]
pub(super) fn apply_initial(init: &Initialized, setup: &SessionSetup, config: &mut SessionConfig) {
    #[cfg(feature = "unstable_session_options")]
    if init.offer.features().unstable.session_options {
        for (id, value) in &setup.initial_options {
            if let Some(value) = value
                && config.check(id, value).is_ok()
            {
                config.set(id, value);
            }
        }
    }
}

/// A system prompt from its mode and its blocks' texts; only text blocks are accepted.
fn system_prompt<'a>(
    mode: &str,
    texts: impl Iterator<Item = Option<&'a str>>,
) -> Result<SystemPromptSpec, String> {
    let texts: Option<Vec<&str>> = texts.collect();
    match texts {
        Some(texts) if !texts.is_empty() => Ok(SystemPromptSpec {
            mode: mode.to_owned(),
            text: prompt_text(texts.into_iter()),
        }),
        Some(_) => Err("the `systemPrompt` has no content".to_owned()),
        None => Err("a `systemPrompt` may contain only text blocks".to_owned()),
    }
}

impl Fields {
    /// The session id the request names (empty for `session/new`).
    #[cfg(feature = "unstable_session_fork")]
    pub(super) fn id(&self) -> &str {
        &self.id
    }

    /// Checks the fields against what the agent advertised, and makes the setup.
    pub(super) fn setup(
        self,
        init: &Initialized,
        id: String,
        origin: SessionOrigin,
    ) -> Result<SessionSetup, Reply> {
        let offer = &init.offer;
        offer
            .check_setup(
                &self.additional_directories,
                self.system_prompt
                    .as_ref()
                    .map(|prompt| prompt.mode.as_str()),
            )
            .and_then(|()| {
                offer.features().mcp.check(
                    init.client.protocol_version(),
                    self.mcp_servers.iter().map(McpServerSpec::kind),
                )
            })
            .map_err(|detail| Reply::error(rpc::invalid_params(detail)))?;
        init.client.offered_servers(
            self.mcp_servers
                .iter()
                .filter_map(McpServerSpec::acp_server_id),
        );
        Ok(SessionSetup {
            id,
            origin,
            cwd: self.cwd,
            additional_directories: self.additional_directories,
            mcp_servers: self.mcp_servers,
            system_prompt: self.system_prompt,
            client: init.client.clone(),
            #[cfg(feature = "unstable_session_options")]
            initial_options: self.initial,
        })
    }
}
