//! The unstable surface of the official crate, generated live, against the checked-in reference
//! and against our schemas.
//!
//! * `the_unstable_reference_is_what_the_official_crate_generates`: the JSON Schema and the
//!   method lists of the official `agent-client-protocol-schema` 1.20.0 with every unstable
//!   feature on, built here with `schemars` exactly as `reference-gen` builds them (its
//!   `document.rs` is included below), equal byte for byte the files
//!   `reference/acp-v{1,2}.unstable.{schema,methods}.json`.
//! * `our_unstable_schemas_cover_every_official_type`: every `$defs` entry of that official
//!   schema exists in ours (`acptk_schema::schema::generate(_, true)` with every unstable
//!   feature) with the same shape: property names, required fields, constants, and the same for
//!   each alternative of a union (`acptk-schema/tests/support/shape.rs`). It passes only when all
//!   of them match (264 of 264 in v1, 282 of 282 in v2: every type, plus the six routing unions
//!   the official schema also has as definitions). A difference may be accepted only by a row
//!   with its reason in `coverage_differences.md` next to this file; a row that no longer
//!   matches a real difference fails the test too.
//!
//! The stable reference cannot be generated here: Cargo unifies features, and this package
//! turns every unstable feature of the official crate on. `.ci/run` checks it with
//! `reference-gen --check` (see `reference/README.md`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use acptk_schema::schema::{Protocol, generate};
use agent_client_protocol_schema as official;

#[macro_use]
#[path = "../reference-gen/src/document.rs"]
mod document;
#[path = "../../acptk-schema/tests/support/shape.rs"]
mod shape;

/// The routing unions, which the official schema also has as definitions; every other
/// definition is a type of the protocol.
const ROUTING_UNIONS: &[&str] = &[
    "AgentNotification",
    "AgentRequest",
    "AgentResponse",
    "ClientNotification",
    "ClientRequest",
    "ClientResponse",
];

/// The official unstable documents (schema, method list) of both versions.
fn official_documents() -> [(u8, serde_json::Value, serde_json::Value); 2] {
    let (v1_schema, v1_methods) = document!(1, official::v1, true);
    let (v2_schema, v2_methods) = document!(2, official::v2, true);
    [(1, v1_schema, v1_methods), (2, v2_schema, v2_methods)]
}

#[test]
fn the_unstable_reference_is_what_the_official_crate_generates() {
    for (version, schema, methods) in official_documents() {
        for (kind, value) in [("schema", &schema), ("methods", &methods)] {
            let name = format!("acp-v{version}.unstable.{kind}.json");
            let path = acptk_conformance::reference::path(&name);
            let checked_in = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
            assert!(
                checked_in == document::text(value),
                "reference/{name} differs from what the official crate generates with every \
                 unstable feature; regenerate it as reference/README.md says"
            );
        }
    }
}

#[test]
fn our_unstable_schemas_cover_every_official_type() {
    let table = include_str!("coverage_differences.md");
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    for (version, official_schema, _) in official_documents() {
        let protocol = if version == 1 {
            Protocol::V1
        } else {
            Protocol::V2
        };
        let accepted = shape::accepted_differences(table, &format!("v{version}"));
        let coverage = shape::compare(&official_schema, &generate(protocol, true), &accepted);
        let defs = official_schema["$defs"].as_object().unwrap();
        let types = defs
            .keys()
            .filter(|name| !ROUTING_UNIONS.contains(&name.as_str()))
            .count();
        assert_eq!(
            defs.len() - types,
            ROUTING_UNIONS.len(),
            "v{version}: the routing unions"
        );
        println!(
            "v{version}: {} of {} official definitions match ({types} types and {} routing \
             unions); {} accepted differences used",
            coverage.matching,
            coverage.total,
            ROUTING_UNIONS.len(),
            coverage.used.len()
        );
        failures.extend(
            coverage
                .failures
                .iter()
                .map(|line| format!("v{version} {line}")),
        );
        let used: BTreeSet<_> = coverage.used;
        stale.extend(
            accepted
                .keys()
                .filter(|key| !used.contains(*key))
                .map(|(name, aspect)| format!("v{version} {name} {aspect}")),
        );
    }
    assert!(
        failures.is_empty(),
        "{} differences from the official unstable schema that coverage_differences.md does \
         not accept:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        stale.is_empty(),
        "rows of coverage_differences.md that no longer match a difference: {stale:?}"
    );
}
