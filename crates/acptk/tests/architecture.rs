//! ARCHITECTURE.md cannot drift from the tree: every repository path it writes in backticks
//! (`crates/...`, `scripts/...`, `docs/...` and the other top-level folders) must exist, and
//! every crate under `crates/` must be on the map.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::fs;
use std::path::{Path, PathBuf};

/// The first segments of the paths the page may name.
const ROOTS: &[&str] = &[
    "crates/",
    "scripts/",
    "docs/",
    "reference/",
    "fuzz/",
    "deploy/",
    ".ci/",
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every text between backticks in `text`, with its line number.
fn code_spans(text: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    for (number, line) in text.lines().enumerate() {
        // Odd pieces are inside backticks (a line's spans do not cross lines on this page).
        for (index, piece) in line.split('`').enumerate() {
            if index % 2 == 1 {
                spans.push((number + 1, piece));
            }
        }
    }
    spans
}

/// The repository paths the page names, with their lines.
fn named_paths(text: &str) -> Vec<(usize, &str)> {
    code_spans(text)
        .into_iter()
        .filter(|(_, span)| ROOTS.iter().any(|root| span.starts_with(root)))
        .filter(|(_, span)| !span.contains(char::is_whitespace))
        .collect()
}

#[test]
fn every_path_the_architecture_names_exists() {
    let page = fs::read_to_string(repository().join("ARCHITECTURE.md")).unwrap();
    let paths = named_paths(&page);
    assert!(
        paths.len() > 20,
        "the map names too few paths to check: {paths:?}"
    );
    let missing: Vec<String> = paths
        .iter()
        .filter(|(_, path)| !repository().join(path.trim_end_matches('/')).exists())
        .map(|(line, path)| format!("ARCHITECTURE.md:{line}: `{path}` does not exist"))
        .collect();
    assert!(
        missing.is_empty(),
        "update ARCHITECTURE.md to the tree:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_crate_is_on_the_map() {
    let page = fs::read_to_string(repository().join("ARCHITECTURE.md")).unwrap();
    let named: Vec<&str> = named_paths(&page)
        .into_iter()
        .map(|(_, path)| path)
        .collect();
    for entry in fs::read_dir(repository().join("crates")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let folder = format!("crates/{name}");
        assert!(
            named.iter().any(|path| *path == folder),
            "ARCHITECTURE.md has no section for `{folder}`"
        );
    }
}

#[test]
fn a_path_that_is_gone_is_reported() {
    // The extraction itself: a path in backticks is found, prose and other spans are not.
    let page = "see `crates/acptk/src/gone` and `acp check`, not crates/plain\n`scripts/x.py`";
    assert_eq!(
        named_paths(page),
        vec![(1, "crates/acptk/src/gone"), (2, "scripts/x.py")]
    );
    assert!(!repository().join("crates/acptk/src/gone").exists());
}
