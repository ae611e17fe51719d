//! Authentication in ACP v2: the methods an agent offers, `auth/login` and `auth/logout`.
//!
//! The conversions from each kind of method into [`AuthMethod`] are in the shared auth module.

#[allow(unused_imports)]
use super::*;

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde_json::Value;

const TERMINAL: &str = "terminal";
const AGENT: &str = "agent";
const METHOD_ID: &str = "methodId";
const NAME: &str = "name";

/// A way for the user to authenticate with the agent, listed in
/// [`InitializeResponse::auth_methods`].
///
/// Tagged by `type`. The union is open: a method of a kind this crate does not know is kept
/// verbatim as [`AuthMethod::Other`], but it must still carry a string `methodId` and `name`
/// so that a client can list it. A known `type` whose fields do not fit is an error.
///
/// ```json
/// {"type": "agent", "methodId": "oauth", "name": "Sign in with a browser"}
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum AuthMethod {
    /// The client runs the agent's login flow in an interactive terminal.
    #[serde(rename = "terminal")]
    Terminal(AuthMethodTerminal),
    /// The agent handles authentication itself once the client calls `auth/login`.
    #[serde(rename = "agent")]
    Agent(AuthMethodAgent),
    /// A kind of method this crate does not know, kept verbatim (it has a string `methodId`
    /// and `name`).
    #[serde(untagged)]
    Other(crate::UnknownVariant),
}

impl AuthMethod {
    /// The name of the JSON field holding the tag.
    pub const TAG_KEY: &'static str = "type";

    /// Every tag this union knows, in declaration order.
    pub const TAGS: &'static [&'static str] = &[TERMINAL, AGENT];

    /// The tag this value is written with.
    pub fn tag(&self) -> &str {
        match self {
            Self::Terminal(_) => TERMINAL,
            Self::Agent(_) => AGENT,
            Self::Other(unknown) => unknown.tag(),
        }
    }

    /// The method's id, to pass to `auth/login`.
    pub fn method_id(&self) -> &str {
        match self {
            Self::Terminal(method) => method.method_id.as_str(),
            Self::Agent(method) => method.method_id.as_str(),
            Self::Other(unknown) => string_field(unknown, METHOD_ID),
        }
    }

    /// The method's display name.
    pub fn name(&self) -> &str {
        match self {
            Self::Terminal(method) => &method.name,
            Self::Agent(method) => &method.name,
            Self::Other(unknown) => string_field(unknown, NAME),
        }
    }

    /// Builds a method of a kind this crate does not know: `tag` plus the required `methodId`
    /// and `name`, and any further `fields`. Fails with [`crate::Error::KnownTag`] when `tag`
    /// is one of [`Self::TAGS`].
    pub fn unknown(
        tag: impl Into<String>,
        method_id: impl Into<AuthMethodId>,
        name: impl Into<String>,
        mut fields: crate::unknown::Fields,
    ) -> Result<Self, crate::Error> {
        let tag = tag.into();
        if Self::TAGS.contains(&tag.as_str()) {
            return Err(crate::Error::KnownTag { tag });
        }
        fields.insert(METHOD_ID.into(), Value::String(method_id.into().0));
        fields.insert(NAME.into(), Value::String(name.into()));
        Ok(Self::Other(crate::UnknownVariant::new(
            Self::TAG_KEY,
            tag,
            fields,
        )))
    }
}

/// A string field of an unknown variant whose decoding or construction checked that the
/// field is a string (see [`unknown_with_strings`]); empty if it is not.
pub(super) fn string_field<'a>(unknown: &'a crate::UnknownVariant, key: &str) -> &'a str {
    unknown
        .fields()
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Keeps an object with an unknown tag as the fallback of an open union whose fallback still
/// requires some string fields (the fields every kind shares, such as an id and a name).
pub(super) fn unknown_with_strings<E: de::Error>(
    key: &'static str,
    tag: String,
    fields: crate::unknown::Fields,
    required: &[&str],
) -> Result<crate::UnknownVariant, E> {
    for field in required {
        if !fields.get(*field).is_some_and(Value::is_string) {
            return Err(E::custom(format_args!(
                "an object with the unknown `{key}` value `{tag}` must still have a string `{field}`"
            )));
        }
    }
    Ok(crate::UnknownVariant::new(key, tag, fields))
}

impl<'de> serde::Deserialize<'de> for AuthMethod {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AuthMethod;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an auth method object tagged by `type`")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AuthMethod, A::Error> {
                let (tag, payload) = crate::de::tagged::read_tag(map, AuthMethod::TAG_KEY)?;
                match &*tag {
                    TERMINAL => payload.decode().map(AuthMethod::Terminal),
                    AGENT => payload.decode().map(AuthMethod::Agent),
                    _ => unknown_with_strings(
                        AuthMethod::TAG_KEY,
                        tag.into_owned(),
                        payload.into_fields()?,
                        &[METHOD_ID, NAME],
                    )
                    .map(AuthMethod::Other),
                }
            }
        }
        deserializer.deserialize_map(V)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for AuthMethod {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AuthMethod".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let tag = |value: &str| {
            serde_json::json!({
                "type": "object",
                "properties": { "type": { "type": "string", "const": value } },
                "required": ["type"],
            })
        };
        let mut terminal = tag(TERMINAL);
        terminal["allOf"] = serde_json::json!([generator.subschema_for::<AuthMethodTerminal>()]);
        let mut agent = tag(AGENT);
        agent["allOf"] = serde_json::json!([generator.subschema_for::<AuthMethodAgent>()]);
        let other = serde_json::json!({
            "title": "other",
            "type": "object",
            "properties": {
                "type": { "type": "string" },
                "methodId": { "allOf": [generator.subschema_for::<AuthMethodId>()] },
                "name": { "type": "string" }
            },
            "required": ["type", METHOD_ID, NAME],
            "not": { "anyOf": Self::TAGS.iter().map(|value| tag(value)).collect::<Vec<_>>() },
            "additionalProperties": true
        });
        crate::schema::union_schema(vec![terminal, agent, other], Self::TAG_KEY, false)
    }
}

wire_struct! {
    /// An auth method where the client starts the agent's own program in an interactive
    /// terminal so that the user can log in there (for example a TUI login flow).
    ///
    /// The client runs the same agent command it launched the agent with, adding `args` and
    /// `env`.
    pub struct AuthMethodTerminal {
        /// The method's id, passed to `auth/login`.
        pub method_id: AuthMethodId,
        /// A short name to show to the user.
        pub name: String,
        /// A longer explanation for the user. A non-string value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
        /// Extra command-line arguments for the login run. `null` means none.
        #[serde(
            default,
            deserialize_with = "crate::de::null_as_default",
            skip_serializing_if = "Vec::is_empty",
        )]
        pub args: Vec<String>,
        /// Extra environment variables for the login run (names should be unique). `null`
        /// means none.
        #[serde(
            default,
            deserialize_with = "crate::de::null_as_default",
            skip_serializing_if = "Vec::is_empty",
        )]
        pub env: Vec<EnvVariable>,
    }
}

impl AuthMethodTerminal {
    /// Builds a terminal method with an id and a display name, and no extra arguments.
    pub fn new(method_id: impl Into<AuthMethodId>, name: impl Into<String>) -> Self {
        Self {
            method_id: method_id.into(),
            name: name.into(),
            description: None,
            args: Vec::new(),
            env: Vec::new(),
            meta: None,
        }
    }
}

setters!(AuthMethodTerminal {
    opt description: String,
    set args: Vec<String>,
    set env: Vec<EnvVariable>,
});

wire_struct! {
    /// An auth method that the agent carries out itself (for example by opening a browser)
    /// when the client calls `auth/login` with its id.
    pub struct AuthMethodAgent {
        /// The method's id, passed to `auth/login`.
        pub method_id: AuthMethodId,
        /// A short name to show to the user.
        pub name: String,
        /// A longer explanation for the user. A non-string value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
    }
}

impl AuthMethodAgent {
    /// Builds an agent-handled method with an id and a display name.
    pub fn new(method_id: impl Into<AuthMethodId>, name: impl Into<String>) -> Self {
        Self {
            method_id: method_id.into(),
            name: name.into(),
            description: None,
            meta: None,
        }
    }
}

setters!(AuthMethodAgent { opt description: String });

wire_struct! {
    /// The agent's answer to `auth/login`: the user is now authenticated.
    #[derive(Default)]
    pub struct LoginAuthResponse {
    }
}

impl LoginAuthResponse {
    /// An empty success response.
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// The agent's answer to `auth/logout`: the credentials are gone.
    #[derive(Default)]
    pub struct LogoutAuthResponse {
    }
}

impl LogoutAuthResponse {
    /// An empty success response.
    pub fn new() -> Self {
        Self { meta: None }
    }
}

wire_struct! {
    /// Asks the agent to authenticate the user with one of the methods it advertised in
    /// `initialize` (`auth/login`).
    ///
    /// ```json
    /// {"methodId": "oauth"}
    /// ```
    pub struct LoginAuthRequest {
        /// The id of the chosen [`AuthMethod`].
        pub method_id: AuthMethodId,
    }
}

impl LoginAuthRequest {
    /// Asks to log in with the method `method_id`.
    pub fn new(method_id: impl Into<AuthMethodId>) -> Self {
        Self {
            method_id: method_id.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// Asks the agent to forget the user's credentials (`auth/logout`).
    #[derive(Default)]
    pub struct LogoutAuthRequest {
    }
}

impl LogoutAuthRequest {
    /// An empty logout request.
    pub fn new() -> Self {
        Self { meta: None }
    }
}
