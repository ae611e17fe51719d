//! Tool calls in ACP v2: their updates, kinds, statuses and content (diffs are in `diff.rs`), the
//! background work of a session, and cancelling a single tool call.

#[allow(unused_imports)]
use super::*;

use std::fmt;

use serde::de::{self, Visitor};

wire_struct! {
    encoded patch_meta
    /// Creates or changes a tool call (the `tool_call_update` session update).
    ///
    /// The first update for a `toolCallId` creates the tool call; later ones change only the
    /// fields they carry. `content` and `locations`, when present, replace the previous lists.
    ///
    /// ```json
    /// {"toolCallId": "call_1", "title": "Reading main.rs", "kind": "read", "status": "in_progress"}
    /// ```
    pub struct ToolCallUpdate {
        /// The tool call this update is about; unique within the session.
        pub tool_call_id: ToolCallId,
        /// The name of the tool being called. A non-string value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub name: crate::Patch<String>,
        /// A human-readable description of what the call does. A non-string value is treated
        /// as absent.
        #[patch("crate::de::lenient_patch")]
        pub title: crate::Patch<String>,
        /// The kind of tool. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub kind: crate::Patch<ToolKind>,
        /// The execution status. A malformed value is treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub status: crate::Patch<ToolCallStatus>,
        /// What the call produced so far (text, diffs, terminals, sessions). Items that do not
        /// decode are skipped; a value that is not a list is treated as absent.
        #[patch("crate::de::lenient_patch_items")]
        pub content: crate::Patch<Vec<ToolCallContent>>,
        /// The files the call works on, for "follow along" views. Items that do not decode are
        /// skipped; a value that is not a list is treated as absent.
        #[patch("crate::de::lenient_patch_items")]
        pub locations: crate::Patch<Vec<ToolCallLocation>>,
        /// The raw input sent to the tool. A `null` is treated as absent.
        #[patch("crate::de::patch_value")]
        pub raw_input: crate::Patch<serde_json::Value>,
        /// The raw output returned by the tool. A `null` is treated as absent.
        #[patch("crate::de::patch_value")]
        pub raw_output: crate::Patch<serde_json::Value>,
        /// What the client may do with this call (for example cancel it). A malformed value is
        /// treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub capabilities: crate::Patch<ToolCallCapabilities>,
    }
}

encode_struct!(ToolCallUpdate { req tool_call_id, patch name, patch title, patch kind, patch status, patch content, patch locations, patch raw_input, patch raw_output, patch capabilities, patch meta = "_meta" });

constructor! {
    /// An update for `tool_call_id` that changes nothing yet.
    ToolCallUpdate(tool_call_id: impl Into<ToolCallId>)
    {
        name: crate::Patch::Unchanged,
        title: crate::Patch::Unchanged,
        kind: crate::Patch::Unchanged,
        status: crate::Patch::Unchanged,
        content: crate::Patch::Unchanged,
        locations: crate::Patch::Unchanged,
        raw_input: crate::Patch::Unchanged,
        raw_output: crate::Patch::Unchanged,
        capabilities: crate::Patch::Unchanged,
        meta: crate::Patch::Unchanged,
    }
}

setters!(ToolCallUpdate {
    patch name: String,
    patch title: String,
    patch kind: ToolKind,
    patch status: ToolCallStatus,
    patch content: Vec<ToolCallContent>,
    patch locations: Vec<ToolCallLocation>,
    patch raw_input: serde_json::Value,
    patch raw_output: serde_json::Value,
    patch capabilities: ToolCallCapabilities,
});

/// Declares [`ToolKind`] from its table of known values. Like `open_enum!`, except that the
/// fallback is called `Unknown` (ACP uses `"other"` as a known value) and is titled "unknown"
/// in the schema.
macro_rules! tool_kind_enum {
    ( $( $(#[doc = $vdoc:expr])* $variant:ident = $value:literal, )+ ) => {
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[doc = "The kind of a tool, so that the client can pick an icon and a presentation."]
        #[doc = ""]
        #[doc = "An open string enum. `\"other\"` is a *known* value here ([`ToolKind::Other`]:"]
        #[doc = "a tool that fits no listed kind); values this crate does not know are kept"]
        #[doc = "verbatim in [`ToolKind::Unknown`] and written back unchanged."]
        pub enum ToolKind {
            $( $(#[doc = $vdoc])* $variant, )+
            /// A value this crate does not know, kept verbatim. Values starting with `_` are
            /// implementation extensions; other unknown values are reserved for future ACP
            /// versions.
            Unknown(crate::OtherValue),
        }

        impl ToolKind {
            /// Every value this enum knows, in declaration order.
            pub const KNOWN: &'static [&'static str] = &[$($value),+];

            /// The wire string of this value.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $value, )+
                    Self::Unknown(value) => value.as_str(),
                }
            }

            fn known(value: &str) -> Option<Self> {
                match value {
                    $( $value => Some(Self::$variant), )+
                    _ => None,
                }
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for ToolKind {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "ToolKind".into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "anyOf": [
                        $( { "type": "string", "const": $value }, )+
                        { "title": "unknown", "type": "string" }
                    ]
                })
            }
        }
    };
}
tool_kind_enum! {
    /// Reads files or data.
    Read = "read",
    /// Changes files or content.
    Edit = "edit",
    /// Removes files or data.
    Delete = "delete",
    /// Moves or renames files.
    Move = "move",
    /// Searches for information.
    Search = "search",
    /// Runs a command or code.
    Execute = "execute",
    /// Internal reasoning or planning.
    Think = "think",
    /// Fetches external data (for example from the web).
    Fetch = "fetch",
    /// Switches the session mode.
    SwitchMode = "switch_mode",
    /// A tool that fits none of the other kinds (the value `"other"`).
    Other = "other",
}

impl ToolKind {
    /// Whether this is one of the values listed in [`Self::KNOWN`].
    pub fn is_known(&self) -> bool {
        !matches!(self, Self::Unknown(_))
    }

    /// Whether this is an implementation extension value (unknown, starts with `_`).
    pub fn is_extension(&self) -> bool {
        matches!(self, Self::Unknown(value) if value.is_extension())
    }

    /// Whether this is an unknown value reserved for a future ACP version (unknown and not
    /// starting with `_`).
    pub fn is_reserved(&self) -> bool {
        matches!(self, Self::Unknown(value) if !value.is_extension())
    }
}

impl From<&str> for ToolKind {
    fn from(value: &str) -> Self {
        Self::known(value).unwrap_or_else(|| Self::Unknown(crate::OtherValue::new(value.into())))
    }
}

impl From<String> for ToolKind {
    fn from(value: String) -> Self {
        Self::known(&value)
            .unwrap_or_else(|| Self::Unknown(crate::OtherValue::new(value.into_boxed_str())))
    }
}

impl std::str::FromStr for ToolKind {
    type Err = std::convert::Infallible;
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(Self::from(value))
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ToolKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ToolKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ToolKind;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string (ToolKind)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ToolKind, E> {
                Ok(ToolKind::from(v))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<ToolKind, E> {
                Ok(ToolKind::from(v))
            }
        }
        deserializer.deserialize_str(V)
    }
}

open_enum! {
    /// The execution status of a tool call. Open: unknown values are kept verbatim.
    pub enum ToolCallStatus {
        /// Not started yet (input still streaming, or waiting for permission).
        Pending = "pending",
        /// Running.
        InProgress = "in_progress",
        /// Suspended; it may resume later.
        Paused = "paused",
        /// Finished successfully.
        Completed = "completed",
        /// Finished with an error.
        Failed = "failed",
        /// Stopped before it finished, at the user's or client's request.
        Cancelled = "cancelled",
    }
}

tool_call_content! {
    /// One piece of what a tool call produced, tagged by `type`. Open: an unknown kind is kept
    /// verbatim.
    open(Other)
    diff:
    /// Changes to files.
}

tool_call_location! {
    path: AbsolutePath,
    line:
    /// The line in the file, counted from 1. A malformed value (including 0, which is
    /// below the minimum) is treated as absent.
    #[opt("crate::de::lenient_line")]
}

wire_struct! {
    /// The subject of a permission request about a tool call.
    pub struct ToolCallPermissionSubject {
        /// The tool call that needs permission, with the details to show to the user.
        pub tool_call: ToolCallUpdate,
    }
}

constructor! {
    /// The subject for `tool_call`.
    ToolCallPermissionSubject(tool_call: impl Into<ToolCallUpdate>) { meta: None }
}

empty_object! {
    /// The agent's answer to `tool_call/cancel`: the cancellation was accepted.
    CancelToolCallResponse, new: "An empty success response."
}

tagged_union! {
    /// Work that continues in the background while the session is in some state, tagged by
    /// `type`. Open: an unknown kind is kept verbatim.
    pub enum BackgroundWork("type") open(Other) {
        /// A terminal that is still running.
        Terminal(BackgroundTerminal) = "terminal",
        /// A tool call that is still running.
        ToolCall(BackgroundToolCall) = "tool_call",
        /// A subagent session that is still working.
        Subagent(BackgroundSubagent) = "subagent",
    }
}

wire_struct! {
    /// A terminal that keeps running in the background.
    pub struct BackgroundTerminal {
        /// The running terminal.
        pub terminal_id: TerminalId,
    }
}

impl BackgroundTerminal {
    /// Background work for the terminal `terminal_id`.
    pub fn new(terminal_id: impl Into<TerminalId>) -> Self {
        Self {
            terminal_id: terminal_id.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// A tool call that keeps running in the background.
    pub struct BackgroundToolCall {
        /// The running tool call.
        pub tool_call_id: ToolCallId,
    }
}

constructor! {
    /// Background work for the tool call `tool_call_id`.
    BackgroundToolCall(tool_call_id: impl Into<ToolCallId>) { meta: None }
}

wire_struct! {
    /// A subagent session that keeps working in the background.
    pub struct BackgroundSubagent {
        /// The subagent's session.
        pub session_id: SessionId,
    }
}

impl BackgroundSubagent {
    /// Background work for the subagent session `session_id`.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            meta: None,
        }
    }
}

wire_struct! {
    encoded
    /// Appends one piece of content to a tool call (the `tool_call_content_chunk` session
    /// update), for output that streams in.
    pub struct ToolCallContentChunk {
        /// The tool call to append to.
        pub tool_call_id: ToolCallId,
        /// The content to append.
        pub content: ToolCallContent,
    }
}

encode_struct!(ToolCallContentChunk { req tool_call_id, req content, opt meta = "_meta" });

impl ToolCallContentChunk {
    /// A chunk appending `content` to `tool_call_id`.
    pub fn new(tool_call_id: impl Into<ToolCallId>, content: impl Into<ToolCallContent>) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// Asks the agent to cancel one running tool call without cancelling the whole turn
    /// (`tool_call/cancel`). Only for tool calls whose capabilities allow it.
    pub struct CancelToolCallRequest {
        /// The session the tool call belongs to.
        pub session_id: SessionId,
        /// The tool call to cancel.
        pub tool_call_id: ToolCallId,
    }
}

constructor! {
    /// Asks to cancel `tool_call_id` in `session_id`.
    CancelToolCallRequest(session_id: impl Into<SessionId>, tool_call_id: impl Into<ToolCallId>)
    { meta: None }
}

encode_union!(ToolCallContent { Content });
encode_as_str!(ToolKind);
encode_with_serde!(ToolCallCapabilities);
