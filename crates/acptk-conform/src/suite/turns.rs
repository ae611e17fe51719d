//! Prompt turns: stop reasons, tool call ids (also across a reload), permission answers of
//! every kind, cancellation, and requests only for what the client advertised.
//!
//! Besides the main run (whose turn answers the agent's permission request with allow), three
//! runs are made side by side, each with one session and one prompt: `vN-reject.jsonl`
//! answers the permission request with a reject option, `vN-dismiss.jsonl` with the
//! `cancelled` outcome, and `vN-cancel.jsonl` sends `session/cancel` while the request is
//! pending and then answers it `cancelled`. An agent that asks no permission leaves those
//! requirements *not exercised*: without a pending request the suite cannot know that its
//! cancel landed inside the turn.
//!
//! A fourth run, `vN-interrupt.jsonl`, cancels its turn while no permission request waits:
//! once a content update came and the turn stayed quiet a moment, so that the turn is known
//! to be running when the cancel is sent.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::{Launch, Options, Outcomes, brief, init};
use crate::error::ConformError;
use crate::outcome::{Evidence, Outcome};
use crate::peer::{RawPeer, Received};

/// The stop reasons of v1.
const STOP_REASONS: [&str; 5] = [
    "end_turn",
    "max_tokens",
    "max_turn_requests",
    "refusal",
    "cancelled",
];

/// How the permission request of a run's turn is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Reject,
    Dismiss,
    Cancel,
}

impl Answer {
    fn label(self) -> &'static str {
        match self {
            Answer::Reject => "reject",
            Answer::Dismiss => "dismiss",
            Answer::Cancel => "cancel",
        }
    }
}

/// What came next in a turn.
enum Step {
    /// The agent asks permission.
    Permission(Received),
    /// The turn ended, with this stop reason if it is a string.
    Ended { stop: Option<String>, line: u64 },
    /// The prompt was answered with an error (or a result that is no object).
    Refused(Received),
    /// Nothing more came before the timeout.
    Silent,
}

fn session_of(received: &Received) -> Option<&str> {
    received
        .value
        .as_ref()?
        .pointer("/params/sessionId")?
        .as_str()
}

fn is_permission(received: &Received, session: &str) -> bool {
    received.method() == Some("session/request_permission")
        && received
            .value
            .as_ref()
            .is_some_and(|v| v.get("id").is_some())
        && session_of(received) == Some(session)
}

fn update_of<'a>(received: &'a Received, session: &str) -> Option<&'a Value> {
    if received.method() != Some("session/update") || session_of(received) != Some(session) {
        return None;
    }
    received.value.as_ref()?.pointer("/params/update")
}

fn is_idle(received: &Received, session: &str) -> bool {
    update_of(received, session).is_some_and(|u| {
        u.get("sessionUpdate").and_then(Value::as_str) == Some("state_update")
            && u.get("state").and_then(Value::as_str) == Some("idle")
    })
}

/// Reads the turn of the prompt `id` until its end or a permission request of `session`.
async fn step(peer: &mut RawPeer, version: u16, session: &str, id: &Value) -> Step {
    loop {
        let (found, _) = peer
            .read_until(|r| {
                r.response_id() == Some(id)
                    || is_permission(r, session)
                    || (version == 2 && is_idle(r, session))
            })
            .await;
        let Some(received) = found else {
            return Step::Silent;
        };
        if is_permission(&received, session) {
            return Step::Permission(received);
        }
        if received.response_id() == Some(id) {
            if !received.result().is_some_and(Value::is_object) {
                return Step::Refused(received);
            }
            if version == 2 {
                continue; // the acknowledgement; the end is an `idle` update
            }
            let stop = received.result().and_then(|r| r.get("stopReason"));
            return Step::Ended {
                stop: stop.and_then(Value::as_str).map(str::to_owned),
                line: received.line,
            };
        }
        let stop = update_of(&received, session).and_then(|u| u.get("stopReason"));
        return Step::Ended {
            stop: stop.and_then(Value::as_str).map(str::to_owned),
            line: received.line,
        };
    }
}

/// Answers a permission request: `option` selected, or the `cancelled` outcome.
async fn answer_permission(peer: &mut RawPeer, request: &Received, option: Option<&Value>) {
    let Some(id) = request.value.as_ref().and_then(|v| v.get("id")) else {
        return;
    };
    let outcome = match option {
        Some(option) => json!({"outcome": "selected", "optionId": option}),
        None => json!({"outcome": "cancelled"}),
    };
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": outcome}});
    peer.send_raw(&answer.to_string()).await;
}

/// The first option of the request whose kind begins with `prefix` (`reject`, `allow`).
fn option_of<'a>(request: &'a Received, prefix: &str) -> Option<&'a Value> {
    request
        .value
        .as_ref()?
        .pointer("/params/options")?
        .as_array()?
        .iter()
        .find(|o| {
            o.get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with(prefix))
        })?
        .get("optionId")
}

/// The three permission runs of `version`, side by side.
pub(super) async fn permission_runs(
    launch: &Launch<'_>,
    version: u16,
    options: &Options,
) -> Result<(Outcomes, Vec<RawPeer>), ConformError> {
    let name = |answer: Answer| format!("v{version}-{}.jsonl", answer.label());
    let a = launch.start(name(Answer::Reject), options).await?;
    let b = launch.start(name(Answer::Dismiss), options).await?;
    let c = launch.start(name(Answer::Cancel), options).await?;
    let (a, b, c) = tokio::join!(
        permission_run(a, version, options, Answer::Reject),
        permission_run(b, version, options, Answer::Dismiss),
        permission_run(c, version, options, Answer::Cancel),
    );
    let mut outcomes = Vec::new();
    let mut done = Vec::new();
    for (more, peer) in [a, b, c] {
        outcomes.extend(more);
        done.push(peer);
    }
    Ok((outcomes, done))
}

/// One session, one prompt, its permission request answered as `answer`.
async fn permission_run(
    mut peer: RawPeer,
    version: u16,
    options: &Options,
    answer: Answer,
) -> (Outcomes, RawPeer) {
    let mut outcomes: Outcomes = Vec::new();
    let Opened::Session(session) = open_side_run(&mut peer, version, options).await else {
        return (outcomes, peer);
    };
    let (id, prompt_line) = send_prompt(&mut peer, &session, options).await;
    let id_judged = match answer {
        Answer::Cancel => "turn.cancel",
        _ => "turn.permission",
    };
    let Step::Permission(request) = step(&mut peer, version, &session, &id).await else {
        let why = format!(
            "the agent asked no permission in the turn of {} (line {prompt_line})",
            peer.name()
        );
        outcomes.push((id_judged, Outcome::not_exercised(why)));
        return (outcomes, peer);
    };
    match answer {
        Answer::Reject => {
            let reject = option_of(&request, "reject").cloned();
            answer_permission(&mut peer, &request, reject.as_ref()).await;
        }
        Answer::Dismiss => answer_permission(&mut peer, &request, None).await,
        Answer::Cancel => {
            let cancel = json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}});
            peer.send_raw(&cancel.to_string()).await;
            answer_permission(&mut peer, &request, None).await;
        }
    }
    let end = end_of_turn(&mut peer, version, &session, &id).await;
    let name = peer.name().to_owned();
    let what = match answer {
        Answer::Reject => "a rejected permission request",
        Answer::Dismiss => "a permission request answered `cancelled`",
        Answer::Cancel => "`session/cancel` (the permission request answered `cancelled`)",
    };
    let outcome = match (&end, answer) {
        (
            Step::Ended {
                stop: Some(stop), ..
            },
            Answer::Cancel,
        ) if stop == "cancelled" => Outcome::Passed,
        (Step::Ended { stop: Some(_), .. }, Answer::Reject | Answer::Dismiss) => Outcome::Passed,
        (Step::Ended { stop, line }, _) => Outcome::failed(
            &name,
            *line,
            format!("after {what} the turn ended with stop reason {stop:?}"),
        ),
        (Step::Refused(response), _) => Outcome::failed(
            &name,
            response.line,
            format!(
                "after {what} the prompt was answered {}",
                brief(response.value.as_ref())
            ),
        ),
        (Step::Silent | Step::Permission(_), _) => Outcome::failed(
            &name,
            request.line,
            format!("after {what} the turn did not end within the response timeout"),
        ),
    };
    outcomes.push((id_judged, outcome));
    if answer == Answer::Cancel
        && let Step::Ended { line, .. } = end
    {
        let closed = tools_closed(&peer, version, &session, prompt_line, line);
        outcomes.push(("turn.cancel.tools-closed", closed));
    }
    scan_turns(&peer, version, &mut outcomes);
    (outcomes, peer)
}

/// The tool call updates of `session` received on the transcript lines `lines`: each message,
/// its update, and its `toolCallId`.
fn tool_updates<'a>(
    peer: &'a RawPeer,
    session: &'a str,
    lines: std::ops::RangeInclusive<u64>,
) -> impl Iterator<Item = (&'a Received, &'a Value, &'a Value)> {
    peer.received()
        .iter()
        .filter(move |received| lines.contains(&received.line))
        .filter_map(move |received| {
            let update = update_of(received, session)?;
            let kind = update.get("sessionUpdate").and_then(Value::as_str);
            if !matches!(kind, Some("tool_call" | "tool_call_update")) {
                return None;
            }
            Some((received, update, update.get("toolCallId")?))
        })
}

/// Every tool call of `session` reported between lines `from` and `to` was last reported
/// with a final status.
fn tools_closed(peer: &RawPeer, version: u16, session: &str, from: u64, to: u64) -> Outcome {
    let mut last: BTreeMap<String, (String, u64)> = BTreeMap::new();
    for (received, update, call) in tool_updates(peer, session, from..=to) {
        let Some(call) = call.as_str() else {
            continue;
        };
        let status = update.get("status").and_then(Value::as_str);
        let entry = last
            .entry(call.to_owned())
            .or_insert_with(|| ("pending".to_owned(), received.line));
        if let Some(status) = status {
            *entry = (status.to_owned(), received.line);
        }
    }
    if last.is_empty() {
        return Outcome::not_exercised(format!(
            "no tool call was opened in the cancelled turn of {}",
            peer.name()
        ));
    }
    let final_status =
        |s: &str| matches!(s, "completed" | "failed") || (version == 2 && s == "cancelled");
    let evidence: Vec<Evidence> = last
        .iter()
        .filter(|(_, (status, _))| !final_status(status))
        .map(|(call, (status, line))| {
            Evidence::new(
                peer.name(),
                *line,
                format!("tool call {call} was last reported `{status}` and the turn was cancelled"),
            )
        })
        .collect();
    if evidence.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence }
    }
}

/// The main run's turn, its permission request (if any) answered with allow: judged like the
/// other answers. Also scans the turn's stop reason and tool call ids.
pub(super) fn after_allowed_turn(
    peer: &RawPeer,
    version: u16,
    prompted: &Outcome,
    outcomes: &mut Outcomes,
) {
    let asked = peer
        .received()
        .iter()
        .any(|r| r.method() == Some("session/request_permission"));
    if asked {
        outcomes.push(("turn.permission", prompted.clone()));
    }
    scan_turns(peer, version, outcomes);
}

/// v1: the stop reasons answered so far are known ones, and no session reused a tool call id.
fn scan_turns(peer: &RawPeer, version: u16, outcomes: &mut Outcomes) {
    if version != 1 {
        return;
    }
    let mut stops = Vec::new();
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut reused = Vec::new();
    for received in peer.received() {
        if let Some(stop) = received
            .result()
            .and_then(|r| r.get("stopReason"))
            .filter(|_| received.response_id().is_some())
        {
            let known = stop.as_str().is_some_and(|s| STOP_REASONS.contains(&s));
            stops.push((!known).then(|| {
                Evidence::new(
                    peer.name(),
                    received.line,
                    format!("stop reason {stop} is none of {}", STOP_REASONS.join(", ")),
                )
            }));
        }
        let Some(session) = session_of(received) else {
            continue;
        };
        let Some(update) = update_of(received, session) else {
            continue;
        };
        if update.get("sessionUpdate").and_then(Value::as_str) != Some("tool_call") {
            continue;
        }
        let call = update
            .get("toolCallId")
            .map(Value::to_string)
            .unwrap_or_default();
        if !seen.insert((session.to_owned(), call.clone())) {
            reused.push(Evidence::new(
                peer.name(),
                received.line,
                format!("tool call id {call} was already used in session {session}"),
            ));
        }
    }
    if !stops.is_empty() {
        let evidence: Vec<Evidence> = stops.into_iter().flatten().collect();
        outcomes.push(("turn.stop-reason", judged(evidence)));
    }
    if !seen.is_empty() {
        outcomes.push(("turn.tool-call-ids.unique", judged(reused)));
    }
}

fn judged(evidence: Vec<Evidence>) -> Outcome {
    if evidence.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence }
    }
}

/// No `fs/*` or `terminal/*` request in the run: the suite's clients advertise neither.
pub(super) fn requests(peer: &RawPeer, outcomes: &mut Outcomes) {
    let evidence: Vec<Evidence> = peer
        .received()
        .iter()
        .filter(|r| {
            r.value.as_ref().is_some_and(|v| v.get("id").is_some())
                && r.method()
                    .is_some_and(|m| m.starts_with("fs/") || m.starts_with("terminal/"))
        })
        .map(|r| {
            Evidence::new(
                peer.name(),
                r.line,
                format!(
                    "a `{}` request, but this client advertised no such capability",
                    r.method().unwrap_or_default()
                ),
            )
        })
        .collect();
    outcomes.push(("requests.advertised-only", judged(evidence)));
}

/// The tool call ids reported for `session` on transcript lines after `from` up to `to`, each
/// with the line it first came on.
fn tool_ids(peer: &RawPeer, session: &str, from: usize, to: usize) -> Vec<(String, u64)> {
    let mut ids: Vec<(String, u64)> = Vec::new();
    let line = |at: usize| u64::try_from(at).unwrap_or(u64::MAX);
    for (received, _, call) in tool_updates(peer, session, line(from).saturating_add(1)..=line(to))
    {
        let call = call.to_string();
        if !ids.iter().any(|(known, _)| *known == call) {
            ids.push((call, received.line));
        }
    }
    ids
}

/// The tool calls of the turn after a reload (transcript lines after `later.0` up to
/// `later.1`) must carry none of the ids of the turn before it (lines `earlier`).
pub(super) fn reload_ids(
    peer: &RawPeer,
    session: &str,
    earlier: (usize, usize),
    later: (usize, usize),
) -> Outcome {
    let earlier = tool_ids(peer, session, earlier.0, earlier.1);
    let later = tool_ids(peer, session, later.0, later.1);
    if earlier.is_empty() || later.is_empty() {
        return Outcome::not_exercised(format!(
            "the turns before and after the reload of {} did not both make a tool call",
            peer.name()
        ));
    }
    let evidence: Vec<Evidence> = later
        .iter()
        .filter_map(|(call, line)| {
            let (_, old) = earlier.iter().find(|(known, _)| known == call)?;
            Some(Evidence::new(
                peer.name(),
                *line,
                format!(
                    "tool call id {call} after the reload was already used before it (line {old})"
                ),
            ))
        })
        .collect();
    judged(evidence)
}

/// How long the turn must stay quiet after its first content update before the interrupting
/// run sends `session/cancel`: what came meanwhile shows whether the turn is still running.
const QUIET: std::time::Duration = std::time::Duration::from_millis(20);

/// An update that is content of the turn (not the session's own bookkeeping, such as its
/// commands or title, which an agent may send at any time).
fn is_content(received: &Received, session: &str) -> bool {
    update_of(received, session).is_some_and(|u| {
        matches!(
            u.get("sessionUpdate").and_then(Value::as_str),
            Some(
                "agent_message_chunk"
                    | "agent_thought_chunk"
                    | "tool_call"
                    | "tool_call_update"
                    | "plan"
            )
        )
    })
}

/// Whether `received` ends the turn of the prompt `id` (v1 its response, v2 a refusal or the
/// `idle` update).
fn ends_turn(received: &Received, version: u16, session: &str, id: &Value) -> bool {
    if received.response_id() == Some(id) {
        return version == 1 || !received.result().is_some_and(Value::is_object);
    }
    version == 2 && is_idle(received, session)
}

/// How the opening of a side run went.
pub(super) enum Opened {
    /// `initialize` did not settle on the run's version: the run has nothing to judge.
    Unspoken,
    /// `session/new` gave no session.
    NoSession,
    /// The session the run goes on in.
    Session(String),
}

/// The opening of a side run: `initialize` at `version`; true when the agent speaks it.
pub(super) async fn side_run_initialized(peer: &mut RawPeer, version: u16) -> bool {
    init::initialize(peer, version, false, &mut Vec::new()).await == Some(version)
}

/// The opening of a side run with a session: `initialize` at `version`, then `session/new`
/// in the run's directory.
pub(super) async fn open_side_run(peer: &mut RawPeer, version: u16, options: &Options) -> Opened {
    if !side_run_initialized(peer, version).await {
        return Opened::Unspoken;
    }
    let (_, session) = init::new_session(peer, options).await;
    session.map_or(Opened::NoSession, Opened::Session)
}

/// Sends the run's prompt to `session`: its request id and its line in the transcript.
async fn send_prompt(peer: &mut RawPeer, session: &str, options: &Options) -> (Value, u64) {
    let id = peer.fresh_id();
    let prompt = json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": {"sessionId": session, "prompt": [{"type": "text", "text": options.prompt}]}});
    let line = peer.send_raw(&prompt.to_string()).await;
    (id, line)
}

/// Reads the turn of the prompt `id` to its end, answering every permission request that
/// comes meanwhile `cancelled`: the first step that is not a permission request.
async fn end_of_turn(peer: &mut RawPeer, version: u16, session: &str, id: &Value) -> Step {
    loop {
        match step(peer, version, session, id).await {
            Step::Permission(more) => answer_permission(peer, &more, None).await,
            other => break other,
        }
    }
}

/// One session, one prompt, and `session/cancel` as soon as the turn's first content update
/// came and the turn stayed quiet a moment (no permission request waiting): the turn must end
/// `cancelled`. Permission requests that come after the cancel are answered `cancelled`.
pub(super) async fn interrupt_run(
    mut peer: RawPeer,
    version: u16,
    options: &Options,
) -> (Outcomes, RawPeer) {
    let mut outcomes: Outcomes = Vec::new();
    let session = match open_side_run(&mut peer, version, options).await {
        Opened::Session(session) => session,
        Opened::NoSession => {
            let why = format!("`session/new` gave no session in {}", peer.name());
            outcomes.push(("turn.cancel.streaming", Outcome::not_exercised(why)));
            return (outcomes, peer);
        }
        Opened::Unspoken => return (outcomes, peer),
    };
    let (id, prompt_line) = send_prompt(&mut peer, &session, options).await;
    if let Some(why) = running(&mut peer, version, &session, &id, options.timeout).await {
        let why = format!("{why} (the turn of {}, line {prompt_line})", peer.name());
        outcomes.push(("turn.cancel.streaming", Outcome::not_exercised(why)));
        return (outcomes, peer);
    }
    let cancel =
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}});
    let cancel_line = peer.send_raw(&cancel.to_string()).await;
    let end = end_of_turn(&mut peer, version, &session, &id).await;
    let name = peer.name().to_owned();
    let outcome = match end {
        Step::Ended {
            stop: Some(stop), ..
        } if stop == "cancelled" => Outcome::Passed,
        Step::Ended { stop, line } => Outcome::failed(
            &name,
            line,
            format!(
                "after `session/cancel` (line {cancel_line}) the turn ended with stop reason {stop:?}"
            ),
        ),
        Step::Refused(response) => Outcome::failed(
            &name,
            response.line,
            format!(
                "after `session/cancel` (line {cancel_line}) the prompt was answered {}",
                brief(response.value.as_ref())
            ),
        ),
        Step::Silent | Step::Permission(_) => Outcome::failed(
            &name,
            cancel_line,
            "after this `session/cancel` the turn did not end within the response timeout",
        ),
    };
    outcomes.push(("turn.cancel.streaming", outcome));
    (outcomes, peer)
}

/// Reads the turn of the prompt `id` until its first content update and a quiet moment after
/// it; `None` then (the turn runs, no permission request waits), else why the cancel cannot be
/// sent as this run wants.
async fn running(
    peer: &mut RawPeer,
    version: u16,
    session: &str,
    id: &Value,
    timeout: std::time::Duration,
) -> Option<String> {
    let (first, _) = peer
        .read_until(|r| {
            is_content(r, session)
                || is_permission(r, session)
                || ends_turn(r, version, session, id)
        })
        .await;
    let Some(first) = first else {
        return Some("no content update came".to_owned());
    };
    let deadline = tokio::time::Instant::now() + timeout;
    let mut next = Some(first);
    while let Some(received) = next {
        if is_permission(&received, session) {
            answer_permission(peer, &received, None).await;
            return Some("a permission request came before a quiet moment of the turn".to_owned());
        }
        if ends_turn(&received, version, session, id) {
            return Some("the turn ended before a quiet moment".to_owned());
        }
        if tokio::time::Instant::now() >= deadline {
            return Some("the turn never stayed quiet".to_owned());
        }
        next = peer.next(QUIET).await;
    }
    None
}
