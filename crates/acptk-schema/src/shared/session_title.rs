//! Client-set session titles (cargo feature `unstable_session_set_title`): `session/set_title`
//! renames a session. Same shape in every protocol version.
//!
//! An agent that supports it advertises `sessionCapabilities.title` (`{}`); agents report
//! titles (in session lists and `session_info_update`) without it. Any session the agent would
//! list can be retitled, active on the connection or not; an unknown session is an error
//! (`-32002`). The agent answers once the title is stored and should not replace it with one it
//! makes up afterwards.

#[allow(unused_imports)]
use super::*;

marker_capability! {
    /// Agent capability (`sessionCapabilities.title`): `session/set_title` is supported. Sent as
    /// `{}`.
    SessionTitleCapabilities
}

wire_struct! {
    /// `session/set_title` parameters.
    ///
    /// ```json
    /// {"sessionId": "sess_1", "title": "Investigate the OAuth timeout"}
    /// ```
    pub struct SetSessionTitleRequest {
        /// The session to rename.
        pub session_id: SessionId,
        /// The new title (required, never `null`). The agent may normalise it (trim, shorten)
        /// and rejects one it cannot accept, such as an empty one, with invalid params.
        pub title: String,
    }
}

constructor! {
    /// A request to title `session_id` as `title`.
    SetSessionTitleRequest(session_id: impl Into<SessionId>, title: impl Into<String>) {
        meta: None,
    }
}

wire_struct! {
    /// The agent's answer to `session/set_title`: the title as stored, which the client should
    /// show instead of the one it sent (they differ when the agent normalised it).
    pub struct SetSessionTitleResponse {
        /// The stored title.
        pub title: String,
    }
}

constructor! {
    /// A response reporting the stored `title`.
    SetSessionTitleResponse(title: impl Into<String>) { meta: None }
}
