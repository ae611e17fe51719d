//! Session config options in v2: what differs from v1. The option list, the select values
//! and `session/set_config_option` are in the shared config module.
//!
//! In v2 the option's id field is `configId`, a group's id field is `groupId`, the kind of an
//! option is an open union, and a select value is tagged `"type": "id"`.

#[allow(unused_imports)]
use super::*;

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

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

session_config_option! {
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
    id_field: config_id = "configId",
}

session_config_select_group! {
    id_field: group_id = "groupId",
    options: #[cfg_attr(feature = "schemars", schemars(length(min = 1)))],
}

/// Whether the v2 JSON Schema requires the list of values or groups of a select option to
/// be non-empty: it does (the values inside a group are covered by the `options:` attribute
/// above). Decoding does not check it.
#[cfg(feature = "schemars")]
pub(crate) const SELECT_LISTS_NON_EMPTY: bool = true;

/// How v2 decodes the full option list of [`SetSessionConfigOptionResponse`] and
/// [`ConfigOptionUpdate`]: entries that do not decode are dropped, and a value that is not a
/// list is an error.
pub(crate) use crate::de::items_skip_invalid as decode_config_options;

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

union_tags! {
    SessionConfigOptionValue("type"), what: "value type", open(Other) {
        Id(_) = "id",
        Boolean(_) = "boolean",
    }
    /// `fields` should hold the `value`.
}

from_variants!(SessionConfigOptionValue { Boolean(bool), Id(SessionConfigValueId) });

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

map_deserialize!(
    SessionConfigOptionValue,
    "an object tagged by `type` with a `value` (SessionConfigOptionValue)",
    |map| {
        let (tag, payload) = crate::de::tagged::read_tag(map, SessionConfigOptionValue::TAG_KEY)?;
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
);

schema_impl!(SessionConfigOptionValue, inline, |generator| {
    let tag = Self::TAG_KEY;
    let known: Vec<serde_json::Value> = Self::TAGS
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
});
