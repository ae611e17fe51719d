//! Session config options in v1: the option object, its kinds, and
//! `session/set_config_option`.
//!
//! An agent lists its options in the `session/new` (or load/resume) response and reports
//! later changes with a `config_option_update` session update; the client changes a value with
//! `session/set_config_option` and gets the full, updated list back.

#[allow(unused_imports)]
use super::*;

use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

tagged_union! {
    /// The kind of a [`SessionConfigOption`] with its current value, tagged by `type`.
    ///
    /// Closed in v1: an unknown `type` is an error.
    pub enum SessionConfigKind("type") {
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
/// {"id": "model", "name": "Model", "category": "model", "type": "select",
///  "currentValue": "fast", "options": [{"value": "fast", "name": "Fast"}]}
/// ```
///
/// Clients should show options in the order the agent sent them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionConfigOption {
    /// Identifies the option in `session/set_config_option`.
    pub id: SessionConfigId,
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
    /// An option `id` labelled `name` of the given kind.
    pub fn new(
        id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        kind: impl Into<SessionConfigKind>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
            category: None,
            kind: kind.into(),
            meta: None,
        }
    }

    /// A select option whose current value is `current_value`.
    pub fn select(
        id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        current_value: impl Into<SessionConfigValueId>,
        options: impl Into<SessionConfigSelectOptions>,
    ) -> Self {
        Self::new(id, name, SessionConfigSelect::new(current_value, options))
    }

    /// An on/off option that is currently `current_value`.
    pub fn boolean(
        id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        current_value: bool,
    ) -> Self {
        Self::new(id, name, SessionConfigBoolean::new(current_value))
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
                "id": schema_parts::field::<SessionConfigId>(generator),
                "name": { "type": "string" },
                "description": { "type": ["string", "null"], "x-deserialize-default-on-error": true },
                "category": {
                    "anyOf": [generator.subschema_for::<SessionConfigOptionCategory>(), { "type": "null" }],
                    "x-deserialize-default-on-error": true,
                },
                "_meta": schema_parts::meta(),
            },
            "required": ["id", "name"],
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
/// Which one is decided by the first entry: an entry with `group` makes the list grouped.
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
            .is_some_and(|first| first.get("group").is_some());
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
                },
                {
                    "title": "Grouped",
                    "type": "array",
                    "items": generator.subschema_for::<SessionConfigSelectGroup>(),
                },
            ]
        }))
    }
}

wire_struct! {
    /// A labelled group of values in a select option.
    pub struct SessionConfigSelectGroup {
        /// Identifies the group.
        pub group: SessionConfigGroupId,
        /// Label shown for the group.
        pub name: String,
        /// The values in the group. A malformed list decodes as empty and malformed entries
        /// are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
        pub options: Vec<SessionConfigSelectOption>,
    }
}

impl SessionConfigSelectGroup {
    /// A group `group` labelled `name`.
    pub fn new(
        group: impl Into<SessionConfigGroupId>,
        name: impl Into<String>,
        options: impl Into<Vec<SessionConfigSelectOption>>,
    ) -> Self {
        Self {
            group: group.into(),
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
        /// The full list of options. A malformed list decodes as empty and malformed entries
        /// are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
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
        /// The full list of options. A malformed list decodes as empty and malformed entries
        /// are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
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

/// The new value in a `session/set_config_option` request; its fields sit directly in the
/// request object.
///
/// * `{"value": "fast"}` (no `type`): a value id of a select option.
/// * `{"type": "boolean", "value": true}`: the new state of a boolean option.
///
/// Any other `type` is an error, and so is a `value` of the wrong kind.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionConfigOptionValue {
    /// The new state of a boolean option.
    Boolean(bool),
    /// The id of the chosen value of a select option.
    ValueId(SessionConfigValueId),
}

impl From<bool> for SessionConfigOptionValue {
    fn from(value: bool) -> Self {
        Self::Boolean(value)
    }
}

impl From<SessionConfigValueId> for SessionConfigOptionValue {
    fn from(value: SessionConfigValueId) -> Self {
        Self::ValueId(value)
    }
}

impl Serialize for SessionConfigOptionValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Boolean(value) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "boolean")?;
                map.serialize_entry("value", value)?;
                map.end()
            }
            Self::ValueId(value) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("value", value)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for SessionConfigOptionValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SessionConfigOptionValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "an object with `value` and an optional `type` (SessionConfigOptionValue)",
                )
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut tag: Option<String> = None;
                let mut value: Option<Value> = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*key {
                        "type" if tag.is_none() => tag = Some(map.next_value()?),
                        "value" if value.is_none() => value = Some(map.next_value()?),
                        "type" | "value" => {
                            return Err(A::Error::custom(format_args!("duplicate field `{key}`")));
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let value = value.ok_or_else(|| A::Error::missing_field("value"))?;
                match tag.as_deref() {
                    None => SessionConfigValueId::deserialize(value)
                        .map(SessionConfigOptionValue::ValueId)
                        .map_err(A::Error::custom),
                    Some("boolean") => bool::deserialize(value)
                        .map(SessionConfigOptionValue::Boolean)
                        .map_err(A::Error::custom),
                    Some(other) => Err(A::Error::unknown_variant(other, &["boolean"])),
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
        schema_parts::finish(serde_json::json!({
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "type": { "type": "string", "const": "boolean" },
                        "value": { "type": "boolean" },
                    },
                    "required": ["type", "value"],
                },
                {
                    "title": "value_id",
                    "type": "object",
                    "properties": { "value": schema_parts::field::<SessionConfigValueId>(generator) },
                    "required": ["value"],
                },
            ]
        }))
    }
}

/// `session/set_config_option` parameters: the client changes one config option.
///
/// ```json
/// {"sessionId": "sess_1", "configId": "model", "value": "fast"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SetSessionConfigOptionRequest {
    /// The session whose option changes.
    pub session_id: SessionId,
    /// The option to change ([`SessionConfigOption::id`]).
    pub config_id: SessionConfigId,
    /// The new value (`value`, and `type` for boolean options).
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
