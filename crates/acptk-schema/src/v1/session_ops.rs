//! The v1 answers of the unstable session operations whose request is shared between the
//! versions: `session/fork` (`unstable_session_fork`), `session/options`
//! (`unstable_session_options`) and `session/status` (`unstable_session_status`). In v1 they
//! carry the session modes and an optional config option list, like `session/new`.

#[allow(unused_imports)]
use super::*;

#[cfg(feature = "unstable_session_fork")]
session_state_response! {
    /// The agent's answer to `session/fork`: the id of the new session and its initial
    /// settings.
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
        /// The modes the session would have; absent if the agent has no modes. A malformed
        /// value is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub modes: Option<SessionModeState>,
        /// The config options the session would start with (as in the `session/new`
        /// answer); absent, `null` or empty means none. A malformed list is treated as absent
        /// and malformed entries are dropped.
        #[opt("crate::de::lenient_items_opt")]
        pub config_options: Option<Vec<SessionConfigOption>>,
    }
}

#[cfg(feature = "unstable_session_options")]
default_new!(
    SessionOptionsResponse,
    "A response with no modes and no options."
);

#[cfg(feature = "unstable_session_options")]
setters!(SessionOptionsResponse { opt modes: SessionModeState, opt config_options: Vec<SessionConfigOption> });

#[cfg(feature = "unstable_session_status")]
wire_struct! {
    /// The agent's answer to `session/status`: a snapshot (a session reported `open` may be
    /// closed before the client's next request).
    pub struct SessionStatusResponse {
        /// Whether the agent has the session in memory.
        pub status: SessionStatus,
    }
}

#[cfg(feature = "unstable_session_status")]
constructor! {
    /// A response reporting `status`.
    SessionStatusResponse(status: impl Into<SessionStatus>) { meta: None }
}
