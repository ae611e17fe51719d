//! Helpers shared by the method-surface test files (`methods_sessions*.rs`).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Decodes `input` as `T`, checks the decoded value with `check`, encodes it again and
/// compares the result with `expected` (the input itself when `None`).
pub fn round_trip<T>(name: &str, input: &Value, expected: Option<&Value>, check: fn(&T) -> bool)
where
    T: DeserializeOwned + Serialize + std::fmt::Debug,
{
    let decoded: T = serde_json::from_value(input.clone())
        .unwrap_or_else(|error| panic!("{name}: {input} failed to decode: {error}"));
    assert!(
        check(&decoded),
        "{name}: {input} decoded to the wrong variant: {decoded:?}"
    );
    let encoded = serde_json::to_value(&decoded).unwrap();
    assert_eq!(
        &encoded,
        expected.unwrap_or(input),
        "{name}: re-encoding differs"
    );
    // Decoding from a string (the streaming path) must agree with decoding from a value.
    let from_text: T = serde_json::from_str(&input.to_string()).unwrap();
    assert_eq!(
        serde_json::to_value(&from_text).unwrap(),
        encoded,
        "{name}: text decode differs"
    );
}

/// Checks that `input` does not decode as `T`; returns the error message.
pub fn rejects<T: DeserializeOwned + std::fmt::Debug>(name: &str, input: &Value) -> String {
    match serde_json::from_value::<T>(input.clone()) {
        Ok(value) => panic!("{name}: {input} should fail but decoded to {value:?}"),
        Err(error) => {
            assert!(
                serde_json::from_str::<T>(&input.to_string()).is_err(),
                "{name}: text decode"
            );
            error.to_string()
        }
    }
}

/// A table of cases for one type: `(name, input, expected re-encoding or None, variant check)`.
pub type Cases<T> = Vec<(&'static str, Value, Option<Value>, fn(&T) -> bool)>;

pub fn run<T>(cases: Cases<T>)
where
    T: DeserializeOwned + Serialize + std::fmt::Debug,
{
    for (name, input, expected, check) in cases {
        round_trip::<T>(name, &input, expected.as_ref(), check);
    }
}

pub fn run_rejects<T: DeserializeOwned + std::fmt::Debug>(cases: Vec<(&'static str, Value)>) {
    for (name, input) in cases {
        rejects::<T>(name, &input);
    }
}

pub fn form_schema() -> Value {
    json!({
        "type": "object",
        "title": "Branch",
        "properties": {
            "branch": {"type": "string", "minLength": 1},
            "count": {"type": "integer", "minimum": 0},
            "ratio": {"type": "number", "default": 0.5},
            "force": {"type": "boolean", "default": false},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
            "labels": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
            "future": {"type": "color", "palette": "web"}
        },
        "required": ["branch"]
    })
}

/// A type name and a function registering that type's schema.
#[cfg(feature = "schemars")]
pub type SchemaCheck = (&'static str, fn(&mut schemars::SchemaGenerator));

/// The [`SchemaCheck`]s of these types, each under its own name:
/// `schema_checks![McpServer, IdempotencyKey]`.
#[cfg(feature = "schemars")]
macro_rules! schema_checks {
    ($($ty:ident),* $(,)?) => {
        vec![$(
            (stringify!($ty), (|g| drop(g.subschema_for::<$ty>())) as fn(&mut schemars::SchemaGenerator)),
        )*]
    };
}
#[cfg(feature = "schemars")]
pub(crate) use schema_checks;

/// The [`SchemaCheck`]s of the method-surface types both versions have (in the version module
/// the macro is used in), then of the `extra` ones.
#[cfg(feature = "schemars")]
macro_rules! method_schema_checks {
    ($($extra:ident),* $(,)?) => {
        schema_checks![
            CreateElicitationRequest,
            ElicitationFormMode,
            ElicitationUrlMode,
            ElicitationContentValue,
            MultiSelectItems,
            CreateElicitationResponse,
            SessionConfigOption,
            SessionConfigSelectOptions,
            SetSessionConfigOptionRequest,
            McpServer,
            RequestPermissionOutcome,
            $($extra,)*
        ]
    };
}
#[cfg(feature = "schemars")]
pub(crate) use method_schema_checks;

/// Checks that the generated JSON Schema of each type equals its `$defs` entry in the reference.
#[cfg(feature = "schemars")]
pub fn check_schemas(reference: &str, checks: Vec<SchemaCheck>) {
    let reference = super::reference_files::read(&super::reference_files::surface_file(reference));
    for (name, register) in checks {
        let mut generator =
            schemars::SchemaGenerator::new(schemars::generate::SchemaSettings::draft2020_12());
        register(&mut generator);
        let defs = generator.take_definitions(true);
        let mut ours = defs
            .get(name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} not generated"));
        let mut theirs = reference["$defs"][name].clone();
        super::reference_files::normalise_ours(&mut ours);
        for schema in [&mut ours, &mut theirs] {
            strip_annotations(schema);
        }
        assert_eq!(ours, theirs, "schema of {name} differs from the reference");
    }
}

/// Removes keys that only annotate (descriptions, method markers), which the reference
/// strips or this crate adds elsewhere, and puts the tags an "other" alternative excludes
/// (`not.anyOf`, a set) in a fixed order: the official crate appends the tags of its unstable
/// variants to that list, wherever the variants themselves are.
#[cfg(feature = "schemars")]
pub fn strip_annotations(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in ["description", "x-side", "x-method", "x-scope", "x-state"] {
                map.remove(key);
            }
            if let Some(Value::Array(excluded)) =
                map.get_mut("not").and_then(|not| not.get_mut("anyOf"))
            {
                excluded.sort_by_key(|tag| tag.to_string());
            }
            map.values_mut().for_each(strip_annotations);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_annotations),
        _ => {}
    }
}
