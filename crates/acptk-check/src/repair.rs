//! Live repairs of the agent's notices, as `acp proxy` applies them.
//!
//! * A notice inside a replay is removed: notices are never history.
//! * A notice to a v1 client that did not advertise `session.notices` becomes the
//!   agent-message fallback ([`crate::fallback`]): a message of its own, with sanitised text;
//!   or it is removed with [`Fallback::Drop`]. A malformed notice has no title to fall back to
//!   and is removed.
//! * A notice that may or may not belong to a replay is treated as live (see the checker's
//!   `notice-replay-uncertain`).
//! * Everything else passes unchanged.

use crate::engine::NoticeEvent;
use crate::finding::{Finding, Rule, quote};

/// What to do with notices a v1 client cannot receive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fallback {
    /// Send an agent message with the severity word, title and description instead.
    #[default]
    Message,
    /// Remove the notice.
    Drop,
}

/// What happens to a line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// Forward it unchanged, byte for byte.
    Forward,
    /// Send this line (JSON, no line break) instead.
    Replace(String),
    /// Do not forward it.
    Drop,
}

/// Decides what to do with a notice the agent sent, and the `repair` finding that says so
/// (`None` when the notice passes unchanged). `message_id` names the agent message of a
/// fallback; it is asked for only when one is made.
pub fn decide(
    line: u64,
    event: &NoticeEvent,
    fallback: Fallback,
    message_id: impl FnOnce() -> String,
) -> (Action, Option<Finding>) {
    let name = event.notice.as_ref().map_or_else(
        || "malformed notice".to_owned(),
        |n| format!("notice {}", quote(&n.title)),
    );
    let repaired = |action, what: String| (action, Some(Finding::new(line, Rule::Repair, what)));
    if event.in_replay {
        return repaired(Action::Drop, format!("removed {name} from a replay"));
    }
    if !event.without_capability {
        return (Action::Forward, None);
    }
    match (fallback, &event.notice, &event.session) {
        (Fallback::Message, Some(notice), Some(session)) => repaired(
            Action::Replace(crate::fallback::line(session, notice, &message_id())),
            format!(
                "replaced {name} with an agent message (the client did not advertise `session.notices`)"
            ),
        ),
        (Fallback::Message, _, _) => repaired(
            Action::Drop,
            format!(
                "removed {name}: the client did not advertise `session.notices`, and it has no title for an agent message"
            ),
        ),
        (Fallback::Drop, _, _) => repaired(
            Action::Drop,
            format!(
                "removed {name} (the client did not advertise `session.notices`; --fallback drop)"
            ),
        ),
    }
}
