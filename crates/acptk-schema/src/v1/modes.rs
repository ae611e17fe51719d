//! Session modes in v1: named ways an agent can work (for example "ask" or "code"). The
//! agent lists them when a session starts, the client switches with `session/set_mode`, and
//! the agent reports its own switches with a `current_mode_update`. Config options are the
//! newer, preferred mechanism.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// The modes of a session and the one in effect.
    pub struct SessionModeState {
        /// The mode in effect.
        pub current_mode_id: SessionModeId,
        /// Every mode the session can switch to. A malformed list decodes as empty and
        /// malformed entries are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
        pub available_modes: Vec<SessionMode>,
    }
}

constructor! {
    /// A state with `current_mode_id` in effect out of `available_modes`.
    SessionModeState(current_mode_id: impl Into<SessionModeId>, available_modes: impl Into<Vec<SessionMode>>)
    { meta: None }
}

wire_struct! {
    /// One mode a session can be in.
    pub struct SessionMode {
        /// Identifies the mode in `session/set_mode`.
        pub id: SessionModeId,
        /// Label shown to the user.
        pub name: String,
        /// Longer explanation of the mode; a malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

impl SessionMode {
    /// A mode `id` labelled `name`.
    pub fn new(id: impl Into<SessionModeId>, name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
            meta: None,
        }
    }
}

setters!(SessionMode { opt description: String });

empty_object! {
    /// The agent's answer to `session/set_mode`: the mode is now in effect.
    SetSessionModeResponse, new: "An empty response."
}

wire_struct! {
    /// The `current_mode_update` session update: the agent switched mode on its own.
    pub struct CurrentModeUpdate {
        /// The mode now in effect.
        pub current_mode_id: SessionModeId,
    }
}

constructor! {
    /// An update to `current_mode_id`.
    CurrentModeUpdate(current_mode_id: impl Into<SessionModeId>) { meta: None }
}

wire_struct! {
    /// `session/set_mode` parameters: the client switches a session to another mode.
    pub struct SetSessionModeRequest {
        /// The session to switch.
        pub session_id: SessionId,
        /// The mode to switch to (one of the available modes).
        pub mode_id: SessionModeId,
    }
}

constructor! {
    /// A request switching `session_id` to `mode_id`.
    SetSessionModeRequest(session_id: impl Into<SessionId>, mode_id: impl Into<SessionModeId>)
    { meta: None }
}
