//! The pieces each version's JSON Schema is built from (cargo feature `schemars`): tagged and
//! open union alternatives, unstable markers, message envelopes and the root alternatives.
//!
//! The version trees and the table macros call these; [`crate::schema`] sits above them all and
//! only assembles and strips the result, so no arrow runs back from a version to the generator.

use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Value, json};

/// The key that marks a schema part as unstable.
pub const UNSTABLE_KEY: &str = "x-unstable";
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
