//! The v2 answers of the unstable session operations whose request is shared between the
//! versions: `session/fork` (`unstable_session_fork`), `session/options`
//! (`unstable_session_options`) and `session/status` (`unstable_session_status`). In v2 they
//! carry config option and command lists, like `session/new`, and the status carries the
//! session's foreground state.

#[allow(unused_imports)]
use super::*;

#[cfg(feature = "unstable_session_fork")]
session_state_response! {
    /// The agent's answer to `session/fork`: the id of the new session and its initial
    /// state.
    pub struct ForkSessionResponse {
        /// The new session's id.
        pub session_id: SessionId,
    }
    new: "A response for the new session `session_id`."
}

#[cfg(feature = "unstable_session_options")]
wire_struct! {
    /// The agent's answer to `session/options`: what the session would start with.
    #[derive(Default)]
    pub struct SessionOptionsResponse {
        /// The config options the session would start with; absent means none. A malformed
        /// list decodes as empty and malformed entries are dropped.
        #[list("crate::de::lenient_items")]
        pub config_options: Vec<SessionConfigOption>,
        /// The commands the session would offer; absent means none. A malformed list decodes
        /// as empty and malformed entries are dropped.
        #[list("crate::de::lenient_items")]
        pub available_commands: Vec<AvailableCommand>,
    }
}

#[cfg(feature = "unstable_session_options")]
default_new!(
    SessionOptionsResponse,
    "A response with no options and no commands."
);

#[cfg(feature = "unstable_session_options")]
setters!(SessionOptionsResponse { set config_options: Vec<SessionConfigOption>, set available_commands: Vec<AvailableCommand> });

#[cfg(feature = "unstable_session_status")]
wire_struct! {
    /// The agent's answer to `session/status`: a snapshot (a session reported `open` may be
    /// closed before the client's next request).
    pub struct SessionStatusResponse {
        /// Whether the agent has the session in memory.
        pub status: SessionStatus,
        /// The session's foreground state, as a `state_update` would carry it (agents should
        /// include it for an `open` session). Absent: not reported, which a client must not
        /// read as idle; an idle snapshot is not a new end of turn. A malformed value is
        /// treated as absent.
        #[opt("crate::de::lenient_object")]
        pub state: Option<StateUpdate>,
    }
}

#[cfg(feature = "unstable_session_status")]
constructor! {
    /// A response reporting `status`, without the foreground state.
    SessionStatusResponse(status: impl Into<SessionStatus>) { state: None, meta: None }
}

#[cfg(feature = "unstable_session_status")]
setters!(SessionStatusResponse { opt state: StateUpdate });
