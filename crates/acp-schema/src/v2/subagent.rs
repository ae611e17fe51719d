//! Subagent updates (ACP v2): child sessions that an agent starts and runs under a parent
//! session.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// The `subagent_update` session update, sent on the parent session: announces a child
    /// session that the agent created and owns, or updates what the client knows about it.
    ///
    /// The first update for a `sessionId` the client has not seen introduces the child; later
    /// ones change its details. Fields that are present replace the stored ones; absent fields
    /// leave them as they were. (ACP also lets `null` clear a field; this type reads `null` like
    /// an absent field.)
    ///
    /// ```json
    /// {"sessionUpdate": "subagent_update", "sessionId": "sess_child_1", "title": "Run the test suite"}
    /// ```
    pub struct SubagentUpdate {
        /// The child session.
        pub session_id: SessionId,
        /// A short title for the child session. Malformed: treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub title: Option<String>,
        /// What the child session is doing, in a sentence. Malformed: treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient_string",
            skip_serializing_if = "Option::is_none",
        )]
        pub description: Option<String>,
        /// What the client may do with the child session (such as cancel it). Malformed:
        /// treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub capabilities: Option<SubagentSessionCapabilities>,
        /// The child's current activity state (running, idle, waiting for the user, ...).
        /// Malformed: treated as absent.
        #[serde(
            default,
            deserialize_with = "crate::de::lenient",
            skip_serializing_if = "Option::is_none",
        )]
        pub state: Option<StateUpdate>,
        /// The child's working directory.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cwd: Option<AbsolutePath>,
        /// Extra workspace roots of the child besides its working directory.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub additional_directories: Option<Vec<AbsolutePath>>,
    }
}

impl SubagentUpdate {
    /// An update for child session `session_id` that changes nothing yet; add fields with the
    /// setters.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            title: None,
            description: None,
            capabilities: None,
            state: None,
            cwd: None,
            additional_directories: None,
            meta: None,
        }
    }
}

setters!(SubagentUpdate {
    opt title: String,
    opt description: String,
    opt capabilities: SubagentSessionCapabilities,
    opt state: StateUpdate,
    opt cwd: AbsolutePath,
    opt additional_directories: Vec<AbsolutePath>,
});
