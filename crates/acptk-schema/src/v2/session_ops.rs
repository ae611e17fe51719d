//! The v2 answers of the unstable session operations whose request is shared between the
//! versions: `session/fork` (`unstable_session_fork`), `session/options`
//! (`unstable_session_options`) and `session/status` (`unstable_session_status`). In v2 they
//! carry config option and command lists, like `session/new`, and the status carries the
//! session's foreground state.

#[allow(unused_imports)]
use super::*;

session_ops_responses! {
    status {
        /// The session's foreground state, as a `state_update` would carry it (agents should
        /// include it for an `open` session). Absent: not reported, which a client must not
        /// read as idle; an idle snapshot is not a new end of turn. A malformed value is
        /// treated as absent.
        #[opt("crate::de::lenient_object")]
        pub state: Option<StateUpdate>,
    }
    setters { opt state: StateUpdate }
    empty { state: None, }
}
