//! The corpus: hand-written edge cases and instances generated from the reference schemas
//! with fixed seeds (plus mutations of them).

use super::*;

pub(super) fn read_reference(name: &str) -> Value {
    acptk_conformance::reference::read(name)
}

/// The reference `$defs` name of the payload of `method` for `kind`.
fn payload_type(schema: &Value, kind: Kind, method: &str) -> String {
    let (side, suffix) = kind.reference_side();
    let defs = schema["$defs"].as_object().unwrap();
    let names: Vec<&String> = defs
        .iter()
        .filter(|(name, def)| {
            def["x-method"] == method && def["x-side"] == side && name.ends_with(suffix)
        })
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        names.len(),
        1,
        "payload type of {kind:?} `{method}`: {names:?}"
    );
    names[0].clone()
}

#[derive(Deserialize)]
struct EdgeCaseLine {
    v: u8,
    kind: Kind,
    method: String,
    note: String,
    payload: Box<RawValue>,
}

pub(super) fn hand_written() -> Vec<Case> {
    let text = include_str!("../data/edge_cases.jsonl");
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let entry: EdgeCaseLine = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("data/edge_cases.jsonl:{}: {e}", number + 1));
        let versions: &[Version] = match entry.v {
            1 => &[Version::V1],
            2 => &[Version::V2],
            // `0`: the same payload in both versions.
            _ => &[Version::V1, Version::V2],
        };
        for version in versions {
            cases.push(Case {
                version: *version,
                kind: entry.kind,
                method: entry.method.clone(),
                payload: entry.payload.get().to_owned(),
                origin: Origin::Hand,
                note: format!("line {}: {}", number + 1, entry.note),
            });
        }
    }
    cases
}

/// Deviation settings: even instances are plain (only optional fields vary), odd ones deviate.
fn config_for(index: usize) -> GenConfig {
    if index.is_multiple_of(2) {
        GenConfig {
            null: 0.0,
            unknown_field: 0.0,
            lenient_wrong_type: 0.0,
            invalid_item: 0.0,
            other: 0.0,
            edge_number: 0.0,
            ..GenConfig::default()
        }
    } else {
        GenConfig::default()
    }
}

pub(super) fn generated(version: Version, schema: &Value, seed: u64) -> Vec<Case> {
    let mut generator = SchemaGen::new(schema, seed, GenConfig::default()).unwrap();
    let mut mutation_rng = Rng::new(seed ^ 0x5EED);
    let mut cases = Vec::new();
    let mut push = |kind: Kind, method: &str, value: &Value, origin: Origin, note: String| {
        cases.push(Case {
            version,
            kind,
            method: method.to_owned(),
            payload: value.to_string(),
            origin,
            note,
        });
    };
    for kind in Kind::ALL {
        for method in kind.our_methods(version) {
            let name = payload_type(schema, kind, method);
            for index in 0..PER_METHOD + MUTATED_PER_METHOD {
                *generator.config_mut() = config_for(index);
                let mut value = generator.instance_of(&name).unwrap();
                if index < PER_METHOD {
                    push(
                        kind,
                        method,
                        &value,
                        Origin::Generated,
                        format!("{name} #{index}"),
                    );
                } else if let Some(change) = mutate(&mut value, &mut mutation_rng) {
                    let note =
                        format!("{name} #{index}: {} at `{}`", change.action, change.pointer);
                    push(kind, method, &value, Origin::Mutated, note);
                }
            }
        }
    }
    // Every `session/update` variant, including the fallback of an open union.
    let params_name = payload_type(schema, Kind::AgentNotification, "session/update");
    let update_schema = &schema["$defs"]["SessionUpdate"];
    let alternatives = update_schema
        .get("oneOf")
        .or(update_schema.get("anyOf"))
        .and_then(Value::as_array)
        .unwrap();
    for (position, alternative) in alternatives.iter().enumerate() {
        let tag = alternative["properties"]["sessionUpdate"]["const"]
            .as_str()
            .map_or_else(|| "<other>".to_owned(), str::to_owned);
        for index in 0..PER_UPDATE_VARIANT + MUTATED_PER_UPDATE_VARIANT {
            *generator.config_mut() = config_for(index);
            let session_id = generator.instance_of("SessionId").unwrap();
            let update = generator.instance(alternative);
            let mut params = serde_json::json!({ "sessionId": session_id, "update": update });
            if index % 3 == 2 {
                params["_meta"] = serde_json::json!({ "traceId": format!("t{position}-{index}") });
            }
            if index < PER_UPDATE_VARIANT {
                let note = format!("{params_name} `{tag}` #{index}");
                push(
                    Kind::AgentNotification,
                    "session/update",
                    &params,
                    Origin::Generated,
                    note,
                );
            } else if let Some(change) = mutate(&mut params, &mut mutation_rng) {
                let note = format!(
                    "`{tag}` #{index}: {} at `{}`",
                    change.action, change.pointer
                );
                push(
                    Kind::AgentNotification,
                    "session/update",
                    &params,
                    Origin::Mutated,
                    note,
                );
            }
        }
    }
    cases
}

// ---------------------------------------------------------------------------------------------
// Decoding with both crates
// ---------------------------------------------------------------------------------------------
