//! What happened to a notice, as the user of the client saw it.

use acptk_check::NoticeEvent;
use acptk_check::repair::Action;

/// What happened to a notice the agent sent.
///
/// Through the proxy (captures of `acp proxy --capture`) the outcome is what the proxy did;
/// in an imported trace nothing was repaired, and the outcome says what the client was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// Delivered as a notice (the client can show it).
    Delivered,
    /// Turned into an agent message by the proxy (a v1 client without `session.notices`).
    Fallback,
    /// Removed by the proxy from a history replay.
    RemovedFromReplay,
    /// Removed by the proxy (`--fallback drop`, or a malformed notice for a client without
    /// the capability).
    Removed,
    /// Sent while a replay was open, possibly live: delivered as live.
    Uncertain,
    /// Sent to a v1 client that did not advertise `session.notices` and not repaired (an
    /// imported trace): that client cannot show it.
    Unsupported,
    /// Sent inside a history replay and not removed (an imported trace).
    Replayed,
    /// Delivered, but it does not decode (`malformed-notice`): a client rejects it.
    Malformed,
}

impl Outcome {
    /// Every outcome.
    pub const ALL: &'static [Outcome] = &[
        Outcome::Delivered,
        Outcome::Fallback,
        Outcome::RemovedFromReplay,
        Outcome::Removed,
        Outcome::Uncertain,
        Outcome::Unsupported,
        Outcome::Replayed,
        Outcome::Malformed,
    ];

    /// The name stored in the database: `delivered`, `fallback`, `removed_from_replay`,
    /// `removed`, `uncertain`, `unsupported`, `replayed`, `malformed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Delivered => "delivered",
            Outcome::Fallback => "fallback",
            Outcome::RemovedFromReplay => "removed_from_replay",
            Outcome::Removed => "removed",
            Outcome::Uncertain => "uncertain",
            Outcome::Unsupported => "unsupported",
            Outcome::Replayed => "replayed",
            Outcome::Malformed => "malformed",
        }
    }

    /// The outcome with this name.
    pub fn from_name(name: &str) -> Option<Outcome> {
        Outcome::ALL.iter().copied().find(|o| o.as_str() == name)
    }

    /// What the proxy did with the notice `event` (`action`: what it forwarded instead).
    pub(crate) fn of_repair(event: &NoticeEvent, action: &Action) -> Outcome {
        match action {
            Action::Replace(_) => Outcome::Fallback,
            Action::Drop if event.in_replay => Outcome::RemovedFromReplay,
            Action::Drop => Outcome::Removed,
            _ => Outcome::of_traffic(event),
        }
    }

    /// What the client was sent, when nothing was repaired.
    pub(crate) fn of_traffic(event: &NoticeEvent) -> Outcome {
        if event.in_replay {
            Outcome::Replayed
        } else if event.without_capability {
            Outcome::Unsupported
        } else if event.notice.is_none() {
            Outcome::Malformed
        } else if event.replay_uncertain {
            Outcome::Uncertain
        } else {
            Outcome::Delivered
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
