//! Our generated JSON Schemas against the reference schemas of ACP v1 and v2.
//!
//! For every `$defs` entry of the repository's `reference/acp-v{1,2}.schema.json` this checks that our
//! schema (with every unstable feature on) has a definition of the same name with the same
//! property names, the same required fields and the same discriminator values (the `const` and
//! `enum` values of its alternatives). Accepted differences are listed, with their reason, in
//! `schema_reference_differences.md` next to this file; any other difference fails the test.
#![cfg(all(
    feature = "schemars",
    feature = "unstable_session_notices",
    feature = "unstable_protocol_v2"
))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};

#[path = "support/reference.rs"]
mod reference_files;

use acp_schema::schema::{Protocol, generate};
use serde_json::Value;

fn reference(version: u8) -> Value {
    reference_files::read(&format!("acp-v{version}.schema.json"))
}

#[derive(Debug, PartialEq)]
struct Shape {
    properties: BTreeSet<String>,
    required: BTreeSet<String>,
    discriminators: BTreeSet<String>,
}

fn strings(value: Option<&Value>) -> BTreeSet<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn collect_discriminators(schema: &Value, out: &mut BTreeSet<String>) {
    if let Some(value) = schema.get("const") {
        out.insert(value.to_string());
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        out.extend(values.iter().map(Value::to_string));
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for property in properties.values() {
            if let Some(value) = property.get("const") {
                out.insert(value.to_string());
            }
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alternatives)) = schema.get(key) {
            alternatives
                .iter()
                .for_each(|alternative| collect_discriminators(alternative, out));
        }
    }
}

fn shape(schema: &Value) -> Shape {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut discriminators = BTreeSet::new();
    for key in ["oneOf", "anyOf", "const", "enum"] {
        if schema.get(key).is_some() {
            collect_discriminators(
                &serde_json::json!({ key: schema[key].clone() }),
                &mut discriminators,
            );
        }
    }
    Shape {
        properties,
        required: strings(schema.get("required")),
        discriminators,
    }
}

/// `(version, type, aspect) -> reason`, from the differences file.
fn accepted_differences() -> BTreeMap<(String, String, String), String> {
    let text = include_str!("schema_reference_differences.md");
    text.lines()
        .filter(|line| line.starts_with("| v1 ") || line.starts_with("| v2 "))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert!(
                cells.len() == 4 && !cells[3].is_empty(),
                "bad row (needs a reason): {line}"
            );
            (
                (
                    cells[0].to_owned(),
                    cells[1].to_owned(),
                    cells[2].to_owned(),
                ),
                cells[3].to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_reference_type_exists_with_the_same_shape() {
    let accepted = accepted_differences();
    let mut used = BTreeSet::new();
    let mut failures = Vec::new();
    for (version, protocol) in [(1u8, Protocol::V1), (2, Protocol::V2)] {
        let reference = reference(version);
        let ours = generate(protocol, true);
        let reference_defs = reference["$defs"].as_object().unwrap();
        let our_defs = ours["$defs"].as_object().unwrap();
        let mut matching = 0;
        for (name, reference_schema) in reference_defs {
            let tag = format!("v{version}");
            let Some(our_schema) = our_defs.get(name) else {
                let key = (tag.clone(), name.clone(), "missing".to_owned());
                if accepted.contains_key(&key) {
                    used.insert(key);
                } else {
                    failures.push(format!("v{version} {name}: missing from our schema"));
                }
                continue;
            };
            let (expected, actual) = (shape(reference_schema), shape(our_schema));
            let mut same = true;
            for (aspect, want, got) in [
                ("properties", &expected.properties, &actual.properties),
                ("required", &expected.required, &actual.required),
                (
                    "discriminators",
                    &expected.discriminators,
                    &actual.discriminators,
                ),
            ] {
                if want != got {
                    let key = (tag.clone(), name.clone(), aspect.to_owned());
                    if accepted.contains_key(&key) {
                        used.insert(key);
                    } else {
                        same = false;
                        failures.push(format!(
                            "v{version} {name}: {aspect} differ\n    reference: {want:?}\n    ours:      {got:?}"
                        ));
                    }
                }
            }
            if same {
                matching += 1;
            }
        }
        println!(
            "v{version}: {matching} of {} reference types match",
            reference_defs.len()
        );
    }
    let stale: Vec<_> = accepted.keys().filter(|key| !used.contains(*key)).collect();
    assert!(
        failures.is_empty(),
        "{} unlisted differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed differences that no longer occur: {stale:?}"
    );
}
