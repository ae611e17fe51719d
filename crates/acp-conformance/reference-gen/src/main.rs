//! Writes the reference structure of ACP v1 and v2 from the official crate: for each version a
//! JSON Schema (every type reachable from the routing enums, in `$defs`, descriptions removed)
//! and the list of method names by side.
//!
//! ```text
//! cargo run --manifest-path crates/acp-conformance/reference-gen/Cargo.toml -- OUT_DIR
//! cargo run --manifest-path crates/acp-conformance/reference-gen/Cargo.toml --features unstable -- OUT_DIR
//! ```
//!
//! Without `--features unstable` it writes `acp-v{1,2}.schema.json` and
//! `acp-v{1,2}.methods.json`; with it, `acp-v{1,2}.unstable.schema.json` and
//! `acp-v{1,2}.unstable.methods.json`. `--check` compares with the files in `OUT_DIR` instead
//! of writing them and exits with status 1 on a difference.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_client_protocol_schema as official;
use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

/// The suffix of the written file names: empty for the stable surface.
const SUFFIX: &str = if cfg!(feature = "unstable") {
    ".unstable"
} else {
    ""
};

/// The title written at the top of each schema.
fn title(version: u8) -> String {
    let surface = if cfg!(feature = "unstable") {
        ", every unstable feature"
    } else {
        ""
    };
    format!("Agent Client Protocol v{version} wire reference (structure only{surface})")
}

/// Registers the routing enums of one version and returns the schema document.
macro_rules! document {
    ($version:literal, $module:path) => {{
        use $module as m;
        let mut generator = SchemaGenerator::new(settings());
        let side = |name: &str, parts: [(&str, schemars::Schema); 3]| {
            let alternatives: Vec<Value> = parts
                .into_iter()
                .map(|(kind, schema)| json!({"title": kind, "allOf": [schema.to_value()]}))
                .collect();
            json!({
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
        let mut defs: Map<String, Value> = generator
            .take_definitions(true)
            .into_iter()
            .collect();
        let protocol = protocol_level(defs.remove("ProtocolLevelNotification"));
        let mut document = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": title($version),
            "anyOf": [agent, client, protocol],
            "$defs": defs,
        });
        strip_descriptions(&mut document);
        let methods = json!({
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
fn protocol_level(notification: Option<Value>) -> Value {
    let mut notification = notification.unwrap_or_else(|| json!({}));
    let mut properties = Map::new();
    properties.insert(
        "jsonrpc".to_owned(),
        json!({"type": "string", "enum": ["2.0"]}),
    );
    if let Some(Value::Object(rest)) = notification.get_mut("properties").map(Value::take) {
        properties.extend(rest);
    }
    let mut required = vec![json!("jsonrpc")];
    if let Some(Value::Array(rest)) = notification.get_mut("required").map(Value::take) {
        required.extend(rest);
    }
    let mut protocol = Map::new();
    protocol.insert("title".to_owned(), json!("ProtocolLevel"));
    protocol.insert("type".to_owned(), json!("object"));
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
fn settings() -> SchemaSettings {
    let mut settings = SchemaSettings::draft2020_12()
        .with_transform(schemars::transform::RemoveRefSiblings::default());
    settings.untagged_enum_variant_titles = true;
    settings
}

/// Removes every `description` annotation (the structure is what the tests compare). Keys of a
/// `properties` map are property names, not keywords: a property called `description` stays.
fn strip_descriptions(value: &mut Value) {
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

fn text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `content` to `path`, or with `check` compares it; `false` on a difference.
fn emit(path: &Path, content: &str, check: bool) -> Result<bool, String> {
    if check {
        let existing = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        if existing != content {
            eprintln!(
                "{} differs from what the official crate generates",
                path.display()
            );
            return Ok(false);
        }
        return Ok(true);
    }
    std::fs::write(path, content)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(true)
}

fn run() -> Result<bool, String> {
    let mut check = false;
    let mut out: Option<PathBuf> = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            other if other.starts_with('-') => return Err(format!("unknown flag `{other}`")),
            other => out = Some(PathBuf::from(other)),
        }
    }
    let out = out.ok_or("usage: acp-reference-gen [--check] OUT_DIR")?;
    let versions = [document!(1, official::v1), document!(2, official::v2)];
    let mut same = true;
    for (index, (schema, methods)) in versions.iter().enumerate() {
        let version = index + 1;
        same &= emit(
            &out.join(format!("acp-v{version}{SUFFIX}.schema.json")),
            &text(schema),
            check,
        )?;
        same &= emit(
            &out.join(format!("acp-v{version}{SUFFIX}.methods.json")),
            &text(methods),
            check,
        )?;
    }
    Ok(same)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("acp-reference-gen: {message}");
            ExitCode::from(2)
        }
    }
}
