//! The fields of an elicitation form: the property schemas an [`ElicitationSchema`] is built
//! from (split out of `elicitation.rs` for size).

#[allow(unused_imports)]
use super::*;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Serialize};

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
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
    }
}

impl EnumOption {
    /// A choice with the given value and label.
    pub fn new(r#const: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            r#const: r#const.into(),
            title: title.into(),
            description: None,
            meta: None,
        }
    }
}

setters!(EnumOption { opt description: String });

wire_struct! {
    /// A form field that takes a number (`"type": "number"`).
    #[derive(Default)]
    pub struct NumberPropertySchema {
        /// Label shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub title: Option<String>,
        /// Help text shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
        /// Smallest accepted value (inclusive); no lower bound when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub minimum: Option<f64>,
        /// Largest accepted value (inclusive); no upper bound when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub maximum: Option<f64>,
        /// Value to prefill; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub default: Option<f64>,
    }
}

impl NumberPropertySchema {
    /// A number field without constraints.
    pub fn new() -> Self {
        <Self as Default>::default()
    }
}

setters!(NumberPropertySchema { opt title: String, opt description: String, opt minimum: f64, opt maximum: f64, opt default: f64 });

wire_struct! {
    /// A form field that takes an integer (`"type": "integer"`).
    #[derive(Default)]
    pub struct IntegerPropertySchema {
        /// Label shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub title: Option<String>,
        /// Help text shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
        /// Smallest accepted value (inclusive); no lower bound when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub minimum: Option<i64>,
        /// Largest accepted value (inclusive); no upper bound when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub maximum: Option<i64>,
        /// Value to prefill; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub default: Option<i64>,
    }
}

impl IntegerPropertySchema {
    /// An integer field without constraints.
    pub fn new() -> Self {
        <Self as Default>::default()
    }
}

setters!(IntegerPropertySchema { opt title: String, opt description: String, opt minimum: i64, opt maximum: i64, opt default: i64 });

wire_struct! {
    /// A form field that takes `true` or `false` (`"type": "boolean"`).
    #[derive(Default)]
    pub struct BooleanPropertySchema {
        /// Label shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub title: Option<String>,
        /// Help text shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
        /// Value to prefill; a malformed value is treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub default: Option<bool>,
    }
}

impl BooleanPropertySchema {
    /// A boolean field.
    pub fn new() -> Self {
        <Self as Default>::default()
    }
}

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

impl MultiSelectItems {
    /// The name of the JSON field holding the tag.
    pub const TAG_KEY: &'static str = "type";

    /// Every tag this union knows. Objects without a tag are [`MultiSelectItems::Titled`].
    pub const TAGS: &'static [&'static str] = &["string"];

    /// The tag this value is written with; `None` for [`MultiSelectItems::Titled`].
    pub fn tag(&self) -> Option<&str> {
        match self {
            Self::String(_) => Some("string"),
            Self::Titled(_) => None,
            Self::Other(unknown) => Some(unknown.tag()),
        }
    }

    /// Builds the fallback variant for a tag this crate does not know. Fails with
    /// [`crate::Error::KnownTag`] when `tag` is one of [`Self::TAGS`].
    pub fn unknown(
        tag: impl Into<String>,
        fields: crate::unknown::Fields,
    ) -> Result<Self, crate::Error> {
        crate::UnknownVariant::checked(Self::TAG_KEY, Self::TAGS, tag.into(), fields)
            .map(Self::Other)
    }
}

impl From<StringMultiSelectItems> for MultiSelectItems {
    fn from(items: StringMultiSelectItems) -> Self {
        Self::String(items)
    }
}

impl From<TitledMultiSelectItems> for MultiSelectItems {
    fn from(items: TitledMultiSelectItems) -> Self {
        Self::Titled(items)
    }
}

impl<'de> Deserialize<'de> for MultiSelectItems {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MultiSelectItems;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object, optionally tagged by `type` (MultiSelectItems)")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MultiSelectItems, A::Error> {
                let (tag, payload) =
                    crate::de::tagged::read_optional_tag(map, MultiSelectItems::TAG_KEY)?;
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
        deserializer.deserialize_map(V)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for MultiSelectItems {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MultiSelectItems".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schema_parts::finish(serde_json::json!({
            "anyOf": [
                schema_parts::tagged_payload::<StringMultiSelectItems>(generator, "type", "string"),
                crate::schema::other_alternative("type", Self::TAGS),
                {
                    "title": "titled",
                    "allOf": [generator.subschema_for::<TitledMultiSelectItems>()],
                },
            ]
        }))
    }
}

wire_struct! {
    /// A form field whose answer is a list of strings chosen from [`Self::items`]
    /// (`"type": "array"`).
    pub struct MultiSelectPropertySchema {
        /// Label shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub title: Option<String>,
        /// Help text shown for the field.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
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
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_items_opt",
            skip_serializing_if = "Option::is_none",
        )]
        pub default: Option<Vec<String>>,
    }
}

impl MultiSelectPropertySchema {
    /// A multi-select field offering `items`.
    pub fn new(items: impl Into<MultiSelectItems>) -> Self {
        Self {
            items: items.into(),
            title: None,
            description: None,
            min_items: None,
            max_items: None,
            default: None,
            meta: None,
        }
    }
}

setters!(MultiSelectPropertySchema { opt title: String, opt description: String, opt min_items: u64, opt max_items: u64, opt default: Vec<String> });
