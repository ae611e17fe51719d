//! Replay windows, judged exactly: the one place that decides whether a notice the agent sent
//! belongs to a history replay. The checker asks it for every notice, and `acp proxy` removes a
//! notice only when the checker's verdict is "replayed" ([`crate::NoticeEvent::in_replay`]), so the two
//! cannot disagree.
//!
//! A replay of session S is requested by a v1 `session/load` of S (the replay lasts until its
//! response) or a v2 `session/resume` of S with `replayFrom` (until `replay_complete` or the
//! response). Seen from the wire, the request opening a window says when the *client* asked,
//! not when the *agent* started: under pipelining the agent may still be streaming a prompt of
//! S, and its live notices then arrive after the request. So a notice of S inside an open
//! window is judged a replayed one only when all of this holds:
//!
//! 1. exactly one replay of S is open, and no other client request naming S (`sessionId`) is in
//!    flight;
//! 2. in v2, no turn of S is running: a v2 turn goes on after its `session/prompt` response,
//!    until the agent reports the session `idle` (one idle ends one turn; a state reported
//!    inside a replay may be replayed history and ends nothing);
//! 3. the agent has shown that it serves the replay: since the window opened, while 1 and 2
//!    held, it sent S a history update (a message or thought chunk, a tool call, a plan, ...),
//!    which only the replay can have produced.
//!
//! When a window is open but one of these fails, the verdict is "uncertain": the
//! notice is treated as live (delivered, or turned into the fallback message), and the checker
//! says why with an `info` finding. Removing a live notice is the worse mistake of the two.
//!
//! Memory is bounded: at most 8192 sessions are followed at once; past that, every
//! replay is judged uncertain.

use std::collections::HashMap;

/// The most sessions whose requests, turns and replays are followed at once.
pub(crate) const MAX_SESSIONS: usize = 8192;

/// How a replay window closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replay {
    /// v1 `session/load`: closed by its response.
    Load,
    /// v2 `session/resume` with a replay: closed by `replay_complete` (or the response).
    Resume,
}

/// Where a notice stands with respect to the replays of its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No replay of its session is open: a live notice.
    Live,
    /// Certainly sent while the agent served this replay.
    Replayed(Replay),
    /// A replay is open, but the notice may be live; why.
    Uncertain(Doubt),
}

/// Why a notice inside an open replay window may still be live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Doubt {
    /// Another request naming the session is in flight (a prompt, say), or several replays.
    OtherRequests,
    /// A v2 turn of the session is still running.
    TurnRunning,
    /// The agent has sent no history update since the replay was requested: it may not have
    /// started it yet.
    NotStarted,
    /// Too many sessions to follow.
    Saturated,
}

impl Doubt {
    /// Why, in words, for a finding.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Doubt::OtherRequests => "another request of that session was in flight",
            Doubt::TurnRunning => "a turn of that session was still running",
            Doubt::NotStarted => "the agent had not yet sent any replayed history",
            Doubt::Saturated => "too many sessions to follow",
        }
    }
}

/// What an agent's `session/update` is, as far as replays care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UpdateClass {
    /// Conversation history: messages, thoughts, tool calls, plans, ... A replay consists of
    /// these.
    History,
    /// v2 `replay_complete`.
    ReplayComplete,
    /// v2 `state_update`: whether the session is now idle.
    State { idle: bool },
    /// Anything else (state an agent may send at any time: commands, modes, usage, ...).
    Other,
}

/// What a session is doing.
#[derive(Debug, Default, Clone)]
struct Session {
    /// Client requests naming the session, in flight (open replays included).
    in_flight: u32,
    /// Open replay windows.
    replays: u32,
    /// Resume windows closed by `replay_complete` whose response is still to come.
    completed: u32,
    /// The kind of the most recently opened window.
    kind: Option<Replay>,
    /// The agent has shown it serves the (single) open replay.
    started: bool,
    /// v2 turns running: prompts answered (the agent took them on) and not yet ended by an
    /// idle state. One idle ends one turn, so an agent that reports idle once for two turns
    /// keeps the session busy (the safe side). A prompt not yet answered is in flight.
    turns: u32,
    /// The agent reported work (a state other than idle) that no prompt started.
    background: bool,
}

impl Session {
    fn is_idle(&self) -> bool {
        self.in_flight == 0 && self.replays == 0 && self.completed == 0 && !self.turn_running()
    }

    fn turn_running(&self) -> bool {
        self.turns > 0 || self.background
    }

    /// Nothing but the one open replay can be making the agent speak about the session.
    fn exclusive(&self) -> Result<(), Doubt> {
        if self.replays != 1 || self.in_flight != 1 {
            Err(Doubt::OtherRequests)
        } else if self.turn_running() {
            Err(Doubt::TurnRunning)
        } else {
            Ok(())
        }
    }
}

/// The replay windows of one connection, and what else is going on in each session.
#[derive(Debug, Default)]
pub(crate) struct Windows {
    sessions: HashMap<String, Session>,
    /// Replay windows open over all sessions.
    open: u32,
    /// Some session could not be followed: no verdict can be certain any more.
    saturated: bool,
}

/// What a client request registered, to be handed back with its response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ticket {
    session: String,
    opens: Option<Replay>,
    /// A v2 `session/prompt`: its response starts a turn.
    turn: bool,
}

impl Windows {
    /// Registers a client request naming `session`; `opens` when it requests a replay, `turn`
    /// when it starts a v2 turn (`session/prompt`). Returns the ticket for its response.
    pub(crate) fn request(
        &mut self,
        session: &str,
        opens: Option<Replay>,
        turn: bool,
    ) -> Option<Ticket> {
        let state = self.session(session)?;
        state.in_flight += 1;
        if let Some(kind) = opens {
            state.replays += 1;
            state.kind = Some(kind);
            // Evidence seen before belongs to another window (or to none).
            state.started = false;
            self.open += 1;
        }
        Some(Ticket {
            session: session.to_owned(),
            opens,
            turn,
        })
    }

    /// The response to the request of `ticket` arrived (result or error).
    pub(crate) fn response(&mut self, ticket: &Ticket) {
        let Some(state) = self.sessions.get_mut(&ticket.session) else {
            return;
        };
        state.in_flight = state.in_flight.saturating_sub(1);
        if ticket.turn {
            state.turns += 1;
        }
        match ticket.opens {
            Some(Replay::Resume) if state.completed > 0 => state.completed -= 1,
            Some(_) if state.replays > 0 => {
                state.replays -= 1;
                state.started = false;
                self.open = self.open.saturating_sub(1);
            }
            _ => {}
        }
        if state.is_idle() {
            self.sessions.remove(&ticket.session);
        }
    }

    /// The agent sent `session` an update of class `class`.
    pub(crate) fn update(&mut self, session: &str, class: UpdateClass) {
        // The hot path: with no replay open, only v2 states can change anything.
        match class {
            UpdateClass::Other => return,
            UpdateClass::History | UpdateClass::ReplayComplete if self.open == 0 => return,
            _ => {}
        }
        let Some(state) = self.sessions.get_mut(session) else {
            // Nothing is going on in that session: only a v2 turn start needs following.
            if let UpdateClass::State { idle: false } = class
                && let Some(state) = self.session(session)
            {
                state.background = true;
            }
            return;
        };
        match class {
            UpdateClass::History => {
                if state.replays == 1 && state.exclusive().is_ok() {
                    state.started = true;
                }
            }
            UpdateClass::ReplayComplete => {
                if state.replays > 0 && state.kind == Some(Replay::Resume) {
                    state.replays -= 1;
                    state.completed += 1;
                    state.started = false;
                    self.open = self.open.saturating_sub(1);
                }
            }
            // A state inside a replay may be replayed history; the agent reports the current
            // state after the replay anyway.
            UpdateClass::State { idle: true } if state.replays == 0 => {
                state.turns = state.turns.saturating_sub(1);
                if state.turns == 0 {
                    state.background = false;
                }
            }
            UpdateClass::State { idle: false } if state.replays == 0 && state.turns == 0 => {
                state.background = true;
            }
            UpdateClass::State { .. } | UpdateClass::Other => {}
        }
        if state.is_idle() {
            self.sessions.remove(session);
        }
    }

    /// Judges a notice the agent sent to `session`.
    pub(crate) fn judge(&self, session: &str) -> Verdict {
        if self.open == 0 {
            return Verdict::Live;
        }
        let Some(state) = self.sessions.get(session) else {
            return Verdict::Live;
        };
        if state.replays == 0 {
            return Verdict::Live;
        }
        let kind = state.kind.unwrap_or(Replay::Load);
        if self.saturated {
            return Verdict::Uncertain(Doubt::Saturated);
        }
        match state.exclusive() {
            Err(doubt) => Verdict::Uncertain(doubt),
            Ok(()) if !state.started => Verdict::Uncertain(Doubt::NotStarted),
            Ok(()) => Verdict::Replayed(kind),
        }
    }

    /// The state of `session`, created when new; `None` (and saturated from now on) when too
    /// many sessions are followed.
    fn session(&mut self, session: &str) -> Option<&mut Session> {
        if !self.sessions.contains_key(session) {
            if self.sessions.len() >= MAX_SESSIONS {
                self.saturated = true;
                return None;
            }
            self.sessions.insert(session.to_owned(), Session::default());
        }
        self.sessions.get_mut(session)
    }
}
