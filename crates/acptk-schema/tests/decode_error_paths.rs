//! A payload that does not decode names where it broke the way serde_path_to_error did before
//! issue 37 (the path was then found by decoding a second time through it): every member of
//! the session updates in `tests/data` replaced by a value of another type (a string also by a
//! name no enum or tag has) or removed, and the path and message of each failure compared with
//! what serde_path_to_error says.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use acptk_schema::Error;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// Every variant of `root` with one member or element (at `at` or below) replaced by a value
/// of another type (or a string by an unknown name), or one member removed.
fn broken_variants(root: &Value, at: &mut Vec<Value>, out: &mut Vec<Value>) {
    let node = pointer(&mut root.clone(), at).clone();
    let others = match &node {
        // A string no enum or union tag has: an unknown variant wherever a name was.
        Value::String(_) => vec![json!(12345), json!({"x": 1}), json!("no_such_name")],
        Value::Number(_) => vec![json!("x"), json!(-1)],
        Value::Bool(_) => vec![json!("x")],
        Value::Null => vec![json!([1])],
        Value::Array(_) => vec![json!("x")],
        Value::Object(_) => vec![json!("x"), json!({})],
    };
    for other in others {
        let mut variant = root.clone();
        *pointer(&mut variant, at) = other;
        out.push(variant);
    }
    match &node {
        Value::Object(members) => {
            for key in members.keys() {
                let mut variant = root.clone();
                pointer(&mut variant, at)
                    .as_object_mut()
                    .unwrap()
                    .remove(key);
                out.push(variant);
                at.push(json!(key));
                broken_variants(root, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for index in 0..items.len() {
                at.push(json!(index));
                broken_variants(root, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// The value at `at` (keys and indices) inside `value`.
fn pointer<'a>(value: &'a mut Value, at: &[Value]) -> &'a mut Value {
    at.iter().fold(value, |value, step| match step {
        Value::String(key) => value.get_mut(key.as_str()).unwrap(),
        step => value.get_mut(step.as_u64().unwrap() as usize).unwrap(),
    })
}

/// Compares the failures of every broken variant of each line of `file`, decoded by `decode`,
/// with serde_path_to_error's path and message for `T`; returns how many failed.
fn compare<T: DeserializeOwned>(
    file: &str,
    decode: impl Fn(&RawValue) -> Result<(), Error>,
) -> usize {
    let text = std::fs::read_to_string(format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    let mut failures = 0;
    for line in text.lines() {
        let mut variants = Vec::new();
        broken_variants(
            &serde_json::from_str(line).unwrap(),
            &mut Vec::new(),
            &mut variants,
        );
        for variant in variants {
            let raw = serde_json::value::to_raw_value(&variant).unwrap();
            let Err(Error::InvalidParams { path, message, .. }) = decode(&raw) else {
                continue;
            };
            failures += 1;
            let mut deserializer = serde_json::Deserializer::from_str(raw.get());
            let expected = serde_path_to_error::deserialize::<_, T>(&mut deserializer)
                .err()
                .unwrap_or_else(|| panic!("{raw}: only one decoder failed"));
            assert_eq!(path, expected.path().to_string(), "{raw}");
            assert_eq!(message, expected.into_inner().to_string(), "{raw}");
        }
    }
    failures
}

#[test]
fn paths_of_broken_v1_session_updates() {
    use acptk_schema::v1::{AgentNotification, SessionNotification};
    let failures = compare::<SessionNotification>("v1-session-updates.jsonl", |raw| {
        AgentNotification::decode("session/update", Some(raw)).map(drop)
    });
    assert!(failures > 500, "only {failures} broken payloads failed");
}

#[cfg(feature = "unstable_protocol_v2")]
#[test]
fn paths_of_broken_v2_session_updates() {
    use acptk_schema::v2::{AgentNotification, UpdateSessionNotification};
    let failures = compare::<UpdateSessionNotification>("v2-session-updates.jsonl", |raw| {
        AgentNotification::decode("session/update", Some(raw)).map(drop)
    });
    assert!(failures > 500, "only {failures} broken payloads failed");
}
