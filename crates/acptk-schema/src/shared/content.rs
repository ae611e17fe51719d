//! Content shared by both versions: text, annotations, embedded resources, the `content`
//! wrapper, and the conversions that make [`ContentBlock`] easy to build.
//!
//! The version-specific content types (the block union itself, roles, images, audio, resource
//! links and resource contents) live in this version's own content module.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    encoded
    /// Plain text content: `{"type": "text", "text": "Hello"}` inside a [`ContentBlock`].
    ///
    /// Every agent and client supports text. Clients commonly render agent text as Markdown.
    pub struct TextContent {
        /// Display hints (audience, priority, last change). Absent when there are none; a
        /// malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
        /// The text itself.
        pub text: String,
    }
}

encode_struct!(TextContent { opt annotations, req text, opt meta = "_meta" });

constructor! {
    /// Text content with no annotations.
    TextContent(text: impl Into<String>) { annotations: None, meta: None }
}

setters!(TextContent { boxed annotations: Annotations });

wire_struct! {
    /// Optional hints on how content should be used or shown (MCP annotations).
    ///
    /// All fields are optional, and a malformed field is treated as absent. Content types hold
    /// annotations as `Option<Box<Annotations>>`: they are rarely sent, and keeping them behind
    /// a pointer keeps every content block small. Their setters take the value unboxed.
    #[derive(Default)]
    pub struct Annotations {
        /// Who the content is meant for (the user, the model, or both). Absent means no
        /// preference; entries that do not decode as a [`Role`] are skipped.
        #[opt("crate::de::lenient_items_opt")]
        pub audience: Option<Vec<Role>>,
        /// When the underlying resource last changed, as an ISO 8601 timestamp.
        #[opt("crate::de::lenient_string")]
        pub last_modified: Option<String>,
        /// Importance from 0.0 (least) to 1.0 (most important).
        #[cfg_attr(feature = "schemars", schemars(transform = priority_schema))]
        #[opt("crate::de::lenient")]
        pub priority: Option<f64>,
    }
}

default_new!(Annotations, "Annotations with every hint absent.");

setters!(Annotations { opt audience: Vec<Role>, opt last_modified: String, opt priority: f64 });

/// Finishes the schema of [`Annotations::priority`]: bounded to `0..=1` in the versions whose
/// `ANNOTATION_PRIORITY_BOUNDED` says so.
#[cfg(feature = "schemars")]
fn priority_schema(schema: &mut schemars::Schema) {
    if ANNOTATION_PRIORITY_BOUNDED {
        schema.insert("minimum".into(), 0.into());
        schema.insert("maximum".into(), 1.into());
    }
}

/// The contents carried by an [`EmbeddedResource`]: either text or binary data.
///
/// The wire form has no tag; the variant is chosen by which key is present:
///
/// ```json
/// {"uri": "file:///src/main.rs", "mimeType": "text/x-rust", "text": "fn main() {}"}
/// {"uri": "file:///logo.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}
/// ```
///
/// An object with a `text` key is decoded as [`TextResourceContents`] (strictly: a malformed
/// one is an error, never retried as a blob); otherwise an object with a `blob` key is decoded
/// as [`BlobResourceContents`]; an object with neither is an error.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum EmbeddedResourceResource {
    /// Textual contents (a `text` field).
    TextResourceContents(TextResourceContents),
    /// Binary contents, base64-encoded (a `blob` field).
    BlobResourceContents(BlobResourceContents),
}

impl EmbeddedResourceResource {
    /// The URI of the resource, whichever kind it is.
    pub fn uri(&self) -> &str {
        match self {
            Self::TextResourceContents(text) => &text.uri,
            Self::BlobResourceContents(blob) => &blob.uri,
        }
    }
}

from_variants!(EmbeddedResourceResource { TextResourceContents(TextResourceContents), BlobResourceContents(BlobResourceContents) });

impl<'de> serde::Deserialize<'de> for EmbeddedResourceResource {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        // The deciding key may come after `uri` and `mimeType`, so the (small) object is
        // buffered once and then decoded as the one shape its keys select.
        let fields = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        if fields.contains_key("text") {
            TextResourceContents::deserialize(serde_json::Value::Object(fields))
                .map(Self::TextResourceContents)
                .map_err(D::Error::custom)
        } else if fields.contains_key("blob") {
            BlobResourceContents::deserialize(serde_json::Value::Object(fields))
                .map(Self::BlobResourceContents)
                .map_err(D::Error::custom)
        } else {
            Err(D::Error::custom(
                "expected embedded resource contents with a `text` or a `blob` field",
            ))
        }
    }
}

schema_impl!(EmbeddedResourceResource, |generator| {
    schemars::json_schema!({
        "anyOf": [
            crate::schema_parts::titled(
                "TextResourceContents",
                generator.subschema_for::<TextResourceContents>(),
            ),
            crate::schema_parts::titled(
                "BlobResourceContents",
                generator.subschema_for::<BlobResourceContents>(),
            ),
        ]
    })
});

wire_struct! {
    /// A resource whose contents are included in the message itself, for example a file the
    /// user mentioned in a prompt: `{"type": "resource", "resource": {"uri": ..., "text": ...}}`
    /// inside a [`ContentBlock`].
    ///
    /// Agents accept embedded resources in prompts only when they advertise embedded-context
    /// support in their prompt capabilities.
    pub struct EmbeddedResource {
        /// Display hints for the resource. Absent when there are none; a malformed value is
        /// treated as absent.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
        /// The resource's URI and its text or binary contents.
        pub resource: EmbeddedResourceResource,
    }
}

constructor! {
    /// An embedded resource with the given contents and no annotations.
    EmbeddedResource(resource: impl Into<EmbeddedResourceResource>) {
        annotations: None,
        meta: None,
    }
}

setters!(EmbeddedResource { boxed annotations: Annotations });

wire_struct! {
    encoded
    /// Ordinary displayable content inside a tool call: `{"type": "content", "content": {...}}`
    /// wraps one [`ContentBlock`].
    pub struct Content {
        /// The content block to show.
        pub content: ContentBlock,
    }
}

encode_struct!(Content { req content, opt meta = "_meta" });

constructor! {
    /// Wraps a content block (anything convertible, such as a `&str` for text).
    Content(content: impl Into<ContentBlock>) { meta: None }
}

impl ContentBlock {
    /// A text block: `ContentBlock::text("hi")` is `{"type": "text", "text": "hi"}`.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// The text of a text block; `None` for any other kind of block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(&text.text),
            _ => None,
        }
    }
}

/// A plain string becomes a text block.
impl From<&str> for ContentBlock {
    fn from(value: &str) -> Self {
        Self::text(value)
    }
}

/// A plain string becomes a text block.
impl From<String> for ContentBlock {
    fn from(value: String) -> Self {
        Self::text(value)
    }
}

from_variants!(ContentBlock { Text(TextContent) } boxed {
    Image(ImageContent),
    Audio(AudioContent),
    ResourceLink(ResourceLink),
    Resource(EmbeddedResource),
});

encode_with_serde!(Annotations);
