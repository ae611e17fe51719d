//! The judges of the client suite over what the client sent: its first message, its
//! capabilities, the ids of its responses, and the verdicts of the run.

use serde_json::Value;
use tokio::io::AsyncWrite;

use super::wire::Wire;
use super::{Client, RUN_NAME};
use crate::outcome::{Evidence, Outcome, Verdict};
use crate::peer::Received;
use crate::requirement::CLIENT;
use crate::suite::init::kind;
use crate::suite::{Outcomes, brief, merge};

/// `client.init.first`: an `initialize` request with an integer version, and its v1 or v2
/// parts of the right types.
pub(super) fn first_message(message: &Received) -> Outcome {
    let fail = |note: String| Outcome::failed(RUN_NAME, message.line, note);
    let Some(value) = &message.value else {
        return fail("the first line is not JSON".to_owned());
    };
    if message.method() != Some("initialize") || value.get("id").is_none() {
        return fail(format!(
            "expected an `initialize` request first, got {}",
            brief(Some(value))
        ));
    }
    let params = value.get("params").unwrap_or(&Value::Null);
    let Some(version) = params.get("protocolVersion").and_then(Value::as_u64) else {
        return fail("`protocolVersion` is missing or not an integer".to_owned());
    };
    if version == 1 {
        match params.get("clientCapabilities") {
            None | Some(Value::Object(_)) => Outcome::Passed,
            Some(other) => fail(format!(
                "`clientCapabilities` is {}, expected an object",
                kind(other)
            )),
        }
    } else {
        let info = params.get("info");
        let named = |key: &str| info.and_then(|i| i.get(key)).is_some_and(Value::is_string);
        if named("name") && named("version") {
            Outcome::Passed
        } else {
            fail(format!(
                "v2 `initialize` needs `info` with a string name and version, got {}",
                brief(info)
            ))
        }
    }
}

/// `client.init.capabilities.types` over the capabilities sent in `initialize`.
pub(super) fn capability_types(version: u16, capabilities: &Value, line: u64) -> Outcome {
    let mut wrong = Vec::new();
    match capabilities {
        Value::Null | Value::Object(_) => {}
        other => wrong.push(format!(
            "the capabilities are {}, expected an object",
            kind(other)
        )),
    }
    let mut expect = |path: &str, ok: fn(&Value) -> bool, what: &str| {
        if let Some(value) = capabilities.pointer(path)
            && !ok(value)
        {
            wrong.push(format!("`{path}` is {}, expected {what}", kind(value)));
        }
    };
    let object_or_null: fn(&Value) -> bool = |v| v.is_object() || v.is_null();
    if version == 1 {
        expect("/fs", object_or_null, "an object");
        expect("/fs/readTextFile", Value::is_boolean, "a boolean");
        expect("/fs/writeTextFile", Value::is_boolean, "a boolean");
        expect("/terminal", Value::is_boolean, "a boolean");
        expect("/session", object_or_null, "an object or null");
        expect(
            "/session/notices",
            object_or_null,
            "an object (`{}`) or null",
        );
    } else {
        expect("/auth", object_or_null, "an object or null");
        expect("/elicitation", object_or_null, "an object or null");
    }
    if wrong.is_empty() {
        Outcome::Passed
    } else {
        Outcome::failed(RUN_NAME, line, wrong.join("; "))
    }
}

/// `client.rpc.response-ids` and `client.rpc.notification-unanswered` over every response of
/// the run.
pub(super) fn responses<W: AsyncWrite + Unpin>(wire: &Wire<W>, outcomes: &mut Outcomes) {
    let responses: Vec<(&Received, &Value)> = wire
        .received()
        .iter()
        .filter_map(|r| r.response_id().map(|id| (r, id)))
        .collect();
    let mut unanswered = Vec::new();
    for sent in wire.sent() {
        let answers: Vec<&&Received> = responses
            .iter()
            .filter(|(_, id)| **id == sent.id)
            .map(|(r, _)| r)
            .collect();
        match answers.len() {
            1 => {}
            0 => unanswered.push(Evidence::new(
                RUN_NAME,
                sent.line,
                format!("`{}` (id {}) got no response", sent.method, sent.id),
            )),
            n => unanswered.push(Evidence::new(
                RUN_NAME,
                answers[1].line,
                format!("`{}` (id {}) answered {n} times", sent.method, sent.id),
            )),
        }
    }
    if !wire.sent().is_empty() {
        outcomes.push(("client.rpc.response-ids", judged(unanswered)));
    }
    let stray: Vec<Evidence> = responses
        .iter()
        .filter(|(r, id)| {
            let parse_error = id.is_null() && r.error_code() == Some(-32700);
            !parse_error && !wire.sent().iter().any(|s| s.id == **id)
        })
        .map(|(r, id)| {
            Evidence::new(
                RUN_NAME,
                r.line,
                format!("a response with id {id}, which names no request of the agent"),
            )
        })
        .collect();
    outcomes.push(("client.rpc.notification-unanswered", judged(stray)));
}

fn judged(evidence: Vec<Evidence>) -> Outcome {
    if evidence.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Failed { evidence }
    }
}

/// One verdict per requirement of the client suite for `version`, in registry order.
pub(super) fn collect(version: u16, client: &Client) -> Vec<Verdict> {
    CLIENT
        .iter()
        .filter(|r| r.applies_to(version))
        .map(|requirement| {
            let judged: Vec<Outcome> = client
                .outcomes
                .iter()
                .filter(|(id, _)| *id == requirement.id)
                .map(|(_, o)| o.clone())
                .collect();
            let outcome = merge(judged).unwrap_or_else(|| {
                Outcome::not_exercised(match (client.version, client.prompts, requirement.id) {
                    (None, _, _) => "the client never initialized the connection",
                    (_, 0, _) => "the client sent no prompt, so no scenario ran",
                    (_, _, "client.load.replay.survives") => {
                        "the client loaded no session (reopen one with `session/load` to exercise it)"
                    }
                    (_, _, "client.cancel.notification") => {
                        "the client did not cancel a turn (cancel one during the scenarios to exercise it)"
                    }
                    _ => "the situation did not arise in this run",
                })
            });
            Verdict {
                requirement,
                version,
                outcome,
            }
        })
        .collect()
}
