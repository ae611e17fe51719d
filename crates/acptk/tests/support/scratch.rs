//! A scratch directory for one test: new and empty under cargo's space for test files
//! (`CARGO_TARGET_TMPDIR`), removed with what it holds when the value is dropped; or one kept
//! after the test, named after the test process.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

/// A new empty directory whose name starts with `name`.
pub fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("{name}-"))
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating a scratch directory under CARGO_TARGET_TMPDIR")
}

/// A new empty directory `NAME-PID` under cargo's space for test files, left in place after
/// the test (emptied first if an earlier run of the same process id left one).
pub fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
