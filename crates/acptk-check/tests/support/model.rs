//! A model of an agent serving prompts and replays, for the replay property tests: what it
//! sends for each request, and which of its notices it sent while serving a replay.
#![allow(dead_code)]

use std::collections::HashMap;

use acptk_check::transcript::Side;
use acptk_conformance::rng::Rng;

/// What the client asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `session/prompt` of session n.
    Prompt(usize),
    /// `session/load` (v1) or `session/resume` with a replay (v2) of session n.
    Replay(usize),
}

/// A client's script: the protocol version and its requests in batches written at once.
#[derive(Debug, Clone)]
pub struct Script {
    pub version: u16,
    pub batches: Vec<Vec<Op>>,
}

/// The sessions the scripts use.
pub const SESSIONS: [&str; 3] = ["s0", "s1", "s2"];

/// Numbers the notices, and remembers for each whether the agent sent it while serving a
/// replay of its session.
#[derive(Debug, Default)]
pub struct Truth {
    next: usize,
    /// Title -> sent while serving a replay.
    pub in_replay: HashMap<String, bool>,
}

impl Truth {
    fn notice(&mut self, session: &str, in_replay: bool) -> String {
        let title = format!(
            "n{}-{}",
            self.next,
            if in_replay { "replay" } else { "live" }
        );
        self.next += 1;
        self.in_replay.insert(title.clone(), in_replay);
        update(
            session,
            &format!(r#"{{"sessionUpdate":"notice","severity":"info","title":"{title}"}}"#),
        )
    }
}

fn update(session: &str, update: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{update}}}}}"#
    )
}

fn history(session: &str, what: &str) -> String {
    update(
        session,
        &format!(
            r#"{{"sessionUpdate":"{what}","messageId":"m","content":{{"type":"text","text":"x"}}}}"#
        ),
    )
}

fn idle(session: &str) -> String {
    update(
        session,
        r#"{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}"#,
    )
}

/// The `initialize` exchange of a version (the v1 client advertises notices).
pub fn initialize(version: u16) -> (String, String) {
    if version == 2 {
        (
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"1"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"1"}}}"#.to_owned(),
        )
    } else {
        (
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"session":{"notices":{}}}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#.to_owned(),
        )
    }
}

/// The request line of `op` with `id`.
pub fn request(version: u16, op: Op, id: u64) -> String {
    match op {
        Op::Prompt(n) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/prompt","params":{{"sessionId":"{}","prompt":[{{"type":"text","text":"go"}}]}}}}"#,
            SESSIONS[n]
        ),
        Op::Replay(n) if version == 2 => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/resume","params":{{"sessionId":"{}","cwd":"/p","replayFrom":{{"type":"start"}}}}}}"#,
            SESSIONS[n]
        ),
        Op::Replay(n) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/load","params":{{"sessionId":"{}","cwd":"/p","mcpServers":[]}}}}"#,
            SESSIONS[n]
        ),
    }
}

/// One line the agent sends while serving a request, and whether it ends the replay part of
/// the job (the v1 response, the v2 `replay_complete`).
pub struct JobLine {
    /// The line; for a state line, the idle one (the simulation may send `running` instead).
    pub line: String,
    /// A `state_update` reporting the session's state after this job.
    pub state: bool,
    pub ends_replay: bool,
    /// The line is history of the job's replay.
    pub history: bool,
}

/// What the agent sends while serving `op` (request `id`): its updates and its response, in
/// order. Notices of a replay job before its `replay_complete` (v2) or response (v1) are sent
/// while serving the replay.
pub fn job(version: u16, op: Op, id: u64, rng: &mut Rng, truth: &mut Truth) -> Vec<JobLine> {
    let plain = |line: String| JobLine {
        line,
        state: false,
        ends_replay: false,
        history: false,
    };
    let state = |session: &str| JobLine {
        line: idle(session),
        state: true,
        ends_replay: false,
        history: false,
    };
    let mut lines = Vec::new();
    match op {
        Op::Prompt(n) => {
            let s = SESSIONS[n];
            if version == 2 {
                // A v2 turn goes on after the response, until the session is idle.
                lines.push(plain(format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"messageId":"u{id}"}}}}"#
                )));
            }
            for _ in 0..=rng.below(3) {
                lines.push(plain(history(s, "agent_message_chunk")));
                if rng.chance(0.6) {
                    lines.push(plain(truth.notice(s, false)));
                }
            }
            if version == 2 {
                lines.push(state(s));
            } else {
                lines.push(plain(format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"stopReason":"end_turn"}}}}"#
                )));
            }
        }
        Op::Replay(n) => {
            let s = SESSIONS[n];
            if rng.chance(0.3) {
                lines.push(plain(truth.notice(s, true)));
            }
            for what in ["user_message_chunk", "agent_message_chunk"] {
                lines.push(JobLine {
                    line: history(s, what),
                    state: false,
                    ends_replay: false,
                    history: true,
                });
                if rng.chance(0.7) {
                    lines.push(plain(truth.notice(s, true)));
                }
            }
            let ok = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
            if version == 2 {
                lines.push(JobLine {
                    line: update(s, r#"{"sessionUpdate":"replay_complete"}"#),
                    state: false,
                    ends_replay: true,
                    history: false,
                });
                // The current state, after the replay and before the response.
                lines.push(state(s));
                lines.push(plain(ok));
            } else {
                lines.push(JobLine {
                    line: ok,
                    state: false,
                    ends_replay: true,
                    history: false,
                });
            }
        }
    }
    lines
}

/// A conversation as the proxy would see it, with which notices were sent inside a replay.
pub struct Simulation {
    pub lines: Vec<(Side, String)>,
    pub truth: Truth,
}

/// Runs `script` against a concurrent agent: at each step the agent reads the next request,
/// sends the next line of one of the jobs it serves, or sends a notice of its own (inside a
/// replay when a replay job of that session is being served). Its v2 state updates report the
/// whole session, as the v2 docs ask (`running` while another turn of the session runs). The
/// client writes a batch at once and the next one when every response of the batch arrived.
pub fn simulate(script: &Script, seed: u64) -> Simulation {
    let mut rng = Rng::new(seed);
    let mut truth = Truth::default();
    let (init, init_ok) = initialize(script.version);
    let mut lines = vec![(Side::Client, init), (Side::Agent, init_ok)];
    // Requests written and not yet read by the agent; jobs being served.
    let mut unread: std::collections::VecDeque<(Op, u64)> = Default::default();
    let mut jobs: Vec<(Op, std::collections::VecDeque<JobLine>, bool)> = Vec::new();
    let mut waiting = 0usize;
    let mut next_batch = 0;
    let mut next_id = 1u64;
    let mut spontaneous = 0;
    loop {
        if waiting == 0 && next_batch < script.batches.len() {
            for op in &script.batches[next_batch] {
                lines.push((Side::Client, request(script.version, *op, next_id)));
                unread.push_back((*op, next_id));
                next_id += 1;
                waiting += 1;
            }
            next_batch += 1;
        }
        let can_read = !unread.is_empty();
        let can_emit = !jobs.is_empty();
        if !can_read && !can_emit {
            break;
        }
        let choice = rng.below(10);
        if choice == 0 && spontaneous < 4 {
            spontaneous += 1;
            let n = rng.below(SESSIONS.len());
            let inside = jobs
                .iter()
                .any(|(op, _, replaying)| *op == Op::Replay(n) && *replaying);
            lines.push((Side::Agent, truth.notice(SESSIONS[n], inside)));
            continue;
        }
        if can_read && (!can_emit || choice < 4) {
            let (op, id) = unread.pop_front().unwrap_or((Op::Prompt(0), 0));
            let job_lines = job(script.version, op, id, &mut rng, &mut truth);
            jobs.push((op, job_lines.into(), matches!(op, Op::Replay(_))));
            continue;
        }
        let k = rng.below(jobs.len());
        // A state update reports the whole session: running while another of its turns is.
        let session_of = |op: Op| match op {
            Op::Prompt(n) | Op::Replay(n) => n,
        };
        let this = session_of(jobs[k].0);
        let busy = jobs
            .iter()
            .enumerate()
            .any(|(j, (op, _, _))| j != k && *op == Op::Prompt(this));
        let (_, queue, replaying) = &mut jobs[k];
        if let Some(mut next) = queue.pop_front() {
            if next.ends_replay {
                *replaying = false;
            }
            if next.state && busy {
                next.line = next.line.replace(
                    r#""state":"idle","stopReason":"end_turn""#,
                    r#""state":"running""#,
                );
            }
            let value: serde_json::Value = serde_json::from_str(&next.line).unwrap_or_default();
            if value.get("method").is_none() {
                waiting -= 1;
            }
            lines.push((Side::Agent, next.line));
        }
        if jobs[k].1.is_empty() {
            jobs.remove(k);
        }
    }
    Simulation { lines, truth }
}
