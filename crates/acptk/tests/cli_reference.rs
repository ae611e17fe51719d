//! The user guide's command-line reference (`docs/src/reference/cli.md`) is generated from the
//! clap definitions of `acp`: this test regenerates it in memory and fails when the checked-in
//! page differs, so a flag cannot change without its documentation. `ACP_BLESS=1` writes the
//! page instead.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/client_sections.rs"]
mod client_sections;

use client_sections::CLIENT_SECTIONS;
use std::path::PathBuf;

use acptk::reference::{PAGE, markdown};

/// How to refresh the page, for the failure messages.
const REFRESH: &str = "ACP_BLESS=1 cargo test -p acptk --test cli_reference";

fn page_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(PAGE)
}

#[test]
fn the_checked_in_reference_is_what_the_flags_generate() {
    let generated = markdown();
    let path = page_path();
    if std::env::var_os("ACP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    let checked_in = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {PAGE} ({error}); write it with `{REFRESH}`"));
    if checked_in != generated {
        let line = checked_in
            .lines()
            .zip(generated.lines())
            .position(|(old, new)| old != new)
            .unwrap_or_else(|| checked_in.lines().count().min(generated.lines().count()));
        panic!(
            "{PAGE} is out of date with the flags of `acp` (first difference at line {}:\n  \
             checked in: {:?}\n  generated:  {:?});\nrefresh it with `{REFRESH}` and commit it",
            line + 1,
            checked_in.lines().nth(line).unwrap_or("(end of file)"),
            generated.lines().nth(line).unwrap_or("(end of file)"),
        );
    }
}

/// The section of the page about `name` (`acp client`), up to the next command's.
fn section<'a>(page: &'a str, name: &str) -> &'a str {
    let heading = format!("\n## `{name}`\n");
    let start = page
        .find(&heading)
        .unwrap_or_else(|| panic!("no section for `{name}`"));
    let rest = &page[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

#[test]
fn every_command_and_every_visible_flag_has_its_place_in_the_page() {
    let page = markdown();
    let mut command = acptk::cli::command();
    command.build();
    let mut pending = vec![command];
    let mut commands = 0;
    while let Some(command) = pending.pop() {
        if command.get_name() == "help" {
            continue;
        }
        // The root has no bin name until a command line is parsed.
        let name = command
            .get_bin_name()
            .unwrap_or(command.get_name())
            .to_owned();
        commands += 1;
        let text = section(&page, &name);
        assert!(
            text.contains(&format!("Usage: {name}")),
            "no usage for `{name}`"
        );
        for arg in command.get_arguments().filter(|arg| !arg.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                assert!(
                    text.contains(&format!("- `--{long}"))
                        || text.contains(&format!(", `--{long}")),
                    "`{name} --{long}` is not in its section"
                );
            }
            if let Some(heading) = arg.get_help_heading() {
                assert!(
                    text.contains(&format!("\n### {heading}\n")),
                    "`{name}` has no heading {heading:?}"
                );
            }
        }
        pending.extend(command.get_subcommands().cloned());
    }
    // acp, its eleven subcommands, two of `acp conform`, seven of `acp sessions` and ten of
    // `acp inspect`.
    assert_eq!(commands, 31);
    // The hidden flag of the session owner stays out of the guide.
    assert!(!page.contains("serve-as-owner"));
}

#[test]
fn client_options_come_first_and_each_group_keeps_its_flags() {
    let page = markdown();
    let client = section(&page, "acp client");
    let headings: Vec<&str> = client
        .lines()
        .filter_map(|line| line.strip_prefix("### "))
        .collect();
    assert_eq!(headings, CLIENT_SECTIONS);
    let options = &client[client.find("### Options").unwrap()..client.find("### Prompt").unwrap()];
    assert!(
        options.contains("- `--prompt <TEXT>`: Run one turn with this prompt"),
        "{options}"
    );
    assert!(
        options.contains("command and file write. Alias: `--allow`."),
        "{options}"
    );
    assert!(
        options.contains("final message (quiet).\n  - `text`: Plain text"),
        "{options}"
    );
    assert!(options.contains("- `-h`, `--help`: "), "{options}");
}
