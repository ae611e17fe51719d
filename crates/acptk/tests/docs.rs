//! The README and the user guide (`docs/src`) cannot go stale silently:
//!
//! - every command line of their ```` ```sh ```` blocks runs, against the `acp` just built
//!   (first on `PATH`), in a scratch directory per page with links to the repository's
//!   `crates/` and `deploy/`, and with `HOME` and the XDG directories inside it; a line
//!   `cargo run [--release] [-q] -p acptk -- ARGS` runs `acp ARGS`. Each must exit with 0;
//!   a failure names the file and line of the command. A block that cannot run here (the
//!   network, another machine, a terminal, a server that runs until stopped, a cargo build) is
//!   preceded by `<!-- not run: REASON -->`, the only exemption;
//! - every page with a Rust sample is compiled by the doc-tests of `src/lib.rs`, and their
//!   code blocks all name a language (rustdoc would take a bare one for Rust);
//! - relative links between the pages lead to files that exist, and `SUMMARY.md` lists every
//!   page;
//! - the README stays a ten-minute read: at most 250 lines.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The README's length limit, in lines.
const README_MAX_LINES: usize = 250;
/// How long one command may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);
/// The marker that exempts the next ```` ```sh ```` block, followed by the reason and `-->`.
const NOT_RUN: &str = "<!-- not run:";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and every page of the guide, as paths relative to the repository.
fn documents() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    let mut stack = vec![PathBuf::from("docs/src")];
    while let Some(dir) = stack.pop() {
        let entries = fs::read_dir(repository().join(&dir))
            .unwrap_or_else(|error| panic!("cannot list {}: {error}", dir.display()));
        for entry in entries {
            let path = dir.join(entry.expect("a directory entry").file_name());
            if repository().join(&path).is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

fn read(path: &Path) -> String {
    fs::read_to_string(repository().join(path))
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// A fenced code block: its info string, the line of its opening fence (1-based), its lines,
/// and whether a `<!-- not run: ... -->` marker precedes it.
#[derive(Debug)]
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
    exempt: Option<String>,
}

/// The fenced code blocks of a Markdown text (fences of three or more backticks at the start
/// of a line; a fence closes with at least as many backticks).
fn blocks(path: &Path, text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    let mut last_text_line = String::new();
    for (index, line) in text.lines().enumerate() {
        let ticks = line.chars().take_while(|c| *c == '`').count();
        match &mut open {
            Some((fence, block)) => {
                // A closing fence carries no info string: ```` ```sh ```` here means that the
                // block above was never closed and Markdown shows the rest of the page as code.
                assert!(
                    ticks < *fence
                        || !line[ticks..]
                            .trim()
                            .starts_with(|c: char| c.is_alphabetic()),
                    "{}:{}: `{}` opens a block inside the block of line {}: close that one first",
                    path.display(),
                    index + 1,
                    line.trim(),
                    block.line
                );
                if ticks >= *fence && line[ticks..].trim().is_empty() {
                    found.push(open.take().expect("an open block").1);
                    // A marker belongs to the block right after it, never to a later one.
                    last_text_line.clear();
                } else {
                    block.lines.push(line.to_owned());
                }
            }
            None if ticks >= 3 => {
                let marker = last_text_line.trim();
                let exempt = marker
                    .strip_prefix(NOT_RUN)
                    .and_then(|rest| rest.strip_suffix("-->"))
                    .map(|reason| reason.trim().to_owned());
                let block = Block {
                    info: line[ticks..].trim().to_owned(),
                    line: index + 1,
                    lines: Vec::new(),
                    exempt,
                };
                open = Some((ticks, block));
            }
            None => {
                if !line.trim().is_empty() {
                    last_text_line = line.to_owned();
                }
            }
        }
    }
    assert!(
        open.is_none(),
        "{}: a code block is never closed",
        path.display()
    );
    found
}

/// The command lines of a block: `\` continues a line; blank lines and comments are left out.
fn commands(block: &Block) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (offset, line) in block.lines.iter().enumerate() {
        let number = block.line + 1 + offset;
        let (start, mut text) = pending.take().unwrap_or((number, String::new()));
        if text.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(head) => {
                text.push_str(head);
                text.push(' ');
                pending = Some((start, text));
            }
            None => {
                text.push_str(line.trim());
                found.push((start, text));
            }
        }
    }
    found.extend(pending);
    found
}

/// `cargo run [--release] [-q] -p acptk -- ARGS` becomes `acp ARGS`; any other command is
/// returned as it is.
fn rewrite(command: &str) -> String {
    let Some(rest) = command.strip_prefix("cargo run ") else {
        return command.to_owned();
    };
    let Some((flags, args)) = rest.split_once(" -- ") else {
        return command.to_owned();
    };
    let flags: Vec<&str> = flags.split_whitespace().collect();
    let allowed = ["--release", "-q", "--quiet", "-p", "acptk"];
    if flags.windows(2).any(|pair| pair == ["-p", "acptk"])
        && flags.iter().all(|flag| allowed.contains(flag))
    {
        format!("acp {args}")
    } else {
        command.to_owned()
    }
}

/// A scratch directory for one page, with `acp` on a `PATH` of its own.
struct Scratch {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

fn scratch() -> Scratch {
    let dir = tempfile::tempdir().expect("a scratch directory");
    let bin = dir.path().join("bin");
    for sub in ["bin", "home", "config", "state", "data", "run"] {
        fs::create_dir(dir.path().join(sub)).expect("a scratch subdirectory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{PermissionsExt, symlink};
        symlink(env!("CARGO_BIN_EXE_acp"), bin.join("acp")).expect("a link to acp");
        for shared in ["crates", "deploy"] {
            symlink(repository().join(shared), dir.path().join(shared)).expect("a link");
        }
        fs::set_permissions(dir.path().join("run"), fs::Permissions::from_mode(0o700))
            .expect("a private runtime directory");
    }
    Scratch { dir, bin }
}

/// Runs one command line with bash in the page's scratch directory; `Err` says what went
/// wrong, with its output.
fn run(scratch: &Scratch, command: &str) -> Result<(), String> {
    let root = scratch.dir.path();
    let path = format!(
        "{}:{}",
        scratch.bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("bash");
    child
        .args(["-c", &format!("set -o pipefail\n{command}")])
        .current_dir(root)
        .env("PATH", path)
        .env("HOME", root.join("home"))
        .env("XDG_CONFIG_HOME", root.join("config"))
        .env("XDG_STATE_HOME", root.join("state"))
        .env("XDG_DATA_HOME", root.join("data"))
        .env("XDG_RUNTIME_DIR", root.join("run"))
        .env("ACP_AGENT_DELAY_MS", "0")
        .env_remove("ACP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut child, 0);
    let mut child = child
        .spawn()
        .map_err(|error| format!("cannot start bash: {error}"))?;
    // The output is read by threads, so that a command writing much never blocks on a pipe.
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if started.elapsed() > COMMAND_TIMEOUT {
            // `--`: procps' kill reads `-KILL -PGID` as two signals and kills nothing.
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // A command that left a process behind (`... &`) would hold the output pipes open, and
    // the readers would wait for it forever: it is ended, and the block fails.
    let group = format!("-{}", child.id());
    let left_behind = status.is_some()
        && Command::new("kill")
            .args(["-s", "0", "--", &group])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
    if left_behind {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .status();
    }
    let output = |reader: Option<std::thread::JoinHandle<String>>| {
        reader
            .and_then(|handle| handle.join().ok())
            .unwrap_or_default()
    };
    let (stdout, stderr) = (output(stdout), output(stderr));
    match status {
        Some(_) if left_behind => Err(format!(
            "left a process running after it ended (mark the block `not run`, or end what it \
             starts)\n--- stderr ---\n{}",
            tail(&stderr)
        )),
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(format!(
            "exited with {status}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            tail(&stdout),
            tail(&stderr)
        )),
        None => Err(format!(
            "did not end within {} s\n--- stderr ---\n{}",
            COMMAND_TIMEOUT.as_secs(),
            tail(&stderr)
        )),
    }
}

fn drain(mut reader: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = reader.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The last 20 lines of an output.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// The ```` ```sh ```` blocks of a page that are to run, and the problems of its markers.
fn runnable(path: &Path, text: &str, problems: &mut Vec<String>) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for block in blocks(path, text) {
        let language = block.info.split(',').next().unwrap_or("").trim();
        if language != "sh" {
            continue;
        }
        match &block.exempt {
            Some(reason) if reason.is_empty() => problems.push(format!(
                "{}:{}: `{NOT_RUN} -->` needs a reason",
                path.display(),
                block.line
            )),
            Some(_) => {}
            None => {
                for (line, command) in commands(&block) {
                    let command = rewrite(&command);
                    if command.starts_with("cargo ") {
                        problems.push(format!(
                            "{}:{line}: `{command}` builds with cargo: precede its block with \
                             `{NOT_RUN} REASON -->`",
                            path.display()
                        ));
                    } else {
                        found.push((line, command));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn the_shell_commands_of_the_readme_and_the_guide_run() {
    let mut problems = Vec::new();
    let mut ran = 0;
    for path in documents() {
        let text = read(&path);
        let commands = runnable(&path, &text, &mut problems);
        if commands.is_empty() {
            continue;
        }
        let scratch = scratch();
        for (line, command) in commands {
            ran += 1;
            if let Err(why) = run(&scratch, &command) {
                problems.push(format!("{}:{line}: `{command}` {why}", path.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(
        ran > 20,
        "only {ran} commands ran: are the blocks still marked ```sh?"
    );
}

#[test]
fn a_failing_command_is_named_with_its_file_and_line() {
    let text = "Some text.\n\n```sh\nacp --version\nacp no-such-command\n```\n\n<!-- not run: a \
                server -->\n```sh\nacp inspect ui\n```\n";
    let mut problems = Vec::new();
    let commands = runnable(Path::new("page.md"), text, &mut problems);
    assert_eq!(
        commands,
        [
            (4, "acp --version".to_owned()),
            (5, "acp no-such-command".to_owned())
        ]
    );
    let scratch = scratch();
    assert_eq!(run(&scratch, &commands[0].1), Ok(()));
    let failure = run(&scratch, &commands[1].1).expect_err("an unknown subcommand fails");
    assert!(failure.starts_with("exited with"), "{failure}");
    // A command that leaves a process behind fails at once, and the process is ended.
    let started = Instant::now();
    let failure = run(&scratch, "sleep 300 &").expect_err("a process left behind fails");
    assert!(failure.starts_with("left a process running"), "{failure}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    // A marker needs a reason, and a cargo build must be exempted.
    let text = "<!-- not run: -->\n```sh\nacp demo\n```\n```sh\ncargo build\n```\n";
    let mut problems = Vec::new();
    assert!(runnable(Path::new("page.md"), text, &mut problems).is_empty());
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("page.md:2:"), "{problems:?}");
    assert!(problems[1].starts_with("page.md:6:"), "{problems:?}");
}

#[test]
#[should_panic(expected = "page.md:4: ````sh` opens a block inside the block of line 1")]
fn a_block_left_open_is_named() {
    blocks(
        Path::new("page.md"),
        "```sh\nacp demo\n\n```sh\nacp --version\n```\n",
    );
}

#[test]
fn cargo_run_of_the_cli_is_the_built_binary() {
    assert_eq!(rewrite("cargo run --release -p acptk -- demo"), "acp demo");
    assert_eq!(
        rewrite("cargo run -q -p acptk -- schema --protocol 2"),
        "acp schema --protocol 2"
    );
    assert_eq!(
        rewrite("cargo run -p acptk-runtime --example x -- y"),
        "cargo run -p acptk-runtime --example x -- y"
    );
}

#[test]
fn the_readme_is_a_ten_minute_read() {
    let lines = read(Path::new("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move the detail into the \
         guide (docs/src)"
    );
}

#[test]
fn every_rust_sample_is_compiled_by_the_doc_tests() {
    let library = read(Path::new("crates/acptk/src/lib.rs"));
    let mut problems = Vec::new();
    for path in documents() {
        let text = read(&path);
        let included = library.contains(&format!("../../../{}\")", path.display()));
        let found = blocks(&path, &text);
        if found.iter().any(|block| block.info.starts_with("rust")) && !included {
            problems.push(format!(
                "{} has Rust samples but is not included in the doc-tests of \
                 crates/acptk/src/lib.rs",
                path.display()
            ));
        }
        if included {
            for block in found.iter().filter(|block| block.info.is_empty()) {
                problems.push(format!(
                    "{}:{}: a code block without a language (rustdoc would compile it as \
                     Rust; use `text`)",
                    path.display(),
                    block.line
                ));
            }
            for block in found.iter().filter(|block| block.info.contains("ignore")) {
                problems.push(format!(
                    "{}:{}: an `ignore`d sample (use `no_run`: compiled, not run)",
                    path.display(),
                    block.line
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_links_between_pages_lead_somewhere_and_the_summary_lists_every_page() {
    let mut problems = Vec::new();
    for path in documents() {
        let text = read(&path);
        let base = path.parent().unwrap_or(Path::new(""));
        let mut rest = text.as_str();
        while let Some(start) = rest.find("](") {
            rest = &rest[start + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            let file = target.split('#').next().unwrap_or("");
            let external = target.contains("://") || target.starts_with("mailto:");
            if !external && !file.is_empty() && !repository().join(base).join(file).exists() {
                problems.push(format!(
                    "{}: a link to {target}, which does not exist",
                    path.display()
                ));
            }
        }
    }
    let summary = read(Path::new("docs/src/SUMMARY.md"));
    for path in documents() {
        let Ok(page) = path.strip_prefix("docs/src") else {
            continue;
        };
        if page != Path::new("SUMMARY.md") && !summary.contains(&format!("]({})", page.display())) {
            problems.push(format!(
                "docs/src/SUMMARY.md does not list {}",
                page.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The rows of the key table of `page` (the table headed `| keys | what they do |`), as
/// `/help` words them: `KEYS: WHAT`, the guide's code marks left out.
fn key_table(page: &str) -> Vec<String> {
    let text = read(Path::new(page));
    let mut lines = text.lines().skip_while(|l| *l != "| keys | what they do |");
    assert!(lines.next().is_some(), "{page} has no key table");
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 2, "{page}: a key row of two cells: {row}");
            format!("{}: {}", cells[0], cells[1].replace('`', ""))
        })
        .collect()
}

#[test]
fn the_help_of_the_terminal_ui_lists_the_keys_of_the_guide() {
    let guide = key_table("docs/src/client-chat.md");
    let help = acptk::commands::client::tui::slash::help(&[], true);
    assert_eq!(help.first().map(String::as_str), Some("keys:"));
    let keys: Vec<&String> = help
        .iter()
        .skip(1)
        .take_while(|l| !l.starts_with("the client's commands"))
        .collect();
    let guide: Vec<&String> = guide.iter().collect();
    assert_eq!(
        keys, guide,
        "/help's keys (TUI_KEYS in tui/slash.rs) and the key table of docs/src/client-chat.md disagree"
    );
}
