//! JSON-RPC error objects used by the runtime, in one place: what the agent, the client, the
//! connection and the transports answer with.

use acptk_schema::jsonrpc::{
    ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
};

/// The code ACP uses for a request cancelled with `$/cancel_request`.
pub const REQUEST_CANCELLED: i32 = -32800;

/// The code ACP uses for a resource (a file, a session) that does not exist.
pub const RESOURCE_NOT_FOUND: i32 = -32002;

/// The code ACP uses when a method needs authentication first.
pub const AUTH_REQUIRED: i32 = -32000;

/// The code this runtime answers a prompt with when the session's turn runs in another
/// agent process that shares the session store (it holds the session's lease): the
/// prompt changed nothing and may be sent again once that turn has ended, or once the
/// lease expired after that process stopped. In the JSON-RPC range for implementations.
pub const SESSION_BUSY_ELSEWHERE: i32 = -32010;

/// `-32010`: session `id` has a turn running on the agent instance `holder`, whose lease
/// runs out in `retry_after` unless renewed; `data` carries `{"sessionId", "holder",
/// "retryAfterMs"}`.
pub fn session_busy_elsewhere(
    id: &str,
    holder: &str,
    retry_after: std::time::Duration,
) -> ErrorObject {
    let seconds = retry_after.as_secs().max(1);
    ErrorObject::new(
        SESSION_BUSY_ELSEWHERE,
        format!(
            "session `{id}` has a turn running on another agent instance (`{holder}`): \
             this prompt was not started; send it again once that turn has ended (if that \
             instance stopped, its lease on the session expires within {seconds} s)"
        ),
    )
    .data(serde_json::json!({
        "sessionId": id,
        "holder": holder,
        "retryAfterMs": u64::try_from(retry_after.as_millis()).unwrap_or(u64::MAX),
    }))
}

/// The code this runtime answers a prompt with while the agent process is shutting down
/// ([`AgentServer::drain`](crate::agent::AgentServer::drain)): the prompt changed nothing;
/// send it again on a new connection (behind a load balancer, to another instance).
pub const SHUTTING_DOWN: i32 = -32011;

/// `-32011`: the agent is shutting down and starts no new turn.
pub fn shutting_down() -> ErrorObject {
    ErrorObject::new(
        SHUTTING_DOWN,
        "this agent instance is shutting down: the prompt was not started; reconnect and \
         send it again (behind a load balancer, another instance takes it)",
    )
}

/// `-32002`: the session `id` does not exist; `data` carries `{"sessionId": id}`.
pub fn session_not_found(id: &str) -> ErrorObject {
    ErrorObject::new(RESOURCE_NOT_FOUND, format!("session `{id}` not found"))
        .data(serde_json::json!({ "sessionId": id }))
}

/// `-32000`: the method needs authentication first.
pub fn auth_required(detail: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(AUTH_REQUIRED, format!("authentication required: {detail}"))
}

/// `-32601`: no handler for `method`.
pub fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(METHOD_NOT_FOUND, format!("method not found: `{method}`"))
}

/// `-32602`: the params did not decode; `detail` says where and why.
pub fn invalid_params(detail: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(INVALID_PARAMS, format!("invalid params: {detail}"))
}

/// `-32600`: not a valid JSON-RPC message.
pub fn invalid_request(detail: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(INVALID_REQUEST, format!("invalid request: {detail}"))
}

/// `-32700`: the text is not JSON.
pub fn parse_error(detail: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(PARSE_ERROR, format!("parse error: {detail}"))
}

/// `-32601` or `-32602`: the JSON-RPC error for a request whose method or params do not
/// fit the method table.
pub(crate) fn decode_error(error: acptk_schema::Error) -> ErrorObject {
    match error {
        acptk_schema::Error::UnknownMethod { method } => method_not_found(&method),
        other => invalid_params(other),
    }
}

/// `-32603`: the handler failed.
pub fn internal(detail: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(INTERNAL_ERROR, format!("internal error: {detail}"))
}

/// `-32800`: the request was cancelled by the peer.
pub fn request_cancelled() -> ErrorObject {
    ErrorObject::new(REQUEST_CANCELLED, "request cancelled")
}

/// `-32800` for a call of a turn that `session/cancel` cancelled (what
/// [`Error::Cancelled`](crate::Error::Cancelled) becomes); `data.cancelled` is `"turn"`, so
/// that the runtime tells it from any other `-32800`.
pub fn turn_cancelled() -> ErrorObject {
    ErrorObject::new(REQUEST_CANCELLED, "the turn was cancelled")
        .data(serde_json::json!({ "cancelled": "turn" }))
}

/// Whether `error` is [`turn_cancelled`]'s.
pub fn is_turn_cancelled(error: &ErrorObject) -> bool {
    error.code == REQUEST_CANCELLED
        && error
            .data
            .as_ref()
            .and_then(|data| data.get("cancelled"))
            .is_some_and(|value| value == "turn")
}

/// The JSON-RPC error for a store failure: `-32002` for a session the store does not
/// know, `-32602` for one of another protocol version, `-32010` for one whose turn runs in
/// another process, `-32603` with the store's message otherwise.
pub fn store_error(error: &crate::store::StoreError) -> ErrorObject {
    use crate::store::StoreError;
    match error {
        StoreError::Unknown(id) => session_not_found(id),
        StoreError::Leased {
            id,
            holder,
            remaining,
        } => session_busy_elsewhere(id, holder, *remaining),
        StoreError::WrongVersion { .. } => invalid_params(error),
        other => internal(other),
    }
}

/// The longest `data` detail [`describe`] shows, in characters.
const DETAIL_CHARS: usize = 300;

/// One line for an error object: `MESSAGE (code CODE)`, followed by `: DETAIL` when `data`
/// adds something: its `message` field when it is an object with a string `message`, the
/// string itself when it is a string, otherwise the compact JSON (cut after 300 characters).
/// A detail equal to the message is not repeated.
///
/// ```
/// use acptk_runtime::rpc::describe;
/// use acptk_schema::jsonrpc::ErrorObject;
///
/// let error = ErrorObject::new(-32603, "Internal error")
///     .data(serde_json::json!({"message": "stream disconnected before completion"}));
/// assert_eq!(describe(&error), "Internal error (code -32603): stream disconnected before completion");
/// assert_eq!(describe(&ErrorObject::new(-32000, "Authentication required")), "Authentication required (code -32000)");
/// ```
pub fn describe(error: &ErrorObject) -> String {
    let head = format!("{} (code {})", error.message.trim(), error.code);
    match detail(error) {
        Some(detail) if detail != error.message.trim() => format!("{head}: {detail}"),
        _ => head,
    }
}

/// What `data` adds to an error, as one line (see [`describe`]).
pub fn detail(error: &ErrorObject) -> Option<String> {
    let text = match error.data.as_ref()? {
        serde_json::Value::Null => return None,
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Object(object) => match object.get("message") {
            Some(serde_json::Value::String(message)) => message.clone(),
            _ => serde_json::Value::Object(object.clone()).to_string(),
        },
        other => other.to_string(),
    };
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return None;
    }
    Some(match line.char_indices().nth(DETAIL_CHARS) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line,
    })
}
