//! Session lifecycle messages that look the same in every protocol version: deleting and
//! closing a session, listing sessions (its path and cursor types are the version's), building
//! a session list entry, and the system-prompt mode.
//!
//! The end of the file holds small decoding and JSON Schema helpers used by this version's
//! session-area types (elicitation, config options, MCP servers).

#[allow(unused_imports)]
use super::*;

empty_object! {
    /// The agent's answer to `session/delete`: the session and its stored history are gone.
    DeleteSessionResponse, new: "An empty response."
}

empty_object! {
    /// The agent's answer to `session/close`: the session is no longer active on this
    /// connection (it may still be resumed or loaded later).
    CloseSessionResponse, new: "An empty response."
}

wire_struct! {
    /// `session/list` parameters: the client asks for the sessions the agent knows, one page
    /// at a time.
    #[derive(Default)]
    pub struct ListSessionsRequest {
        /// Only list sessions with this working directory; absent lists all.
        #[opt]
        pub cwd: Option<FsPath>,
        /// The `nextCursor` of the previous page; absent asks for the first page.
        #[opt]
        pub cursor: Option<ListCursor>,
        /// Which sessions to list by archive state (only if the agent advertised
        /// `sessionCapabilities.archive`); absent or `null` means `exclude`. It applies with
        /// `cwd`, before paging; keep it when following `nextCursor`.
        #[unstable("unstable_session_archive")]
        #[opt]
        pub archived: Option<SessionArchiveFilter>,
    }
}

impl ListSessionsRequest {
    /// A request for the first page of all sessions.
    pub fn new() -> Self {
        Self {
            cwd: None,
            cursor: None,
            #[cfg(feature = "unstable_session_archive")]
            archived: None,
            meta: None,
        }
    }
}

setters!(ListSessionsRequest { opt cwd: FsPath, opt cursor: ListCursor });

#[cfg(feature = "unstable_session_archive")]
setters!(ListSessionsRequest { opt archived: SessionArchiveFilter });

// `SessionInfo` itself is the version's (its field docs and decoding differ); building it is
// the same in both.
impl SessionInfo {
    /// An entry for `session_id` working in `cwd`.
    pub fn new(session_id: impl Into<SessionId>, cwd: impl Into<FsPath>) -> Self {
        Self {
            session_id: session_id.into(),
            cwd: cwd.into(),
            additional_directories: Vec::new(),
            title: None,
            updated_at: None,
            #[cfg(feature = "unstable_session_archive")]
            archived: None,
            meta: None,
        }
    }
}

setters!(SessionInfo { set additional_directories: Vec<FsPath>, opt title: String, opt updated_at: String });

#[cfg(feature = "unstable_session_archive")]
setters!(SessionInfo { opt archived: bool });

open_enum! {
    /// How a client-supplied [`SystemPrompt`] combines with the agent's own system prompt.
    pub enum SystemPromptMode {
        /// Add the client's text after the agent's built-in system prompt.
        Append = "append",
        /// Use the client's text instead of the agent's built-in system prompt.
        Override = "override",
    }
}

session_object! {
    /// `session/delete` parameters: the client asks the agent to forget a session for good.
    DeleteSessionRequest {
        /// The session to delete.
    }
    new: "A request to delete `session_id`."
}

session_object! {
    /// `session/close` parameters: the client is done with a session on this connection and
    /// the agent may release what it holds for it.
    CloseSessionRequest {
        /// The session to close.
    }
    new: "A request to close `session_id`."
}

// ---------------------------------------------------------------------------------------------
// Decoding and schema helpers (candidates for `crate::de` / `crate::schema`).

/// JSON Schema building blocks that mirror the shapes of the reference schema.
#[cfg(feature = "schemars")]
pub(crate) mod schema_parts {
    use serde_json::{Value, json};

    /// `{"allOf": [{"$ref": ...}]}` for a field of type `T`.
    pub(crate) fn field<T: schemars::JsonSchema>(
        generator: &mut schemars::SchemaGenerator,
    ) -> Value {
        json!({ "allOf": [generator.subschema_for::<T>()] })
    }

    /// The schema of the `_meta` property.
    pub(crate) fn meta() -> Value {
        json!({
            "type": ["object", "null"],
            "x-deserialize-default-on-error": true,
            "additionalProperties": true,
        })
    }

    /// An object whose `tag` property is the string `value`.
    pub(crate) fn tagged(tag: &str, value: &str) -> Value {
        json!({
            "type": "object",
            "properties": { tag: { "type": "string", "const": value } },
            "required": [tag],
        })
    }

    /// [`tagged`], further constrained to the payload type `T`.
    pub(crate) fn tagged_payload<T: schemars::JsonSchema>(
        generator: &mut schemars::SchemaGenerator,
        tag: &str,
        value: &str,
    ) -> Value {
        let mut schema = tagged(tag, value);
        schema["allOf"] = json!([generator.subschema_for::<T>()]);
        schema
    }

    /// Converts a JSON object into a schema.
    pub(crate) fn finish(value: Value) -> schemars::Schema {
        schemars::Schema::try_from(value).unwrap_or_default()
    }
}
