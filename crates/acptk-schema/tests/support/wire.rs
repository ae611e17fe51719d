//! Wire checks shared by the tests of the unstable features: a value decodes and encodes back
//! unchanged, decodes to a given encoding, or is rejected, through both decoding paths (from a
//! parsed value and from text).
#![allow(dead_code)]

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Decodes `input` as `T` (from a value and from text) and checks that it encodes back to the
/// same JSON.
pub fn round_trip<T: DeserializeOwned + Serialize + std::fmt::Debug>(input: &Value) -> T {
    normalises(input, input)
}

/// Decodes `input` as `T` (from a value and from text) and checks that it encodes to
/// `expected`.
pub fn normalises<T: DeserializeOwned + Serialize + std::fmt::Debug>(
    input: &Value,
    expected: &Value,
) -> T {
    let decoded: T = serde_json::from_value(input.clone())
        .unwrap_or_else(|error| panic!("{input} should decode: {error}"));
    assert_eq!(
        &serde_json::to_value(&decoded).unwrap(),
        expected,
        "encoding of {input}"
    );
    let from_text: T = serde_json::from_str(&input.to_string())
        .unwrap_or_else(|error| panic!("{input} should decode from text: {error}"));
    assert_eq!(
        &serde_json::to_value(&from_text).unwrap(),
        expected,
        "encoding of {input} (decoded from text)"
    );
    decoded
}

/// Checks that `input` does not decode as `T`, from a value or from text; returns the message
/// of the error from text.
pub fn rejects<T: DeserializeOwned + std::fmt::Debug>(input: &Value) -> String {
    let from_value = serde_json::from_value::<T>(input.clone());
    assert!(
        from_value.is_err(),
        "{input} should be rejected, got {from_value:?}"
    );
    match serde_json::from_str::<T>(&input.to_string()) {
        Ok(value) => panic!("{input} should be rejected (text), got {value:?}"),
        Err(error) => error.to_string(),
    }
}

/// `value` as the fields of an unknown variant (a JSON object).
pub fn fields(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("{other} is not an object"),
    }
}
