//! Reading the JSON of answers and reports: the string field of each element of an array (as
//! the tests compare lists of ids and names), the current value of a session config option.
//! Include it with `#[path = "support/json.rs"] mod json;`.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use serde_json::Value;

/// The `key` string of each element of `array` (a panic when `array` is not an array of
/// objects with a string `key`).
pub fn json_strings<'a>(array: &'a Value, key: &str) -> Vec<&'a str> {
    array
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {array}"))
        .iter()
        .map(|item| {
            item[key]
                .as_str()
                .unwrap_or_else(|| panic!("no string {key} in {item}"))
        })
        .collect()
}

/// The current value of config option `name` in a session response or a
/// `set_config_option` result (v1 `id`, v2 `configId`); null when it has none.
pub fn option(result: &Value, name: &str) -> Value {
    result["configOptions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|option| option["id"] == name || option["configId"] == name)
        .map_or(Value::Null, |option| option["currentValue"].clone())
}
