//! The structure of a JSON Schema definition, as the reference comparisons see it: property
//! names, required fields, constants, and the same for each alternative of a union.
//!
//! Used by `schema_reference.rs` here and by the coverage test of `acptk-conformance` (which
//! includes this file), so both compare with one rule. Descriptions, titles, formats and the
//! `x-*` annotations are not part of a shape; neither are the schemas of the properties
//! themselves (each named type is compared as its own definition).
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The structure of one schema.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shape {
    /// The names under `properties`.
    pub properties: BTreeSet<String>,
    /// The names under `required`.
    pub required: BTreeSet<String>,
    /// Every `const` and `enum` value of the schema itself and of its properties, as JSON text.
    pub constants: BTreeSet<String>,
    /// The shape of each alternative under `anyOf` / `oneOf`, in a fixed order.
    pub alternatives: Vec<Shape>,
}

/// The shape of `schema`.
pub fn shape(schema: &Value) -> Shape {
    let mut result = Shape::default();
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            result.properties.insert(name.clone());
            constants_of(property, &mut result.constants);
        }
    }
    if let Some(Value::Array(required)) = schema.get("required") {
        result
            .required
            .extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    constants_of(schema, &mut result.constants);
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alternatives)) = schema.get(key) {
            result.alternatives.extend(alternatives.iter().map(shape));
        }
    }
    result.alternatives.sort();
    result
}

fn constants_of(schema: &Value, out: &mut BTreeSet<String>) {
    if let Some(value) = schema.get("const") {
        out.insert(value.to_string());
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        out.extend(values.iter().map(Value::to_string));
    }
}

/// The aspects in which two shapes differ, each with a short account of the difference:
/// `properties`, `required`, `constants` (of the schema and its properties) and
/// `alternatives` (the alternatives of a union, compared as a whole).
pub fn differences(reference: &Shape, ours: &Shape) -> Vec<(&'static str, String)> {
    fn sets(reference: &BTreeSet<String>, ours: &BTreeSet<String>) -> Option<String> {
        (reference != ours).then(|| {
            let missing: Vec<_> = reference.difference(ours).collect();
            let extra: Vec<_> = ours.difference(reference).collect();
            format!("missing {missing:?}, extra {extra:?}")
        })
    }
    let mut found = Vec::new();
    for (aspect, reference, ours) in [
        ("properties", &reference.properties, &ours.properties),
        ("required", &reference.required, &ours.required),
        ("constants", &reference.constants, &ours.constants),
    ] {
        if let Some(account) = sets(reference, ours) {
            found.push((aspect, account));
        }
    }
    if reference.alternatives != ours.alternatives {
        let missing: Vec<_> = reference
            .alternatives
            .iter()
            .filter(|alternative| !ours.alternatives.contains(alternative))
            .collect();
        let extra: Vec<_> = ours
            .alternatives
            .iter()
            .filter(|alternative| !reference.alternatives.contains(alternative))
            .collect();
        found.push((
            "alternatives",
            format!(
                "{} vs {} alternatives; only in the reference: {missing:?}; only in ours: {extra:?}",
                reference.alternatives.len(),
                ours.alternatives.len()
            ),
        ));
    }
    found
}

/// The result of comparing every definition of a reference schema with ours.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Definitions of the reference that ours has with the same shape (or whose differences
    /// are all accepted).
    pub matching: usize,
    /// Definitions of the reference.
    pub total: usize,
    /// Unaccepted differences, one line each.
    pub failures: Vec<String>,
    /// The accepted differences that were used, as `(type, aspect)`.
    pub used: BTreeSet<(String, String)>,
}

/// Compares each `$defs` entry of `reference` with the same entry of `ours`. `accepted` maps
/// `(type, aspect)` (aspect `missing` for an absent type) to the reason a difference is
/// accepted.
pub fn compare(
    reference: &Value,
    ours: &Value,
    accepted: &BTreeMap<(String, String), String>,
) -> Coverage {
    let empty = serde_json::Map::new();
    let reference_defs = reference["$defs"].as_object().unwrap_or(&empty);
    let our_defs = ours["$defs"].as_object().unwrap_or(&empty);
    let mut coverage = Coverage {
        total: reference_defs.len(),
        ..Coverage::default()
    };
    for (name, reference_schema) in reference_defs {
        let mut same = true;
        let mut note = |aspect: &str, account: String| {
            let key = (name.clone(), aspect.to_owned());
            if accepted.contains_key(&key) {
                coverage.used.insert(key);
            } else {
                same = false;
                coverage
                    .failures
                    .push(format!("{name}: {aspect}: {account}"));
            }
        };
        match our_defs.get(name) {
            None => note("missing", "not in our schema".to_owned()),
            Some(our_schema) => {
                for (aspect, account) in differences(&shape(reference_schema), &shape(our_schema)) {
                    note(aspect, account);
                }
            }
        }
        if same {
            coverage.matching += 1;
        }
    }
    coverage
}

/// Reads a table of accepted differences from Markdown: rows `| version | type | aspect |
/// reason |` whose version is `version` (such as `v1`). A row without a reason is an error.
pub fn accepted_differences(markdown: &str, version: &str) -> BTreeMap<(String, String), String> {
    markdown
        .lines()
        .filter(|line| line.starts_with("| v1 ") || line.starts_with("| v2 "))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert!(
                cells.len() == 4 && !cells[3].is_empty(),
                "bad row (needs a version, a type, an aspect and a reason): {line}"
            );
            (cells[0] == version).then(|| {
                (
                    (cells[1].to_owned(), cells[2].to_owned()),
                    cells[3].to_owned(),
                )
            })
        })
        .collect()
}
