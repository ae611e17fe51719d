//! The reference structure of ACP v1 and v2, checked in at the repository's `reference/`
//! (generated from the official crate; `reference/README.md` says how).
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
