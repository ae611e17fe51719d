//! The checked-in JSON Schemas under `crates/acptk/schema/` are generated from the types, and
//! say what ACP says about notices. `acp schema` prints those files as they are, so this test
//! is what keeps its output equal to what the types generate.
//!
//! To refresh the artifacts after a change: `UPDATE_SCHEMA=1 cargo test -p acptk-schema --all-features --test schema_artifacts`.
#![cfg(feature = "schemars")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use acptk_schema::schema::{Protocol, generate};
use serde_json::{Value, json};

fn artifact(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../acptk/schema")
        .join(path)
}

fn check(protocol: Protocol, unstable: bool, path: &str) {
    let mut generated = serde_json::to_string_pretty(&generate(protocol, unstable)).unwrap();
    generated.push('\n');
    let file = artifact(path);
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&file, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        on_disk == generated,
        "crates/acptk/schema/{path} is stale; regenerate it with \
         `UPDATE_SCHEMA=1 cargo test -p acptk-schema --all-features --test schema_artifacts`"
    );
}

/// The stable schemas do not depend on which unstable features are compiled in.
#[test]
fn stable_artifacts_are_fresh() {
    check(Protocol::V1, false, "v1/schema.json");
    #[cfg(feature = "unstable_protocol_v2")]
    check(Protocol::V2, false, "v2/schema.json");
}

/// The unstable artifacts hold every unstable part, so they are compared only when all of them
/// are compiled in.
#[cfg(all(feature = "unstable", feature = "unstable_protocol_v2"))]
#[test]
fn unstable_artifacts_are_fresh() {
    check(Protocol::V1, true, "v1/schema.unstable.json");
    check(Protocol::V2, true, "v2/schema.unstable.json");
}

fn def<'a>(schema: &'a Value, name: &str) -> &'a Value {
    schema["$defs"]
        .get(name)
        .unwrap_or_else(|| panic!("no $defs/{name}"))
}

fn accepts_null(schema: &Value) -> bool {
    match &schema["type"] {
        Value::Array(types) => types.contains(&json!("null")),
        Value::String(t) => t == "null",
        _ => schema["anyOf"]
            .as_array()
            .is_some_and(|alternatives| alternatives.iter().any(accepts_null)),
    }
}

/// The notice types are the same in the stable schema and in the one with every unstable part.
#[test]
fn notice_schema_matches_the_specification() {
    let protocols = [
        Protocol::V1,
        #[cfg(feature = "unstable_protocol_v2")]
        Protocol::V2,
    ];
    for (protocol, unstable) in protocols
        .into_iter()
        .flat_map(|protocol| [(protocol, false), (protocol, true)])
    {
        let schema = generate(protocol, unstable);
        let notice = def(&schema, "Notice");
        let mut required: Vec<&str> = notice["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        required.sort();
        assert_eq!(required, ["severity", "title"], "{protocol:?}");
        assert_eq!(
            notice["properties"]["title"],
            json!({ "type": "string", "minLength": 1 })
        );
        assert!(
            accepts_null(&notice["properties"]["description"]),
            "{protocol:?}"
        );
        assert!(accepts_null(&notice["properties"]["_meta"]), "{protocol:?}");
        let severity = def(&schema, "NoticeSeverity");
        let alternatives = severity["anyOf"].as_array().unwrap();
        let consts: Vec<&str> = alternatives
            .iter()
            .filter_map(|a| a["const"].as_str())
            .collect();
        assert_eq!(consts, ["info", "warning", "error"]);
        assert!(
            alternatives
                .iter()
                .any(|a| a.get("const").is_none() && a["type"] == "string")
        );
        assert!(has_notice_alternative(def(&schema, "SessionUpdate")));
    }
    for unstable in [false, true] {
        let v1 = generate(Protocol::V1, unstable);
        let caps = def(&v1, "ClientSessionCapabilities");
        assert!(accepts_null(&caps["properties"]["notices"]));
        assert!(
            caps.get("required")
                .is_none_or(|r| !r.as_array().unwrap().contains(&json!("notices")))
        );
        assert!(def(&v1, "NoticeCapabilities")["type"] == "object");
        #[cfg(feature = "unstable_protocol_v2")]
        {
            let v2 = generate(Protocol::V2, unstable);
            assert!(
                v2["$defs"].get("NoticeCapabilities").is_none(),
                "v2 has no notice capability"
            );
        }
    }
}

/// Whether the schema of `SessionUpdate` has the alternative of the `notice` update.
fn has_notice_alternative(update: &Value) -> bool {
    update["oneOf"]
        .as_array()
        .or(update["anyOf"].as_array())
        .unwrap()
        .iter()
        .any(|a| a["properties"]["sessionUpdate"]["const"] == "notice")
}

/// Notices are stable ACP (since 2026-10-09): the stable schema of every build, the default
/// one included, has the notice types, the `notice` alternative of `SessionUpdate` and (v1) the
/// `session.notices` capability, none of them marked unstable.
#[test]
fn stable_schema_has_notices() {
    let protocols = [
        Protocol::V1,
        #[cfg(feature = "unstable_protocol_v2")]
        Protocol::V2,
    ];
    for protocol in protocols {
        let schema = generate(protocol, false);
        for name in ["Notice", "NoticeSeverity"] {
            assert!(
                schema["$defs"].get(name).is_some(),
                "{protocol:?} stable schema lacks {name}"
            );
        }
        assert!(
            has_notice_alternative(&schema["$defs"]["SessionUpdate"]),
            "{protocol:?} stable SessionUpdate has no notice alternative"
        );
        assert!(!schema.to_string().contains("x-unstable"), "{protocol:?}");
    }
    let v1 = generate(Protocol::V1, false);
    assert!(
        v1["$defs"]["ClientSessionCapabilities"]["properties"]
            .get("notices")
            .is_some(),
        "v1 stable schema lacks clientCapabilities.session.notices"
    );
    assert!(v1["$defs"].get("NoticeCapabilities").is_some());
}
