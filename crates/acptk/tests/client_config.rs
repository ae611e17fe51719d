//! `acp client`'s config file, named agents, `--mcp-config`, `--add-dir` warnings and
//! `--version`, against the real `acp agent`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/scripted.rs"]
mod scripted;

#[path = "support/home.rs"]
mod home;

use std::path::Path;
use std::time::Duration;

use home::{Home, Ran};
use scripted::ACP;

/// Writes `text` as the default config file of `home`.
fn config(home: &Home, text: &str) {
    let dir = home.config.join("acp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), text).unwrap();
}

/// `acp client ARGS` (no agent command unless `ARGS` has one).
fn client(home: &Home, cwd: &Path, args: &[&str]) -> Ran {
    let mut all = vec!["client"];
    all.extend_from_slice(args);
    home.run(cwd, &all)
}

#[test]
fn version() {
    let home = Home::new("cf-v");
    let work = home.work("w");
    let expected = env!("CARGO_PKG_VERSION");
    for args in [
        &["--version"][..],
        &["client", "--version"],
        &["sessions", "--version"],
    ] {
        let ran = home.run(&work, args).expect(0);
        assert!(
            ran.stdout.starts_with("acp") && ran.stdout.trim_end().ends_with(expected),
            "{args:?}: {}",
            ran.stdout
        );
    }
}

#[test]
fn the_config_file_gives_defaults_that_flags_override() {
    let home = Home::new("cf-d");
    let work = home.work("w");
    config(&home, "format = \"quiet\"\npermissions = \"approve-all\"\n");
    // Quiet, and the tool call approved by the config's policy.
    let agent = home.agent(&[]);
    let ran = home
        .client(&work, &["--prompt", "one two"], &agent)
        .expect(0);
    assert_eq!(
        ran.stdout, "Done: 2 words, 7 characters.\n",
        "{}",
        ran.stderr
    );
    // Flags win: another format, another policy.
    let ran = home
        .client(
            &work,
            &["--prompt", "one two", "--format", "text", "--deny-all"],
            &agent,
        )
        .expect(0);
    assert!(
        ran.stdout.contains("-- turn ended: end_turn --"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("by policy"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("You did not allow the tool call"),
        "{}",
        ran.stdout
    );
    // A timeout from the config bounds the turn (exit 4).
    config(&home, "timeout = 0.5\n");
    let slow = home.agent(&["--delay-ms", "300"]);
    let ran = home.client(&work, &["--prompt", "hi"], &slow).expect(4);
    assert!(ran.stderr.contains("(--timeout)"), "{}", ran.stderr);
    // --config FILE instead of the default one; it must exist.
    let other = home.dir().join("other.toml");
    std::fs::write(&other, "format = \"json\"\n").unwrap();
    let ran = home
        .client(
            &work,
            &[
                "--config",
                other.to_str().unwrap(),
                "--prompt",
                "hi",
                "--deny-all",
            ],
            &agent,
        )
        .expect(0);
    assert!(
        ran.stdout.starts_with("{\"type\":\"session\""),
        "{}",
        ran.stdout
    );
    let missing = home.dir().join("missing.toml");
    let ran = home
        .client(
            &work,
            &["--config", missing.to_str().unwrap(), "--prompt", "hi"],
            &agent,
        )
        .expect(2);
    assert!(ran.stderr.contains("missing.toml"), "{}", ran.stderr);
}

#[test]
fn a_bad_config_file_is_an_error_naming_the_file_line_and_key() {
    let home = Home::new("cf-bad");
    let work = home.work("w");
    let agent = home.agent(&[]);
    let file = home.config.join("acp/config.toml");
    for (text, expected) in [
        (
            "format = \"text\"\ncolour = \"red\"\n",
            &["line 2", "unknown field `colour`"][..],
        ),
        (
            "format = \"loud\"\n",
            &["line 1", "`loud` is not one of: text, json, quiet"],
        ),
        (
            "[agents.x]\ncommand = \"a\"\nargv = [\"b\"]\n",
            &["line 3", "unknown field `argv`"],
        ),
        ("timeout = -1\n", &["`timeout` must be a number of seconds"]),
        (
            "permissions = \"deny-all\"\npolicy = \"p.json\"\n",
            &["not both"],
        ),
        ("format = \n", &["line 1"]),
    ] {
        config(&home, text);
        let ran = home.client(&work, &["--prompt", "hi"], &agent).expect(2);
        assert!(
            ran.stderr
                .contains(&format!("config file {}", file.display())),
            "{text:?}: {}",
            ran.stderr
        );
        for part in expected {
            assert!(
                ran.stderr.contains(part),
                "{text:?}: {part:?} in {}",
                ran.stderr
            );
        }
    }
}

#[test]
fn named_agents_from_the_config_file_and_built_in() {
    let home = Home::new("cf-n");
    let work = home.work("w");
    let agent_dir = home.work("agent-home");
    // The entry's env must reach the agent: without it the replies would take forever.
    config(
        &home,
        &format!(
            "[agents.example]\ncommand = \"{ACP}\"\nargs = [\"agent\", \"--state-dir\", \"st\", \"--no-permission\"]\nenv = {{ ACP_AGENT_DELAY_MS = \"0\" }}\ncwd = \"{}\"\n\n[agents.codex]\ncommand = \"{ACP}\"\nargs = [\"agent\", \"--ephemeral\"]\n",
            agent_dir.display()
        ),
    );
    for args in [
        &["example", "--prompt", "one"][..],
        &["--agent", "example", "--prompt", "one"],
    ] {
        let mut command = home.command(&work, &[&["client"][..], args].concat());
        command.env("ACP_AGENT_DELAY_MS", "100000");
        let ran = home::end(command.spawn().unwrap(), Duration::from_secs(20)).expect(0);
        assert!(ran.stdout.contains("Done: 1 words"), "{}", ran.stderr);
        // Continued by name.
        assert!(
            ran.stderr
                .contains("acp: continue this session with: acp client example --load "),
            "{}",
            ran.stderr
        );
    }
    // The agent ran in the entry's `cwd`: its relative state directory is there.
    assert!(agent_dir.join("st").is_dir());
    // A built-in name, replaced by the config's entry (no network needed).
    let ran = client(
        &home,
        &work,
        &["codex", "--prompt", "hi", "--format", "quiet"],
    )
    .expect(0);
    assert!(ran.stdout.contains("You did not allow"), "{}", ran.stderr);
    // A named session remembers the name it was started with.
    client(
        &home,
        &work,
        &["example", "--session", "n", "--prompt", "hi"],
    )
    .expect(0);
    let shown = home.sessions(&work, &["show", "n"]).expect(0);
    assert!(
        shown.stdout.contains("agent       example\n"),
        "{}",
        shown.stdout
    );
    assert!(shown.stdout.contains("command     "), "{}", shown.stdout);

    let unknown = client(&home, &work, &["nosuch", "--prompt", "hi"]).expect(2);
    assert!(
        unknown.stderr.contains(
            "no agent named `nosuch`; the named agents are: claude, codex, example, gemini"
        ),
        "{}",
        unknown.stderr
    );
    let both = client(
        &home,
        &work,
        &["example", "--prompt", "hi", "--", ACP, "agent"],
    )
    .expect(2);
    assert!(both.stderr.contains("not both"), "{}", both.stderr);
    let none = client(&home, &work, &["--prompt", "hi"]).expect(2);
    assert!(
        none.stderr
            .contains("no agent: give its command after `--`"),
        "{}",
        none.stderr
    );
    home.wait_for_nothing_left(Duration::from_secs(5));
}

#[test]
fn mcp_servers_reach_the_agent_in_both_versions_and_unadvertised_ones_are_left_out() {
    let home = Home::new("cf-m");
    let work = home.work("w");
    let mcp = work.join("mcp.json");
    std::fs::write(
        &mcp,
        r#"{"mcpServers": {
            "files": {"command": "/no/such/mcp-files", "args": ["--root", "."], "env": {"LOG": "1"}},
            "search": {"type": "http", "url": "https://mcp.example/search", "headers": {"Authorization": "Bearer t"}},
            "events": {"type": "sse", "url": "https://mcp.example/sse"},
            "off": {"command": "/no/such/off", "disabled": true},
            "tools": {"command": "/no/such/mcp-tools", "timeout": 5}
        }}"#,
    )
    .unwrap();
    let agent: Vec<String> = [ACP, "agent", "--ephemeral"].map(str::to_owned).to_vec();
    for protocol in ["1", "2"] {
        let ran = home
            .client(
                &work,
                &[
                    "--protocol",
                    protocol,
                    "--mcp-config",
                    "mcp.json",
                    "--prompt",
                    "hi",
                    "--format",
                    "json",
                ],
                &agent,
            )
            .expect(0);
        // The agent got the stdio servers: it says it cannot start them.
        let notices: Vec<String> = ran
            .json()
            .iter()
            .filter(|event| event["type"] == "notice")
            .map(|event| event["title"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            notices,
            [
                "MCP server files unavailable",
                "MCP server tools unavailable"
            ],
            "v{protocol}: {}",
            ran.stdout
        );
        // It advertises no remote transports: those are left out, saying what is kept.
        assert!(
            ran.stderr.contains(&format!(
                "acp: warning: left out MCP server(s) `events` (sse), `search` (http): the agent did not advertise that transport (ACP v{protocol}); kept `files`, `tools`"
            )),
            "v{protocol}: {}",
            ran.stderr
        );
    }
    // From the config file, relative to it.
    std::fs::create_dir_all(home.config.join("acp")).unwrap();
    std::fs::copy(&mcp, home.config.join("acp/servers.json")).unwrap();
    config(&home, "mcp-config = \"servers.json\"\n");
    let ran = home
        .client(&work, &["--prompt", "hi", "--format", "json"], &agent)
        .expect(0);
    assert!(
        ran.stdout.contains("MCP server files unavailable"),
        "{}",
        ran.stdout
    );
    config(&home, "");
    // Bad files: exit 2, naming the file and the problem.
    for (text, expected) in [
        ("{", "not JSON"),
        ("{}", "expected an object with `mcpServers`"),
        (
            r#"{"mcpServers": {"a": {"type": "ws", "url": "x"}}}"#,
            "server `a`: `type` `ws` is not one of: stdio, http, sse",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "args": "y"}}}"#,
            "server `a`: `args` must be a list of strings",
        ),
        (
            r#"{"mcpServers": {"a": {"env": {}}}}"#,
            "server `a`: give `command`",
        ),
        (
            r#"{"mcpServers": {"a": {"type": "http", "url": "u", "headers": {"h": 1}}}}"#,
            "`headers.h` must be a string",
        ),
    ] {
        std::fs::write(&mcp, text).unwrap();
        let ran = home
            .client(
                &work,
                &["--mcp-config", "mcp.json", "--prompt", "hi"],
                &agent,
            )
            .expect(2);
        assert!(
            ran.stderr.contains("--mcp-config mcp.json: ") && ran.stderr.contains(expected),
            "{text}: {}",
            ran.stderr
        );
    }
}

#[test]
fn an_add_dir_the_agent_cannot_take_is_a_warning_naming_what_is_kept() {
    let home = Home::new("cf-a");
    let work = home.work("w");
    let extra = home.work("extra");
    let ran = home
        .client(
            &work,
            &["--add-dir", extra.to_str().unwrap(), "--prompt", "hi"],
            &home.agent(&[]),
        )
        .expect(0);
    assert!(
        ran.stderr.contains(&format!(
            "acp: warning: the agent takes no further directories (it did not advertise `additionalDirectories`): left out --add-dir {}; the session keeps only its working directory {}",
            extra.display(),
            work.display()
        )),
        "{}",
        ran.stderr
    );
}
