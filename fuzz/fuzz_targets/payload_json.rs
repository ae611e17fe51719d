//! Arbitrary JSON values (built by `arbitrary`, so always well-formed JSON) as the params of
//! every method and the result of every method, in both protocol versions, and wrapped in a
//! JSON-RPC envelope. Nothing may panic.
#![no_main]

use acptk_conformance::route::{
    all_methods, decode_params_everywhere, decode_result_everywhere, parse_and_route,
};
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Keys and strings that ACP uses, so that random objects often look like real payloads.
const WORDS: &[&str] = &[
    "sessionId",
    "update",
    "sessionUpdate",
    "notice",
    "severity",
    "title",
    "description",
    "_meta",
    "type",
    "text",
    "content",
    "agent_message_chunk",
    "tool_call_update",
    "toolCallId",
    "status",
    "messageId",
    "requestId",
    "protocolVersion",
    "outcome",
    "selected",
    "mode",
    "state",
    "idle",
    "stopReason",
    "info",
    "warning",
    "error",
    "",
    "jsonrpc",
    "2.0",
    "method",
    "params",
    "result",
];

/// A JSON value with a bounded depth.
#[derive(Debug)]
struct Json(Value);

fn value(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    let choice = if depth == 0 {
        u.int_in_range(0..=5)?
    } else {
        u.int_in_range(0..=7)?
    };
    Ok(match choice {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Value::from(u.arbitrary::<f64>()?),
        4 => Value::from(*u.choose(WORDS)?),
        5 => Value::from(u.arbitrary::<String>()?),
        6 => {
            let len = u.int_in_range(0..=6)?;
            Value::Array(
                (0..len)
                    .map(|_| value(u, depth - 1))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => {
            let len = u.int_in_range(0..=8)?;
            let mut map = Map::new();
            for _ in 0..len {
                let key = if u.arbitrary()? {
                    (*u.choose(WORDS)?).to_owned()
                } else {
                    u.arbitrary::<String>()?
                };
                map.insert(key, value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

impl<'a> Arbitrary<'a> for Json {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        value(u, 6).map(Json)
    }
}

fuzz_target!(|input: (u8, Json)| {
    let (selector, Json(payload)) = input;
    let methods = all_methods();
    let method = methods[usize::from(selector) % methods.len()];
    let Ok(raw) = RawValue::from_string(payload.to_string()) else {
        return;
    };
    for method in &methods {
        let _ = decode_params_everywhere(method, Some(&raw));
        let _ = decode_result_everywhere(method, &raw);
    }
    let mut envelope = Map::new();
    envelope.insert("jsonrpc".into(), "2.0".into());
    envelope.insert("method".into(), method.into());
    envelope.insert("params".into(), payload);
    let _ = parse_and_route(&Value::Object(envelope).to_string());
});
