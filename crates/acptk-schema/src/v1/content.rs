//! Content blocks (ACP v1): the text, images, audio and resources that make up prompts,
//! agent messages and tool call output.
//!
//! This file has the parts whose shape differs from v2; text, annotations, embedded resources
//! and the conversions into [`ContentBlock`] are in the shared content module and re-exported
//! here.

#[allow(unused_imports)]
use super::*;

tagged_union! {
    /// One piece of content, tagged by `type`.
    ///
    /// Content blocks make up user prompts, streamed agent messages and thoughts, and tool call
    /// output. The set of kinds follows MCP content. Text and resource links are always
    /// allowed in a prompt; images, audio and embedded resources only when the agent
    /// advertised the matching prompt capability.
    ///
    /// ```json
    /// {"type": "text", "text": "Can you explain this function?"}
    /// ```
    ///
    /// In v1 this union is closed: an unknown `type` is an error. Build text blocks with
    /// [`ContentBlock::text`] or `From<&str>`, and the others with `From` on the unboxed
    /// payload (`ImageContent::new(data, "image/png").into()`).
    ///
    /// Text, by far the most frequent kind, is held inline; the other kinds are boxed, so that
    /// a block (and every message chunk holding one) stays small.
    pub enum ContentBlock("type") {
        /// Plain text.
        Text(TextContent) = "text",
        /// An image, base64-encoded.
        Image(Box<ImageContent>) = "image",
        /// An audio clip, base64-encoded.
        Audio(Box<AudioContent>) = "audio",
        /// A reference to a resource (such as a file) the agent can fetch itself.
        ResourceLink(Box<ResourceLink>) = "resource_link",
        /// A resource whose contents are included inline.
        Resource(Box<EmbeddedResource>) = "resource",
    }
}

/// In v1 the JSON Schema leaves [`Annotations::priority`] unbounded (decoding never checks its
/// range in either version).
#[cfg(feature = "schemars")]
pub(crate) const ANNOTATION_PRIORITY_BOUNDED: bool = false;

/// A conversation role, used in [`Annotations::audience`].
///
/// Closed in v1: any other string is not a role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// The AI side of the conversation (the agent and its model).
    Assistant,
    /// The human user.
    User,
}

wire_struct! {
    /// An image: `{"type": "image", "data": "<base64>", "mimeType": "image/png"}` inside a
    /// [`ContentBlock`].
    ///
    /// Agents accept images in prompts only when they advertise image support in their prompt
    /// capabilities.
    pub struct ImageContent {
        /// Display hints. Absent when there are none; a malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
        /// The image bytes, base64-encoded.
        pub data: String,
        /// The image's MIME type, such as `image/png`.
        pub mime_type: String,
        /// Where the image came from, if known. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub uri: Option<String>,
    }
}

impl ImageContent {
    /// An image from base64 `data` and its MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            uri: None,
            meta: None,
        }
    }
}

setters!(ImageContent { boxed annotations: Annotations, opt uri: String });

wire_struct! {
    /// An audio clip: `{"type": "audio", "data": "<base64>", "mimeType": "audio/wav"}` inside a
    /// [`ContentBlock`].
    ///
    /// Agents accept audio in prompts only when they advertise audio support in their prompt
    /// capabilities.
    pub struct AudioContent {
        /// Display hints. Absent when there are none; a malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
        /// The audio bytes, base64-encoded.
        pub data: String,
        /// The audio's MIME type, such as `audio/wav`.
        pub mime_type: String,
    }
}

constructor! {
    /// An audio clip from base64 `data` and its MIME type.
    AudioContent(data: impl Into<String>, mime_type: impl Into<String>)
    { annotations: None, meta: None }
}

setters!(AudioContent { boxed annotations: Annotations });

wire_struct! {
    /// A link to a resource the receiver can read itself, without its contents:
    /// `{"type": "resource_link", "name": "main.rs", "uri": "file:///src/main.rs"}` inside a
    /// [`ContentBlock`].
    ///
    /// Every agent accepts resource links in prompts. Optional fields that are malformed are
    /// treated as absent.
    pub struct ResourceLink {
        /// Display hints. Absent when there are none.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
        /// What the resource is, for people and models.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// The resource's MIME type, if known.
        #[opt("crate::de::lenient_string")]
        pub mime_type: Option<String>,
        /// A short name for the resource, such as a file name.
        pub name: String,
        /// The resource's size in bytes, if known.
        #[opt("crate::de::lenient")]
        pub size: Option<i64>,
        /// A human-friendly title to show instead of `name`.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// Where the resource lives.
        pub uri: String,
    }
}

constructor! {
    /// A link with a `name` and a `uri`; everything else absent.
    ResourceLink(name: impl Into<String>, uri: impl Into<String>)
    { annotations: None, description: None, mime_type: None, size: None, title: None, meta: None }
}

setters!(ResourceLink {
    boxed annotations: Annotations,
    opt description: String,
    opt mime_type: String,
    opt size: i64,
    opt title: String,
});

wire_struct! {
    /// The text contents of a resource, with its URI: `{"uri": ..., "text": ...}`.
    pub struct TextResourceContents {
        /// The MIME type of the text, if known. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub mime_type: Option<String>,
        /// The text.
        pub text: String,
        /// Which resource this is.
        pub uri: String,
    }
}

impl TextResourceContents {
    /// Text contents of the resource at `uri`.
    pub fn new(text: impl Into<String>, uri: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            uri: uri.into(),
            mime_type: None,
            meta: None,
        }
    }
}

setters!(TextResourceContents { opt mime_type: String });

wire_struct! {
    /// The binary contents of a resource, with its URI: `{"uri": ..., "blob": "<base64>"}`.
    pub struct BlobResourceContents {
        /// The bytes, base64-encoded.
        pub blob: String,
        /// The MIME type of the data, if known. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub mime_type: Option<String>,
        /// Which resource this is.
        pub uri: String,
    }
}

constructor! {
    /// Base64 `blob` contents of the resource at `uri`.
    BlobResourceContents(blob: impl Into<String>, uri: impl Into<String>)
    { mime_type: None, meta: None }
}

setters!(BlobResourceContents { opt mime_type: String });

encode_union!(ContentBlock { Text });
