//! JSON Schema generation for both protocol versions (cargo feature `schemars`).
//!
//! [`generate`] builds the schema of one protocol version. Parts that exist only with an
//! unstable cargo feature carry an `x-unstable` marker naming the feature; asking for the
//! stable schema removes every marked part and every definition only they used, so the stable
//! schema is the same whether or not the unstable features were compiled in.

use std::collections::BTreeSet;

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

pub use crate::schema_parts::UNSTABLE_KEY;

/// An ACP protocol version, for schema generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// ACP version 1.
    V1,
    /// ACP version 2 (cargo feature `unstable_protocol_v2`).
    #[cfg(feature = "unstable_protocol_v2")]
    V2,
}

/// Builds the JSON Schema of `protocol`.
///
/// With `unstable` false, everything behind an unstable cargo feature is left out. With
/// `unstable` true, the unstable parts that were compiled in are kept, marked with
/// [`UNSTABLE_KEY`].
pub fn generate(protocol: Protocol, unstable: bool) -> Value {
    let mut generator = SchemaGenerator::new(SchemaSettings::draft2020_12());
    let (title, roots) = match protocol {
        Protocol::V1 => (
            "Agent Client Protocol v1",
            crate::v1::schema_roots(&mut generator),
        ),
        #[cfg(feature = "unstable_protocol_v2")]
        Protocol::V2 => (
            "Agent Client Protocol v2",
            crate::v2::schema_roots(&mut generator),
        ),
    };
    let defs: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    let mut root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "anyOf": roots,
        "$defs": defs,
    });
    strip_descriptions(&mut root);
    if !unstable {
        strip_unstable(&mut root);
        drop_unused_defs(&mut root);
        prune_defaults(&mut root);
    }
    sort_keys(root)
}

/// Rebuilds every object with its keys in sorted order, so the output is the same whether or
/// not serde_json's `preserve_order` feature is on somewhere in the build (cargo unifies it
/// across the dependency graph).
fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sort_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

/// Removes the `description` keywords that schemars takes from rustdoc: they are written for
/// Rust readers (links, code examples), and the reference schemas carry none either.
fn strip_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            for (key, child) in map.iter_mut() {
                if !matches!(key.as_str(), "const" | "default" | "enum" | "examples") {
                    strip_descriptions(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

fn strip_unstable(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get_mut("properties") {
                let removed: Vec<String> = props
                    .iter()
                    .filter(|(_, schema)| is_unstable(schema))
                    .map(|(name, _)| name.clone())
                    .collect();
                for name in &removed {
                    props.remove(name);
                }
                if let Some(Value::Array(required)) = map.get_mut("required") {
                    required.retain(|name| !removed.iter().any(|r| name == r.as_str()));
                }
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(alternatives)) = map.get_mut(key) {
                    alternatives.retain(|alternative| !is_unstable(alternative));
                }
            }
            for child in map.values_mut() {
                strip_unstable(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_unstable),
        _ => {}
    }
}

fn is_unstable(schema: &Value) -> bool {
    schema.get(UNSTABLE_KEY).is_some()
}

fn drop_unused_defs(root: &mut Value) {
    let Some(Value::Object(defs)) = root.get("$defs").cloned() else {
        return;
    };
    let mut reachable = BTreeSet::new();
    let mut pending = Vec::new();
    let mut top = root.clone();
    if let Value::Object(map) = &mut top {
        map.remove("$defs");
    }
    collect_refs(&top, &mut pending);
    while let Some(name) = pending.pop() {
        if reachable.insert(name.clone())
            && let Some(schema) = defs.get(&name)
        {
            collect_refs(schema, &mut pending);
        }
    }
    if let Some(Value::Object(defs)) = root.get_mut("$defs") {
        defs.retain(|name, _| reachable.contains(name));
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some(name) = reference.strip_prefix("#/$defs/")
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|child| collect_refs(child, out));
        }
        Value::Array(items) => items.iter().for_each(|child| collect_refs(child, out)),
        _ => {}
    }
}

/// Removes from every `default` value the members that the (stripped) schema it belongs to no
/// longer has. A default is the serialised `Default` of a type, so with an unstable feature
/// compiled in it also holds the feature's always-written fields (such as `acp: false` in the
/// v1 MCP capabilities); the stable schema must not mention them.
fn prune_defaults(root: &mut Value) {
    let Some(Value::Object(defs)) = root.get("$defs").cloned() else {
        return;
    };
    fn walk(value: &mut Value, defs: &Map<String, Value>) {
        match value {
            Value::Object(map) => {
                if let (Some(target), Some(default)) =
                    (referenced_def(map, defs), map.get_mut("default"))
                {
                    conform(default, target, defs);
                }
                for (key, child) in map.iter_mut() {
                    if key != "default" {
                        walk(child, defs);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| walk(item, defs)),
            _ => {}
        }
    }
    /// Keeps only the members of `value` that `schema` (an object schema) lists as properties,
    /// recursing into members whose property schema refers to another definition.
    fn conform(value: &mut Value, schema: &Value, defs: &Map<String, Value>) {
        let (Value::Object(members), Some(Value::Object(properties))) =
            (value, schema.get("properties"))
        else {
            return;
        };
        members.retain(|key, _| properties.contains_key(key));
        for (key, member) in members.iter_mut() {
            if let Some(Value::Object(property)) = properties.get(key)
                && let Some(target) = referenced_def(property, defs)
            {
                conform(member, target, defs);
            }
        }
    }
    /// The definition a schema refers to, directly or through a one-element `allOf`.
    fn referenced_def<'a>(
        schema: &Map<String, Value>,
        defs: &'a Map<String, Value>,
    ) -> Option<&'a Value> {
        let reference = match (schema.get("$ref"), schema.get("allOf")) {
            (Some(Value::String(reference)), _) => reference.as_str(),
            (None, Some(Value::Array(parts))) if parts.len() == 1 => {
                parts[0].get("$ref")?.as_str()?
            }
            _ => return None,
        };
        defs.get(reference.strip_prefix("#/$defs/")?)
    }
    walk(root, &defs);
}
