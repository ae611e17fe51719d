//! Named agents: `acp client codex` (or `--agent codex`) instead of the agent's command line.
//! The names come from the config file's `[agents.NAME]` entries and from the built-in ones
//! below, which an entry of the same name replaces.

use std::path::PathBuf;

use super::config::Loaded;

/// The built-in agents: name, program, arguments. Each is the npm package (or program) its
/// project publishes for ACP, started the way its documentation says.
pub const BUILT_IN: &[(&str, &str, &[&str])] = &[
    // OpenAI Codex through its ACP adapter (the package moved from @zed-industries).
    ("codex", "npx", &["-y", "@agentclientprotocol/codex-acp"]),
    // Claude Code through its ACP adapter (the package moved from @zed-industries).
    (
        "claude",
        "npx",
        &["-y", "@agentclientprotocol/claude-agent-acp"],
    ),
    // Gemini CLI speaks ACP itself (older versions spell the flag `--experimental-acp`).
    ("gemini", "gemini", &["--acp"]),
];

/// An agent picked by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedAgent {
    /// The name it was picked by.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Environment variables to set for it.
    pub env: Vec<(String, String)>,
    /// The directory its process starts in, when the entry says.
    pub cwd: Option<PathBuf>,
}

/// The agent named `name`: the config file's entry, else the built-in one.
pub fn resolve(name: &str, config: &Loaded) -> Result<NamedAgent, String> {
    if let Some(entry) = config.config.agents.get(name) {
        let mut command = vec![entry.command.clone()];
        command.extend(entry.args.iter().cloned());
        return Ok(NamedAgent {
            name: name.to_owned(),
            command,
            env: entry
                .env
                .iter()
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
            cwd: entry.cwd.as_deref().map(|dir| config.resolve(dir)),
        });
    }
    if let Some((_, program, args)) = BUILT_IN.iter().find(|(known, ..)| *known == name) {
        let mut command = vec![(*program).to_owned()];
        command.extend(args.iter().map(|arg| (*arg).to_owned()));
        return Ok(NamedAgent {
            name: name.to_owned(),
            command,
            env: Vec::new(),
            cwd: None,
        });
    }
    Err(format!(
        "no agent named `{name}`; the named agents are: {} (add one as [agents.{name}] in {}, or give the command after `--`)",
        names(config).join(", "),
        config.path.as_ref().map_or_else(
            || super::config::default_path().map_or_else(
                || "the config file".to_owned(),
                |path| path.display().to_string()
            ),
            |path| path.display().to_string()
        )
    ))
}

/// Every name: the config file's and the built-in ones, sorted.
#[must_use]
pub fn names(config: &Loaded) -> Vec<String> {
    let mut names: Vec<String> = config
        .config
        .agents
        .keys()
        .cloned()
        .chain(BUILT_IN.iter().map(|(name, ..)| (*name).to_owned()))
        .collect();
    names.sort();
    names.dedup();
    names
}
