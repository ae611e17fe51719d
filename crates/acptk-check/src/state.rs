//! Connection state with bounded memory: requests in flight and the tool call ids each
//! session announced (the replay windows are in [`crate::replay`]).

use std::collections::{HashMap, HashSet, VecDeque};

use acptk_schema::jsonrpc::Id;

use crate::replay::Ticket;
use crate::transcript::Side;

/// The most requests kept in flight per connection; older ones are forgotten first.
pub(crate) const MAX_PENDING: usize = 4096;

/// What a response to a request means for the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PendingKind {
    /// Nothing beyond decoding the result.
    Plain,
    /// `initialize`: the result sets the negotiated version.
    Initialize,
    /// A client request naming a session: its response goes to the replay windows.
    Session(Ticket),
}

/// A request in flight.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    /// Its method, to decode the result with.
    pub(crate) method: String,
    /// The method is one the tables know (or an extension): its result can be decoded.
    pub(crate) decodable: bool,
    pub(crate) kind: PendingKind,
    /// Order of arrival.
    pub(crate) seq: u64,
}

/// Requests in flight, keyed by the side that sent them and their id.
#[derive(Debug, Default)]
pub(crate) struct Requests {
    map: HashMap<(Side, Id), Pending>,
    order: VecDeque<(Side, Id, u64)>,
    next: u64,
}

impl Requests {
    /// Remembers a request; a request with the same id from the same side replaces it.
    pub(crate) fn insert(
        &mut self,
        sender: Side,
        id: Id,
        method: &str,
        decodable: bool,
        kind: PendingKind,
    ) {
        let seq = self.next;
        self.next += 1;
        self.order.push_back((sender, id.clone(), seq));
        self.map.insert(
            (sender, id),
            Pending {
                method: method.to_owned(),
                decodable,
                kind,
                seq,
            },
        );
        while self.map.len() > MAX_PENDING {
            let Some((side, id, seq)) = self.order.pop_front() else {
                break;
            };
            let key = (side, id);
            if self.map.get(&key).is_some_and(|p| p.seq == seq) {
                self.map.remove(&key);
            }
        }
        if self.order.len() > 2 * MAX_PENDING {
            let map = &self.map;
            self.order.retain(|(side, id, seq)| {
                map.get(&(*side, id.clone())).is_some_and(|p| p.seq == *seq)
            });
        }
    }

    /// Takes the request `id` sent by `sender`, if it is in flight.
    pub(crate) fn take(&mut self, sender: Side, id: &Id) -> Option<Pending> {
        self.map.remove(&(sender, id.clone()))
    }

    /// The arrival order of request `id` from `sender`, if it is in flight.
    pub(crate) fn seq(&self, sender: Side, id: &Id) -> Option<u64> {
        self.map.get(&(sender, id.clone())).map(|p| p.seq)
    }
}

/// The most tool call ids remembered per connection; the oldest are forgotten first (a
/// duplicate of a forgotten id goes unnoticed).
pub(crate) const MAX_TOOL_CALLS: usize = 65_536;

/// The tool call ids announced in each session, in order of announcement.
#[derive(Debug, Default)]
pub(crate) struct ToolCalls {
    seen: HashSet<(String, String)>,
    order: VecDeque<(String, String)>,
}

impl ToolCalls {
    /// Notes that `session` announced `id`; `false` when it had announced it already.
    pub(crate) fn announce(&mut self, session: &str, id: &str) -> bool {
        let key = (session.to_owned(), id.to_owned());
        if self.seen.contains(&key) {
            return false;
        }
        if self.order.len() >= MAX_TOOL_CALLS
            && let Some(oldest) = self.order.pop_front()
        {
            self.seen.remove(&oldest);
        }
        self.order.push_back(key.clone());
        self.seen.insert(key);
        true
    }

    /// Forgets what `session` announced (its history is about to be replayed).
    pub(crate) fn forget(&mut self, session: &str) {
        self.order.retain(|(owner, _)| owner != session);
        self.seen.retain(|(owner, _)| owner != session);
    }
}
