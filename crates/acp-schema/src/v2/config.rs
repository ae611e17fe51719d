//! Session config options in v2: the option object, its kinds, and
//! `session/set_config_option`.
//!
//! An agent lists its options in the `session/new` (or load/resume) response and reports
//! later changes with a `config_option_update` session update; the client changes a value with
//! `session/set_config_option` and gets the full, updated list back.

#[allow(unused_imports)]
use super::*;

use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

tagged_union! {
    /// The kind of a [`SessionConfigOption`] with its current value, tagged by `type`.
    ///
    /// Open in v2: an unknown `type` is kept verbatim in `Other`; a known `type` with a
    /// malformed payload is an error.
    pub enum SessionConfigKind("type") open(Other) {
        /// Pick one value from a list.
        Select(SessionConfigSelect) = "select",
        /// Switch on or off.
        Boolean(SessionConfigBoolean) = "boolean",
    }
}

impl From<SessionConfigSelect> for SessionConfigKind {
    fn from(select: SessionConfigSelect) -> Self {
        Self::Select(select)
    }
}

impl From<SessionConfigBoolean> for SessionConfigKind {
    fn from(boolean: SessionConfigBoolean) -> Self {
        Self::Boolean(boolean)
    }
}

/// One configuration selector of a session (model, mode, reasoning level, ...), with its
/// current value.
///
/// The kind's fields sit directly in the object:
///
/// ```json
/// {"configId": "model", "name": "Model", "category": "model", "type": "select",
///  "currentValue": "fast", "options": [{"value": "fast", "name": "Fast"}]}
/// ```
///
/// Clients should show options in the order the agent sent them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionConfigOption {
    /// Identifies the option in `session/set_config_option`.
    pub config_id: SessionConfigId,
    /// Label shown to the user.
    pub name: String,
    /// Longer explanation of what the option controls; a malformed value is treated as absent.
    #[serde(
        default,
        deserialize_with = "crate::de::lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<String>,
    /// What the option is about, as a presentation hint; a malformed value is treated as
    /// absent.
    #[serde(
        default,
        deserialize_with = "crate::de::lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub category: Option<SessionConfigOptionCategory>,
    /// The kind of control and its current value (`type`, `currentValue`, ...).
    #[serde(flatten)]
    pub kind: SessionConfigKind,
    /// Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`].
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "crate::de::meta",
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<crate::Meta>,
}

impl SessionConfigOption {
    /// An option `config_id` labelled `name` of the given kind.
    pub fn new(
        config_id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        kind: impl Into<SessionConfigKind>,
    ) -> Self {
        Self {
            config_id: config_id.into(),
            name: name.into(),
            description: None,
            category: None,
            kind: kind.into(),
            meta: None,
        }
    }

    /// A select option whose current value is `current_value`.
    pub fn select(
        config_id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        current_value: impl Into<SessionConfigValueId>,
        options: impl Into<SessionConfigSelectOptions>,
    ) -> Self {
        Self::new(
            config_id,
            name,
            SessionConfigSelect::new(current_value, options),
        )
    }

    /// An on/off option that is currently `current_value`.
    pub fn boolean(
        config_id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        current_value: bool,
    ) -> Self {
        Self::new(config_id, name, SessionConfigBoolean::new(current_value))
    }

    /// Sets the `_meta` extension object.
    #[must_use]
    pub fn meta(mut self, meta: crate::Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

setters!(SessionConfigOption { opt description: String, opt category: SessionConfigOptionCategory });

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for SessionConfigOption {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SessionConfigOption".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = serde_json::json!({
            "type": "object",
            "properties": {
                "configId": schema_parts::field::<SessionConfigId>(generator),
                "name": { "type": "string" },
                "description": { "type": ["string", "null"], "x-deserialize-default-on-error": true },
                "category": {
                    "anyOf": [generator.subschema_for::<SessionConfigOptionCategory>(), { "type": "null" }],
                    "x-deserialize-default-on-error": true,
                },
                "_meta": schema_parts::meta(),
            },
            "required": ["configId", "name"],
        });
        let kind = <SessionConfigKind as schemars::JsonSchema>::json_schema(generator);
        if let (Some(target), Some(source)) = (schema.as_object_mut(), kind.as_object()) {
            target.extend(
                source
                    .iter()
                    .map(|(key, value)| (key.clone(), value.clone())),
            );
        }
        schema_parts::finish(schema)
    }
}

/// The values of a select option: a flat list, or a list of labelled groups.
///
/// Which one is decided by the first entry: an entry with `groupId` makes the list grouped.
/// Every entry must then have that shape; a mixed list is an error.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SessionConfigSelectOptions {
    /// A flat list of values.
    Ungrouped(Vec<SessionConfigSelectOption>),
    /// Values in labelled groups.
    Grouped(Vec<SessionConfigSelectGroup>),
}

impl From<Vec<SessionConfigSelectOption>> for SessionConfigSelectOptions {
    fn from(options: Vec<SessionConfigSelectOption>) -> Self {
        Self::Ungrouped(options)
    }
}

impl From<Vec<SessionConfigSelectGroup>> for SessionConfigSelectOptions {
    fn from(groups: Vec<SessionConfigSelectGroup>) -> Self {
        Self::Grouped(groups)
    }
}

impl<'de> Deserialize<'de> for SessionConfigSelectOptions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let items = Vec::<Value>::deserialize(deserializer)?;
        let grouped = items
            .first()
            .is_some_and(|first| first.get("groupId").is_some());
        if grouped {
            items
                .into_iter()
                .map(SessionConfigSelectGroup::deserialize)
                .collect::<Result<Vec<_>, _>>()
                .map(Self::Grouped)
                .map_err(D::Error::custom)
        } else {
            items
                .into_iter()
                .map(SessionConfigSelectOption::deserialize)
                .collect::<Result<Vec<_>, _>>()
                .map(Self::Ungrouped)
                .map_err(D::Error::custom)
        }
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for SessionConfigSelectOptions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SessionConfigSelectOptions".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schema_parts::finish(serde_json::json!({
            "anyOf": [
                {
                    "title": "Ungrouped",
                    "type": "array",
                    "items": generator.subschema_for::<SessionConfigSelectOption>(),
                    "minItems": 1,
                },
                {
                    "title": "Grouped",
                    "type": "array",
                    "items": generator.subschema_for::<SessionConfigSelectGroup>(),
                    "minItems": 1,
                },
            ]
        }))
    }
}

wire_struct! {
    /// A labelled group of values in a select option.
    pub struct SessionConfigSelectGroup {
        /// Identifies the group.
        pub group_id: SessionConfigGroupId,
        /// Label shown for the group.
        pub name: String,
        /// The values in the group. A malformed list decodes as empty and malformed entries
        /// are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
        #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
        pub options: Vec<SessionConfigSelectOption>,
    }
}

impl SessionConfigSelectGroup {
    /// A group `group_id` labelled `name`.
    pub fn new(
        group_id: impl Into<SessionConfigGroupId>,
        name: impl Into<String>,
        options: impl Into<Vec<SessionConfigSelectOption>>,
    ) -> Self {
        Self {
            group_id: group_id.into(),
            name: name.into(),
            options: options.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// The agent's answer to `session/set_config_option`: every option of the session with
    /// its value after the change (a change may affect other options too).
    pub struct SetSessionConfigOptionResponse {
        /// The full list of options. It must be a list; malformed entries are dropped.
        #[serde(deserialize_with = "crate::de::items_skip_invalid")]
        pub config_options: Vec<SessionConfigOption>,
    }
}

impl SetSessionConfigOptionResponse {
    /// A response carrying the full list of options.
    pub fn new(config_options: impl Into<Vec<SessionConfigOption>>) -> Self {
        Self {
            config_options: config_options.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// The `config_option_update` session update: the agent changed its config options (for
    /// example it switched model on its own) and sends the full new list.
    pub struct ConfigOptionUpdate {
        /// The full list of options. It must be a list; malformed entries are dropped.
        #[serde(deserialize_with = "crate::de::items_skip_invalid")]
        pub config_options: Vec<SessionConfigOption>,
    }
}

impl ConfigOptionUpdate {
    /// An update carrying the full list of options.
    pub fn new(config_options: impl Into<Vec<SessionConfigOption>>) -> Self {
        Self {
            config_options: config_options.into(),
            meta: None,
        }
    }
}

/// The new value in a `session/set_config_option` request, tagged by `type`; its fields sit
/// directly in the request object.
///
/// * `{"type": "id", "value": "fast"}`: a value id of a select option.
/// * `{"type": "boolean", "value": true}`: the new state of a boolean option.
///
/// Open: another `type` (which must still come with a `value`) is kept verbatim in
/// [`SessionConfigOptionValue::Other`]. A known `type` with a `value` of the wrong kind is an
/// error.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionConfigOptionValue {
    /// The id of the chosen value of a select option (`"type": "id"`).
    Id(SessionConfigValueId),
    /// The new state of a boolean option (`"type": "boolean"`).
    Boolean(bool),
    /// A `type` this crate does not know, kept verbatim with `value` and any other fields.
    Other(crate::UnknownVariant),
}

impl SessionConfigOptionValue {
    /// The name of the JSON field holding the tag.
    pub const TAG_KEY: &'static str = "type";

    /// Every tag this union knows, in declaration order.
    pub const TAGS: &'static [&'static str] = &["id", "boolean"];

    /// The tag this value is written with.
    pub fn tag(&self) -> &str {
        match self {
            Self::Id(_) => "id",
            Self::Boolean(_) => "boolean",
            Self::Other(unknown) => unknown.tag(),
        }
    }

    /// Builds the fallback variant for a tag this crate does not know. Fails with
    /// [`crate::Error::KnownTag`] when `tag` is one of [`Self::TAGS`]. `fields` should hold
    /// the `value`.
    pub fn unknown(
        tag: impl Into<String>,
        fields: crate::unknown::Fields,
    ) -> Result<Self, crate::Error> {
        crate::UnknownVariant::checked(Self::TAG_KEY, Self::TAGS, tag.into(), fields)
            .map(Self::Other)
    }
}

impl From<bool> for SessionConfigOptionValue {
    fn from(value: bool) -> Self {
        Self::Boolean(value)
    }
}

impl From<SessionConfigValueId> for SessionConfigOptionValue {
    fn from(value: SessionConfigValueId) -> Self {
        Self::Id(value)
    }
}

impl Serialize for SessionConfigOptionValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Id(value) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry(Self::TAG_KEY, "id")?;
                map.serialize_entry("value", value)?;
                map.end()
            }
            Self::Boolean(value) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry(Self::TAG_KEY, "boolean")?;
                map.serialize_entry("value", value)?;
                map.end()
            }
            Self::Other(unknown) => unknown.serialize(serializer),
        }
    }
}

/// The payload of a known [`SessionConfigOptionValue`] tag.
#[derive(Deserialize)]
struct ValuePayload<T> {
    value: T,
}

impl<'de> Deserialize<'de> for SessionConfigOptionValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SessionConfigOptionValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object tagged by `type` with a `value` (SessionConfigOptionValue)")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let (tag, payload) =
                    crate::de::tagged::read_tag(map, SessionConfigOptionValue::TAG_KEY)?;
                match &*tag {
                    "id" => payload
                        .decode::<ValuePayload<SessionConfigValueId>>()
                        .map(|payload| SessionConfigOptionValue::Id(payload.value)),
                    "boolean" => payload
                        .decode::<ValuePayload<bool>>()
                        .map(|payload| SessionConfigOptionValue::Boolean(payload.value)),
                    _ => {
                        let fields = payload.into_fields()?;
                        if !fields.contains_key("value") {
                            return Err(A::Error::missing_field("value"));
                        }
                        Ok(SessionConfigOptionValue::Other(crate::UnknownVariant::new(
                            SessionConfigOptionValue::TAG_KEY,
                            tag.into_owned(),
                            fields,
                        )))
                    }
                }
            }
        }
        deserializer.deserialize_map(V)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for SessionConfigOptionValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SessionConfigOptionValue".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let tag = Self::TAG_KEY;
        let known: Vec<Value> = Self::TAGS
            .iter()
            .map(|value| schema_parts::tagged(tag, value))
            .collect();
        schema_parts::finish(serde_json::json!({
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        tag: { "type": "string", "const": "id" },
                        "value": schema_parts::field::<SessionConfigValueId>(generator),
                    },
                    "required": [tag, "value"],
                },
                {
                    "type": "object",
                    "properties": {
                        tag: { "type": "string", "const": "boolean" },
                        "value": { "type": "boolean" },
                    },
                    "required": [tag, "value"],
                },
                {
                    "title": "other",
                    "type": "object",
                    "properties": { tag: { "type": "string" }, "value": {} },
                    "required": [tag, "value"],
                    "not": { "anyOf": known },
                    "additionalProperties": true,
                },
            ]
        }))
    }
}

/// `session/set_config_option` parameters: the client changes one config option.
///
/// ```json
/// {"sessionId": "sess_1", "configId": "model", "type": "id", "value": "fast"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SetSessionConfigOptionRequest {
    /// The session whose option changes.
    pub session_id: SessionId,
    /// The option to change ([`SessionConfigOption::config_id`]).
    pub config_id: SessionConfigId,
    /// The new value (`type` and `value`).
    #[serde(flatten)]
    pub value: SessionConfigOptionValue,
    /// Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`].
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "crate::de::meta",
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<crate::Meta>,
}

impl SetSessionConfigOptionRequest {
    /// A request setting `config_id` of `session_id` to `value`.
    pub fn new(
        session_id: impl Into<SessionId>,
        config_id: impl Into<SessionConfigId>,
        value: impl Into<SessionConfigOptionValue>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            config_id: config_id.into(),
            value: value.into(),
            meta: None,
        }
    }

    /// Sets the `_meta` extension object.
    #[must_use]
    pub fn meta(mut self, meta: crate::Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for SetSessionConfigOptionRequest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SetSessionConfigOptionRequest".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = serde_json::json!({
            "type": "object",
            "properties": {
                "sessionId": schema_parts::field::<SessionId>(generator),
                "configId": schema_parts::field::<SessionConfigId>(generator),
                "_meta": schema_parts::meta(),
            },
            "required": ["sessionId", "configId"],
        });
        let value = <SessionConfigOptionValue as schemars::JsonSchema>::json_schema(generator);
        if let (Some(target), Some(source)) = (schema.as_object_mut(), value.as_object()) {
            target.extend(
                source
                    .iter()
                    .map(|(key, value)| (key.clone(), value.clone())),
            );
        }
        schema_parts::finish(schema)
    }
}
