//! Session status (cargo feature `unstable_session_status`): `session/status` asks whether the
//! agent has a session in memory, without side effects. The request and the status are the same
//! in every protocol version; each version's session-operations module has the response.
//!
//! An agent that supports it advertises `sessionCapabilities.status` (`{}`). The call resumes,
//! creates, closes or changes nothing and does not attach the asking connection to the session;
//! an unknown session is an error (`-32002`, with the session id in `data`).

#[allow(unused_imports)]
use super::*;

marker_capability! {
    /// Agent capability (`sessionCapabilities.status`): `session/status` is supported. Sent as
    /// `{}`.
    SessionStatusCapabilities
}

open_enum! {
    /// Whether the agent has a session in memory, as `session/status` reports it. Open: a value
    /// this crate does not know is kept verbatim (a client treats it like `saved`).
    pub enum SessionStatus {
        /// In memory, for some connection. The asking connection still has to resume the
        /// session before prompting it or expecting its updates.
        Open = "open",
        /// Known and resumable, but not in memory; `session/resume` starts it.
        Saved = "saved",
    }
}

session_object! {
    /// `session/status` parameters: which session to check.
    SessionStatusRequest {
        /// The session to check.
    }
    new: "A request for the status of `session_id`."
}
