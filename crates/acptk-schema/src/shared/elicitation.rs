//! Elicitation: the agent asks the user, through the client, for structured input
//! (`elicitation/create`) or to complete an interaction at a URL.
//!
//! This file holds the parts whose shape is the same in every protocol version: the scopes,
//! the request and response envelopes and `elicitation/complete`; the property schemas of a
//! form and the decoding of answers are in `elicitation_form.rs`. Version-specific parts (the
//! form schema itself, the string field, string formats, the answer value enum) live beside it.
//! Where the versions disagree on whether the two scopes may be combined, the per-version
//! constant `ELICITATION_SCOPES_EXCLUSIVE` decides, for decoding and for the JSON Schema alike.

#[allow(unused_imports)]
use super::*;

use serde::de::{Error as _, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Scope

wire_struct! {
    no_meta
    /// Session scope of an elicitation: the input is needed for work in a session, and
    /// possibly for one tool call in it. Whether the same object may also carry `requestId`
    /// depends on the protocol version (see [`ElicitationScope`]).
    #[cfg_attr(feature = "schemars", schemars(transform = session_scope_schema))]
    pub struct ElicitationSessionScope {
        /// The session the elicitation belongs to.
        pub session_id: SessionId,
        /// The tool call that needs the input, if any; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub tool_call_id: Option<ToolCallId>,
    }
}

constructor! {
    /// A scope covering `session_id` as a whole.
    ElicitationSessionScope(session_id: impl Into<SessionId>) { tool_call_id: None }
}

setters!(ElicitationSessionScope { opt tool_call_id: ToolCallId });

wire_struct! {
    no_meta
    /// Request scope of an elicitation: the input is needed to finish a pending JSON-RPC
    /// request that has no session yet (for example a login: `authenticate` in v1, `auth/login`
    /// in v2). Whether the same object may also carry `sessionId` or `toolCallId` depends on
    /// the protocol version (see [`ElicitationScope`]).
    #[cfg_attr(feature = "schemars", schemars(transform = request_scope_schema))]
    pub struct ElicitationRequestScope {
        /// The id of the pending request.
        pub request_id: RequestId,
    }
}

constructor! {
    /// A scope covering the request `request_id`.
    ElicitationRequestScope(request_id: impl Into<RequestId>) {}
}

/// Finishes the schema of [`ElicitationSessionScope`]: where the scopes exclude each other,
/// the object may not name a request as well.
#[cfg(feature = "schemars")]
fn session_scope_schema(schema: &mut schemars::Schema) {
    if ELICITATION_SCOPES_EXCLUSIVE {
        schema.insert(
            "propertyNames".into(),
            serde_json::json!({ "not": { "const": "requestId" } }),
        );
    }
}

/// Finishes the schema of [`ElicitationRequestScope`]: where the scopes exclude each other,
/// the object may not name a session or a tool call as well.
#[cfg(feature = "schemars")]
fn request_scope_schema(schema: &mut schemars::Schema) {
    if ELICITATION_SCOPES_EXCLUSIVE {
        schema.insert(
            "propertyNames".into(),
            serde_json::json!({ "not": { "enum": ["sessionId", "toolCallId"] } }),
        );
    }
}

/// What an elicitation is about: a session (optionally one tool call in it) or a pending
/// JSON-RPC request (for example an `initialize` or a login that needs user input).
///
/// On the wire the scope's fields sit directly in the enclosing object. The key decides the
/// variant: `sessionId` makes a session scope, `requestId` a request scope; neither is an
/// error. In protocol v1 an object with both keys is a session scope; from v2 on the two
/// scopes exclude each other (and `toolCallId` may not accompany `requestId`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationScope {
    /// About a session, and possibly one of its tool calls.
    Session(ElicitationSessionScope),
    /// About an outstanding request that cannot finish without the user.
    Request(ElicitationRequestScope),
}

from_variants!(ElicitationScope { Session(ElicitationSessionScope), Request(ElicitationRequestScope) });

impl Serialize for ElicitationScope {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Session(scope) => scope.serialize(serializer),
            Self::Request(scope) => scope.serialize(serializer),
        }
    }
}

map_deserialize! {
    ElicitationScope, "an object with `sessionId` or `requestId` (ElicitationScope)",
    visit_map(mut map: A) {
        let mut session_id: Option<SessionId> = None;
        let mut tool_call_id: Option<Value> = None;
        let mut request_id: Option<RequestId> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "sessionId" if session_id.is_none() => session_id = Some(map.next_value()?),
                "toolCallId" if tool_call_id.is_none() => {
                    tool_call_id = Some(map.next_value()?)
                }
                "requestId" if request_id.is_none() => request_id = Some(map.next_value()?),
                "sessionId" | "toolCallId" | "requestId" => {
                    return Err(A::Error::custom(format_args!("duplicate field `{key}`")));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let exclusive = ELICITATION_SCOPES_EXCLUSIVE;
        match (session_id, request_id) {
            (Some(_), Some(_)) if exclusive => Err(A::Error::custom(
                "an elicitation scope has either `sessionId` or `requestId`, not both",
            )),
            (Some(session_id), _) => {
                Ok(ElicitationScope::Session(ElicitationSessionScope {
                    session_id,
                    tool_call_id: tool_call_id
                        .and_then(|value| ToolCallId::deserialize(value).ok()),
                }))
            }
            (None, Some(_)) if exclusive && tool_call_id.is_some() => {
                Err(A::Error::custom(
                    "`toolCallId` belongs to a session scope and cannot accompany `requestId`",
                ))
            }
            (None, Some(request_id)) => {
                Ok(ElicitationScope::Request(ElicitationRequestScope {
                    request_id,
                }))
            }
            (None, None) => Err(A::Error::custom(
                "expected an elicitation scope: `sessionId` (session) or `requestId` (request)",
            )),
        }
    }
}

#[cfg(feature = "schemars")]
impl ElicitationScope {
    /// The schema keyword joining the two scopes and the alternatives themselves.
    fn schema_alternatives(generator: &mut schemars::SchemaGenerator) -> (&'static str, Value) {
        let keyword = if ELICITATION_SCOPES_EXCLUSIVE {
            "oneOf"
        } else {
            "anyOf"
        };
        let alternatives = serde_json::json!([
            { "title": "Session", "allOf": [generator.subschema_for::<ElicitationSessionScope>()] },
            { "title": "Request", "allOf": [generator.subschema_for::<ElicitationRequestScope>()] },
        ]);
        (keyword, alternatives)
    }

    /// The schema of a mode's object: the scope's alternatives, then the mode's own
    /// `properties` (built after them, so that the definitions keep their order) and its
    /// `required` fields.
    fn mode_schema(
        generator: &mut schemars::SchemaGenerator,
        properties: impl FnOnce(&mut schemars::SchemaGenerator) -> Value,
        required: &[&str],
    ) -> schemars::Schema {
        let (keyword, alternatives) = Self::schema_alternatives(generator);
        let mut schema = serde_json::json!({
            "type": "object",
            "properties": properties(generator),
        });
        schema[keyword] = alternatives;
        schema["required"] = serde_json::json!(required);
        schema_parts::finish(schema)
    }
}

schema_impl!(ElicitationScope, inline, |generator| {
    let (keyword, alternatives) = ElicitationScope::schema_alternatives(generator);
    let mut schema = serde_json::Map::new();
    schema.insert(keyword.into(), alternatives);
    schema_parts::finish(Value::Object(schema))
});

// ---------------------------------------------------------------------------------------------
// Modes and the request

/// Form mode: the client shows a form built from [`Self::requested_schema`] and sends the
/// answers back in the response. Only for non-sensitive data.
///
/// ```json
/// {"mode": "form", "message": "Which branch?", "sessionId": "sess_1",
///  "requestedSchema": {"type": "object", "properties": {"branch": {"type": "string"}}}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationFormMode {
    /// What the elicitation is about; written as `sessionId`/`toolCallId` or `requestId`.
    #[serde(flatten)]
    pub scope: ElicitationScope,
    /// The form to show: a restricted JSON Schema of a flat object.
    pub requested_schema: ElicitationSchema,
}

constructor! {
    /// A form for `scope`.
    ElicitationFormMode(scope: impl Into<ElicitationScope>, requested_schema: ElicitationSchema) {}
}

schema_impl!(ElicitationFormMode, |generator| {
    ElicitationScope::mode_schema(
        generator,
        |generator| {
            serde_json::json!({
                "requestedSchema": schema_parts::field::<ElicitationSchema>(generator),
            })
        },
        &["requestedSchema"],
    )
});

/// URL mode: the client asks the user's consent and opens [`Self::url`] for an interaction
/// outside the client (sign-in, payment, entering secrets). The data never passes through the
/// client; the agent later sends `elicitation/complete` with the same
/// [`Self::elicitation_id`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationUrlMode {
    /// What the elicitation is about; written as `sessionId`/`toolCallId` or `requestId`.
    #[serde(flatten)]
    pub scope: ElicitationScope,
    /// Identifies this interaction in the later `elicitation/complete` notification.
    pub elicitation_id: ElicitationId,
    /// The address to open (a URI).
    pub url: String,
}

constructor! {
    /// A URL interaction for `scope`.
    ElicitationUrlMode(
        scope: impl Into<ElicitationScope>,
        elicitation_id: impl Into<ElicitationId>,
        url: impl Into<String>,
    ) {}
}

schema_impl!(ElicitationUrlMode, |generator| {
    ElicitationScope::mode_schema(
        generator,
        |generator| {
            serde_json::json!({
                "elicitationId": schema_parts::field::<ElicitationId>(generator),
                "url": { "type": "string", "format": "uri" },
            })
        },
        &["elicitationId", "url"],
    )
});

tagged_union! {
    /// The mode of an [`CreateElicitationRequest`], tagged by `mode`; its fields sit directly in
    /// the request object.
    ///
    /// Open: an unknown mode is kept verbatim in `Other` (it must still carry a scope to
    /// decode as part of a request).
    pub enum ElicitationMode("mode") open(Other) {
        /// Ask for structured input through a form.
        Form(ElicitationFormMode) = "form",
        /// Send the user to a URL.
        Url(ElicitationUrlMode) = "url",
    }
}

from_variants!(ElicitationMode { Form(ElicitationFormMode), Url(ElicitationUrlMode) });

/// `elicitation/create` parameters: the agent asks the user for input through the client.
///
/// The client answers with a [`CreateElicitationResponse`]. Send it only if the client
/// advertised the mode in its elicitation capabilities.
///
/// ```json
/// {"message": "Sign in to continue", "mode": "url", "requestId": 3,
///  "elicitationId": "el_1", "url": "https://example.com/login"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CreateElicitationRequest {
    /// What is being asked and why, shown to the user.
    pub message: String,
    /// The mode, its scope and its mode-specific fields.
    #[serde(flatten)]
    pub mode: ElicitationMode,
    /// Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`].
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::Meta>,
}

constructor! {
    /// A request showing `message` in the given mode.
    CreateElicitationRequest(message: impl Into<String>, mode: impl Into<ElicitationMode>) {
        meta: None,
    }
}

impl CreateElicitationRequest {
    /// A form-mode request.
    pub fn form(
        message: impl Into<String>,
        scope: impl Into<ElicitationScope>,
        requested_schema: ElicitationSchema,
    ) -> Self {
        Self::new(message, ElicitationFormMode::new(scope, requested_schema))
    }

    /// A URL-mode request.
    pub fn url(
        message: impl Into<String>,
        scope: impl Into<ElicitationScope>,
        elicitation_id: impl Into<ElicitationId>,
        url: impl Into<String>,
    ) -> Self {
        Self::new(message, ElicitationUrlMode::new(scope, elicitation_id, url))
    }
}

meta_setter!(CreateElicitationRequest);

/// An error of [`crate::de::from_tree`] as `D`'s, without the position in the tree's text.
fn tree_error<'de, D: serde::Deserializer<'de>>(error: serde_json::Error) -> D::Error {
    D::Error::custom(crate::de::tree_error_message(&error))
}

impl<'de> Deserialize<'de> for CreateElicitationRequest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut fields = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        let message = match fields.remove("message") {
            Some(value) => String::deserialize(value).map_err(D::Error::custom)?,
            None => return Err(D::Error::missing_field("message")),
        };
        let meta = match fields.remove("_meta") {
            Some(Value::Object(meta)) => Some(crate::Meta::from(meta)),
            _ => None,
        };
        let rest = Value::Object(fields);
        // An unknown mode is kept verbatim, but it must still name a valid scope.
        if let Some(Value::String(mode)) = rest.get(ElicitationMode::TAG_KEY)
            && !ElicitationMode::TAGS.contains(&mode.as_str())
        {
            crate::de::from_tree::<ElicitationScope>(&rest).map_err(tree_error::<D>)?;
        }
        // Through the text decoder of the mode (see `de::from_tree`), not a second one for the
        // tree.
        let mode = crate::de::from_tree::<ElicitationMode>(&rest).map_err(tree_error::<D>)?;
        Ok(Self {
            message,
            mode,
            meta,
        })
    }
}

schema_impl!(CreateElicitationRequest, |generator| {
    let tag = ElicitationMode::TAG_KEY;
    let (keyword, scopes) = ElicitationScope::schema_alternatives(generator);
    let known: Vec<Value> = ElicitationMode::TAGS
        .iter()
        .map(|value| schema_parts::tagged(tag, value))
        .collect();
    let mut other = serde_json::json!({
        "title": "other",
        "type": "object",
        "properties": { tag: { "type": "string" } },
        "required": [tag],
    });
    other[keyword] = scopes;
    other["unevaluatedProperties"] = Value::Bool(true);
    other["not"] = serde_json::json!({ "anyOf": known });
    schema_parts::finish(serde_json::json!({
        "type": "object",
        "properties": {
            "message": { "type": "string" },
            "_meta": schema_parts::meta(),
        },
        "anyOf": [
            schema_parts::tagged_payload::<ElicitationFormMode>(generator, tag, "form"),
            schema_parts::tagged_payload::<ElicitationUrlMode>(generator, tag, "url"),
            other,
        ],
        "required": ["message"],
    }))
});

wire_struct! {
    /// `elicitation/complete` parameters: the agent tells the client that the URL-mode
    /// interaction with this id has finished, so the client can close any prompt it shows.
    pub struct CompleteElicitationNotification {
        /// The id from the URL-mode request.
        pub elicitation_id: ElicitationId,
    }
}

constructor! {
    /// A completion notice for `elicitation_id`.
    CompleteElicitationNotification(elicitation_id: impl Into<ElicitationId>) { meta: None }
}

// ---------------------------------------------------------------------------------------------
// Response

/// What the user did with an elicitation, tagged by `action`.
///
/// Open: an unknown action is kept verbatim in [`ElicitationAction::Other`]; a known action
/// with a malformed payload is an error.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ElicitationAction {
    /// The user submitted the form (or finished the URL interaction).
    Accept(ElicitationAcceptAction),
    /// The user explicitly said no.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
    /// An action this crate does not know, kept verbatim.
    #[serde(untagged)]
    Other(crate::UnknownVariant),
}

union_tags! {
    ElicitationAction("action"), what: "action", open(Other) {
        Accept(_) = "accept",
        Decline = "decline",
        Cancel = "cancel",
    }
}

map_deserialize! {
    ElicitationAction, "an object tagged by `action` (ElicitationAction)",
    visit_map(map: A) {
        let (tag, payload) = crate::de::tagged::read_tag(map, ElicitationAction::TAG_KEY)?;
        match &*tag {
            "accept" => payload.decode().map(ElicitationAction::Accept),
            "decline" => payload
                .decode::<IgnoredAny>()
                .map(|_| ElicitationAction::Decline),
            "cancel" => payload
                .decode::<IgnoredAny>()
                .map(|_| ElicitationAction::Cancel),
            _ => Ok(ElicitationAction::Other(crate::UnknownVariant::new(
                ElicitationAction::TAG_KEY,
                tag.into_owned(),
                payload.into_fields()?,
            ))),
        }
    }
}

wire_struct! {
    own_schema
    /// The client's answer to `elicitation/create`.
    ///
    /// ```json
    /// {"action": "accept", "content": {"branch": "main"}}
    /// ```
    pub struct CreateElicitationResponse {
        /// What the user did, with the answers when accepted.
        #[serde(flatten)]
        pub action: ElicitationAction,
    }
}

constructor! {
    /// A response with the given action.
    CreateElicitationResponse(action: impl Into<ElicitationAction>) { meta: None }
}

impl CreateElicitationResponse {
    /// The user accepted; `content` holds the form answers (none for URL mode).
    pub fn accept(content: ElicitationAcceptAction) -> Self {
        Self::new(ElicitationAction::Accept(content))
    }

    /// The user declined.
    pub fn decline() -> Self {
        Self::new(ElicitationAction::Decline)
    }

    /// The user cancelled.
    pub fn cancel() -> Self {
        Self::new(ElicitationAction::Cancel)
    }
}

from_variants!(ElicitationAction { Accept(ElicitationAcceptAction) });

schema_impl!(CreateElicitationResponse, |generator| {
    let tag = ElicitationAction::TAG_KEY;
    schema_parts::finish(serde_json::json!({
        "type": "object",
        "properties": { "_meta": schema_parts::meta() },
        "anyOf": [
            schema_parts::tagged_payload::<ElicitationAcceptAction>(generator, tag, "accept"),
            schema_parts::tagged(tag, "decline"),
            schema_parts::tagged(tag, "cancel"),
            crate::schema_parts::other_alternative(tag, ElicitationAction::TAGS),
        ],
    }))
});

wire_struct! {
    no_meta
    /// The payload of an `accept` action: the user's answers.
    #[derive(Default)]
    pub struct ElicitationAcceptAction {
        /// The answers by form property name; absent for URL mode or an empty form.
        #[opt]
        pub content: Option<std::collections::BTreeMap<String, ElicitationContentValue>>,
    }
}

default_new!(
    ElicitationAcceptAction,
    "An accept payload without answers."
);

setters!(ElicitationAcceptAction { opt content: std::collections::BTreeMap<String, ElicitationContentValue> });
