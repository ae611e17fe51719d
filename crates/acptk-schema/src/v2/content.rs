//! Content blocks (ACP v2): the text, images, audio and resources that make up prompts,
//! messages and tool call output, plus icons.
//!
//! This file has the parts whose shape differs from v1; text, annotations, embedded resources
//! and the conversions into [`ContentBlock`] are in the shared content module and re-exported
//! here.

#[allow(unused_imports)]
use super::*;

tagged_union! {
    /// One piece of content, tagged by `type`.
    ///
    /// Content blocks make up user prompts, agent messages and thoughts, and tool call output.
    /// The set of kinds follows MCP content. Text and resource links are always allowed in a
    /// prompt; images, audio and embedded resources only when the agent advertised the matching
    /// prompt capability.
    ///
    /// ```json
    /// {"type": "text", "text": "Can you explain this function?"}
    /// ```
    ///
    /// In v2 this union is open: a block with an unknown `type` is kept as
    /// [`ContentBlock::Other`] and written back unchanged. Build text blocks with
    /// [`ContentBlock::text`] or `From<&str>`, and the others with `From` on the unboxed
    /// payload (`ImageContent::new(data, "image/png").into()`).
    ///
    /// Text, by far the most frequent kind, is held inline; the other kinds are boxed, so that
    /// a block (and every message chunk holding one) stays small.
    pub enum ContentBlock("type") open(Other) {
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
        /// Invokes one of the agent's skills by name (prompts only, and only as the agent's
        /// `session.prompt.skill` capability allows).
        #[cfg(feature = "unstable_agent_skills")]
        Skill(SkillReference) = "skill",
    }
}

/// In v2 the JSON Schema bounds [`Annotations::priority`] to `0..=1` (decoding never checks the
/// range in either version).
#[cfg(feature = "schemars")]
pub(crate) const ANNOTATION_PRIORITY_BOUNDED: bool = true;

open_enum! {
    /// A conversation role, used in [`Annotations::audience`]. Open: other strings are kept.
    pub enum Role {
        /// The AI side of the conversation (the agent and its model).
        Assistant = "assistant",
        /// The human user.
        User = "user",
    }
}

wire_struct! {
    /// An image: `{"type": "image", "data": "<base64>", "mimeType": "image/png"}` inside a
    /// [`ContentBlock`].
    ///
    /// Agents accept images in prompts only when they advertise image support in their prompt
    /// capabilities.
    pub struct ImageContent {
        /// The image bytes, base64-encoded.
        #[cfg_attr(feature = "schemars", schemars(extend("contentEncoding" = "base64")))]
        pub data: String,
        /// The image's MIME type, such as `image/png`.
        pub mime_type: MediaType,
        /// Where the image came from, if known. A malformed value is treated as absent.
        #[cfg_attr(feature = "schemars", schemars(extend("format" = "uri")))]
        #[opt("crate::de::lenient_string")]
        pub uri: Option<String>,
        /// Display hints. Absent when there are none; a malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
    }
}

constructor! {
    /// An image from base64 `data` and its MIME type.
    ImageContent(data: impl Into<String>, mime_type: impl Into<MediaType>)
    { uri: None, annotations: None, meta: None }
}

setters!(ImageContent { opt uri: String, boxed annotations: Annotations });

wire_struct! {
    /// An audio clip: `{"type": "audio", "data": "<base64>", "mimeType": "audio/wav"}` inside a
    /// [`ContentBlock`].
    ///
    /// Agents accept audio in prompts only when they advertise audio support in their prompt
    /// capabilities.
    pub struct AudioContent {
        /// The audio bytes, base64-encoded.
        #[cfg_attr(feature = "schemars", schemars(extend("contentEncoding" = "base64")))]
        pub data: String,
        /// The audio's MIME type, such as `audio/wav`.
        pub mime_type: MediaType,
        /// Display hints. Absent when there are none; a malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
    }
}

constructor! {
    /// An audio clip from base64 `data` and its MIME type.
    AudioContent(data: impl Into<String>, mime_type: impl Into<MediaType>)
    { annotations: None, meta: None }
}

setters!(AudioContent { boxed annotations: Annotations });

wire_struct! {
    /// An icon that a client may show next to a resource (as in MCP).
    ///
    /// Optional fields that are malformed are treated as absent.
    pub struct Icon {
        /// Where to load the icon from: an `http(s):` URL or a `data:` URI.
        #[cfg_attr(feature = "schemars", schemars(extend("format" = "uri")))]
        pub src: String,
        /// The icon's MIME type, if the URI does not make it clear.
        #[opt("crate::de::lenient_string")]
        pub mime_type: Option<MediaType>,
        /// The sizes the icon is available in, such as `"48x48"` or `"any"` for scalable
        /// formats. Entries that are not strings are skipped.
        #[opt("crate::de::lenient_items_opt")]
        pub sizes: Option<Vec<String>>,
        /// The background the icon is designed for. Absent means any.
        #[opt("crate::de::lenient")]
        pub theme: Option<IconTheme>,
    }
}

constructor! {
    /// An icon loaded from `src`.
    Icon(src: impl Into<String>) { mime_type: None, sizes: None, theme: None, meta: None }
}

setters!(Icon { opt mime_type: MediaType, opt sizes: Vec<String>, opt theme: IconTheme });

open_enum! {
    /// The background an [`Icon`] is designed for. Open: other strings are kept.
    pub enum IconTheme {
        /// Meant for a light background.
        Light = "light",
        /// Meant for a dark background.
        Dark = "dark",
    }
}

wire_struct! {
    /// A link to a resource the receiver can read itself, without its contents:
    /// `{"type": "resource_link", "name": "main.rs", "uri": "file:///src/main.rs"}` inside a
    /// [`ContentBlock`].
    ///
    /// Every agent accepts resource links in prompts. Optional fields that are malformed are
    /// treated as absent.
    pub struct ResourceLink {
        /// A short name for the resource, such as a file name.
        pub name: String,
        /// Where the resource lives.
        #[cfg_attr(feature = "schemars", schemars(extend("format" = "uri")))]
        pub uri: String,
        /// A human-friendly title to show instead of `name`.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// What the resource is, for people and models.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
        /// Icons to show for the resource. Entries that are not valid icons are skipped.
        #[opt("crate::de::lenient_items_opt")]
        pub icons: Option<Vec<Icon>>,
        /// The resource's MIME type, if known.
        #[opt("crate::de::lenient_string")]
        pub mime_type: Option<MediaType>,
        /// The resource's size in bytes, if known.
        #[opt("crate::de::lenient")]
        pub size: Option<u64>,
        /// Display hints. Absent when there are none.
        #[opt("crate::de::lenient_object")]
        pub annotations: Option<Box<Annotations>>,
    }
}

constructor! {
    /// A link with a `name` and a `uri`; everything else absent.
    ResourceLink(name: impl Into<String>, uri: impl Into<String>)
    {
        title: None,
        description: None,
        icons: None,
        mime_type: None,
        size: None,
        annotations: None,
        meta: None,
    }
}

setters!(ResourceLink {
    opt title: String,
    opt description: String,
    opt icons: Vec<Icon>,
    opt mime_type: MediaType,
    opt size: u64,
    boxed annotations: Annotations,
});

wire_struct! {
    /// The text contents of a resource, with its URI: `{"uri": ..., "text": ...}`.
    pub struct TextResourceContents {
        /// The text.
        pub text: String,
        /// Which resource this is.
        #[cfg_attr(feature = "schemars", schemars(extend("format" = "uri")))]
        pub uri: String,
        /// The MIME type of the text, if known. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub mime_type: Option<MediaType>,
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

setters!(TextResourceContents { opt mime_type: MediaType });

wire_struct! {
    /// The binary contents of a resource, with its URI: `{"uri": ..., "blob": "<base64>"}`.
    pub struct BlobResourceContents {
        /// The bytes, base64-encoded.
        #[cfg_attr(feature = "schemars", schemars(extend("contentEncoding" = "base64")))]
        pub blob: String,
        /// Which resource this is.
        #[cfg_attr(feature = "schemars", schemars(extend("format" = "uri")))]
        pub uri: String,
        /// The MIME type of the data, if known. A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub mime_type: Option<MediaType>,
    }
}

impl BlobResourceContents {
    /// Base64 `blob` contents of the resource at `uri`.
    pub fn new(blob: impl Into<String>, uri: impl Into<String>) -> Self {
        Self {
            blob: blob.into(),
            uri: uri.into(),
            mime_type: None,
            meta: None,
        }
    }
}

setters!(BlobResourceContents { opt mime_type: MediaType });

encode_union!(ContentBlock { Text });
