//! Runs every routing decoder of `acptk-schema` on a message, for robustness tests and fuzzing.
//!
//! A JSON-RPC message does not say which protocol version or which side sent it, so these
//! helpers try it with every decoder that could apply: both versions, both directions, and for
//! a response every method of the tables (a response carries no method name). Whatever decodes
//! is encoded again, so encoding is exercised on every value the decoders can produce. None of
//! this may panic, whatever the input.

use acptk_schema::jsonrpc::{Message, RawValue};
use acptk_schema::{v1, v2};
use serde::Serialize;

/// Encodes a decoded value (when there is one) and reports whether there was.
fn encode<T: Serialize>(decoded: Result<T, acptk_schema::Error>) -> bool {
    match decoded {
        Ok(value) => {
            // Encoding a decoded value cannot fail for these types; the result only matters in
            // that it must not panic.
            let _ = serde_json::to_vec(&value);
            true
        }
        Err(_) => false,
    }
}

/// Every request and notification method name of both versions (the proxy chain tables
/// included), plus a few that are not in any table (an extension method, an unknown one, one of another version).
pub fn all_methods() -> Vec<&'static str> {
    let mut methods: Vec<&'static str> = [
        v1::ClientRequest::METHODS,
        v1::AgentRequest::METHODS,
        v1::ClientNotification::METHODS,
        v1::AgentNotification::METHODS,
        v1::ProtocolNotification::METHODS,
        v2::ClientRequest::METHODS,
        v2::AgentRequest::METHODS,
        v2::ClientNotification::METHODS,
        v2::AgentNotification::METHODS,
        v2::ProtocolNotification::METHODS,
        v1::ProxyRequest::METHODS,
        v1::ProxyNotification::METHODS,
        v2::ProxyRequest::METHODS,
        v2::ProxyNotification::METHODS,
    ]
    .concat();
    methods.extend(["_vendor/extension", "no/such_method", ""]);
    methods.sort_unstable();
    methods.dedup();
    methods
}

/// Decodes `params` as the params of `method` with every request and notification decoder of
/// both versions. Returns how many accepted.
pub fn decode_params_everywhere(method: &str, params: Option<&RawValue>) -> usize {
    [
        encode(v1::ClientRequest::decode(method, params)),
        encode(v1::AgentRequest::decode(method, params)),
        encode(v1::ClientNotification::decode(method, params)),
        encode(v1::AgentNotification::decode(method, params)),
        encode(v1::ProtocolNotification::decode(method, params)),
        encode(v2::ClientRequest::decode(method, params)),
        encode(v2::AgentRequest::decode(method, params)),
        encode(v2::ClientNotification::decode(method, params)),
        encode(v2::AgentNotification::decode(method, params)),
        encode(v2::ProtocolNotification::decode(method, params)),
        encode(v1::ProxyRequest::decode(method, params)),
        encode(v1::ProxyNotification::decode(method, params)),
        encode(v2::ProxyRequest::decode(method, params)),
        encode(v2::ProxyNotification::decode(method, params)),
    ]
    .into_iter()
    .filter(|accepted| *accepted)
    .count()
}

/// Decodes `result` as the result of `method` with every response decoder of both versions.
/// Returns how many accepted.
pub fn decode_result_everywhere(method: &str, result: &RawValue) -> usize {
    [
        encode(v1::AgentResponse::decode(method, result)),
        encode(v1::ClientResponse::decode(method, result)),
        encode(v2::AgentResponse::decode(method, result)),
        encode(v2::ClientResponse::decode(method, result)),
        encode(v1::ProxyResponse::decode(method, result)),
        encode(v2::ProxyResponse::decode(method, result)),
    ]
    .into_iter()
    .filter(|accepted| *accepted)
    .count()
}

/// Routes a parsed message to every decoder that could apply: its method's params decoders
/// for a request or notification, and the result decoders of every method for a successful
/// response. The message itself is encoded again too. Returns how many decoders accepted.
pub fn route_everywhere(message: &Message) -> usize {
    let _ = serde_json::to_vec(message);
    match message {
        Message::Request(request) => {
            decode_params_everywhere(&request.method, request.params.as_deref())
        }
        Message::Notification(notification) => {
            decode_params_everywhere(&notification.method, notification.params.as_deref())
        }
        Message::Response(response) => match &response.result {
            Ok(result) => all_methods()
                .into_iter()
                .map(|method| decode_result_everywhere(method, result))
                .sum(),
            Err(_) => 0,
        },
        _ => 0,
    }
}

/// Parses one line of an ACP stream and routes it with [`route_everywhere`]. Returns `None`
/// when the line is not a JSON-RPC message.
pub fn parse_and_route(line: &str) -> Option<usize> {
    line.parse::<Message>()
        .ok()
        .map(|message| route_everywhere(&message))
}
