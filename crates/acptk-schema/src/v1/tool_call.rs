//! Tool calls in ACP v1: their creation and updates, kinds, statuses, content and locations.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    encoded
    /// Changes an existing tool call (the `tool_call_update` session update).
    ///
    /// Only the fields present change; `content` and `locations`, when present, replace the
    /// previous lists.
    ///
    /// ```json
    /// {"toolCallId": "call_1", "status": "completed"}
    /// ```
    pub struct ToolCallUpdate {
        /// The tool call this update is about.
        pub tool_call_id: ToolCallId,
        /// The new kind. A malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub kind: Option<ToolKind>,
        /// The new status. A malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub status: Option<ToolCallStatus>,
        /// The new human-readable description. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub title: Option<String>,
        /// The new tool name. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub name: Option<String>,
        /// The new content list. Items that do not decode are skipped; a value that is not a list
        /// is treated as absent.
        #[opt("crate::de::lenient_items_opt")]
        pub content: Option<Vec<ToolCallContent>>,
        /// The new list of locations. Items that do not decode are skipped; a value that is not a
        /// list is treated as absent.
        #[opt("crate::de::lenient_items_opt")]
        pub locations: Option<Vec<ToolCallLocation>>,
        /// The raw input sent to the tool. A `null` is treated as absent.
        #[opt("crate::de::null_as_none")]
        pub raw_input: Option<serde_json::Value>,
        /// The raw output returned by the tool. A `null` is treated as absent.
        #[opt("crate::de::null_as_none")]
        pub raw_output: Option<serde_json::Value>,
    }
}

encode_struct!(ToolCallUpdate { req tool_call_id, opt kind, opt status, opt title, opt name, opt content, opt locations, opt raw_input, opt raw_output, opt meta = "_meta" });

constructor! {
    /// An update for `tool_call_id` that changes nothing yet.
    ToolCallUpdate(tool_call_id: impl Into<ToolCallId>)
    {
        kind: None,
        status: None,
        title: None,
        name: None,
        content: None,
        locations: None,
        raw_input: None,
        raw_output: None,
        meta: None,
    }
}

setters!(ToolCallUpdate { opt kind: ToolKind, opt status: ToolCallStatus, opt title: String, opt name: String, opt content: Vec<ToolCallContent>, opt locations: Vec<ToolCallLocation>, opt raw_input: serde_json::Value, opt raw_output: serde_json::Value });

/// The kind of a tool, so that the client can pick an icon and a presentation. Closed: any
/// other value is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolKind {
    /// Reads files or data.
    Read,
    /// Changes files or content.
    Edit,
    /// Removes files or data.
    Delete,
    /// Moves or renames files.
    Move,
    /// Searches for information.
    Search,
    /// Runs a command or code.
    Execute,
    /// Internal reasoning or planning.
    Think,
    /// Fetches external data (for example from the web).
    Fetch,
    /// Switches the session mode.
    SwitchMode,
    /// A tool that fits none of the other kinds.
    Other,
}

/// The execution status of a tool call. Closed: any other value is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolCallStatus {
    /// Not started yet (input still streaming, or waiting for permission).
    Pending,
    /// Running.
    InProgress,
    /// Finished successfully.
    Completed,
    /// Finished with an error.
    Failed,
}

tool_call_content! {
    /// One piece of what a tool call produced, tagged by `type`. Closed: an unknown kind is an
    /// error.
    diff:
    /// A change to one file, as old and new text.
}

wire_struct! {
    encoded
    /// A change to one file, given as its old and new text.
    ///
    /// ```json
    /// {"path": "/repo/src/main.rs", "oldText": "fn main() {}", "newText": "fn main() { run() }"}
    /// ```
    pub struct Diff {
        /// The absolute path of the changed file.
        pub path: String,
        /// The text before the change; absent for a new file. A non-string value is treated as
        /// absent.
        #[opt("crate::de::lenient_string")]
        pub old_text: Option<String>,
        /// The text after the change.
        pub new_text: String,
    }
}

encode_struct!(Diff { req path, opt old_text, req new_text, opt meta = "_meta" });

constructor! {
    /// A change of `path` to `new_text`, with no old text (a new file).
    Diff(path: impl Into<String>, new_text: impl Into<String>) { old_text: None, meta: None }
}

setters!(Diff { opt old_text: String });

tool_call_location! {
    path: String,
    line:
    /// The line in the file. A malformed value is treated as absent.
    #[opt("crate::de::lenient")]
}

wire_struct! {
    encoded
    /// Starts a new tool call (the `tool_call` session update).
    ///
    /// ```json
    /// {"toolCallId": "call_1", "title": "Reading main.rs", "kind": "read", "status": "pending"}
    /// ```
    pub struct ToolCall {
        /// The id of the new tool call; unique within the session.
        pub tool_call_id: ToolCallId,
        /// A human-readable description of what the call does.
        pub title: String,
        /// The name of the tool being called. A non-string value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub name: Option<String>,
        /// The kind of tool. A malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub kind: Option<ToolKind>,
        /// The execution status. A malformed value is treated as absent.
        #[opt("crate::de::lenient")]
        pub status: Option<ToolCallStatus>,
        /// What the call produced so far. Items that do not decode are skipped; a value that is not
        /// a list is treated as empty.
        #[list("crate::de::lenient_items")]
        pub content: Vec<ToolCallContent>,
        /// The files the call works on. Items that do not decode are skipped; a value that is not a
        /// list is treated as empty.
        #[list("crate::de::lenient_items")]
        pub locations: Vec<ToolCallLocation>,
        /// The raw input sent to the tool. A `null` is treated as absent.
        #[opt("crate::de::null_as_none")]
        pub raw_input: Option<serde_json::Value>,
        /// The raw output returned by the tool. A `null` is treated as absent.
        #[opt("crate::de::null_as_none")]
        pub raw_output: Option<serde_json::Value>,
    }
}

encode_struct!(ToolCall { req tool_call_id, req title, opt name, opt kind, opt status, vec content, vec locations, opt raw_input, opt raw_output, opt meta = "_meta" });

constructor! {
    /// A tool call with an id and a title, and nothing else yet.
    ToolCall(tool_call_id: impl Into<ToolCallId>, title: impl Into<String>)
    {
        name: None,
        kind: None,
        status: None,
        content: Vec::new(),
        locations: Vec::new(),
        raw_input: None,
        raw_output: None,
        meta: None,
    }
}

setters!(ToolCall { opt name: String, opt kind: ToolKind, opt status: ToolCallStatus, set content: Vec<ToolCallContent>, set locations: Vec<ToolCallLocation>, opt raw_input: serde_json::Value, opt raw_output: serde_json::Value });

encode_union!(ToolCallContent { Content, Diff });
encode_unit_enum!(ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    Other
});
encode_unit_enum!(ToolCallStatus {
    Pending,
    InProgress,
    Completed,
    Failed
});
