//! The reference structure of ACP v1 and v2, checked in at the repository's `reference/`
//! (generated from the official crate; `reference/README.md` says how), and which of its two
//! surfaces a build has: the stable one (none of the official crate's fourteen unstable
//! features), the unstable one (all of them) or a part in between (some of them, as when
//! `scripts/test.sh` builds each feature alone).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use serde_json::Value;

/// The path of a reference file, by name (`acp-v1.schema.json`, ...).
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../reference")
        .join(name)
}

/// Reads and parses a reference file; a missing or broken file fails the test naming it.
pub fn read(name: &str) -> Value {
    let path = path(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!(
            "the reference file {} is needed (it is part of the repository; \
             reference/README.md says how to regenerate it): {error}",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|error| {
        panic!("the reference file {} is not JSON: {error}", path.display())
    })
}

/// The reference surface of this build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// None of the fourteen features: `reference/acp-v{1,2}.*.json`.
    Stable,
    /// All fourteen: `reference/acp-v{1,2}.unstable.*.json`.
    Unstable,
    /// Some of them: between the two.
    Partial,
}

/// Whether each of the official crate's fourteen unstable features is on in this build.
const UNSTABLE_FEATURES: [bool; 14] = [
    cfg!(feature = "unstable_agent_skills"),
    cfg!(feature = "unstable_auth_status"),
    cfg!(feature = "unstable_end_turn_token_usage"),
    cfg!(feature = "unstable_llm_providers"),
    cfg!(feature = "unstable_mcp_over_acp"),
    cfg!(feature = "unstable_prompt_suggestions"),
    cfg!(feature = "unstable_proxy_chains"),
    cfg!(feature = "unstable_session_archive"),
    cfg!(feature = "unstable_session_cursors"),
    cfg!(feature = "unstable_session_fork"),
    cfg!(feature = "unstable_session_options"),
    cfg!(feature = "unstable_session_set_title"),
    cfg!(feature = "unstable_session_status"),
    cfg!(feature = "unstable_speed_config_category"),
];

/// The surface of this build.
pub const SURFACE: Surface = {
    let mut on = 0;
    let mut i = 0;
    while i < UNSTABLE_FEATURES.len() {
        if UNSTABLE_FEATURES[i] {
            on += 1;
        }
        i += 1;
    }
    if on == UNSTABLE_FEATURES.len() {
        Surface::Unstable
    } else if on == 0 {
        Surface::Stable
    } else {
        Surface::Partial
    }
};

/// The name of the reference file for this build's surface: `acp-v1.schema.json` stays as it
/// is for a stable or partial build and becomes `acp-v1.unstable.schema.json` for an unstable
/// one.
pub fn surface_file(stable: &str) -> String {
    match SURFACE {
        Surface::Unstable => stable.replacen(".schema.json", ".unstable.schema.json", 1),
        Surface::Stable | Surface::Partial => stable.to_owned(),
    }
}

/// Makes one of our generated schemas comparable with the reference of [`surface_file`]: a
/// stable or partial build drops the parts marked `x-unstable` (properties and alternatives),
/// as the stable schema does; an unstable build keeps them and drops only the markers.
pub fn normalise_ours(value: &mut Value) {
    let keep = SURFACE == Surface::Unstable;
    fn walk(value: &mut Value, keep: bool) {
        let unstable = |schema: &Value| schema.get("x-unstable").is_some();
        match value {
            Value::Object(map) => {
                if !keep {
                    if let Some(Value::Object(properties)) = map.get_mut("properties") {
                        let removed: Vec<String> = properties
                            .iter()
                            .filter(|(_, schema)| unstable(schema))
                            .map(|(name, _)| name.clone())
                            .collect();
                        for name in &removed {
                            properties.remove(name);
                        }
                        if let Some(Value::Array(required)) = map.get_mut("required") {
                            required.retain(|name| !removed.iter().any(|r| name == r.as_str()));
                        }
                    }
                    for key in ["anyOf", "oneOf"] {
                        if let Some(Value::Array(alternatives)) = map.get_mut(key) {
                            alternatives.retain(|alternative| !unstable(alternative));
                        }
                    }
                }
                map.remove("x-unstable");
                map.values_mut().for_each(|child| walk(child, keep));
            }
            Value::Array(items) => items.iter_mut().for_each(|item| walk(item, keep)),
            _ => {}
        }
    }
    walk(value, keep);
}
