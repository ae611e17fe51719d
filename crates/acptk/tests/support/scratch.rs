//! A scratch directory for one test: new and empty under cargo's space for test files
//! (`CARGO_TARGET_TMPDIR`), removed with what it holds when the value is dropped.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

/// A new empty directory whose name starts with `name`.
pub fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("{name}-"))
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating a scratch directory under CARGO_TARGET_TMPDIR")
}
