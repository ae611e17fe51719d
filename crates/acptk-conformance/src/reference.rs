//! The reference structure of ACP v1 and v2 that the tests compare with: the files under the
//! repository's `reference/`, generated from the official crate (see `reference/README.md`).

use std::path::PathBuf;

use serde_json::Value;

/// The path of a reference file, by name (`acp-v1.schema.json`, `acp-v2.unstable.methods.json`,
/// ...).
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../reference")
        .join(name)
}

/// Reads and parses a reference file.
///
/// # Panics
///
/// When the file is missing or is not JSON, naming the file: the tests that call this cannot
/// run without it.
#[allow(clippy::panic)]
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
