//! State shared between a client's handle and its connection handler: the notice center,
//! the transcript, replay tracking, violation counters, turn waiters, the handler and the
//! sessions' directories.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use acptk_notice_center::NoticeCenter;
use acptk_schema::v1::ProtocolVersion;
use tokio::sync::{oneshot, watch};

use super::transcript::Transcript;
use crate::lock::lock;

/// The clock the notice center is fed with: time since an epoch the application chooses.
pub type Clock = Arc<dyn Fn() -> Duration + Send + Sync>;

/// How a v2 turn ended, as reported by the idle `state_update`.
pub(crate) type TurnOutcome =
    Result<crate::stop_reason::StopReason, acptk_schema::jsonrpc::ErrorObject>;

/// Protocol violations by the agent that the client survived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violations {
    /// Notices that arrived during a replay (v1: before the `session/load` response; v2:
    /// before `replay_complete`). They were not shown.
    pub notices_during_replay: u64,
    /// Notices sent to a v1 client that did not advertise `session.notices`. They were not
    /// shown.
    pub unadvertised_notices: u64,
}

pub(crate) struct State {
    pub(crate) notices: Arc<Mutex<NoticeCenter>>,
    pub(crate) transcript: Arc<Mutex<Transcript>>,
    pub(crate) notices_enabled: bool,
    pub(crate) clock: Clock,
    pub(crate) version: OnceLock<ProtocolVersion>,
    pub(crate) replaying: Mutex<HashSet<String>>,
    pub(crate) turns: Mutex<HashMap<String, oneshot::Sender<TurnOutcome>>>,
    pub(crate) during_replay: AtomicU64,
    pub(crate) unadvertised: AtomicU64,
    pub(crate) changes: watch::Sender<u64>,
    /// What the client offers and how it answers the agent's requests.
    pub(crate) handler: Arc<dyn super::ClientHandler>,
    /// The directories of each session this client opened.
    pub(crate) scopes: Mutex<HashMap<String, super::SessionScope>>,
}

impl State {
    /// Tells watchers that the transcript or the notice center changed.
    pub(crate) fn changed(&self) {
        self.changes.send_modify(|generation| *generation += 1);
    }

    pub(crate) fn is_replaying(&self, session: &str) -> bool {
        lock(&self.replaying).contains(session)
    }

    pub(crate) fn end_replay(&self, session: &str) {
        lock(&self.replaying).remove(session);
    }

    pub(crate) fn violations(&self) -> Violations {
        Violations {
            notices_during_replay: self.during_replay.load(Ordering::Relaxed),
            unadvertised_notices: self.unadvertised.load(Ordering::Relaxed),
        }
    }
}
