//! JSON-RPC hygiene: a line that is not JSON, unknown methods, wrong params, ids of both
//! kinds echoed exactly, notifications never answered.
//!
//! A notification's answer could only be told apart by its missing or null id, so each
//! notification is followed by a *barrier*: a request whose response shows the agent has read
//! past it; a response with a null id before the barrier's is the notification's.

use serde_json::{Value, json};

use super::{Outcomes, brief, unexpected};
use crate::outcome::Outcome;
use crate::peer::{RawPeer, Received, Reply};

/// A method no agent has: the `conform/` prefix is no ACP method, and not `_`-prefixed, so it
/// is no extension either.
const NO_SUCH_METHOD: &str = "conform/no-such-method";

/// The largest integer every JSON implementation keeps exactly (2^53 - 1).
const LARGE_ID: u64 = 9_007_199_254_740_991;

/// Runs the probes on an initialized connection.
pub(super) async fn check(peer: &mut RawPeer, outcomes: &mut Outcomes) {
    let garbage = peer.send_raw("{this is not JSON").await;
    let reply = peer.call(NO_SUCH_METHOD, json!({})).await;
    let name = peer.name().to_owned();
    match &reply.response {
        None => {
            outcomes.push((
                "rpc.parse-error.survives",
                Outcome::failed(
                    &name,
                    garbage,
                    "after this line the agent answered nothing more",
                ),
            ));
        }
        Some(response) => {
            outcomes.push(("rpc.parse-error.survives", Outcome::Passed));
            outcomes.push(("rpc.method-not-found", expect_code(&name, response, -32601)));
        }
    }
    let parse_error = reply
        .during
        .iter()
        .find(|r| r.error_code() == Some(-32700) && r.response_id() == Some(&Value::Null));
    outcomes.push((
        "rpc.parse-error.code",
        match parse_error {
            Some(_) => Outcome::Passed,
            None => Outcome::failed(
                &name,
                garbage,
                "no error -32700 with a null id came for this line before the next response",
            ),
        },
    ));

    let string_id = Value::String("acp-conform:ü/1 2".to_owned());
    let reply = peer
        .call_with_id(string_id.clone(), NO_SUCH_METHOD, json!({}))
        .await;
    outcomes.push(("rpc.id.string", echoed(&name, &reply, &string_id)));
    let number_id = Value::from(LARGE_ID);
    let reply = peer
        .call_with_id(number_id.clone(), NO_SUCH_METHOD, json!({}))
        .await;
    outcomes.push(("rpc.id.number", echoed(&name, &reply, &number_id)));

    let reply = peer
        .call("session/new", json!({"cwd": 5, "mcpServers": "none"}))
        .await;
    outcomes.push((
        "rpc.invalid-params",
        match &reply.response {
            Some(response) => expect_code(&name, response, -32602),
            None => Outcome::failed(&name, reply.request_line, "no response"),
        },
    ));

    let cancel = json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "conform-no-such-session"}});
    outcomes.push((
        "rpc.notification.unanswered",
        notification(peer, &cancel).await,
    ));
    let unknown = json!({"jsonrpc": "2.0", "method": "conform/unknown-notification", "params": {}});
    outcomes.push((
        "rpc.notification.unknown-ignored",
        notification(peer, &unknown).await,
    ));
}

/// Sends a notification and a barrier request; fails when a response with a null or missing
/// id came before the barrier's, or when the barrier got no answer.
async fn notification(peer: &mut RawPeer, message: &Value) -> Outcome {
    let sent = peer.send_raw(&message.to_string()).await;
    let barrier = peer.call(NO_SUCH_METHOD, json!({})).await;
    let name = peer.name().to_owned();
    if let Some(answer) = barrier
        .during
        .iter()
        .find(|r| r.response_id().is_some_and(Value::is_null))
    {
        return Outcome::failed(
            &name,
            answer.line,
            format!(
                "a response to the notification of line {sent}: {}",
                brief(answer.value.as_ref())
            ),
        );
    }
    if barrier.response.is_none() {
        return Outcome::failed(
            &name,
            barrier.request_line,
            format!("after the notification of line {sent} this request got no response"),
        );
    }
    Outcome::Passed
}

fn expect_code(name: &str, response: &Received, code: i64) -> Outcome {
    match response.error_code() {
        Some(got) if got == code => Outcome::Passed,
        _ => unexpected(name, response, format!("error {code}")),
    }
}

/// Passed when the response carries exactly `id`; otherwise the first response that came
/// with another id is the evidence.
fn echoed(name: &str, reply: &Reply, id: &Value) -> Outcome {
    if reply.response.is_some() {
        return Outcome::Passed;
    }
    match reply.during.iter().find(|r| r.response_id().is_some()) {
        Some(other) => Outcome::failed(
            name,
            other.line,
            format!(
                "expected a response with id {id}, got id {}",
                brief(other.response_id())
            ),
        ),
        None => Outcome::failed(
            name,
            reply.request_line,
            format!("no response with id {id} came"),
        ),
    }
}
