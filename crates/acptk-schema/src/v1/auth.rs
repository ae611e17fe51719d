//! Authentication in ACP v1: the methods an agent offers, `authenticate` and `logout`.
//!
//! The conversions from each kind of method into [`AuthMethod`] are in the shared auth module.

#[allow(unused_imports)]
use super::*;

use serde::de;
use std::collections::BTreeMap;

/// A way for the user to authenticate with the agent, listed in
/// [`InitializeResponse::auth_methods`].
///
/// The `type` field selects the kind. An object *without* `type` is an
/// [`AuthMethod::Agent`]; `"type": "terminal"` is an [`AuthMethod::Terminal`]. Any other
/// `type` is an error (v1 defines no fallback), which drops that entry from the list in
/// `InitializeResponse`.
///
/// ```json
/// [{"id": "oauth", "name": "Sign in with a browser"},
///  {"type": "terminal", "id": "tui", "name": "Log in in a terminal", "args": ["--login"]}]
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum AuthMethod {
    /// The client runs the agent's login flow in an interactive terminal (`"type": "terminal"`).
    #[serde(rename = "terminal")]
    Terminal(AuthMethodTerminal),
    /// The agent handles authentication itself once the client calls `authenticate` (written
    /// without a `type`).
    #[serde(untagged)]
    Agent(AuthMethodAgent),
}

/// The `type` that names the agent kind (optional on the wire).
const AGENT: &str = "agent";
const TERMINAL: &str = "terminal";

impl AuthMethod {
    /// The name of the JSON field holding the tag.
    pub const TAG_KEY: &'static str = "type";

    /// Every `type` value this union knows. The agent variant has no tag.
    pub const TAGS: &'static [&'static str] = &[TERMINAL];

    /// The `type` this value is written with; `None` for [`AuthMethod::Agent`].
    pub fn tag(&self) -> Option<&'static str> {
        match self {
            Self::Terminal(_) => Some(TERMINAL),
            Self::Agent(_) => None,
        }
    }

    /// The method's id, to pass to `authenticate`.
    pub fn id(&self) -> &AuthMethodId {
        match self {
            Self::Terminal(method) => &method.id,
            Self::Agent(method) => &method.id,
        }
    }

    /// The method's display name.
    pub fn name(&self) -> &str {
        match self {
            Self::Terminal(method) => &method.name,
            Self::Agent(method) => &method.name,
        }
    }
}

map_deserialize!(
    AuthMethod,
    "an auth method object (`type` absent, \"agent\" or \"terminal\")",
    |map| {
        let (tag, payload) = crate::de::tagged::read_optional_tag(map, AuthMethod::TAG_KEY)?;
        match tag.as_deref() {
            // The agent method is the default kind; an explicit "agent" names it too.
            None | Some(AGENT) => payload.decode().map(AuthMethod::Agent),
            Some(TERMINAL) => payload.decode().map(AuthMethod::Terminal),
            Some(other) => Err(de::Error::unknown_variant(other, &[AGENT, TERMINAL])),
        }
    }
);

schema_impl!(AuthMethod, |generator| {
    let terminal = generator.subschema_for::<AuthMethodTerminal>();
    let agent = generator.subschema_for::<AuthMethodAgent>();
    schemars::json_schema!({
        "anyOf": [
            {
                "type": "object",
                "properties": { "type": { "type": "string", "const": TERMINAL } },
                "required": ["type"],
                "allOf": [terminal]
            },
            { "title": "agent", "allOf": [agent] }
        ]
    })
});

wire_struct! {
    /// An auth method where the client starts the agent's own program in an interactive
    /// terminal so that the user can log in there (for example a TUI login flow).
    ///
    /// The client runs the same agent command it launched the agent with, adding `args` and
    /// `env`.
    pub struct AuthMethodTerminal {
        /// The method's id, passed to `authenticate`.
        pub id: AuthMethodId,
        /// A short name to show to the user.
        pub name: String,
        /// A longer explanation for the user. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// Extra command-line arguments for the login run. `null` means none.
        #[list("crate::de::null_as_default")]
        pub args: Vec<String>,
        /// Extra environment variables for the login run, by name. `null` means none.
        #[serde(
            default,
            deserialize_with = "crate::de::null_as_default",
            skip_serializing_if = "BTreeMap::is_empty",
        )]
        pub env: BTreeMap<String, String>,
    }
}

impl AuthMethodTerminal {
    /// Builds a terminal method with an id and a display name, and no extra arguments.
    pub fn new(id: impl Into<AuthMethodId>, name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            meta: None,
        }
    }
}

setters!(AuthMethodTerminal {
    opt description: String,
    set args: Vec<String>,
    set env: BTreeMap<String, String>,
});

wire_struct! {
    /// An auth method that the agent carries out itself (for example by opening a browser)
    /// when the client calls `authenticate` with its id.
    pub struct AuthMethodAgent {
        /// The method's id, passed to `authenticate`.
        pub id: AuthMethodId,
        /// A short name to show to the user.
        pub name: String,
        /// A longer explanation for the user. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

constructor! {
    /// Builds an agent-handled method with an id and a display name.
    AuthMethodAgent(id: impl Into<AuthMethodId>, name: impl Into<String>)
    { description: None, meta: None }
}

setters!(AuthMethodAgent { opt description: String });

empty_object! {
    /// The agent's answer to `authenticate`: the user is now authenticated.
    AuthenticateResponse, new: "An empty success response."
}

empty_object! {
    /// The agent's answer to `logout`: the credentials are gone.
    LogoutResponse, new: "An empty success response."
}

wire_struct! {
    /// Asks the agent to authenticate the user with one of the methods it advertised in
    /// `initialize` (`authenticate`).
    ///
    /// ```json
    /// {"methodId": "oauth"}
    /// ```
    pub struct AuthenticateRequest {
        /// The id of the chosen [`AuthMethod`].
        pub method_id: AuthMethodId,
    }
}

constructor! {
    /// Asks to authenticate with the method `method_id`.
    AuthenticateRequest(method_id: impl Into<AuthMethodId>) { meta: None }
}

empty_object! {
    /// Asks the agent to forget the user's credentials (`logout`).
    LogoutRequest, new: "An empty logout request."
}
