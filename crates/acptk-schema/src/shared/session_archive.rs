//! Archived sessions (cargo feature `unstable_session_archive`): `session/archive` hides a
//! session from the default session list and `session/unarchive` brings it back; session lists
//! take an archive filter and report whether each session is archived. Same shape in every
//! protocol version.
//!
//! An agent that supports this advertises `sessionCapabilities.archive` (and `list`).
//! Archiving keeps the session's id and saved history; an active session is first closed as by
//! `session/close`. Archiving an archived session, or unarchiving one that is not, succeeds; an
//! unknown session is an error (`-32002`). Unarchiving never loads or resumes the session.

#[allow(unused_imports)]
use super::*;

marker_capability! {
    /// Agent capability (`sessionCapabilities.archive`): `session/archive`,
    /// `session/unarchive`, the `archived` filter of `session/list` and the `archived` flag of
    /// listed sessions are supported. Sent as `{}`.
    SessionArchiveCapabilities
}

open_enum! {
    /// Which sessions `session/list` returns by archive state (absent means `exclude`). Open:
    /// an unknown filter is kept verbatim, and an agent answers one it does not support with
    /// invalid params rather than reading it as `exclude`.
    pub enum SessionArchiveFilter {
        /// Only sessions that are not archived (the default).
        Exclude = "exclude",
        /// Archived sessions and the others.
        Include = "include",
        /// Only archived sessions.
        Only = "only",
    }
}

session_object! {
    /// `session/archive` parameters: hides a session from the default session list.
    ArchiveSessionRequest {
        /// The session to archive.
    }
    new: "A request to archive `session_id`."
}

empty_object! {
    /// The agent's answer to `session/archive`: the session is archived.
    ArchiveSessionResponse, new: "An empty response."
}

session_object! {
    /// `session/unarchive` parameters: returns an archived session to the default session
    /// list (a client that wants to continue it unarchives it before loading or resuming it).
    UnarchiveSessionRequest {
        /// The session to unarchive.
    }
    new: "A request to unarchive `session_id`."
}

empty_object! {
    /// The agent's answer to `session/unarchive`: the session is listed again.
    UnarchiveSessionResponse, new: "An empty response."
}
