//! Subagents: child sessions that an agent starts and runs under a parent session. The types
//! here have the same shape in both versions; where a field's type differs (paths), they name
//! it through the version's crate-private alias (`FsPath`).

#[allow(unused_imports)]
use super::*;

session_object! {
    /// A pointer to another session, for example the subagent session a tool call started.
    ///
    /// ```json
    /// {"sessionId": "sess_child_1"}
    /// ```
    SessionReference {
        /// The session referred to.
    }
    new: "A reference to session `session_id`."
}

wire_struct! {
    patch_meta
    /// The `subagent_update` session update, sent on the parent session: announces a child
    /// session that the agent created and owns, or updates what the client knows about it.
    ///
    /// The first update for a `sessionId` the client has not seen introduces the child; later
    /// ones change its details. Fields that are present replace the stored ones; absent fields
    /// leave them as they were. (ACP also lets `null` clear a field; this type reads `null` like
    /// an absent field.)
    ///
    /// In v1 an agent sends this update only to a client whose capabilities include
    /// `subagents`; v2 has no such capability.
    ///
    /// ```json
    /// {"sessionUpdate": "subagent_update", "sessionId": "sess_child_1", "title": "Run the test suite"}
    /// ```
    pub struct SubagentUpdate {
        /// The child session.
        pub session_id: SessionId,
        /// A short title for the child session. Malformed: treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub title: crate::Patch<String>,
        /// What the child session is doing, in a sentence. Malformed: treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub description: crate::Patch<String>,
        /// What the client may do with the child session (such as cancel it). Malformed:
        /// treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub capabilities: crate::Patch<SubagentSessionCapabilities>,
        /// The child's current activity state (running, idle, waiting for the user, ...).
        /// Malformed: treated as absent.
        #[patch("crate::de::lenient_patch")]
        pub state: crate::Patch<StateUpdate>,
        /// The child's working directory (any string in v1, an absolute path in v2).
        #[serde(default, skip_serializing_if = "crate::Patch::is_unchanged")]
        pub cwd: crate::Patch<FsPath>,
        /// Extra workspace roots of the child besides its working directory.
        #[serde(default, skip_serializing_if = "crate::Patch::is_unchanged")]
        pub additional_directories: crate::Patch<Vec<FsPath>>,
    }
}

constructor! {
    /// An update for child session `session_id` that changes nothing yet; add fields with the
    /// setters.
    SubagentUpdate(session_id: impl Into<SessionId>) {
        title: crate::Patch::Unchanged,
        description: crate::Patch::Unchanged,
        capabilities: crate::Patch::Unchanged,
        state: crate::Patch::Unchanged,
        cwd: crate::Patch::Unchanged,
        additional_directories: crate::Patch::Unchanged,
        meta: crate::Patch::Unchanged,
    }
}

setters!(SubagentUpdate {
    patch title: String,
    patch description: String,
    patch capabilities: SubagentSessionCapabilities,
    patch state: StateUpdate,
    patch cwd: FsPath,
    patch additional_directories: Vec<FsPath>,
});
