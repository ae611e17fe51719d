//! Robustness: no input makes the envelope parser or a routing decoder panic.
//!
//! This is the CI-sized version of the fuzz targets under `fuzz/` (see `fuzz/README.md`): the
//! same harness (`acptk_conformance::route`) fed with arbitrary bytes, arbitrary JSON, and
//! schema-generated payloads with random structural changes. Case counts are modest so that it
//! runs in seconds; the fuzzer is the place for long runs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::sync::OnceLock;

use acptk_conformance::rng::Rng;
use acptk_conformance::route::{all_methods, decode_params_everywhere, parse_and_route};
use acptk_conformance::schema_gen::{GenConfig, SchemaGen, mutate};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        // Strings that are tags, method names or field names of ACP, and arbitrary ones.
        prop::sample::select(vec![
            "notice",
            "agent_message_chunk",
            "tool_call_update",
            "text",
            "sessionUpdate",
            "session/update",
            "info",
            "",
            "_x",
            "2.0",
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "jsonrpc",
        "id",
        "method",
        "params",
        "result",
        "error",
        "sessionId",
        "update",
        "sessionUpdate",
        "type",
        "content",
        "text",
        "title",
        "severity",
        "_meta",
        "messageId",
        "toolCallId",
        "requestId",
        "protocolVersion",
        "outcome",
        "mode",
        "state",
        "k",
    ]);
    json_leaf().prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|entries| Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect::<Map<String, Value>>()
            )),
        ]
    })
}

fn schemas() -> &'static [Value; 2] {
    static SCHEMAS: OnceLock<[Value; 2]> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        [1, 2].map(|version| {
            acptk_conformance::reference::read(&format!("acp-v{version}.unstable.schema.json"))
        })
    })
}

/// Payload type names of the methods of a schema (`x-method`), with their method.
fn method_payloads(schema: &Value) -> Vec<(String, String)> {
    schema["$defs"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(name, def)| Some((def["x-method"].as_str()?.to_owned(), name.clone())))
        .collect()
}

proptest! {
    // Fixed seed: the same cases on every run, so CI is reproducible.
    #![proptest_config(ProptestConfig {
        cases: 256,
        rng_seed: RngSeed::Fixed(0x0AC9_F022),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Arbitrary bytes (as text, lossily) never panic the envelope parser or the decoders.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_and_route(&text);
    }

    /// Arbitrary JSON objects shaped like envelopes never panic.
    #[test]
    fn arbitrary_envelopes_never_panic(value in json_value(), method in prop::sample::select(all_methods())) {
        let mut envelope = Map::new();
        envelope.insert("jsonrpc".into(), "2.0".into());
        envelope.insert("method".into(), method.into());
        envelope.insert("params".into(), value.clone());
        let _ = parse_and_route(&Value::Object(envelope.clone()).to_string());
        envelope.remove("method");
        envelope.remove("params");
        envelope.insert("id".into(), 1.into());
        envelope.insert("result".into(), value.clone());
        let _ = parse_and_route(&Value::Object(envelope).to_string());
        // And the value as a whole line.
        let _ = parse_and_route(&value.to_string());
    }

    /// Arbitrary JSON as the params of every method never panics.
    #[test]
    fn arbitrary_params_never_panic(value in json_value()) {
        let raw = RawValue::from_string(value.to_string()).unwrap();
        for method in all_methods() {
            let _ = decode_params_everywhere(method, Some(&raw));
        }
    }

    /// Schema-generated payloads with random structural changes never panic, and whatever our
    /// decoder accepts re-encodes to JSON that decodes again to the same JSON value (key order
    /// aside).
    #[test]
    fn mutated_payloads_never_panic_and_round_trip(seed in any::<u64>(), changes in 0usize..4) {
        for (index, schema) in schemas().iter().enumerate() {
            let payloads = method_payloads(schema);
            let mut rng = Rng::new(seed);
            let (method, name) = rng.pick(&payloads).unwrap().clone();
            let mut generator = SchemaGen::new(schema, seed, GenConfig::default()).unwrap();
            let mut value = generator.instance_of(&name).unwrap();
            for _ in 0..changes {
                let _ = mutate(&mut value, &mut rng);
            }
            let raw = RawValue::from_string(value.to_string()).unwrap();
            let _ = decode_params_everywhere(&method, Some(&raw));
            round_trip(index, &method, &name, &raw);
        }
    }
}

/// Decoded, encoded and decoded again: the second encoding equals the first as a JSON value.
fn round_trip(version_index: usize, method: &str, name: &str, raw: &RawValue) {
    use acptk_schema::{v1, v2};
    fn check<T: serde::Serialize>(
        first: Result<T, acptk_schema::Error>,
        again: impl Fn(&RawValue) -> Result<T, acptk_schema::Error>,
        what: &str,
    ) {
        let Ok(first) = first else { return };
        let encoded = serde_json::to_string(&first).unwrap();
        let raw = RawValue::from_string(encoded.clone()).unwrap();
        let second = again(&raw).unwrap_or_else(|e| {
            panic!("{what}: re-decoding our own encoding failed: {e}\n{encoded}")
        });
        assert_eq!(
            serde_json::to_value(&second).unwrap(),
            serde_json::from_str::<serde_json::Value>(&encoded).unwrap(),
            "{what}"
        );
    }
    let what = format!("v{} {name} ({method})", version_index + 1);
    let request = name.ends_with("Request") || name.ends_with("Notification");
    match (version_index, request) {
        (0, true) => {
            check(
                v1::ClientRequest::decode(method, Some(raw)),
                |r| v1::ClientRequest::decode(method, Some(r)),
                &what,
            );
            check(
                v1::AgentRequest::decode(method, Some(raw)),
                |r| v1::AgentRequest::decode(method, Some(r)),
                &what,
            );
            check(
                v1::AgentNotification::decode(method, Some(raw)),
                |r| v1::AgentNotification::decode(method, Some(r)),
                &what,
            );
        }
        (0, false) => {
            check(
                v1::AgentResponse::decode(method, raw),
                |r| v1::AgentResponse::decode(method, r),
                &what,
            );
            check(
                v1::ClientResponse::decode(method, raw),
                |r| v1::ClientResponse::decode(method, r),
                &what,
            );
        }
        (_, true) => {
            check(
                v2::ClientRequest::decode(method, Some(raw)),
                |r| v2::ClientRequest::decode(method, Some(r)),
                &what,
            );
            check(
                v2::AgentRequest::decode(method, Some(raw)),
                |r| v2::AgentRequest::decode(method, Some(r)),
                &what,
            );
            check(
                v2::AgentNotification::decode(method, Some(raw)),
                |r| v2::AgentNotification::decode(method, Some(r)),
                &what,
            );
        }
        (_, false) => {
            check(
                v2::AgentResponse::decode(method, raw),
                |r| v2::AgentResponse::decode(method, r),
                &what,
            );
            check(
                v2::ClientResponse::decode(method, raw),
                |r| v2::ClientResponse::decode(method, r),
                &what,
            );
        }
    }
}
