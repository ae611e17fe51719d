//! `acptk-schema`'s hand-written encoders of the hot types against serde's generic path, over
//! the differential corpus: every `session/update` variant generated from the reference
//! schemas (plain, deviating and mutated instances), the hand-written edge cases and the
//! benchmark stream, in both versions.
//!
//! `serde_json::to_vec` (the compact serializer into a vector) takes the encoders; the same
//! serializer with a formatter of our own (which writes the same compact format, but is not
//! recognised) takes serde's generic path. Every decoded value must come out the same both
//! ways, alone and inside its JSON-RPC envelope.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use acptk_conformance::rng::Rng;
use acptk_conformance::schema_gen::{GenConfig, SchemaGen, mutate};
use acptk_conformance::stream::{Version, session_updates};
use acptk_schema::jsonrpc::Notification;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Instances per `SessionUpdate` alternative and schema.
const PER_VARIANT: u64 = 48;

/// The compact format under a type the encoders do not recognise.
struct GenericFormatter;

impl serde_json::ser::Formatter for GenericFormatter {}

fn generic<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    value
        .serialize(&mut serde_json::Serializer::with_formatter(
            &mut out,
            GenericFormatter,
        ))
        .unwrap();
    out
}

/// Decodes each text as `T` and compares both encodings; returns how many decoded.
fn check<T: DeserializeOwned + Serialize>(texts: &[String]) -> usize {
    let mut decoded = 0;
    for text in texts {
        let Ok(value) = serde_json::from_str::<T>(text) else {
            continue;
        };
        let fast = serde_json::to_vec(&value).unwrap();
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            String::from_utf8(generic(&value)).unwrap(),
            "input: {text}"
        );
        let envelope = Notification::new("session/update", Some(&value));
        assert_eq!(
            serde_json::to_vec(&envelope).unwrap(),
            generic(&envelope),
            "input: {text}"
        );
        decoded += 1;
    }
    decoded
}

/// `session/update` params for every alternative of the reference `SessionUpdate`, with
/// `_meta` on a third of them, plus a mutation of each.
fn generated(schema_file: &str, seed: u64) -> Vec<String> {
    let schema = acptk_conformance::reference::read(schema_file);
    let update = &schema["$defs"]["SessionUpdate"];
    let alternatives = update
        .get("oneOf")
        .or(update.get("anyOf"))
        .and_then(Value::as_array)
        .unwrap();
    let mut generator = SchemaGen::new(&schema, seed, GenConfig::default()).unwrap();
    let mut rng = Rng::new(seed ^ 0x00E2_C0DE);
    let mut texts = Vec::new();
    for alternative in alternatives {
        for index in 0..PER_VARIANT {
            let session_id = generator.instance_of("SessionId").unwrap();
            let update = generator.instance(alternative);
            let mut params = serde_json::json!({ "sessionId": session_id, "update": update });
            if index % 3 == 0 {
                params["_meta"] =
                    serde_json::json!({ "trace": format!("t\"{index}\n"), "n": [1.5, -2] });
            }
            texts.push(params.to_string());
            if mutate(&mut params, &mut rng).is_some() {
                texts.push(params.to_string());
            }
        }
    }
    texts
}

/// The `session/update` payloads of the hand-written edge cases for `version` (1 or 2).
fn edge_cases(version: u64) -> Vec<String> {
    include_str!("data/edge_cases.jsonl")
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|case| case["method"] == "session/update")
        .filter(|case| case["v"] == 0 || case["v"] == version)
        .map(|case| case["payload"].to_string())
        .collect()
}

#[test]
fn v1_encoders_match_serde_on_the_corpus() {
    let mut texts = generated("acp-v1.unstable.schema.json", 0x0E1C_0001);
    texts.extend(generated("acp-v1.schema.json", 0x0E1C_0002));
    let edges = edge_cases(1);
    assert!(!edges.is_empty());
    texts.extend(edges);
    texts.extend(session_updates(Version::V1, 500, 0x5E55_1011));
    let decoded = check::<acptk_schema::v1::SessionNotification>(&texts);
    assert!(
        decoded * 2 > texts.len(),
        "only {decoded} of {} texts decoded",
        texts.len()
    );
}

#[test]
fn v2_encoders_match_serde_on_the_corpus() {
    let mut texts = generated("acp-v2.unstable.schema.json", 0x0E1C_0003);
    texts.extend(generated("acp-v2.schema.json", 0x0E1C_0004));
    texts.extend(edge_cases(2));
    texts.extend(session_updates(Version::V2, 500, 0x5E55_1011));
    let decoded = check::<acptk_schema::v2::UpdateSessionNotification>(&texts);
    assert!(
        decoded * 2 > texts.len(),
        "only {decoded} of {} texts decoded",
        texts.len()
    );
}
