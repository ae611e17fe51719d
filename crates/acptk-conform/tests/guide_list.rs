//! The guide's list of requirements (`docs/src/conformance.md`) is generated from the
//! registry: this test regenerates it in memory and fails when the checked-in list differs.
//! `ACP_BLESS=1` writes it instead.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::collections::BTreeSet;
use std::path::PathBuf;

use acptk_conform::requirement::{ALL, CLIENT, Requirement};

const PAGE: &str = "docs/src/conformance.md";
/// The agent suite's list, then the client suite's: their markers and registries.
const LISTS: [(&str, &str, &[Requirement]); 2] = [
    (
        "<!-- requirements: generated, do not edit -->\n",
        "<!-- end of requirements -->\n",
        ALL,
    ),
    (
        "<!-- client requirements: generated, do not edit -->\n",
        "<!-- end of client requirements -->\n",
        CLIENT,
    ),
];

fn list(registry: &[Requirement]) -> String {
    let mut out = String::from(
        "| id | level | versions | requirement | the sentence, in our words | source |\n|---|---|---|---|---|---|\n",
    );
    for r in registry {
        let versions: Vec<String> = r.versions.iter().map(|v| format!("v{v}")).collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            r.id,
            r.level,
            versions.join(", "),
            r.summary.replace('|', "\\|"),
            r.sentence.replace('|', "\\|"),
            r.source.replace('|', "\\|")
        ));
    }
    out
}

#[test]
fn the_guide_lists_every_requirement_of_the_registry() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(PAGE);
    let mut page = std::fs::read_to_string(&path).unwrap();
    for (start_marker, end_marker, registry) in LISTS {
        let start = page.find(start_marker).expect("the start marker") + start_marker.len();
        let end = page.find(end_marker).expect("the end marker");
        let generated = list(registry);
        if std::env::var_os("ACP_BLESS").is_some() {
            page = format!("{}{generated}{}", &page[..start], &page[end..]);
            continue;
        }
        assert_eq!(
            &page[start..end],
            generated,
            "{PAGE} is out of date with the registry; refresh it with \
             `ACP_BLESS=1 cargo test -p acptk-conform --test guide_list`"
        );
    }
    if std::env::var_os("ACP_BLESS").is_some() {
        std::fs::write(&path, page).unwrap();
    }
}

#[test]
fn ids_are_unique_and_versions_known() {
    let ids: BTreeSet<&str> = ALL.iter().chain(CLIENT).map(|r| r.id).collect();
    assert_eq!(ids.len(), ALL.len() + CLIENT.len());
    for r in ALL.iter().chain(CLIENT) {
        assert!(
            !r.versions.is_empty() && r.versions.iter().all(|v| [1, 2].contains(v)),
            "{}",
            r.id
        );
        assert!(!r.sentence.is_empty() && !r.source.is_empty(), "{}", r.id);
    }
}
