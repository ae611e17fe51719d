//! Subagent types whose shape is the same in both versions.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// A pointer to another session, for example the subagent session a tool call started.
    ///
    /// ```json
    /// {"sessionId": "sess_child_1"}
    /// ```
    pub struct SessionReference {
        /// The session referred to.
        pub session_id: SessionId,
    }
}

impl SessionReference {
    /// A reference to session `session_id`.
    pub fn new(session_id: impl Into<SessionId>) -> Self {
        Self {
            session_id: session_id.into(),
            meta: None,
        }
    }
}
