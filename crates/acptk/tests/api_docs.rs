//! The API documentation of the published library crates stays linked together on docs.rs:
//!
//! - each has `#![doc(html_root_url = "https://docs.rs/CRATE/VERSION")]` naming itself at the
//!   workspace's version, so that a release that forgets to move it fails here;
//! - every docs.rs link in their crate documentation names the workspace's version too;
//! - each has the "Which crate do I need?" section, which names every published crate.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::fs;
use std::path::Path;

/// The published crates that have a library, by package name.
const LIBRARIES: [&str; 7] = [
    "acptk-schema",
    "acptk-notice-center",
    "acptk-runtime",
    "acptk-check",
    "acptk-inspect",
    "acptk-conform",
    "acptk",
];

/// The workspace's version: the crates move in lockstep, so this crate's is everyone's.
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn lib_rs(package: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(package)
        .join("src/lib.rs");
    fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

#[test]
fn html_root_url_names_the_crate_at_the_workspace_version() {
    for package in LIBRARIES {
        let expected = format!("#![doc(html_root_url = \"https://docs.rs/{package}/{VERSION}\")]");
        let source = lib_rs(package);
        assert!(
            source.lines().any(|line| line == expected),
            "crates/{package}/src/lib.rs: expected the line {expected}, found {:?}",
            source.lines().find(|line| line.contains("html_root_url"))
        );
    }
}

#[test]
fn docs_rs_links_name_the_workspace_version() {
    for package in LIBRARIES {
        let source = lib_rs(package);
        for (number, line) in (1..).zip(source.lines()) {
            let mut rest = line;
            while let Some(start) = rest.find("https://docs.rs/") {
                let link = &rest[start + "https://docs.rs/".len()..];
                let end = link
                    .find(|c: char| c == ')' || c == '"' || c.is_whitespace())
                    .unwrap_or(link.len());
                let mut parts = link[..end].split('/');
                let (name, version) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                assert_eq!(
                    version, VERSION,
                    "crates/{package}/src/lib.rs:{number}: the docs.rs link to {name} names \
                     version {version:?}, expected the workspace's {VERSION}"
                );
                rest = &link[end..];
            }
        }
    }
}

#[test]
fn every_library_says_which_crate_to_pick() {
    for package in LIBRARIES {
        let source = lib_rs(package);
        let docs: Vec<&str> = source
            .lines()
            .take_while(|line| line.starts_with("//!") || line.starts_with("#!["))
            .collect();
        let start = docs
            .iter()
            .position(|line| *line == "//! # Which crate do I need?")
            .unwrap_or_else(|| {
                panic!(
                    "crates/{package}/src/lib.rs: expected a \"# Which crate do I need?\" section"
                )
            });
        let section = docs[start..].join("\n");
        for other in LIBRARIES {
            assert!(
                section.contains(&format!("`{other}`")),
                "crates/{package}/src/lib.rs: the \"Which crate do I need?\" section does not \
                 name {other}"
            );
        }
    }
}
