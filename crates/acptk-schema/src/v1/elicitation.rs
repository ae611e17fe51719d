//! Elicitation in v1: the parts whose shape differs from v2 (the form schema, the string field
//! and its formats, the multi-select choices, and the answer value enum).
//!
//! The scopes, the request and response, `elicitation/complete`, the other form fields, and the
//! conversions into, decoding and JSON Schema of answers are shared by both versions; they are
//! in the shared elicitation modules and re-exported here. The two constants below are where
//! this version's behaviour enters that shared code.

#[allow(unused_imports)]
use super::*;

/// In v1 an elicitation scope object may carry both `sessionId` and `requestId` (it is then a
/// session scope), and the scope schemas do not forbid either key.
pub(crate) const ELICITATION_SCOPES_EXCLUSIVE: bool = false;

/// What becomes of an answer of another JSON kind (`null` or an object): v1 has no such answer,
/// so it is an error.
pub(crate) const ELICITATION_OTHER_ANSWER: Option<OtherAnswer> = None;

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
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// The form fields by property name (in name order). Missing means no fields; always
        /// written.
        #[serde(default)]
        pub properties: std::collections::BTreeMap<String, ElicitationPropertySchema>,
        /// Names of the fields the user must fill in; none are required when absent.
        #[opt]
        pub required: Option<Vec<String>>,
        /// Explanation of the form; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

impl ElicitationSchema {
    /// An empty form (`{"type": "object", "properties": {}}`).
    pub fn new() -> Self {
        <Self as Default>::default()
    }
}

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
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// Help text shown for the field; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// Shortest accepted length in characters.
        #[opt]
        pub min_length: Option<u32>,
        /// Longest accepted length in characters.
        #[opt]
        pub max_length: Option<u32>,
        /// A regular expression the value must match.
        #[opt]
        pub pattern: Option<String>,
        /// A format the value must have.
        #[opt]
        pub format: Option<StringFormat>,
        /// Value to prefill; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub default: Option<String>,
        /// The only accepted values, without labels (a single-select field).
        #[opt]
        pub r#enum: Option<Vec<String>>,
        /// The only accepted values, with labels (a titled single-select field).
        #[opt]
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

constructor! {
    /// Choices `values`.
    StringMultiSelectItems(r#enum: impl Into<Vec<String>>) { meta: None }
}

wire_struct! {
    /// Multi-select choices with labels (`{"anyOf": [{"const": ..., "title": ...}]}`).
    pub struct TitledMultiSelectItems {
        /// The choices the user can pick from.
        pub any_of: Vec<EnumOption>,
    }
}

constructor! {
    /// Labelled choices `any_of`.
    TitledMultiSelectItems(any_of: impl Into<Vec<EnumOption>>) { meta: None }
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
