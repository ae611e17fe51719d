//! Session config options in v1: what differs from v2. The option list, the select values
//! and `session/set_config_option` are in the shared config module.
//!
//! In v1 the option's id field is `id`, a group's id field is `group`, the kind of an option is
//! a closed union, and a select value is sent without a `type`.

#[allow(unused_imports)]
use super::*;

use serde::de::{Error as _, IgnoredAny};
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

session_config_option! {
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
    id_field: id = "id",
}

session_config_select_group! {
    id_field: group = "group",
}

/// Whether the v1 JSON Schema requires the list of values or groups of a select option to
/// be non-empty: it does not. Decoding does not check it.
#[cfg(feature = "schemars")]
pub(crate) const SELECT_LISTS_NON_EMPTY: bool = false;

/// How v1 decodes the full option list of [`SetSessionConfigOptionResponse`] and
/// [`ConfigOptionUpdate`]: entries that do not decode are dropped, and a value that is not a
/// list reads as an empty list.
pub(crate) use crate::de::lenient_items as decode_config_options;

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

from_variants!(SessionConfigOptionValue { Boolean(bool), ValueId(SessionConfigValueId) });

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

map_deserialize!(
    SessionConfigOptionValue,
    "an object with `value` and an optional `type` (SessionConfigOptionValue)",
    |mut map| {
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
);

schema_impl!(SessionConfigOptionValue, inline, |generator| {
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
});
