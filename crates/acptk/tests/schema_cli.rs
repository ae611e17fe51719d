//! `acp schema` prints the checked-in schemas under `crates/acptk/schema/` byte for byte
//! (acptk-schema's test `schema_artifacts` keeps those files equal to what the wire types
//! generate), and its output is JSON Schema a tool can read.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::path::Path;
use std::process::Command;

/// The standard output of `acp schema` with `args`, which must succeed.
fn acp_schema(args: &[&str]) -> Vec<u8> {
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .arg("schema")
        .args(args)
        .succeeds();
    output.stdout
}

#[test]
fn each_protocol_and_surface_prints_its_checked_in_file() {
    let cases: [(&[&str], &str); 5] = [
        (&[], "v1/schema.json"),
        (&["--protocol", "1"], "v1/schema.json"),
        (&["--unstable"], "v1/schema.unstable.json"),
        (&["--protocol", "2"], "v2/schema.json"),
        (
            &["--protocol", "2", "--unstable"],
            "v2/schema.unstable.json",
        ),
    ];
    for (args, file) in cases {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schema")
            .join(file);
        let expected = std::fs::read(&path).unwrap();
        let printed = acp_schema(args);
        assert!(
            printed == expected,
            "acp schema {args:?} differs from {file}"
        );
        let schema: serde_json::Value = serde_json::from_slice(&printed).unwrap();
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{file}"
        );
        let version = if file.starts_with("v2") { "v2" } else { "v1" };
        assert_eq!(
            schema["title"],
            format!("Agent Client Protocol {version}"),
            "{file}"
        );
        let unstable = schema.to_string().contains("x-unstable");
        assert_eq!(unstable, file.contains("unstable"), "{file}");
    }
}

#[test]
fn an_unknown_protocol_is_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_acp"))
        .args(["schema", "--protocol", "3"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
}
