//! Builds the reference structure of one ACP version from the official crate: the JSON Schema
//! of every type reachable from its routing enums (in `$defs`, descriptions removed) and the
//! list of its method names by side.
//!
//! Shared by the generator (`main.rs`, which writes the files under `reference/`) and by the
//! tests of `acptk-conformance`, which include this file to generate the unstable reference live
//! and compare it with the checked-in one. The caller must have `agent_client_protocol_schema`,
//! `schemars` and `serde_json` (with `preserve_order`, as the official crate has it).

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The title written at the top of each schema; `unstable` says that the official crate was
/// built with every unstable feature.
pub fn title(version: u8, unstable: bool) -> String {
    let surface = if unstable {
        ", every unstable feature"
    } else {
        ""
    };
    format!("Agent Client Protocol v{version} wire reference (structure only{surface})")
}

/// Registers the routing enums of one version (`$module`, such as
/// `agent_client_protocol_schema::v1`) and returns the schema document and the method list.
/// `$unstable` is whether the official crate has every unstable feature (it only changes the
/// title).
macro_rules! document {
    ($version:literal, $module:path, $unstable:expr) => {{
        use $module as m;
        let mut generator = schemars::SchemaGenerator::new($crate::document::settings());
        let side = |name: &str, parts: [(&str, schemars::Schema); 3]| {
            let alternatives: Vec<serde_json::Value> = parts
                .into_iter()
                .map(|(kind, schema)| serde_json::json!({"title": kind, "allOf": [schema.to_value()]}))
                .collect();
            serde_json::json!({
                "title": name,
                "type": "object",
                "properties": {"jsonrpc": {"type": "string", "enum": ["2.0"]}},
                "required": ["jsonrpc"],
                "anyOf": alternatives,
            })
        };
        let agent = [
            ("Request", generator.subschema_for::<m::Request<m::AgentRequest>>()),
            ("Response", generator.subschema_for::<m::Response<m::AgentResponse>>()),
            ("Notification", generator.subschema_for::<m::Notification<m::AgentNotification>>()),
        ];
        let agent = side("Agent", agent);
        let client = [
            ("Request", generator.subschema_for::<m::Request<m::ClientRequest>>()),
            ("Response", generator.subschema_for::<m::Response<m::ClientResponse>>()),
            ("Notification", generator.subschema_for::<m::Notification<m::ClientNotification>>()),
        ];
        let client = side("Client", client);
        let _ = generator.subschema_for::<m::Notification<m::ProtocolLevelNotification>>();
        let mut defs: serde_json::Map<String, serde_json::Value> = generator
            .take_definitions(true)
            .into_iter()
            .collect();
        let protocol = $crate::document::protocol_level(defs.remove("ProtocolLevelNotification"));
        let mut document = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": $crate::document::title($version, $unstable),
            "anyOf": [agent, client, protocol],
            "$defs": defs,
        });
        $crate::document::strip_descriptions(&mut document);
        let methods = serde_json::json!({
            "version": $version,
            "agentMethods": m::AGENT_METHOD_NAMES,
            "clientMethods": m::CLIENT_METHOD_NAMES,
            "protocolMethods": m::PROTOCOL_LEVEL_METHOD_NAMES,
        });
        (document, methods)
    }};
}

/// The protocol-level message (either side may send it), written inline: the notification
/// envelope with the `jsonrpc` member added.
pub fn protocol_level(notification: Option<Value>) -> Value {
    let mut notification = notification.unwrap_or_else(|| serde_json::json!({}));
    let mut properties = Map::new();
    properties.insert(
        "jsonrpc".to_owned(),
        serde_json::json!({"type": "string", "enum": ["2.0"]}),
    );
    if let Some(Value::Object(rest)) = notification.get_mut("properties").map(Value::take) {
        properties.extend(rest);
    }
    let mut required = vec![serde_json::json!("jsonrpc")];
    if let Some(Value::Array(rest)) = notification.get_mut("required").map(Value::take) {
        required.extend(rest);
    }
    let mut protocol = Map::new();
    protocol.insert("title".to_owned(), serde_json::json!("ProtocolLevel"));
    protocol.insert("type".to_owned(), serde_json::json!("object"));
    protocol.insert("properties".to_owned(), Value::Object(properties));
    protocol.insert("required".to_owned(), Value::Array(required));
    if let Some(Value::Object(rest)) = Some(notification) {
        for (key, value) in rest {
            if !matches!(key.as_str(), "properties" | "required" | "type") {
                protocol.insert(key, value);
            }
        }
    }
    Value::Object(protocol)
}

/// The generator settings: JSON Schema 2020-12, untagged enum variants titled with their
/// names, and a `$ref` that has sibling keywords moved into an `allOf` (the shape of the
/// reference files the team has compared against so far).
pub fn settings() -> SchemaSettings {
    let mut settings = SchemaSettings::draft2020_12()
        .with_transform(schemars::transform::RemoveRefSiblings::default());
    settings.untagged_enum_variant_titles = true;
    settings
}

/// Removes every `description` annotation (the structure is what the tests compare). Keys of a
/// `properties` map are property names, not keywords: a property called `description` stays.
pub fn strip_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("description");
            for (key, child) in map.iter_mut() {
                match (key.as_str(), child) {
                    ("properties", Value::Object(properties)) => {
                        properties.values_mut().for_each(strip_descriptions);
                    }
                    (_, child) => strip_descriptions(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// The text of a generated file: pretty JSON and a final newline.
pub fn text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
