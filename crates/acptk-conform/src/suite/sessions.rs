//! Sessions: `session/new`, one prompt, unknown session ids, and the replay of a session
//! (`session/load` in v1 when `loadSession` is advertised, `session/resume` from the start in
//! v2, where every agent has it).

use serde_json::{Value, json};

use super::init::new_session;
use super::methods::{self, UNKNOWN_SESSION, session_capability};
use super::{Options, Outcomes, brief, unexpected};
use crate::outcome::{Evidence, Outcome};
use crate::peer::{RawPeer, Received};

/// The error an agent answers while the client has not signed in.
const AUTH_REQUIRED: i64 = -32000;

/// The agent's capabilities as answered to `initialize` in this run.
pub(super) fn capabilities(peer: &RawPeer, version: u16) -> Value {
    let key = if version == 1 {
        "agentCapabilities"
    } else {
        "capabilities"
    };
    peer.received()
        .iter()
        .find_map(|r| r.result().and_then(|result| result.get(key)).cloned())
        .unwrap_or(Value::Null)
}

fn prompt_params(session: &str, options: &Options) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": options.prompt}]})
}

/// Opens a session and runs one prompt; returns the session id. Used by runs whose outcomes
/// are judged over the whole transcript (the notices run).
pub(super) async fn one_turn(
    peer: &mut RawPeer,
    version: u16,
    options: &Options,
) -> Option<String> {
    let (_, session) = new_session(peer, options).await;
    let session = session?;
    turn(peer, version, &session, options).await;
    Some(session)
}

/// Runs the session requirements on an initialized connection.
pub(super) async fn check(
    peer: &mut RawPeer,
    version: u16,
    options: &Options,
    outcomes: &mut Outcomes,
) {
    let name = peer.name().to_owned();
    let cwd = options.cwd.to_string_lossy().into_owned();
    let (reply, session) = new_session(peer, options).await;
    let Some(session) = session else {
        let line = reply
            .response
            .as_ref()
            .map_or(reply.request_line, |r| r.line);
        if reply.response.as_ref().and_then(Received::error_code) == Some(AUTH_REQUIRED) {
            // Without credentials an agent may refuse sessions until the client signs in:
            // that is no breach, and the session requirements cannot be tried.
            let why = format!(
                "`session/new` answered -32000 (authentication required, {}:{line}): run the suite where the agent has credentials to exercise sessions",
                name
            );
            for id in ["session.new", "session.prompt"] {
                outcomes.push((id, Outcome::not_exercised(why.clone())));
            }
            return;
        }
        outcomes.push((
            "session.new",
            Outcome::failed(
                &name,
                line,
                format!(
                    "expected a result with a string sessionId, got {}",
                    brief(reply.response.as_ref().and_then(|r| r.value.as_ref()))
                ),
            ),
        ));
        return;
    };
    outcomes.push(("session.new", Outcome::Passed));

    let before = peer.transcript().len();
    let prompted = turn(peer, version, &session, options).await;
    let first_turn = (before, peer.transcript().len());
    // The turn answered the agent's permission request (if any) with allow.
    super::turns::after_allowed_turn(peer, version, &prompted, outcomes);
    outcomes.push(("session.prompt", prompted));

    let caps = capabilities(peer, version);
    outcomes.push((
        "session.unknown-id",
        unknown_id(peer, version, &caps, &cwd).await,
    ));
    let (replayed, reloaded) = replay(peer, version, &caps, &session, &cwd).await;
    outcomes.push(("session.replay.no-notice", replayed));
    outcomes.push((
        "turn.tool-call-ids.reload",
        if reloaded {
            after_reload(peer, version, &session, options, first_turn).await
        } else {
            Outcome::not_exercised("the run's session could not be reloaded")
        },
    ));
    methods::truth(peer, version, &caps, &cwd, outcomes).await;
    outcomes.push((
        "session.list",
        methods::list(peer, version, &caps, &session, &cwd).await,
    ));
    let doomed = peer
        .call("session/new", json!({"cwd": cwd, "mcpServers": []}))
        .await
        .response
        .and_then(|r| r.result()?.get("sessionId")?.as_str().map(str::to_owned));
    outcomes.push((
        "session.delete",
        match doomed {
            Some(doomed) => {
                methods::close_or_delete(peer, version, &caps, "session/delete", &doomed).await
            }
            None => Outcome::not_exercised("a second `session/new` gave no session to delete"),
        },
    ));
    outcomes.push((
        "session.close",
        methods::close_or_delete(peer, version, &caps, "session/close", &session).await,
    ));
}

/// After the run's session was reloaded: one more turn, whose tool call ids must be none of
/// those of the turn before the reload (transcript lines `first`, after `.0` up to `.1`).
async fn after_reload(
    peer: &mut RawPeer,
    version: u16,
    session: &str,
    options: &Options,
    first: (usize, usize),
) -> Outcome {
    let before = peer.transcript().len();
    if turn(peer, version, session, options).await != Outcome::Passed {
        return Outcome::not_exercised(format!(
            "the turn after the reload of {} did not end with a stop reason",
            peer.name()
        ));
    }
    let second = (before, peer.transcript().len());
    super::turns::reload_ids(peer, session, first, second)
}

/// Runs one prompt turn to its end and judges its stop reason: v1 in the response; v2 a
/// response with a `messageId`, then an `idle` state update with the stop reason.
pub(super) async fn turn(
    peer: &mut RawPeer,
    version: u16,
    session: &str,
    options: &Options,
) -> Outcome {
    let name = peer.name().to_owned();
    let reply = peer
        .call("session/prompt", prompt_params(session, options))
        .await;
    let Some(response) = &reply.response else {
        return Outcome::failed(
            &name,
            reply.request_line,
            "`session/prompt` got no response",
        );
    };
    let (key, what) = if version == 1 {
        ("stopReason", "a result with a string stopReason")
    } else {
        ("messageId", "a result with a string messageId")
    };
    if !response
        .result()
        .and_then(|r| r.get(key))
        .is_some_and(Value::is_string)
    {
        return unexpected(&name, response, what);
    }
    if version == 1 {
        return Outcome::Passed;
    }
    let idle = |r: &Received| {
        r.method() == Some("session/update")
            && r.value
                .as_ref()
                .and_then(|v| v.pointer("/params/sessionId"))
                .and_then(Value::as_str)
                == Some(session)
            && r.value
                .as_ref()
                .and_then(|v| v.pointer("/params/update"))
                .is_some_and(|u| {
                    u.get("sessionUpdate").and_then(Value::as_str) == Some("state_update")
                        && u.get("state").and_then(Value::as_str) == Some("idle")
                })
    };
    let end = match reply.during.iter().find(|r| idle(r)) {
        Some(early) => Some(early.clone()),
        None => peer.read_until(idle).await.0,
    };
    match end {
        None => Outcome::failed(
            &name,
            response.line,
            "after this response no `idle` state update ended the turn",
        ),
        Some(end) => {
            let stop = end
                .value
                .as_ref()
                .and_then(|v| v.pointer("/params/update/stopReason"));
            if stop.is_some_and(Value::is_string) {
                Outcome::Passed
            } else {
                Outcome::failed(
                    &name,
                    end.line,
                    "the `idle` state update carries no string stopReason",
                )
            }
        }
    }
}

/// Every advertised method that names a session, tried with an unknown id.
async fn unknown_id(peer: &mut RawPeer, version: u16, caps: &Value, cwd: &str) -> Outcome {
    let name = peer.name().to_owned();
    let mut tries: Vec<(&str, Value)> = vec![(
        "session/prompt",
        json!({"sessionId": UNKNOWN_SESSION, "prompt": [{"type": "text", "text": "hello"}]}),
    )];
    if version == 1 && caps.get("loadSession") == Some(&Value::Bool(true)) {
        tries.push((
            "session/load",
            json!({"sessionId": UNKNOWN_SESSION, "cwd": cwd, "mcpServers": []}),
        ));
    }
    // `session/resume` is a v1 capability, and part of every v2 agent.
    if version == 2 || session_capability(caps, version, "resume") {
        tries.push((
            "session/resume",
            json!({"sessionId": UNKNOWN_SESSION, "cwd": cwd, "mcpServers": []}),
        ));
    }
    // `session/close` and `session/delete` may well answer a session the agent does not have
    // as done (their documentation speaks of active sessions): an error from them must be the
    // same code, a result is no failure.
    let lenient = ["session/close", "session/delete"];
    for method in lenient {
        if methods::session_methods(caps, version)
            .iter()
            .any(|(m, offered)| *m == method && *offered)
        {
            tries.push((method, json!({"sessionId": UNKNOWN_SESSION})));
        }
    }
    let mut answers: Vec<(&str, Received)> = Vec::new();
    let mut evidence = Vec::new();
    for (method, params) in tries {
        let reply = peer.call(method, params).await;
        match reply.response {
            Some(response) if response.error_code().is_some() => answers.push((method, response)),
            Some(_) if lenient.contains(&method) => {}
            Some(response) => evidence.push(Evidence::new(
                &name,
                response.line,
                format!(
                    "`{method}` for an unknown session did not answer with an error: {}",
                    brief(response.value.as_ref())
                ),
            )),
            None => evidence.push(Evidence::new(
                &name,
                reply.request_line,
                format!("`{method}` got no response"),
            )),
        }
    }
    if let Some((first_method, first)) = answers.first() {
        for (method, other) in &answers[1..] {
            if other.error_code() != first.error_code() {
                evidence.push(Evidence::new(
                    &name,
                    other.line,
                    format!(
                        "`{method}` answered code {:?} where `{first_method}` (line {}) answered {:?}",
                        other.error_code(),
                        first.line,
                        first.error_code()
                    ),
                ));
            }
        }
    }
    if evidence.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence }
    }
}

/// Replays the session the run used and looks for `notice` updates among what came; also
/// tells whether the session was reloaded (the method answered a result).
async fn replay(
    peer: &mut RawPeer,
    version: u16,
    caps: &Value,
    session: &str,
    cwd: &str,
) -> (Outcome, bool) {
    let name = peer.name().to_owned();
    let (method, params) = if version == 1 {
        if caps.get("loadSession") != Some(&Value::Bool(true)) {
            let why = "the agent does not advertise `loadSession`";
            return (Outcome::not_applicable(why), false);
        }
        (
            "session/load",
            json!({"sessionId": session, "cwd": cwd, "mcpServers": []}),
        )
    } else {
        (
            "session/resume",
            json!({"sessionId": session, "cwd": cwd, "mcpServers": [], "replayFrom": {"type": "start"}}),
        )
    };
    let reply = peer.call(method, params).await;
    let Some(response) = &reply.response else {
        let why = format!("`{method}` got no response (line {})", reply.request_line);
        return (Outcome::not_exercised(why), false);
    };
    if response.result().is_none() {
        let why = format!(
            "`{method}` of the run's own session was refused (line {}): {}",
            response.line,
            brief(response.value.as_ref())
        );
        return (Outcome::not_exercised(why), false);
    }
    let notices: Vec<Evidence> = reply
        .during
        .iter()
        .filter(|r| super::notices::is_notice(r))
        .map(|r| {
            Evidence::new(
                &name,
                r.line,
                format!("a notice during the replay of `{method}`"),
            )
        })
        .collect();
    let outcome = if reply.during.is_empty() {
        Outcome::not_exercised(format!("`{method}` replayed nothing"))
    } else if notices.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence: notices }
    };
    (outcome, true)
}
