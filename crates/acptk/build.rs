//! Compresses the JSON Schemas checked in under `schema/` (DEFLATE, miniz_oxide's best level)
//! into `OUT_DIR`, where `acp schema` (src/commands/schema.rs) embeds them and inflates the one
//! asked for. The four files are 0.7 MB of text and 40 KB compressed (issue 37, the binary's
//! size); `tests/schema_cli.rs` checks that `acp schema` still prints each file byte for byte.

use std::path::Path;

/// The checked-in schemas and the names of their compressed copies in `OUT_DIR`.
const SCHEMAS: [(&str, &str); 4] = [
    ("schema/v1/schema.json", "v1.schema.json.deflate"),
    (
        "schema/v1/schema.unstable.json",
        "v1.schema.unstable.json.deflate",
    ),
    ("schema/v2/schema.json", "v2.schema.json.deflate"),
    (
        "schema/v2/schema.unstable.json",
        "v2.schema.unstable.json.deflate",
    ),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR for build scripts")?;
    println!("cargo:rerun-if-changed=build.rs");
    for (source, compressed) in SCHEMAS {
        println!("cargo:rerun-if-changed={source}");
        let text = std::fs::read(source).map_err(|error| format!("{source}: {error}"))?;
        let deflated = miniz_oxide::deflate::compress_to_vec(&text, 10);
        std::fs::write(Path::new(&out).join(compressed), deflated)?;
    }
    Ok(())
}
