//! BENCHMARKS.md is a result sheet: the latest figure of each area beside its peer, not the
//! story of every session (that lives in git). Issue 37 caps it at 300 lines, so that adding a
//! figure means replacing the one before it.

use std::path::Path;

/// The most lines BENCHMARKS.md may have.
const MAX_LINES: usize = 300;

#[test]
fn benchmarks_sheet_stays_within_300_lines() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../BENCHMARKS.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
    let lines = text.lines().count();
    assert!(
        lines <= MAX_LINES,
        "BENCHMARKS.md has {lines} lines, at most {MAX_LINES} expected: keep only the latest \
         figure of each area (earlier ones stay in `git log -p -- BENCHMARKS.md`)"
    );
}
