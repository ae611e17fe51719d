//! The command-line reference of the user guide (`docs/src/reference/cli.md`), written as
//! Markdown from the same clap definition as the parser ([`crate::cli`]): every command with
//! its usage and description, and its arguments grouped under the headings `--help` shows.
//! The test `tests/cli_reference.rs` compares the checked-in page with [`markdown`], so the
//! page cannot drift from the flags.

use std::fmt::Write;

/// Where the page lives, from the root of the repository.
pub const PAGE: &str = "docs/src/reference/cli.md";

/// The start of the page: what it is and how it is refreshed.
const PREAMBLE: &str = "\
<!-- Generated from the clap definitions of `acp` (crates/acptk/src); do not edit by hand.
     Change the doc comments there, then refresh this page with
     `ACP_BLESS=1 cargo test -p acptk --test cli_reference`. -->

# Command-line reference

Every command of `acp` with its arguments, as `acp COMMAND --help` prints them. The same
definitions give the shell completions (`acp completions SHELL`) and the man pages (`acp man`).

";

/// The whole Markdown page: the preamble, then `acp` and each visible subcommand at every
/// depth, depth first.
#[must_use]
pub fn markdown() -> String {
    // `acp help` is left out, as in the man pages: it only repeats `--help`.
    let mut command = crate::cli::command().disable_help_subcommand(true);
    command.build();
    let mut page = String::from(PREAMBLE);
    write_command(&mut page, &command);
    // One line break at the end, not a blank line.
    while page.ends_with("\n\n") {
        page.pop();
    }
    page
}

/// The section of `command` (its name, description, usage, subcommands, arguments and closing
/// notes), then the sections of its visible subcommands.
fn write_command(page: &mut String, command: &clap::Command) {
    let name = command.get_bin_name().unwrap_or(command.get_name());
    let _ = writeln!(page, "## `{name}`\n");
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        write_paragraphs(page, &sentence(&about.to_string()), "");
        page.push('\n');
    }
    let usage = command.clone().render_usage().to_string();
    let _ = writeln!(page, "```text\n{}\n```\n", usage.trim_end());
    let subcommands: Vec<_> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .collect();
    if !subcommands.is_empty() {
        page.push_str("### Commands\n\n");
        for sub in &subcommands {
            let sub_name = sub.get_bin_name().unwrap_or(sub.get_name());
            let _ = write!(page, "- [`{sub_name}`](#{})", anchor(sub_name));
            if let Some(about) = sub.get_about() {
                let _ = write!(page, ": {}", inline(&sentence(&about.to_string())));
            }
            page.push('\n');
        }
        page.push('\n');
    }
    for (heading, args) in argument_groups(command) {
        let _ = writeln!(page, "### {heading}\n");
        for arg in args {
            write_argument(page, arg);
        }
        page.push('\n');
    }
    if let Some(after) = command.get_after_long_help().or(command.get_after_help()) {
        write_paragraphs(page, &after.to_string(), "");
        page.push('\n');
    }
    for sub in subcommands {
        write_command(page, sub);
    }
}

/// The arguments `--help` shows, under its headings and in its order: positional arguments
/// without a heading ("Arguments"), flags without one ("Options"), then each named heading in
/// the order it first appears.
fn argument_groups(command: &clap::Command) -> Vec<(String, Vec<&clap::Arg>)> {
    let shown: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set() && !arg.is_hide_long_help_set())
        .collect();
    let mut groups: Vec<(String, Vec<&clap::Arg>)> = vec![
        ("Arguments".to_owned(), Vec::new()),
        ("Options".to_owned(), Vec::new()),
    ];
    let mut positionals: Vec<&clap::Arg> = shown
        .iter()
        .copied()
        .filter(|arg| arg.is_positional() && arg.get_help_heading().is_none())
        .collect();
    positionals.sort_by_key(|arg| arg.get_index());
    groups[0].1 = positionals;
    for arg in shown {
        let heading = match arg.get_help_heading() {
            Some(heading) => heading,
            None if arg.is_positional() => continue,
            None => "Options",
        };
        match groups.iter_mut().find(|(name, _)| name == heading) {
            Some((_, args)) => args.push(arg),
            None => groups.push((heading.to_owned(), vec![arg])),
        }
    }
    groups.retain(|(_, args)| !args.is_empty());
    groups
}

/// One argument as a list item: its names and value, its help with its aliases, default and
/// possible values, and the possible values that have a help of their own as a nested list.
fn write_argument(page: &mut String, arg: &clap::Arg) {
    let mut names = Vec::new();
    if let (Some(short), Some(_)) = (arg.get_short(), arg.get_long()) {
        names.push(format!("`-{short}`"));
    }
    names.push(format!("`{arg}`"));
    let _ = write!(page, "- {}", names.join(", "));
    let mut text = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|help| sentence(&help.to_string()))
        .unwrap_or_default();
    if let Some(aliases) = arg.get_visible_aliases() {
        let aliases: Vec<String> = aliases.iter().map(|alias| format!("`--{alias}`")).collect();
        let _ = write!(text, " Alias: {}.", aliases.join(", "));
    }
    let takes_values = arg.get_action().takes_values();
    let defaults = arg.get_default_values();
    if takes_values && !defaults.is_empty() && !arg.is_hide_default_value_set() {
        let defaults: Vec<String> = defaults
            .iter()
            .map(|value| format!("`{}`", value.to_string_lossy()))
            .collect();
        let _ = write!(text, " Default: {}.", defaults.join(", "));
    }
    let values: Vec<clap::builder::PossibleValue> =
        if takes_values && !arg.is_hide_possible_values_set() {
            arg.get_possible_values()
                .into_iter()
                .filter(|value| !value.is_hide_set())
                .collect()
        } else {
            Vec::new()
        };
    let described = values.iter().any(|value| value.get_help().is_some());
    if !values.is_empty() && !described {
        let names: Vec<String> = values
            .iter()
            .map(|value| format!("`{}`", value.get_name()))
            .collect();
        let _ = write!(text, " Possible values: {}.", names.join(", "));
    }
    let text = text.trim();
    if text.is_empty() {
        page.push('\n');
    } else {
        page.push_str(": ");
        write_paragraphs(page, text, "  ");
    }
    if described {
        for value in values {
            let _ = write!(page, "  - `{}`", value.get_name());
            if let Some(help) = value.get_help() {
                let _ = write!(page, ": {}", inline(&sentence(&help.to_string())));
            }
            page.push('\n');
        }
    }
}

/// `text` ending as a sentence: clap drops the full stop of a one-line doc comment, which the
/// page puts back before it adds anything after it.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.is_empty() || text.ends_with(['.', '!', '?', ':']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// Writes `text` (paragraphs separated by blank lines) as Markdown, each line after the first
/// indented by `indent` (so that it stays inside a list item), ending with a line break.
fn write_paragraphs(page: &mut String, text: &str, indent: &str) {
    let mut first = true;
    for line in text.trim().lines() {
        if first {
            first = false;
        } else if line.trim().is_empty() {
            page.push('\n');
            continue;
        } else {
            page.push_str(indent);
        }
        page.push_str(&inline(line.trim_end()));
        page.push('\n');
    }
}

/// `text` with the characters Markdown would read as markup escaped, except inside code
/// spans (between backticks), which the help texts use for literal values.
fn inline(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code && matches!(c, '\\' | '*' | '_' | '<' | '>' | '[' | ']') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// The anchor mdBook gives the heading of a command (`acp sessions list` →
/// `acp-sessions-list`).
fn anchor(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join("-")
}

#[cfg(test)]
mod tests {
    use super::{anchor, inline};

    #[test]
    fn markup_is_escaped_outside_code_spans_only() {
        assert_eq!(
            inline("an [agents.NAME] entry, `<FILE>` or <FILE>, $XDG_STATE_HOME"),
            "an \\[agents.NAME\\] entry, `<FILE>` or \\<FILE\\>, $XDG\\_STATE\\_HOME"
        );
    }

    #[test]
    fn anchors_join_the_words_with_hyphens() {
        assert_eq!(anchor("acp sessions list"), "acp-sessions-list");
    }
}
