//! The v1 answers of the unstable session operations whose request is shared between the
//! versions: `session/fork` (`unstable_session_fork`), `session/options`
//! (`unstable_session_options`) and `session/status` (`unstable_session_status`). In v1 they
//! carry the session modes and an optional config option list, like `session/new`; the status
//! carries nothing more.

#[allow(unused_imports)]
use super::*;

session_ops_responses! { status {} setters {} empty {} }
