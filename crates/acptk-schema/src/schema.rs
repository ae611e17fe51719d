//! JSON Schema generation for both protocol versions (cargo feature `schemars`).
//!
//! [`generate`] builds the schema of one protocol version. Parts that exist only with an
//! unstable cargo feature carry an `x-unstable` marker naming the feature; asking for the
//! stable schema removes every marked part and every definition only they used, so the stable
//! schema is the same whether or not the unstable features were compiled in.

use std::collections::BTreeSet;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

/// The key that marks a schema part as unstable.
pub const UNSTABLE_KEY: &str = "x-unstable";

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

/// One alternative of a tagged union: `{tag: value}` plus the payload schema. `cfg` is the
/// stringified `cfg` predicate of a feature-gated variant, which marks it unstable.
pub(crate) fn tagged_alternative(
    tag: &str,
    value: &str,
    payload: schemars::Schema,
    cfg: Option<&str>,
) -> Value {
    let mut alternative = json!({
        "type": "object",
        "properties": { tag: { "type": "string", "const": value } },
        "required": [tag],
        "allOf": [payload],
    });
    if let Some(cfg) = cfg {
        mark_unstable(&mut alternative, cfg);
    }
    alternative
}

/// One known value of an open string enum: `{"type": "string", "const": value}`, marked
/// unstable when `cfg` (the stringified `cfg` predicate of a feature-gated value) is given.
pub(crate) fn string_const(value: &str, cfg: Option<&str>) -> Value {
    let mut alternative = json!({ "type": "string", "const": value });
    if let Some(cfg) = cfg {
        mark_unstable(&mut alternative, cfg);
    }
    alternative
}

/// Marks `schema` as existing only with the cargo features named in `cfg` (a stringified `cfg`
/// predicate such as `feature = "unstable_session_fork"`, or an `all(...)` of several).
fn mark_unstable(schema: &mut Value, cfg: &str) {
    if let Value::Object(map) = schema {
        let features: Vec<&str> = cfg.split('"').skip(1).step_by(2).collect();
        map.insert(UNSTABLE_KEY.into(), Value::String(features.join(",")));
    }
}

/// The "other" alternative of an open union: an object whose tag is none of `known`.
pub(crate) fn other_alternative(tag: &str, known: &[&str]) -> Value {
    let alternatives: Vec<Value> = known
        .iter()
        .map(|value| json!({ "properties": { tag: { "type": "string", "const": value } } }))
        .collect();
    other_alternative_of(tag, &alternatives)
}

/// The "other" alternative of an open union whose known alternatives are `alternatives`
/// (unstable markers are carried over, so the stable schema drops them here too).
pub(crate) fn other_alternative_of(tag: &str, alternatives: &[Value]) -> Value {
    let not_known: Vec<Value> = alternatives
        .iter()
        .map(|alternative| {
            let mut known = json!({
                "type": "object",
                "properties": { tag: alternative["properties"][tag].clone() },
                "required": [tag],
            });
            if let (Some(marker), Value::Object(map)) = (alternative.get(UNSTABLE_KEY), &mut known)
            {
                map.insert(UNSTABLE_KEY.into(), marker.clone());
            }
            known
        })
        .collect();
    json!({
        "title": "other",
        "type": "object",
        "properties": { tag: { "type": "string" } },
        "required": [tag],
        "not": { "anyOf": not_known },
        "additionalProperties": true,
    })
}

/// Adds an optional property `key` with `schema` to an object schema.
#[allow(dead_code)]
pub(crate) fn add_property(object: &mut Value, key: &str, schema: Value) {
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.insert(key.to_owned(), schema);
    }
}

/// Adds a required property `key` of the given schema to an alternative (the fields that the
/// "other" alternative of some open unions must still have). A reference is wrapped in `allOf`,
/// as the reference schemas write it. So far only v2 unions have such fields.
#[cfg(feature = "unstable_protocol_v2")]
pub(crate) fn require_property(alternative: &mut Value, key: &str, schema: schemars::Schema) {
    let schema = schema.to_value();
    let property = if schema.get("$ref").is_some() {
        json!({ "allOf": [schema] })
    } else {
        schema
    };
    if let Some(Value::Object(properties)) = alternative.get_mut("properties") {
        properties.insert(key.to_owned(), property);
    }
    if let Some(Value::Array(required)) = alternative.get_mut("required") {
        required.push(Value::String(key.to_owned()));
    }
}

/// The schema of a tagged union from its alternatives.
pub(crate) fn union_schema(alternatives: Vec<Value>, tag: &str, closed: bool) -> schemars::Schema {
    let value = if closed {
        json!({ "oneOf": alternatives, "discriminator": { "propertyName": tag } })
    } else {
        json!({ "anyOf": alternatives })
    };
    schemars::Schema::try_from(value).unwrap_or_default()
}

/// `{"title": title, "allOf": [schema]}`, the reference schema's way of naming an alternative.
pub(crate) fn titled(title: &str, schema: schemars::Schema) -> Value {
    json!({ "title": title, "allOf": [schema] })
}

/// [`titled`], marked unstable when `cfg` (the stringified `cfg` predicate of a method that
/// exists only with a cargo feature) is given.
pub(crate) fn titled_gated(title: &str, schema: schemars::Schema, cfg: Option<&str>) -> Value {
    let mut alternative = titled(title, schema);
    if let Some(cfg) = cfg {
        mark_unstable(&mut alternative, cfg);
    }
    alternative
}

/// The schema of a request message carrying one of `params`.
pub(crate) fn request_envelope(id: schemars::Schema, params: Vec<Value>) -> schemars::Schema {
    let value = json!({
        "type": "object",
        "properties": {
            "id": { "allOf": [id] },
            "method": { "type": "string" },
            "params": { "anyOf": [{ "anyOf": params }, { "type": "null" }] },
        },
        "required": ["id", "method"],
    });
    schemars::Schema::try_from(value).unwrap_or_default()
}

/// The schema of a notification message carrying one of `params`.
pub(crate) fn notification_envelope(params: Vec<Value>) -> schemars::Schema {
    let value = json!({
        "type": "object",
        "properties": {
            "method": { "type": "string" },
            "params": { "anyOf": [{ "anyOf": params }, { "type": "null" }] },
        },
        "required": ["method"],
    });
    schemars::Schema::try_from(value).unwrap_or_default()
}

/// The schema of a response message: a result (one of `results`) or an error.
pub(crate) fn response_envelope(
    id: schemars::Schema,
    error: schemars::Schema,
    results: Vec<Value>,
) -> schemars::Schema {
    let error_id = id.clone();
    let value = json!({
        "anyOf": [
            {
                "title": "Result",
                "type": "object",
                "properties": { "id": { "allOf": [id] }, "result": { "anyOf": results } },
                "required": ["id", "result"],
            },
            {
                "title": "Error",
                "type": "object",
                "properties": { "id": { "allOf": [error_id] }, "error": { "allOf": [error] } },
                "required": ["id", "error"],
            },
        ],
    });
    schemars::Schema::try_from(value).unwrap_or_default()
}

/// The root alternatives of a version's schema: every message an agent or a client may send,
/// and the protocol-level notifications either may send.
#[allow(clippy::type_complexity)]
pub(crate) fn message_roots<AReq, ARes, ANot, CReq, CRes, CNot, PNot>(
    generator: &mut SchemaGenerator,
) -> Vec<Value>
where
    AReq: JsonSchema,
    ARes: JsonSchema,
    ANot: JsonSchema,
    CReq: JsonSchema,
    CRes: JsonSchema,
    CNot: JsonSchema,
    PNot: JsonSchema,
{
    let side = |title: &str,
                request: schemars::Schema,
                response: schemars::Schema,
                notification: schemars::Schema| {
        json!({
            "title": title,
            "type": "object",
            "properties": { "jsonrpc": { "type": "string", "enum": [crate::jsonrpc::VERSION] } },
            "required": ["jsonrpc"],
            "anyOf": [
                titled("Request", request),
                titled("Response", response),
                titled("Notification", notification),
            ],
        })
    };
    let agent = side(
        "Agent",
        generator.subschema_for::<AReq>(),
        generator.subschema_for::<ARes>(),
        generator.subschema_for::<ANot>(),
    );
    let client = side(
        "Client",
        generator.subschema_for::<CReq>(),
        generator.subschema_for::<CRes>(),
        generator.subschema_for::<CNot>(),
    );
    let protocol = titled("ProtocolLevel", generator.subschema_for::<PNot>());
    vec![agent, client, protocol]
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
