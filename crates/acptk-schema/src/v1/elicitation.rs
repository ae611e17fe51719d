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

elicitation_string_items! {
    /// A form field that takes text (`"type": "string"`), optionally restricted to a length,
    /// a pattern, a format or a list of values.
    string { pattern }
    lists [] choices: ""
    titled []
    /// One answer in an accepted form: the value of one form field.
    ///
    /// Decoded by JSON kind: a string, an integer (that fits `i64`), another number, a boolean,
    /// or an array of strings. Anything else (including an array with a non-string item) is an
    /// error.
    answer {}
}
