//! The fields of an elicitation form and the answers given to them: the property schemas an
//! [`ElicitationSchema`] is built from, the builder methods of the form schema itself (whose
//! struct differs per version), and the conversions into, decoding and JSON Schema of
//! [`ElicitationContentValue`] (whose enum differs per version). Split out of
//! `elicitation.rs` for size.

#[allow(unused_imports)]
use super::*;

use serde::de::{MapAccess, SeqAccess, Unexpected, Visitor};
use serde::{Deserialize, Serialize};

impl ElicitationSchema {
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

/// The type of an [`ElicitationSchema`]: always a JSON object.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ElicitationSchemaType {
    /// `"object"`: the form is an object whose properties are the form fields.
    #[default]
    Object,
}

tagged_union! {
    /// One field of an elicitation form, tagged by `type`.
    ///
    /// ```json
    /// {"type": "string", "title": "Branch name", "minLength": 1}
    /// ```
    ///
    /// Open: a field type this crate does not know is kept verbatim in `Other`.
    pub enum ElicitationPropertySchema("type") open(Other) {
        /// A text field, optionally restricted to a format, a pattern or a list of values.
        String(StringPropertySchema) = "string",
        /// A number field (any JSON number).
        Number(NumberPropertySchema) = "number",
        /// An integer field.
        Integer(IntegerPropertySchema) = "integer",
        /// A yes/no field.
        Boolean(BooleanPropertySchema) = "boolean",
        /// A multiple-choice field whose answer is a list of strings.
        Array(MultiSelectPropertySchema) = "array",
    }
}

wire_struct! {
    /// One choice of a titled single- or multi-select field: the value sent back and the label
    /// shown to the user.
    pub struct EnumOption {
        /// The value that ends up in the answer when this choice is picked.
        pub r#const: String,
        /// The label shown to the user.
        pub title: String,
        /// Optional longer explanation of the choice.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

constructor! {
    /// A choice with the given value and label.
    EnumOption(r#const: impl Into<String>, title: impl Into<String>) {
        description: None,
        meta: None,
    }
}

setters!(EnumOption { opt description: String });

/// Declares the property schema of a numeric form field, whose bounds and default are `$ty`.
macro_rules! numeric_property_schema {
    ($(#[doc = $doc:expr])* $name:ident($ty:ty), new: $new_doc:literal) => {
        wire_struct! {
            $(#[doc = $doc])*
            #[derive(Default)]
            pub struct $name {
                /// Label shown for the field.
                #[opt("crate::de::lenient_string")]
                pub title: Option<String>,
                /// Help text shown for the field.
                #[opt("crate::de::lenient_string")]
                pub description: Option<String>,
                /// Smallest accepted value (inclusive); no lower bound when absent.
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub minimum: Option<$ty>,
                /// Largest accepted value (inclusive); no upper bound when absent.
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub maximum: Option<$ty>,
                /// Value to prefill; a malformed value is treated as absent.
                #[opt("crate::de::lenient")]
                pub default: Option<$ty>,
            }
        }

        default_new!($name, $new_doc);

        setters!($name { opt title: String, opt description: String, opt minimum: $ty, opt maximum: $ty, opt default: $ty });
    };
}

numeric_property_schema! {
    /// A form field that takes a number (`"type": "number"`).
    NumberPropertySchema(f64), new: "A number field without constraints."
}

numeric_property_schema! {
    /// A form field that takes an integer (`"type": "integer"`).
    IntegerPropertySchema(i64), new: "An integer field without constraints."
}

wire_struct! {
    /// A form field that takes `true` or `false` (`"type": "boolean"`).
    #[derive(Default)]
    pub struct BooleanPropertySchema {
        /// Label shown for the field.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// Help text shown for the field.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// Value to prefill; a malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub default: Option<bool>,
    }
}

default_new!(BooleanPropertySchema, "A boolean field.");

setters!(BooleanPropertySchema { opt title: String, opt description: String, opt default: bool });

/// The choices of a multi-select field ([`MultiSelectPropertySchema::items`]).
///
/// Two shapes are known: plain values tagged `"type": "string"`
/// (`{"type": "string", "enum": ["a", "b"]}`) and labelled choices without a `type`
/// (`{"anyOf": [{"const": "a", "title": "Option A"}]}`). The `type` tag is read first: an
/// object without it is [`MultiSelectItems::Titled`], `"string"` is
/// [`MultiSelectItems::String`] (a malformed payload is an error), and any other tag is kept
/// verbatim in [`MultiSelectItems::Other`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum MultiSelectItems {
    /// Plain string values (`"type": "string"`).
    #[serde(rename = "string")]
    String(StringMultiSelectItems),
    /// Labelled choices (no `type`).
    #[serde(untagged)]
    Titled(TitledMultiSelectItems),
    /// A `type` this crate does not know, kept verbatim.
    #[serde(untagged)]
    Other(crate::UnknownVariant),
}

union_tags! {
    MultiSelectItems("type"), what: "tag", open(Other), untagged(Titled) {
        String(_) = "string",
    }
}

from_variants!(MultiSelectItems { String(StringMultiSelectItems), Titled(TitledMultiSelectItems) });

map_deserialize! {
    MultiSelectItems, "an object, optionally tagged by `type` (MultiSelectItems)",
    visit_map(map: A) {
        let (tag, payload) = crate::de::tagged::read_optional_tag(map, MultiSelectItems::TAG_KEY)?;
        match tag.as_deref() {
            None => payload.decode().map(MultiSelectItems::Titled),
            Some("string") => payload.decode().map(MultiSelectItems::String),
            Some(other) => Ok(MultiSelectItems::Other(crate::UnknownVariant::new(
                MultiSelectItems::TAG_KEY,
                other.to_owned(),
                payload.into_fields()?,
            ))),
        }
    }
}

schema_impl!(MultiSelectItems, |generator| {
    schema_parts::finish(serde_json::json!({
        "anyOf": [
            schema_parts::tagged_payload::<StringMultiSelectItems>(generator, "type", "string"),
            crate::schema_parts::other_alternative("type", MultiSelectItems::TAGS),
            {
                "title": "titled",
                "allOf": [generator.subschema_for::<TitledMultiSelectItems>()],
            },
        ]
    }))
});

wire_struct! {
    /// A form field whose answer is a list of strings chosen from [`Self::items`]
    /// (`"type": "array"`).
    pub struct MultiSelectPropertySchema {
        /// Label shown for the field.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// Help text shown for the field.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// Fewest choices the user must pick; no lower bound when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_items: Option<u64>,
        /// Most choices the user may pick; no upper bound when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_items: Option<u64>,
        /// The choices offered.
        pub items: MultiSelectItems,
        /// Choices to preselect. A malformed list is treated as absent and non-string
        /// entries are dropped.
        #[opt("crate::de::lenient_items_opt")]
        pub default: Option<Vec<String>>,
    }
}

constructor! {
    /// A multi-select field offering `items`.
    MultiSelectPropertySchema(items: impl Into<MultiSelectItems>) {
        title: None,
        description: None,
        min_items: None,
        max_items: None,
        default: None,
        meta: None,
    }
}

setters!(MultiSelectPropertySchema { opt title: String, opt description: String, opt min_items: u64, opt max_items: u64, opt default: Vec<String> });

// ---------------------------------------------------------------------------------------------
// Answers

/// Converts plain Rust values into answers: strings, `i64`, `f64`, `bool` and lists of strings.
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
        deserializer.deserialize_any(ContentValueVisitor)
    }
}

/// Builds the answer kept for a JSON value of a kind that has no variant of its own (`null` or
/// an object). Each version says in `ELICITATION_OTHER_ANSWER` whether it keeps such values.
pub(crate) type OtherAnswer = fn(serde_json::Value) -> ElicitationContentValue;

/// Decodes an answer by its JSON kind. `null` and objects go to this version's
/// `ELICITATION_OTHER_ANSWER`, and are an error where that is `None`.
struct ContentValueVisitor;

impl<'de> Visitor<'de> for ContentValueVisitor {
    type Value = ElicitationContentValue;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if ELICITATION_OTHER_ANSWER.is_some() {
            "a JSON value; arrays must hold strings only (ElicitationContentValue)"
        } else {
            "a string, number, boolean or array of strings (ElicitationContentValue)"
        })
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
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        match ELICITATION_OTHER_ANSWER {
            Some(other) => Ok(other(serde_json::Value::Null)),
            None => Err(E::invalid_type(Unexpected::Unit, &self)),
        }
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        match ELICITATION_OTHER_ANSWER {
            Some(other) => Ok(other(serde_json::Value::Null)),
            None => Err(E::invalid_type(Unexpected::Option, &self)),
        }
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        match ELICITATION_OTHER_ANSWER {
            Some(_) => d.deserialize_any(self),
            None => Err(serde::de::Error::invalid_type(Unexpected::Option, &self)),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        // Checked before reading the object, so that where objects are no answer the error
        // points at the object's start.
        let Some(other) = ELICITATION_OTHER_ANSWER else {
            return Err(serde::de::Error::invalid_type(Unexpected::Map, &self));
        };
        let object =
            serde_json::Map::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(other(serde_json::Value::Object(object)))
    }
}

schema_impl!(ElicitationContentValue, |_| {
    let mut kinds = vec![
        serde_json::json!({ "title": "String", "type": "string" }),
        serde_json::json!({ "title": "Integer", "type": "integer", "format": "int64" }),
        serde_json::json!({ "title": "Number", "type": "number", "format": "double" }),
        serde_json::json!({ "title": "Boolean", "type": "boolean" }),
        serde_json::json!({
            "title": "StringArray",
            "type": "array",
            "items": { "type": "string" },
        }),
    ];
    if ELICITATION_OTHER_ANSWER.is_some() {
        kinds.push(serde_json::json!({ "title": "Other" }));
    }
    schema_parts::finish(serde_json::json!({ "anyOf": kinds }))
});
