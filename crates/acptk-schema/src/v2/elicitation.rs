//! Elicitation in v2: the parts whose shape differs from v1 (the form schema, the string field
//! and its formats, the multi-select choices, and the answer value enum).
//!
//! The scopes, the request and response, `elicitation/complete`, the other form fields, and the
//! conversions into, decoding and JSON Schema of answers are shared by both versions; they are
//! in the shared elicitation modules and re-exported here. The two constants below are where
//! this version's behaviour enters that shared code.

#[allow(unused_imports)]
use super::*;

/// In v2 the session and request scopes of an elicitation exclude each other: decoding rejects
/// an object with both, and each scope's schema forbids the other scope's keys.
pub(crate) const ELICITATION_SCOPES_EXCLUSIVE: bool = true;

/// What becomes of an answer of another JSON kind (`null` or an object): it is kept verbatim as
/// [`ElicitationContentValue::Other`].
pub(crate) const ELICITATION_OTHER_ANSWER: Option<OtherAnswer> =
    Some(ElicitationContentValue::Other);

wire_struct! {
    /// The form of a form-mode elicitation: a restricted JSON Schema describing a flat object
    /// whose properties are the form fields.
    ///
    /// ```json
    /// {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    /// ```
    pub struct ElicitationSchema {
        /// Always `"object"`; required on the wire.
        pub r#type: ElicitationSchemaType,
        /// Title of the form; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// The form fields by property name (in name order); required on the wire.
        pub properties: std::collections::BTreeMap<String, ElicitationPropertySchema>,
        /// Names of the fields the user must fill in; none are required when absent.
        #[opt]
        pub required: Option<Vec<String>>,
        /// Explanation of the form; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

constructor! {
    /// A form with the given fields (`type` is `"object"`).
    ElicitationSchema(properties: impl Into<std::collections::BTreeMap<String, ElicitationPropertySchema>>)
    {
        r#type: ElicitationSchemaType::Object,
        title: None,
        required: None,
        description: None,
        meta: None,
    }
}

open_enum! {
    /// A format a string field's value must have. Open: an unknown format is kept verbatim.
    pub enum StringFormat {
        /// An e-mail address.
        Email = "email",
        /// A URI.
        Uri = "uri",
        /// A calendar date (`2025-01-31`).
        Date = "date",
        /// A date and time (RFC 3339, `2025-01-31T12:00:00Z`).
        DateTime = "date-time",
    }
}

elicitation_string_items! {
    /// A form field that takes text (`"type": "string"`), optionally restricted to a length,
    /// a format or a list of values.
    string {}
    lists [#[cfg_attr(feature = "schemars", schemars(length(min = 1)))]] choices: " (at least one)"
    titled [
        /// It has no `type` property.
        #[cfg_attr(feature = "schemars", schemars(extend("propertyNames" = { "not": { "const": "type" } })))]
    ]
    /// One answer in an accepted form: the value of one form field.
    ///
    /// Decoded by JSON kind: a string, an integer (that fits `i64`), another number, a boolean,
    /// or an array of strings. `null` and objects are kept verbatim in [`Self::Other`]; an array
    /// with a non-string item is an error (a malformed string array, not an unknown kind).
    answer { Other }
}
