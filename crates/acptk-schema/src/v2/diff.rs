//! Diffs in ACP v2 tool call content: the changed files, each with an `operation` (add,
//! delete, modify, move, ...) and optionally a patch.

#[allow(unused_imports)]
use super::*;

use serde::Deserialize;
use serde::de;
use serde_json::Value;

/// The `operation` tags of [`DiffOperation`].
const ADD: &str = "add";
const DELETE: &str = "delete";
const MODIFY: &str = "modify";
const MOVE: &str = "move";
const COPY: &str = "copy";

/// One changed path of a [`Diff`]: what happened to it (the `operation`) plus what kind of
/// file it is.
///
/// ```json
/// {"operation": "move", "oldPath": "/repo/a.rs", "path": "/repo/b.rs", "fileType": "text"}
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiffChange {
    /// What happened to the path, with the paths involved.
    #[serde(flatten)]
    pub operation: DiffOperation,
    /// What kind of file changed. A malformed value is treated as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_type: Option<DiffFileType>,
    /// The media type of the file, if known (for example `image/png`). A malformed value is
    /// treated as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<MediaType>,
    /// Extension metadata (`_meta`). Absent when `None`; see [`crate::Meta`].
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::Meta>,
}

constructor! {
    /// Builds a change from its operation.
    DiffChange(operation: impl Into<DiffOperation>) { file_type: None, mime_type: None, meta: None }
}

meta_setter!(DiffChange);

setters!(DiffChange { opt file_type: DiffFileType, opt mime_type: MediaType });

/// What happened to a path in a [`DiffChange`], tagged by `operation`.
///
/// Open: an operation this crate does not know is kept verbatim with the fields of the change
/// that [`DiffChange`] does not know itself. A known operation whose fields do not fit is an
/// error.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "operation")]
#[non_exhaustive]
pub enum DiffOperation {
    /// A new path was created.
    #[serde(rename = "add")]
    Add(DiffPathChange),
    /// The path was removed.
    #[serde(rename = "delete")]
    Delete(DiffPathChange),
    /// The path's content changed in place.
    #[serde(rename = "modify")]
    Modify(DiffPathChange),
    /// The path was renamed from `oldPath`.
    #[serde(rename = "move")]
    Move(DiffPathPairChange),
    /// The path was created as a copy of `oldPath`.
    #[serde(rename = "copy")]
    Copy(DiffPathPairChange),
    /// An operation this crate does not know, kept verbatim with its fields.
    #[serde(untagged)]
    Other(crate::UnknownVariant),
}

union_tags! {
    DiffOperation("operation"), what: "operation", open(Other) {
        Add(_) = ADD,
        Delete(_) = DELETE,
        Modify(_) = MODIFY,
        Move(_) = MOVE,
        Copy(_) = COPY,
    }
}

impl DiffOperation {
    /// Builds the value for `tag` from the fields that belong to the operation.
    fn from_parts<E: de::Error>(tag: String, fields: crate::unknown::Fields) -> Result<Self, E> {
        let decoded = match tag.as_str() {
            ADD => DiffPathChange::deserialize(Value::Object(fields)).map(Self::Add),
            DELETE => DiffPathChange::deserialize(Value::Object(fields)).map(Self::Delete),
            MODIFY => DiffPathChange::deserialize(Value::Object(fields)).map(Self::Modify),
            MOVE => DiffPathPairChange::deserialize(Value::Object(fields)).map(Self::Move),
            COPY => DiffPathPairChange::deserialize(Value::Object(fields)).map(Self::Copy),
            _ => {
                return Ok(Self::Other(crate::UnknownVariant::new(
                    Self::TAG_KEY,
                    tag,
                    fields,
                )));
            }
        };
        decoded.map_err(E::custom)
    }
}

/// The `fileType` of a change: a malformed value is treated as absent.
#[derive(serde::Deserialize)]
struct FileTypeField(#[serde(deserialize_with = "crate::de::lenient")] Option<DiffFileType>);

/// The `mimeType` of a change: a non-string value is treated as absent.
#[derive(serde::Deserialize)]
struct MimeTypeField(#[serde(deserialize_with = "crate::de::lenient_string")] Option<MediaType>);

map_deserialize!(
    DiffChange,
    "a diff change object tagged by `operation`",
    |mut map| {
        // The change's own fields are decoded in place; only the operation's fields
        // (one or two paths, or the fields of an unknown operation) are collected.
        let mut operation: Option<String> = None;
        let mut file_type = None;
        let mut mime_type = None;
        let mut meta = None;
        let mut fields = crate::unknown::Fields::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "operation" => operation = Some(map.next_value()?),
                "fileType" => file_type = map.next_value::<FileTypeField>()?.0,
                "mimeType" => mime_type = map.next_value::<MimeTypeField>()?.0,
                "_meta" => meta = map.next_value::<LenientMetaField>()?.0,
                _ => {
                    fields.insert(key, map.next_value::<Value>()?);
                }
            }
        }
        let tag = operation.ok_or_else(|| de::Error::missing_field(DiffOperation::TAG_KEY))?;
        Ok(DiffChange {
            operation: DiffOperation::from_parts(tag, fields)?,
            file_type,
            mime_type,
            meta,
        })
    }
);

schema_impl!(DiffChange, |generator| {
    let file_type = generator.subschema_for::<DiffFileType>();
    let mime_type = generator.subschema_for::<MediaType>();
    let single = generator.subschema_for::<DiffPathChange>();
    let pair = generator.subschema_for::<DiffPathPairChange>();
    let mut alternatives: Vec<Value> = DiffOperation::TAGS
        .iter()
        .map(|value| {
            let payload = if matches!(*value, MOVE | COPY) {
                &pair
            } else {
                &single
            };
            serde_json::json!({
                "type": "object",
                "properties": { "operation": { "type": "string", "const": value } },
                "required": ["operation"],
                "allOf": [payload],
            })
        })
        .collect();
    alternatives.push(crate::schema_parts::other_alternative(
        DiffOperation::TAG_KEY,
        DiffOperation::TAGS,
    ));
    schemars::json_schema!({
        "type": "object",
        "properties": {
            "fileType": {
                "anyOf": [file_type, { "type": "null" }],
                "x-deserialize-default-on-error": true
            },
            "mimeType": {
                "anyOf": [mime_type, { "type": "null" }],
                "x-deserialize-default-on-error": true
            },
            "_meta": state_meta_schema()
        },
        "anyOf": alternatives
    })
});

open_enum! {
    /// What kind of file a diff change is about. Open: unknown values are kept verbatim.
    pub enum DiffFileType {
        /// A text file.
        Text = "text",
        /// A binary file.
        Binary = "binary",
        /// A directory.
        Directory = "directory",
        /// A symbolic link.
        Symlink = "symlink",
    }
}

wire_struct! {
    no_meta
    /// The fields of a change that touches one path (add, delete, modify).
    pub struct DiffPathChange {
        /// The absolute path that changed.
        pub path: AbsolutePath,
    }
}

impl DiffPathChange {
    /// A change of `path`.
    pub fn new(path: impl Into<AbsolutePath>) -> Self {
        Self { path: path.into() }
    }
}

wire_struct! {
    no_meta
    /// The fields of a change that involves two paths (move, copy).
    pub struct DiffPathPairChange {
        /// The absolute path before the change (the source).
        pub old_path: AbsolutePath,
        /// The absolute path after the change (the destination).
        pub path: AbsolutePath,
    }
}

constructor! {
    /// A change from `old_path` to `path`.
    DiffPathPairChange(old_path: impl Into<AbsolutePath>, path: impl Into<AbsolutePath>) {}
}

wire_struct! {
    /// The whole diff as patch text, for clients that render or apply patches.
    pub struct DiffPatch {
        /// How `text` is written.
        pub format: DiffPatchFormat,
        /// The patch text.
        pub text: String,
    }
}

constructor! {
    /// A patch in `format` with the given text.
    DiffPatch(format: impl Into<DiffPatchFormat>, text: impl Into<String>) { meta: None }
}

open_enum! {
    /// The format of a [`DiffPatch`]. Open: unknown values are kept verbatim.
    pub enum DiffPatchFormat {
        /// A patch as printed by `git diff` (unified diff with git headers).
        GitPatch = "git_patch",
    }
}

wire_struct! {
    /// File changes made by a tool call: the list of changed paths, and optionally the whole
    /// diff as a patch.
    ///
    /// ```json
    /// {"changes": [{"operation": "modify", "path": "/repo/src/main.rs", "fileType": "text"}],
    ///  "patch": {"format": "git_patch", "text": "diff --git a/src/main.rs b/src/main.rs\n..."}}
    /// ```
    pub struct Diff {
        /// The changed paths; ACP requires at least one. Items that do not decode are skipped.
        #[serde(deserialize_with = "crate::de::items_skip_invalid")]
        pub changes: Vec<DiffChange>,
        /// The diff as patch text. A malformed value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub patch: Option<DiffPatch>,
    }
}

constructor! {
    /// A diff of the given changes, without patch text.
    Diff(changes: impl Into<Vec<DiffChange>>) { patch: None, meta: None }
}

setters!(Diff { opt patch: DiffPatch });
