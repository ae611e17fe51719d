//! Our generated JSON Schemas against the reference schemas of ACP v1 and v2.
//!
//! For every `$defs` entry of the repository's reference schema this checks that our schema of
//! the same surface (the stable schema against the stable reference, the schema with every
//! unstable part against the unstable one) has a definition of the same name with the same shape:
//! property names, required fields, constants, and the same for each alternative of a union
//! (`support/shape.rs`). Accepted differences are listed, with their reason, in
//! `schema_reference_differences.md` next to this file; any other difference fails the test, and
//! so does a listed one that no longer occurs.
//!
//! Which reference: `reference/acp-v{1,2}.schema.json` when none of the official crate's
//! fourteen unstable features is on, `reference/acp-v{1,2}.unstable.schema.json` when all of
//! them are. A build with only some of them (as `scripts/test.sh` makes, one feature at a
//! time) matches neither reference, so there the test says so and checks nothing; the method
//! tables of such builds are still checked against both lists (`methods.rs`), and every
//! feature's types against the unstable reference in the all-features build.
//!
//! Session notices are stable ACP, and the official crate 1.20.0 has them without any feature:
//! its stable reference holds `Notice`, `NoticeSeverity`, the `notice` update of both versions
//! and the v1 `NoticeCapabilities`, so our stable schema is compared with them like any other
//! stable type.
#![cfg(all(feature = "schemars", feature = "unstable_protocol_v2"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

#[path = "support/reference.rs"]
mod reference_files;
#[path = "support/shape.rs"]
mod shape;

use acptk_schema::schema::{Protocol, generate};

#[test]
fn every_reference_type_exists_with_the_same_shape() {
    if reference_files::SURFACE == reference_files::Surface::Partial {
        println!("some unstable features only: no reference schema to compare with");
        return;
    }
    let table = include_str!("schema_reference_differences.md");
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    for (version, protocol) in [(1u8, Protocol::V1), (2, Protocol::V2)] {
        let file = reference_files::surface_file(&format!("acp-v{version}.schema.json"));
        let reference = reference_files::read(&file);
        let accepted = shape::accepted_differences(table, &format!("v{version}"));
        let unstable = reference_files::SURFACE == reference_files::Surface::Unstable;
        let coverage = shape::compare(&reference, &generate(protocol, unstable), &accepted);
        println!(
            "v{version}: {} of {} reference types of {file} match",
            coverage.matching, coverage.total
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
        "{} unlisted differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed differences that no longer occur: {stale:?}"
    );
}
