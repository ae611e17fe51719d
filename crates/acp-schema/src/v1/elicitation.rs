//! Elicitation in v1: the form schema, string formats and answer values.
//!
//! The request, response and scope types shared with other versions are in the shared
//! elicitation module and re-exported here.

#[allow(unused_imports)]
use super::*;

use serde::Deserialize;
use serde::de::{SeqAccess, Visitor};

/// In v1 an elicitation scope object may carry both `sessionId` and `requestId` (it is then a
/// session scope).
pub(crate) const ELICITATION_SCOPES_EXCLUSIVE: bool = false;

wire_struct! {
    no_meta
    /// Session scope of an elicitation: the input is needed for work in a session, and
    /// possibly for one tool call in it.
    pub struct ElicitationSessionScope {
        /// The session the elicitation belongs to.
        pub session_id: SessionId,
        /// The tool call that needs the input, if any; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub tool_call_id: Option<ToolCallId>,
    }
}

impl ElicitationSessionScope {
    /// A scope covering `session_id` as a whole.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            tool_call_id: None,
        }
    }
}

setters!(ElicitationSessionScope { opt tool_call_id: ToolCallId });

wire_struct! {
    no_meta
    /// Request scope of an elicitation: the input is needed to finish a pending JSON-RPC
    /// request that has no session yet (for example `authenticate`).
    pub struct ElicitationRequestScope {
        /// The id of the pending request.
        pub request_id: RequestId,
    }
}

impl ElicitationRequestScope {
    /// A scope covering the request `request_id`.
    pub fn new(request_id: impl Into<RequestId>) -> Self {
        Self {
            request_id: request_id.into(),
        }
    }
}

wire_struct! {
    /// The form of a form-mode elicitation: a restricted JSON Schema describing a flat object
    /// whose properties are the form fields.
    ///
    /// ```json
    /// {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    /// ```
    #[derive(Default)]
    pub struct ElicitationSchema {
        /// Always `"object"`; written even though it is the default. A missing or malformed
        /// value decodes as `"object"`.
        #[serde(default, deserialize_with = "crate::de::lenient_or_default")]
        pub r#type: ElicitationSchemaType,
        /// Title of the form; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub title: Option<String>,
        /// The form fields by property name (in name order). Missing means no fields; always
        /// written.
        #[serde(default)]
        pub properties: std::collections::BTreeMap<String, ElicitationPropertySchema>,
        /// Names of the fields the user must fill in; none are required when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub required: Option<Vec<String>>,
        /// Explanation of the form; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
    }
}

impl ElicitationSchema {
    /// An empty form (`{"type": "object", "properties": {}}`).
    pub fn new() -> Self {
        <Self as Default>::default()
    }

    /// Adds (or replaces) the field `name`.
    #[must_use]
    pub fn property(
        mut self,
        name: impl Into<String>,
        schema: impl Into<ElicitationPropertySchema>,
    ) -> Self {
        self.properties.insert(name.into(), schema.into());
        self
    }
}

setters!(ElicitationSchema { opt title: String, set properties: std::collections::BTreeMap<String, ElicitationPropertySchema>, opt required: Vec<String>, opt description: String });

/// A format a string field's value must have (closed in v1: an unknown format is an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StringFormat {
    /// An e-mail address.
    Email,
    /// A URI.
    Uri,
    /// A calendar date (`2025-01-31`).
    Date,
    /// A date and time (RFC 3339, `2025-01-31T12:00:00Z`).
    #[serde(rename = "date-time")]
    DateTime,
}

wire_struct! {
    /// A form field that takes text (`"type": "string"`), optionally restricted to a length,
    /// a pattern, a format or a list of values.
    #[derive(Default)]
    pub struct StringPropertySchema {
        /// Label shown for the field; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub title: Option<String>,
        /// Help text shown for the field; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
        /// Shortest accepted length in characters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_length: Option<u32>,
        /// Longest accepted length in characters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_length: Option<u32>,
        /// A regular expression the value must match.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub pattern: Option<String>,
        /// A format the value must have.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub format: Option<StringFormat>,
        /// Value to prefill; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub default: Option<String>,
        /// The only accepted values, without labels (a single-select field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub r#enum: Option<Vec<String>>,
        /// The only accepted values, with labels (a titled single-select field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub one_of: Option<Vec<EnumOption>>,
    }
}

impl StringPropertySchema {
    /// A free-text field without constraints.
    pub fn new() -> Self {
        <Self as Default>::default()
    }
}

setters!(StringPropertySchema { opt title: String, opt description: String, opt min_length: u32, opt max_length: u32, opt pattern: String, opt format: StringFormat, opt default: String, opt r#enum: Vec<String>, opt one_of: Vec<EnumOption> });

wire_struct! {
    /// Multi-select choices given as plain strings (`{"type": "string", "enum": [...]}`).
    pub struct StringMultiSelectItems {
        /// The values the user can pick from.
        pub r#enum: Vec<String>,
    }
}

impl StringMultiSelectItems {
    /// Choices `values`.
    pub fn new(r#enum: impl Into<Vec<String>>) -> Self {
        Self {
            r#enum: r#enum.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// Multi-select choices with labels (`{"anyOf": [{"const": ..., "title": ...}]}`).
    pub struct TitledMultiSelectItems {
        /// The choices the user can pick from.
        pub any_of: Vec<EnumOption>,
    }
}

impl TitledMultiSelectItems {
    /// Labelled choices `any_of`.
    pub fn new(any_of: impl Into<Vec<EnumOption>>) -> Self {
        Self {
            any_of: any_of.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// `elicitation/complete` parameters: the agent tells the client that the URL-mode
    /// interaction with this id has finished, so the client can close any prompt it shows.
    pub struct CompleteElicitationNotification {
        /// The id from the URL-mode request.
        pub elicitation_id: ElicitationId,
    }
}

impl CompleteElicitationNotification {
    /// A completion notice for `elicitation_id`.
    pub fn new(elicitation_id: impl Into<ElicitationId>) -> Self {
        Self {
            elicitation_id: elicitation_id.into(),
            meta: None,
        }
    }
}

/// One answer in an accepted form: the value of one form field.
///
/// Decoded by JSON kind: a string, an integer (that fits `i64`), another number, a boolean, or
/// an array of strings. Anything else (including an array with a non-string item) is an error.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ElicitationContentValue {
    /// A text answer.
    String(String),
    /// An integer answer.
    Integer(i64),
    /// A non-integer (or out-of-range integer) numeric answer.
    Number(f64),
    /// A yes/no answer.
    Boolean(bool),
    /// The picks of a multi-select field.
    StringArray(Vec<String>),
}

macro_rules! content_value_from {
    ($($ty:ty => $variant:ident),* $(,)?) => {
        $(impl From<$ty> for ElicitationContentValue {
            fn from(value: $ty) -> Self {
                Self::$variant(value.into())
            }
        })*
    };
}

content_value_from!(String => String, &str => String, i64 => Integer, f64 => Number, bool => Boolean, Vec<String> => StringArray);

impl<'de> Deserialize<'de> for ElicitationContentValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ElicitationContentValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a string, number, boolean or array of strings (ElicitationContentValue)",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::String(v.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::String(v))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::Boolean(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::Integer(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(match i64::try_from(v) {
                    Ok(v) => ElicitationContentValue::Integer(v),
                    Err(_) => ElicitationContentValue::Number(v as f64),
                })
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::Number(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(item) = seq.next_element::<String>()? {
                    items.push(item);
                }
                Ok(ElicitationContentValue::StringArray(items))
            }
        }
        deserializer.deserialize_any(V)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for ElicitationContentValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElicitationContentValue".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                { "title": "String", "type": "string" },
                { "title": "Integer", "type": "integer", "format": "int64" },
                { "title": "Number", "type": "number", "format": "double" },
                { "title": "Boolean", "type": "boolean" },
                { "title": "StringArray", "type": "array", "items": { "type": "string" } },
            ]
        })
    }
}
