//! What `acp` gives people to install next to the binary, tried the way they use it: the
//! shell completion scripts (loaded into bash, zsh and fish when those are installed, and
//! asked to complete), the man pages (rendered by `man` when it is installed), and the order
//! of `acp client --help`, whose first group holds the flags most runs use.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

#[path = "support/client_sections.rs"]
mod client_sections;
#[path = "support/spawn.rs"]
mod spawn;

use client_sections::CLIENT_SECTIONS;
use spawn::Spawn;
use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Every subcommand of `acp` (without `help`).
const SUBCOMMANDS: [&str; 11] = [
    "schema",
    "agent",
    "client",
    "sessions",
    "demo",
    "check",
    "conform",
    "proxy",
    "inspect",
    "completions",
    "man",
];

/// The path of the `acp` binary under test.
fn acp_path() -> &'static str {
    env!("CARGO_BIN_EXE_acp")
}

/// Runs `command` with `input` on its standard input and waits at most a minute for it (a
/// shell or `man` that waits for a terminal is killed and fails the test).
fn run(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .spawn_piped(Stdio::piped())
        .unwrap_or_else(|error| panic!("cannot start {command:?}: {error}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The program may stop reading early; that is for the assertions to judge.
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let mut stderr = child.stderr.take().unwrap();
    let error_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let Some(status) = spawn::exited_within(&mut child, Duration::from_secs(60)) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{command:?} did not finish within a minute");
    };
    writer.join().unwrap();
    Output {
        status,
        stdout: reader.join().unwrap(),
        stderr: error_reader.join().unwrap(),
    }
}

/// `acp ARGS`: its standard output, after checking that it succeeded.
fn acp(args: &[&str]) -> String {
    let output = run(Command::new(acp_path()).args(args), b"");
    assert!(
        output.status.success(),
        "acp {args:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Whether `program` can be started here (`program --version`); when not, the test that
/// needs it says it skips.
fn installed(program: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        eprintln!("skipped: `{program}` is not installed here");
    }
    found
}

/// Whether `word` occurs in `text` as a word of its own (not inside `command` or `man-db`).
fn has_word(text: &str, word: &str) -> bool {
    let is_word_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

#[test]
fn every_completion_script_names_every_subcommand_and_the_client_s_flags() {
    // How each shell's script spells the option `--prompt` of `acp client`.
    let scripts = [
        ("bash", "--prompt"),
        ("zsh", "'--prompt=["),
        ("fish", "-l prompt "),
        ("elvish", "cand --prompt "),
        ("powershell", "[CompletionResult]::new('--prompt'"),
    ];
    for (shell, prompt) in scripts {
        let script = acp(&["completions", shell]);
        assert!(
            script.len() > 1000,
            "the {shell} script is (nearly) empty: {script:?}"
        );
        for subcommand in SUBCOMMANDS {
            assert!(
                has_word(&script, subcommand),
                "the {shell} script does not name `acp {subcommand}`"
            );
        }
        assert!(
            script.contains(prompt),
            "the {shell} script has no `{prompt}` for `acp client --prompt`"
        );
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error_that_lists_the_shells() {
    let output = run(Command::new(acp_path()).args(["completions", "tcsh"]), b"");
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    for shell in ["bash", "elvish", "fish", "powershell", "zsh"] {
        assert!(error.contains(shell), "{error}");
    }
}

#[test]
fn bash_loads_the_script_and_completes_subcommands_and_flags() {
    // As the README says: `source <(acp completions bash)`; then the completion function is
    // called as bash calls it on <TAB> (command, word, previous word) for `acp cl` and
    // `acp client --pr`.
    let script = r#"
        source <("$ACP" completions bash) || exit 1
        complete -p acp
        COMP_WORDS=(acp cl); COMP_CWORD=1; COMP_LINE="acp cl"; COMP_POINT=${#COMP_LINE}
        _acp acp cl acp
        echo "subcommands: ${COMPREPLY[*]}"
        COMP_WORDS=(acp client --pr); COMP_CWORD=2; COMP_LINE="acp client --pr"
        COMP_POINT=${#COMP_LINE}
        _acp acp --pr client
        echo "flags: ${COMPREPLY[*]}"
    "#;
    let output = run(
        Command::new("bash")
            .args(["--norc", "--noprofile", "-c", script])
            .env("ACP", acp_path()),
        b"",
    );
    let text = String::from_utf8_lossy(&output.stdout);
    spawn::assert_succeeded(&output, &text);
    let registered = text.lines().next().unwrap_or_default();
    assert!(
        registered.starts_with("complete ") && registered.ends_with(" -F _acp acp"),
        "`complete -p acp` printed {registered:?}"
    );
    let line = |label: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(label))
            .unwrap_or_else(|| panic!("no `{label}` line in {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(line("subcommands: "), ["client"]);
    let mut flags = line("flags: ");
    flags.sort_unstable();
    assert_eq!(flags, ["--prompt", "--prompt-file", "--protocol"]);
}

#[test]
fn zsh_loads_the_script_as_the_completion_of_acp() {
    if !installed("zsh") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    // `compinit -D`: no dump file; `-u`: the scratch HOME's permissions are not audited.
    let script = r#"
        autoload -Uz compinit && compinit -u -D || exit 1
        source <("$ACP" completions zsh) || exit 1
        print -r -- "registered: $_comps[acp]"
        whence -w _acp
    "#;
    let output = run(
        Command::new("zsh")
            .args(["-f", "-c", script])
            .env("ACP", acp_path())
            .env("HOME", home.path()),
        b"",
    );
    let text = String::from_utf8_lossy(&output.stdout);
    spawn::assert_succeeded(&output, &text);
    assert!(text.contains("registered: _acp\n"), "{text}");
    assert!(text.contains("_acp: function"), "{text}");
}

#[test]
fn fish_loads_the_script_and_completes_subcommands_and_flags() {
    if !installed("fish") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let script = r#"
        $ACP completions fish | source; or exit 1
        complete -C "acp cl"
        complete -C "acp client --pr"
    "#;
    let output = run(
        Command::new("fish")
            .args(["--no-config", "-c", script])
            .env("ACP", acp_path())
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .env("XDG_DATA_HOME", home.path()),
        b"",
    );
    let text = String::from_utf8_lossy(&output.stdout);
    spawn::assert_succeeded(&output, &text);
    // Each candidate is `WORD<TAB>description`.
    let mut words: Vec<&str> = text
        .lines()
        .map(|line| line.split('\t').next().unwrap_or_default())
        .collect();
    words.sort_unstable();
    assert_eq!(
        words,
        ["--prompt", "--prompt-file", "--protocol", "client"],
        "{text}"
    );
}

/// The first line of a roff page that is not part of the preamble clap_mangen writes (string
/// definitions for quotes).
fn first_macro(page: &str) -> &str {
    page.lines()
        .find(|line| !line.starts_with(".ie ") && !line.starts_with(".el "))
        .unwrap_or_default()
}

/// `page` rendered by `man -l -` as plain ASCII text 80 columns wide.
fn render(page: &str) -> String {
    let output = run(
        Command::new("man")
            .args(["-l", "-"])
            .env("LC_ALL", "C")
            .env("MANWIDTH", "80")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat"),
        page.as_bytes(),
    );
    spawn::assert_succeeded(&output, "man -l failed: ");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_man_page_of_acp_is_roff_that_man_renders_with_every_subcommand() {
    let page = acp(&["man"]);
    assert!(
        first_macro(&page).starts_with(".TH acp 1 "),
        "the page does not start with its title: {:?}",
        page.lines().take(4).collect::<Vec<_>>()
    );
    for subcommand in SUBCOMMANDS {
        assert!(
            page.contains(&format!("acp\\-{subcommand}(1)")),
            "the page does not refer to acp-{subcommand}(1)"
        );
    }
    if !installed("man") {
        return;
    }
    let text = render(&page);
    for section in ["NAME", "SYNOPSIS", "SUBCOMMANDS"] {
        assert!(
            text.lines().any(|line| line == section),
            "no {section} in\n{text}"
        );
    }
    assert!(text.contains("acp-client(1)"), "{text}");
}

#[test]
fn man_out_writes_one_page_per_command_and_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let listed = acp(&["man", "--out", out.to_str().unwrap()]);
    let mut listed: Vec<String> = listed.lines().map(str::to_owned).collect();
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .collect();
    listed.sort();
    written.sort();
    assert_eq!(
        listed, written,
        "the paths printed are not the files written"
    );
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut expected: Vec<String> = SUBCOMMANDS
        .iter()
        .map(|subcommand| format!("acp-{subcommand}.1"))
        .collect();
    expected.extend(["acp.1", "acp-sessions-list.1", "acp-inspect-show.1"].map(String::from));
    for name in &expected {
        assert!(names.contains(name), "no {name} among {names:?}");
    }
    assert!(!names.iter().any(|name| name.contains("help")), "{names:?}");

    let client = std::fs::read_to_string(out.join("acp-client.1")).unwrap();
    assert!(
        first_macro(&client).starts_with(".TH acp-client 1 "),
        "{:?}",
        first_macro(&client)
    );
    assert!(client.contains("\\-\\-prompt"), "{client}");
    if !installed("man") {
        return;
    }
    let text = render(&client);
    assert!(text.contains("--prompt <TEXT>"), "{text}");
    // The headings of `--help` become sections of the page.
    assert!(text.lines().any(|line| line == "TERMINAL UI"), "{text}");
}

/// The headings of a help text (unindented lines ending with `:`) with the long flags listed
/// under each, in order.
fn help_sections(help: &str) -> Vec<(String, Vec<String>)> {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            sections.push((line.trim_end_matches(':').to_owned(), Vec::new()));
        } else if let Some((_, flags)) = sections.last_mut() {
            // A flag's line: `  -h, --help ...` or `      --prompt <TEXT> ...`.
            let item = line.trim_start();
            let item = item.strip_prefix("-h, ").unwrap_or(item);
            let item = item.strip_prefix("-V, ").unwrap_or(item);
            if line.starts_with("  ") && !line.starts_with("          ") && item.starts_with("--") {
                flags.push(item.split_whitespace().next().unwrap().to_owned());
            }
        }
    }
    sections
}

#[test]
fn client_help_lists_the_ten_common_flags_first_then_the_named_groups() {
    let common = [
        "--agent",
        "--url",
        "--prompt",
        "--format",
        "--session",
        "--cwd",
        "--approve-all",
        "--mcp-config",
        "--protocol",
        "--verbose",
    ];
    for help_flag in ["--help", "-h"] {
        let help = acp(&["client", help_flag]);
        let sections = help_sections(&help);
        let headings: Vec<&str> = sections.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(headings, CLIENT_SECTIONS, "acp client {help_flag}:\n{help}");
        let options = &sections[1].1;
        let mut expected: Vec<&str> = common.to_vec();
        expected.extend(["--help", "--version"]);
        assert_eq!(options, &expected, "acp client {help_flag}:\n{help}");

        // Regrouping renamed and dropped nothing: every flag of `acp client` is still there.
        let mut all: Vec<&str> = sections
            .iter()
            .flat_map(|(_, flags)| flags.iter().map(String::as_str))
            .collect();
        all.sort_unstable();
        let mut before = vec![
            "--add-dir",
            "--agent",
            "--allow-remote-fs",
            "--allow-remote-terminal",
            "--allow-write",
            "--approve-all",
            "--approve-reads",
            "--auth",
            "--config",
            "--cwd",
            "--deny-all",
            "--format",
            "--grace",
            "--help",
            "--high-contrast",
            "--list-sessions",
            "--load",
            "--mcp-config",
            "--mode",
            "--no-fs",
            "--no-history",
            "--no-notices",
            "--no-terminal",
            "--no-wait",
            "--non-interactive-permissions",
            "--plain",
            "--policy",
            "--prompt",
            "--prompt-file",
            "--protocol",
            "--session",
            "--set",
            "--timeout",
            "--tls-ca",
            "--token",
            "--ttl",
            "--url",
            "--verbose",
            "--version",
        ];
        before.sort_unstable();
        assert_eq!(all, before, "acp client {help_flag}:\n{help}");
    }
}
