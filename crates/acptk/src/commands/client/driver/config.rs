//! `acp client`'s config file: defaults for the flags and named agents.
//!
//! The file is `$XDG_CONFIG_HOME/acp/config.toml` (else `~/.config/acp/config.toml`; a missing
//! file is no error), or the one `--config FILE` names (which must exist). Flags given on the
//! command line win over it. Every key is optional; an unknown key is an error that names it,
//! the file and the line:
//!
//! ```toml
//! format = "text"                       # text | json | quiet
//! permissions = "approve-reads"         # approve-all | approve-reads | deny-all
//! # policy = "policy.json"              # a --policy file (instead of `permissions`)
//! non-interactive-permissions = "deny"  # deny | fail
//! timeout = 300                         # seconds (--timeout)
//! mcp-config = "mcp.json"               # --mcp-config
//! ttl = 300                             # seconds a session's owner waits idle (--ttl)
//!
//! [agents.codex]                        # `acp client codex`, `acp client --agent codex`
//! command = "npx"
//! args = ["-y", "@agentclientprotocol/codex-acp"]
//! env = { RUST_LOG = "warn" }
//! cwd = "/some/dir"                     # where the agent process starts
//! ```
//!
//! Relative paths (`policy`, `mcp-config`, an agent's `cwd`) are relative to the directory
//! of the config file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::decide::NonInteractive;
use crate::commands::client::shared::format::Format;

/// The built-in permission policies, by the name of their flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Permissions {
    /// `--approve-all`.
    ApproveAll,
    /// `--approve-reads`.
    ApproveReads,
    /// `--deny-all`.
    DenyAll,
}

/// One `[agents.NAME]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentEntry {
    /// The program.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables to set for it.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The directory the agent process starts in (not the session's working directory).
    #[serde(default)]
    pub cwd: Option<PathBuf>,
}

/// The config file, as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// `--format`.
    #[serde(default, deserialize_with = "value_enum")]
    pub format: Option<Format>,
    /// `--approve-all`, `--approve-reads` or `--deny-all`.
    #[serde(default)]
    pub permissions: Option<Permissions>,
    /// `--policy FILE`.
    #[serde(default)]
    pub policy: Option<PathBuf>,
    /// `--non-interactive-permissions`.
    #[serde(default, deserialize_with = "value_enum")]
    pub non_interactive_permissions: Option<NonInteractive>,
    /// `--timeout`, in seconds.
    #[serde(default)]
    pub timeout: Option<f64>,
    /// `--mcp-config FILE`.
    #[serde(default)]
    pub mcp_config: Option<PathBuf>,
    /// `--ttl`, in seconds.
    #[serde(default)]
    pub ttl: Option<f64>,
    /// Named agents.
    #[serde(default)]
    pub agents: BTreeMap<String, AgentEntry>,
}

/// Reads a string as one of a clap value enum's values (`text`, `json`, ...).
fn value_enum<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: clap::ValueEnum,
{
    let text = String::deserialize(deserializer)?;
    T::from_str(&text, false).map(Some).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|value| Some(value.to_possible_value()?.get_name().to_owned()))
            .collect();
        serde::de::Error::custom(format!("`{text}` is not one of: {}", names.join(", ")))
    })
}

/// The config file read from disk, with the place it came from.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// Its content (empty when there is no file).
    pub config: Config,
    /// The file, when there was one.
    pub path: Option<PathBuf>,
}

/// The default config file: `$XDG_CONFIG_HOME/acp/config.toml`, else
/// `~/.config/acp/config.toml`.
#[must_use]
pub fn default_path() -> Option<PathBuf> {
    let non_empty = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    let base = non_empty("XDG_CONFIG_HOME")
        .filter(|dir| dir.is_absolute())
        .or_else(|| non_empty("HOME").map(|home| home.join(".config")))?;
    Some(base.join("acp/config.toml"))
}

impl Loaded {
    /// Reads `explicit` (`--config FILE`, which must exist), else the default file when it
    /// exists.
    pub fn read(explicit: Option<&Path>) -> Result<Self, String> {
        let path = match explicit {
            Some(path) => path.to_owned(),
            None => match default_path() {
                Some(path) if path.is_file() => path,
                _ => return Ok(Self::default()),
            },
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("config file {}: {error}", path.display()))?;
        let config = parse(&text)
            .map_err(|error| format!("config file {}: {}", path.display(), error.trim_end()))?;
        Ok(Self {
            config,
            path: Some(path),
        })
    }

    /// `path` relative to the config file's directory (absolute paths as they are).
    #[must_use]
    pub fn resolve(&self, path: &Path) -> PathBuf {
        match self.path.as_ref().and_then(|file| file.parent()) {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_owned(),
        }
    }

    /// Where the config came from, for messages.
    #[must_use]
    pub fn origin(&self) -> String {
        self.path.as_ref().map_or_else(
            || "the config".to_owned(),
            |path| format!("config file {}", path.display()),
        )
    }
}

/// Parses the text of a config file; an error says where (line and column) and what.
pub fn parse(text: &str) -> Result<Config, String> {
    let config: Config = toml::from_str(text).map_err(|error| error.to_string())?;
    for (key, seconds) in [("timeout", config.timeout), ("ttl", config.ttl)] {
        if let Some(seconds) = seconds
            && !(seconds.is_finite() && (0.0..1e9).contains(&seconds))
        {
            return Err(format!(
                "`{key}` must be a number of seconds from 0 up, not {seconds}"
            ));
        }
    }
    if config.permissions.is_some() && config.policy.is_some() {
        return Err("give `permissions` or `policy`, not both".to_owned());
    }
    for (name, entry) in &config.agents {
        if entry.command.trim().is_empty() {
            return Err(format!("[agents.{name}]: `command` is empty"));
        }
    }
    Ok(config)
}
