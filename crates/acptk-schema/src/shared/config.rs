//! Session config options: selectors (model, mode, reasoning level, ...) that an agent offers
//! for a session and the client shows and changes. Parts shared by every protocol version.
//!
//! An agent lists its options in the `session/new` (or load/resume) response and reports
//! later changes with a `config_option_update` session update; the client changes a value with
//! `session/set_config_option` and gets the full, updated list back.
//!
//! Each version's own config module holds what differs: whether [`SessionConfigKind`] is open,
//! the names of the id fields of [`SessionConfigOption`] and [`SessionConfigSelectGroup`] (the
//! version declares both types with the `session_config_option!` and
//! `session_config_select_group!` macros below), the shape of [`SessionConfigOptionValue`],
//! and two settings that the shared code reads (`SELECT_LISTS_NON_EMPTY` and
//! `decode_config_options`).

#[allow(unused_imports)]
use super::*;

use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

open_enum! {
    /// What a config option is about, so clients can place and style it consistently. Only a
    /// hint: the option works the same without it. Open: unknown categories are kept verbatim.
    pub enum SessionConfigOptionCategory {
        /// How the agent works (for example "ask" or "code").
        Mode = "mode",
        /// Which model the agent uses.
        Model = "model",
        /// A parameter of the chosen model.
        ModelConfig = "model_config",
        /// How fast the agent answers (a fast mode switch, for example). Cargo feature
        /// `unstable_speed_config_category`.
        #[cfg(feature = "unstable_speed_config_category")]
        Speed = "speed",
        /// How much the model reasons before answering.
        ThoughtLevel = "thought_level",
    }
}

wire_struct! {
    /// One value a select option can take.
    pub struct SessionConfigSelectOption {
        /// The identifier sent back in `session/set_config_option`.
        pub value: SessionConfigValueId,
        /// Label shown to the user.
        pub name: String,
        /// Longer explanation of the value; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

constructor! {
    /// A value `value` labelled `name`.
    SessionConfigSelectOption(value: impl Into<SessionConfigValueId>, name: impl Into<String>) {
        description: None,
        meta: None,
    }
}

setters!(SessionConfigSelectOption { opt description: String });

wire_struct! {
    no_meta
    /// The payload of a `"type": "select"` config option: a single choice from a list.
    pub struct SessionConfigSelect {
        /// The value currently in effect.
        pub current_value: SessionConfigValueId,
        /// The values to choose from, flat or in groups.
        pub options: SessionConfigSelectOptions,
    }
}

constructor! {
    /// A select whose current value is `current_value`.
    SessionConfigSelect(
        current_value: impl Into<SessionConfigValueId>,
        options: impl Into<SessionConfigSelectOptions>,
    ) {}
}

wire_struct! {
    no_meta
    /// The payload of a `"type": "boolean"` config option: an on/off switch.
    pub struct SessionConfigBoolean {
        /// Whether the option is currently on.
        pub current_value: bool,
    }
}

constructor! {
    /// A switch that is currently `current_value`.
    SessionConfigBoolean(current_value: impl Into<bool>) {}
}

from_variants!(SessionConfigKind { Select(SessionConfigSelect), Boolean(SessionConfigBoolean) });

/// Declares `SessionConfigOption` for one protocol version.
///
/// The versions name the field that identifies the option differently (`id` in v1, `configId`
/// in v2); everything else is the same. Give the type's docs, then `id_field: <field> =
/// "<JSON name>",`. The JSON name is both the serde name of the field and the property name in
/// the JSON Schema, so the two cannot drift apart.
macro_rules! session_config_option {
    (
        $(#[doc = $doc:expr])*
        id_field: $id:ident = $id_key:literal,
    ) => {
        wire_struct! {
            own_schema
            $(#[doc = $doc])*
            pub struct SessionConfigOption {
                /// Identifies the option in `session/set_config_option`.
                #[serde(rename = $id_key)]
                pub $id: SessionConfigId,
                /// Label shown to the user.
                pub name: String,
                /// Longer explanation of what the option controls; a malformed value is treated as
                /// absent.
                #[opt("crate::de::lenient_string")]
                pub description: Option<String>,
                /// What the option is about, as a presentation hint; a malformed value is treated as
                /// absent.
                #[opt("crate::de::lenient")]
                pub category: Option<SessionConfigOptionCategory>,
                /// The kind of control and its current value (`type`, `currentValue`, ...).
                #[serde(flatten)]
                pub kind: SessionConfigKind,
            }
        }

        impl SessionConfigOption {
            #[doc = concat!("An option `", stringify!($id), "` labelled `name` of the given kind.")]
            pub fn new(
                $id: impl Into<SessionConfigId>,
                name: impl Into<String>,
                kind: impl Into<SessionConfigKind>,
            ) -> Self {
                Self {
                    $id: $id.into(),
                    name: name.into(),
                    description: None,
                    category: None,
                    kind: kind.into(),
                    meta: None,
                }
            }

            /// A select option whose current value is `current_value`.
            pub fn select(
                $id: impl Into<SessionConfigId>,
                name: impl Into<String>,
                current_value: impl Into<SessionConfigValueId>,
                options: impl Into<SessionConfigSelectOptions>,
            ) -> Self {
                Self::new($id, name, SessionConfigSelect::new(current_value, options))
            }

            /// An on/off option that is currently `current_value`.
            pub fn boolean(
                $id: impl Into<SessionConfigId>,
                name: impl Into<String>,
                current_value: bool,
            ) -> Self {
                Self::new($id, name, SessionConfigBoolean::new(current_value))
            }
        }

        setters!(SessionConfigOption {
            opt description: String,
            opt category: SessionConfigOptionCategory,
        });

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for SessionConfigOption {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "SessionConfigOption".into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let schema = serde_json::json!({
                    "type": "object",
                    "properties": {
                        $id_key: schema_parts::field::<SessionConfigId>(generator),
                        "name": { "type": "string" },
                        "description": {
                            "type": ["string", "null"],
                            "x-deserialize-default-on-error": true,
                        },
                        "category": {
                            "anyOf": [
                                generator.subschema_for::<SessionConfigOptionCategory>(),
                                { "type": "null" },
                            ],
                            "x-deserialize-default-on-error": true,
                        },
                        "_meta": schema_parts::meta(),
                    },
                    "required": [$id_key, "name"],
                });
                let kind = <SessionConfigKind as schemars::JsonSchema>::json_schema(generator);
                with_flattened(schema, &kind)
            }
        }
    };
}

pub(crate) use session_config_option;

/// Declares `SessionConfigSelectGroup` for one protocol version.
///
/// The versions name the group's id field differently (`group` in v1, `groupId` in v2). Give
/// `id_field: <field> = "<JSON name>",` and, optionally, `options: #[attribute],` for the
/// `options` field (v2 uses it to require a non-empty list in the JSON Schema). The JSON name
/// is both the serde name of the field and `SessionConfigSelectGroup::ID_KEY`, the key that
/// [`SessionConfigSelectOptions`] looks for to tell a list of groups from a flat list.
macro_rules! session_config_select_group {
    (
        id_field: $id:ident = $id_key:literal,
        $(options: #[$options_attr:meta],)?
    ) => {
        wire_struct! {
            /// A labelled group of values in a select option.
            pub struct SessionConfigSelectGroup {
                /// Identifies the group.
                #[serde(rename = $id_key)]
                pub $id: SessionConfigGroupId,
                /// Label shown for the group.
                pub name: String,
                /// The values in the group. A malformed list decodes as empty and malformed
                /// entries are dropped.
                #[serde(deserialize_with = "crate::de::lenient_items")]
                $(#[$options_attr])?
                pub options: Vec<SessionConfigSelectOption>,
            }
        }

        impl SessionConfigSelectGroup {
            /// The wire name of the group id field. A select value list whose first entry has
            /// this field is a list of groups.
            pub(crate) const ID_KEY: &'static str = $id_key;

            #[doc = concat!("A group `", stringify!($id), "` labelled `name`.")]
            pub fn new(
                $id: impl Into<SessionConfigGroupId>,
                name: impl Into<String>,
                options: impl Into<Vec<SessionConfigSelectOption>>,
            ) -> Self {
                Self {
                    $id: $id.into(),
                    name: name.into(),
                    options: options.into(),
                    meta: None,
                }
            }
        }
    };
}

pub(crate) use session_config_select_group;

/// Finishes the schema of an object that has a `#[serde(flatten)]` field: copies every
/// top-level keyword of `flattened` (the flattened field's schema) into `schema`, replacing a
/// keyword of the same name.
#[cfg(feature = "schemars")]
pub(crate) fn with_flattened(mut schema: Value, flattened: &schemars::Schema) -> schemars::Schema {
    if let (Some(target), Some(source)) = (schema.as_object_mut(), flattened.as_object()) {
        target.extend(
            source
                .iter()
                .map(|(key, value)| (key.clone(), value.clone())),
        );
    }
    schema_parts::finish(schema)
}

/// The values of a select option: a flat list, or a list of labelled groups.
///
/// Which one is decided by the first entry: an entry with the group id field of
/// [`SessionConfigSelectGroup`] (`group` in v1, `groupId` in v2) makes the list grouped. Every
/// entry must then have that shape; a mixed list is an error.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SessionConfigSelectOptions {
    /// A flat list of values.
    Ungrouped(Vec<SessionConfigSelectOption>),
    /// Values in labelled groups.
    Grouped(Vec<SessionConfigSelectGroup>),
}

from_variants!(SessionConfigSelectOptions { Ungrouped(Vec<SessionConfigSelectOption>), Grouped(Vec<SessionConfigSelectGroup>) });

impl<'de> Deserialize<'de> for SessionConfigSelectOptions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let items = Vec::<Value>::deserialize(deserializer)?;
        let grouped = items
            .first()
            .is_some_and(|first| first.get(SessionConfigSelectGroup::ID_KEY).is_some());
        let decoded = if grouped {
            decode_all(&items).map(Self::Grouped)
        } else {
            decode_all(&items).map(Self::Ungrouped)
        };
        decoded.map_err(D::Error::custom)
    }
}

/// Decodes every item of a list, failing at the first that does not decode (with the message
/// decoding the item reported). Each item is decoded from its text (see
/// [`crate::de::from_tree`]), so that the option and group types have one decoder, not a
/// second one for trees (issue 37).
fn decode_all<T: serde::de::DeserializeOwned>(items: &[Value]) -> Result<Vec<T>, String> {
    items
        .iter()
        .map(|item| {
            crate::de::from_tree(item).map_err(|error| crate::de::tree_error_message(&error))
        })
        .collect()
}

schema_impl!(SessionConfigSelectOptions, |generator| {
    let mut lists = [
        serde_json::json!({
            "title": "Ungrouped",
            "type": "array",
            "items": generator.subschema_for::<SessionConfigSelectOption>(),
        }),
        serde_json::json!({
            "title": "Grouped",
            "type": "array",
            "items": generator.subschema_for::<SessionConfigSelectGroup>(),
        }),
    ];
    if SELECT_LISTS_NON_EMPTY {
        for list in &mut lists {
            list["minItems"] = serde_json::json!(1);
        }
    }
    schema_parts::finish(serde_json::json!({ "anyOf": lists }))
});

wire_struct! {
    /// The agent's answer to `session/set_config_option`: every option of the session with
    /// its value after the change (a change may affect other options too).
    pub struct SetSessionConfigOptionResponse {
        /// The full list of options. Entries that do not decode are dropped; a value that is
        /// not a list reads as an empty list in v1 and is an error in v2.
        #[serde(deserialize_with = "decode_config_options")]
        pub config_options: Vec<SessionConfigOption>,
    }
}

constructor! {
    /// A response carrying the full list of options.
    SetSessionConfigOptionResponse(config_options: impl Into<Vec<SessionConfigOption>>) {
        meta: None,
    }
}

wire_struct! {
    /// The `config_option_update` session update: the agent changed its config options (for
    /// example it switched model on its own) and sends the full new list.
    pub struct ConfigOptionUpdate {
        /// The full list of options. Entries that do not decode are dropped; a value that is
        /// not a list reads as an empty list in v1 and is an error in v2.
        #[serde(deserialize_with = "decode_config_options")]
        pub config_options: Vec<SessionConfigOption>,
    }
}

constructor! {
    /// An update carrying the full list of options.
    ConfigOptionUpdate(config_options: impl Into<Vec<SessionConfigOption>>) { meta: None }
}

wire_struct! {
    own_schema
    /// `session/set_config_option` parameters: the client changes one config option.
    ///
    /// The fields of the new value sit directly in the request object. Turning a boolean option
    /// on is written the same way in every version:
    ///
    /// ```json
    /// {"sessionId": "sess_1", "configId": "thinking", "type": "boolean", "value": true}
    /// ```
    pub struct SetSessionConfigOptionRequest {
        /// The session whose option changes.
        pub session_id: SessionId,
        /// The option to change: the id of one of the session's [`SessionConfigOption`]s.
        pub config_id: SessionConfigId,
        /// The new value (`value`, with its `type` where the version writes one).
        #[serde(flatten)]
        pub value: SessionConfigOptionValue,
    }
}

constructor! {
    /// A request setting `config_id` of `session_id` to `value`.
    SetSessionConfigOptionRequest(
        session_id: impl Into<SessionId>,
        config_id: impl Into<SessionConfigId>,
        value: impl Into<SessionConfigOptionValue>,
    ) { meta: None }
}

schema_impl!(SetSessionConfigOptionRequest, |generator| {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "sessionId": schema_parts::field::<SessionId>(generator),
            "configId": schema_parts::field::<SessionConfigId>(generator),
            "_meta": schema_parts::meta(),
        },
        "required": ["sessionId", "configId"],
    });
    let value = <SessionConfigOptionValue as schemars::JsonSchema>::json_schema(generator);
    with_flattened(schema, &value)
});
