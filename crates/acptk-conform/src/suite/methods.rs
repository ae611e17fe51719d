//! Whether the capabilities tell the truth method by method, and the optional session methods
//! (`session/list`, `session/close`, `session/delete`) on sessions the run made.
//!
//! Each session method is tried with an id no agent gave out (`session/list` with the run's
//! directory): an advertised method answers anything but -32601, one not advertised -32601.
//! `session/fork` is left out: it is unstable in both versions.

use serde_json::{Value, json};

use super::{Outcomes, brief, unexpected};
use crate::outcome::{Evidence, Outcome};
use crate::peer::RawPeer;

/// An id no agent gave out.
pub(super) const UNKNOWN_SESSION: &str = "conform-no-such-session";

/// Whether a session capability (`resume`, `close`) is advertised: an object.
pub(super) fn session_capability(caps: &Value, version: u16, name: &str) -> bool {
    let group = if version == 1 {
        "sessionCapabilities"
    } else {
        "session"
    };
    caps.get(group)
        .and_then(|g| g.get(name))
        .is_some_and(Value::is_object)
}

/// The most pages of `session/list` read looking for the run's session.
const LIST_PAGES: usize = 20;

/// The session methods of `version` and whether the agent advertises each.
pub(super) fn session_methods(caps: &Value, version: u16) -> Vec<(&'static str, bool)> {
    if version == 1 {
        vec![
            (
                "session/load",
                caps.get("loadSession") == Some(&Value::Bool(true)),
            ),
            ("session/list", session_capability(caps, 1, "list")),
            ("session/resume", session_capability(caps, 1, "resume")),
            ("session/close", session_capability(caps, 1, "close")),
            ("session/delete", session_capability(caps, 1, "delete")),
        ]
    } else {
        // `list`, `resume` and `close` are part of every v2 agent; `delete` is a capability.
        vec![
            ("session/list", true),
            ("session/resume", true),
            ("session/close", true),
            ("session/delete", session_capability(caps, 2, "delete")),
        ]
    }
}

fn probe_params(method: &str, cwd: &str) -> Value {
    match method {
        "session/list" => json!({"cwd": cwd}),
        "session/close" | "session/delete" => json!({"sessionId": UNKNOWN_SESSION}),
        _ => json!({"sessionId": UNKNOWN_SESSION, "cwd": cwd, "mcpServers": []}),
    }
}

/// Tries every session method of the version and judges the answers against the capabilities.
pub(super) async fn truth(
    peer: &mut RawPeer,
    version: u16,
    caps: &Value,
    cwd: &str,
    outcomes: &mut Outcomes,
) {
    let name = peer.name().to_owned();
    let mut advertised = Vec::new();
    let mut unadvertised = Vec::new();
    for (method, offered) in session_methods(caps, version) {
        let reply = peer.call(method, probe_params(method, cwd)).await;
        let Some(response) = reply.response else {
            let evidence = Evidence::new(
                &name,
                reply.request_line,
                format!("`{method}` got no response"),
            );
            if offered {
                advertised.push(evidence);
            } else {
                unadvertised.push(Some(evidence));
            }
            continue;
        };
        let not_found = response.error_code() == Some(-32601);
        if offered && not_found {
            advertised.push(Evidence::new(
                &name,
                response.line,
                format!("`{method}` is advertised but answered -32601"),
            ));
        } else if !offered && !not_found {
            unadvertised.push(Some(Evidence::new(
                &name,
                response.line,
                format!(
                    "`{method}` is not advertised but did not answer -32601: {}",
                    brief(response.value.as_ref())
                ),
            )));
        } else if !offered {
            unadvertised.push(None);
        }
    }
    outcomes.push(("session.methods.advertised", judged(advertised)));
    let outcome = if unadvertised.is_empty() {
        Outcome::not_exercised("the agent advertises every session method of this version")
    } else {
        judged(unadvertised.into_iter().flatten().collect())
    };
    outcomes.push(("session.methods.unadvertised", outcome));
}

fn judged(evidence: Vec<Evidence>) -> Outcome {
    if evidence.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence }
    }
}

fn available(caps: &Value, version: u16, method: &str) -> bool {
    session_methods(caps, version)
        .iter()
        .any(|(m, offered)| *m == method && *offered)
}

/// `session/list` where available: a well-formed page, the run's session in one of them.
pub(super) async fn list(
    peer: &mut RawPeer,
    version: u16,
    caps: &Value,
    session: &str,
    cwd: &str,
) -> Outcome {
    if !available(caps, version, "session/list") {
        return Outcome::not_applicable("the agent does not advertise `session/list`");
    }
    let name = peer.name().to_owned();
    let mut cursor = Value::Null;
    for _ in 0..LIST_PAGES {
        let mut params = json!({"cwd": cwd});
        if !cursor.is_null() {
            params["cursor"] = cursor.clone();
        }
        let reply = peer.call("session/list", params).await;
        let Some(response) = reply.response else {
            return Outcome::failed(&name, reply.request_line, "`session/list` got no response");
        };
        let Some(entries) = response
            .result()
            .and_then(|r| r.get("sessions"))
            .and_then(Value::as_array)
        else {
            return unexpected(&name, &response, "a result with a `sessions` array");
        };
        if let Some(bad) = entries.iter().find(|e| {
            !(e.get("sessionId").is_some_and(Value::is_string)
                && e.get("cwd").is_some_and(Value::is_string))
        }) {
            return Outcome::failed(
                &name,
                response.line,
                format!(
                    "a listed session without a string sessionId and cwd: {}",
                    brief(Some(bad))
                ),
            );
        }
        if entries
            .iter()
            .any(|e| e.get("sessionId").and_then(Value::as_str) == Some(session))
        {
            return Outcome::Passed;
        }
        cursor = response
            .result()
            .and_then(|r| r.get("nextCursor"))
            .cloned()
            .unwrap_or(Value::Null);
        if !cursor.is_string() {
            return Outcome::failed(
                &name,
                response.line,
                format!("the run's session {session} (made in {cwd}) is not listed"),
            );
        }
    }
    Outcome::not_exercised(format!(
        "the run's session was not in the first {LIST_PAGES} pages of `session/list`"
    ))
}

/// `session/close` (of `session`) or `session/delete` (of a session made for it) where
/// available: a result.
pub(super) async fn close_or_delete(
    peer: &mut RawPeer,
    version: u16,
    caps: &Value,
    method: &str,
    session: &str,
) -> Outcome {
    if !available(caps, version, method) {
        return Outcome::not_applicable(format!("the agent does not advertise `{method}`"));
    }
    let name = peer.name().to_owned();
    let reply = peer.call(method, json!({"sessionId": session})).await;
    match reply.response {
        None => Outcome::failed(
            &name,
            reply.request_line,
            format!("`{method}` got no response"),
        ),
        Some(response) if response.result().is_some_and(Value::is_object) => Outcome::Passed,
        Some(response) => Outcome::failed(
            &name,
            response.line,
            format!(
                "`{method}` of a session the run made: expected a result object, got {}",
                brief(response.value.as_ref())
            ),
        ),
    }
}
