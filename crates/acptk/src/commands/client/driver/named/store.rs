//! The client's record of its named sessions (`acp client --session NAME`), in
//! `sessions/` of the client's state directory (`$XDG_STATE_HOME/acp/client`, else
//! `~/.local/state/acp/client`; the directory is made owner-only, 0700).
//!
//! A named session is known by its *scope*: the name, the agent (its command line, or its
//! URL) and the working directory. Each scope has a key, `NAME-HASH` (the hash of the agent
//! and the directory), and these files:
//!
//! | file | what |
//! |---|---|
//! | `KEY.json` | the [`Record`]: scope, the agent's session id, times, turn count |
//! | `KEY.history.jsonl` | one line per turn (see [`super::history`]) |
//! | `KEY.lock` | held (`flock`) by the one process that talks to the agent for the session |
//! | `KEY.owner.lock` | held by the session's owner, while there is one |
//! | `KEY.owner.log` | what the last owner wrote to its standard error |

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};

/// The version of the record format written.
pub const RECORD_VERSION: u32 = 1;

/// The longest session name.
pub const MAX_NAME: usize = 64;

/// The current time, RFC 3339 in UTC to the millisecond (`2026-05-01T10:00:00.123Z`).
#[must_use]
pub fn now() -> String {
    // Always three digits of milliseconds, so that the times also sort as text.
    let now = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.millisecond()
    )
}

/// Checks a session name: 1 to [`MAX_NAME`] letters, digits, `.`, `_` and `-`, starting with
/// a letter or digit.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{}` is not a session name: use 1 to {MAX_NAME} letters, digits, `.`, `_` and `-`, starting with a letter or digit",
            crate::commands::client::shared::text::terminal_safe(name)
        ))
    }
}

/// A 64-bit FNV-1a hash (stable across builds and platforms, unlike the standard hasher).
#[must_use]
pub fn fnv(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.iter().copied().chain([0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// What a named session is: its name, agent and working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The name.
    pub name: String,
    /// The agent's command line (empty for a remote agent).
    pub agent: Vec<String>,
    /// The remote agent's URL (`--url`).
    pub url: Option<String>,
    /// The named agent it was launched as (`acp client codex`), if any.
    pub agent_name: Option<String>,
    /// The session's working directory.
    pub cwd: String,
}

impl Scope {
    /// The key of the scope's files: `NAME-HASH`.
    #[must_use]
    pub fn key(&self) -> String {
        let agent = self
            .url
            .as_ref()
            .map_or_else(|| self.agent.join("\0"), |url| format!("url:{url}"));
        format!(
            "{}-{:012x}",
            self.name,
            fnv(&[agent.as_bytes(), self.cwd.as_bytes()]) >> 16
        )
    }

    /// The agent for people: the named agent, the URL, or the command line.
    #[must_use]
    pub fn agent_label(&self) -> String {
        agent_label(self.agent_name.as_deref(), self.url.as_deref(), &self.agent)
    }
}

/// The agent for people: the named agent, the URL, or the command line.
#[must_use]
pub fn agent_label(name: Option<&str>, url: Option<&str>, command: &[String]) -> String {
    match (name, url) {
        (Some(name), _) => name.to_owned(),
        (None, Some(url)) => url.to_owned(),
        (None, None) => match command.split_first() {
            Some((program, args)) => {
                crate::commands::client::shared::text::command_line(program, args)
            }
            None => String::new(),
        },
    }
}

/// The record of a named session (`KEY.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// [`RECORD_VERSION`].
    pub version: u32,
    /// The key of its files.
    pub key: String,
    /// The session's name.
    pub name: String,
    /// The agent's command line (empty for a remote agent).
    pub agent: Vec<String>,
    /// The remote agent's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The named agent it was launched as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// The working directory.
    pub cwd: String,
    /// The agent's id of the session (none before the first run opened one).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Ids of earlier sessions of the name that the agent could not continue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_session_ids: Vec<String>,
    /// The protocol version last negotiated.
    #[serde(default)]
    pub protocol: u16,
    /// When the record was made.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// How many turns were recorded.
    #[serde(default)]
    pub turns: u64,
    /// The start of the last prompt (at most 200 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_prompt: Option<String>,
}

impl Record {
    /// A new record for `scope`, with no session yet.
    #[must_use]
    pub fn new(scope: &Scope) -> Self {
        let now = now();
        Self {
            version: RECORD_VERSION,
            key: scope.key(),
            name: scope.name.clone(),
            agent: scope.agent.clone(),
            url: scope.url.clone(),
            agent_name: scope.agent_name.clone(),
            cwd: scope.cwd.clone(),
            session_id: None,
            earlier_session_ids: Vec::new(),
            protocol: 0,
            created_at: now.clone(),
            updated_at: now,
            turns: 0,
            last_prompt: None,
        }
    }

    /// The agent for people.
    #[must_use]
    pub fn agent_label(&self) -> String {
        agent_label(self.agent_name.as_deref(), self.url.as_deref(), &self.agent)
    }

    /// Takes `id` as the session's id, keeping the one it replaces among the earlier ones.
    pub fn set_session(&mut self, id: &str) {
        if let Some(old) = self.session_id.take()
            && old != id
        {
            self.earlier_session_ids.push(old);
        }
        self.session_id = Some(id.to_owned());
        self.updated_at = now();
    }
}

/// Who holds a session's lock (what its lock file says).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// `run` (a one-shot run) or `owner`.
    pub role: String,
    /// Since when.
    pub since: String,
    /// The start of the prompt it runs (a one-shot run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

impl Holder {
    /// This process, in `role`.
    #[must_use]
    pub fn me(role: &str, prompt: Option<&str>) -> Self {
        Self {
            pid: std::process::id(),
            role: role.to_owned(),
            since: now(),
            prompt: prompt.map(preview),
        }
    }
}

/// The start of `text` (at most 200 characters) on one line.
#[must_use]
pub fn preview(text: &str) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    line.trim().to_owned()
}

/// A held lock (released when dropped).
#[derive(Debug)]
pub struct Lock {
    _file: Flock<File>,
}

/// The named sessions' directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store in the client's state directory, created (0700) when missing.
    pub fn open() -> Result<Self, String> {
        let dir = crate::commands::client::shared::state::state_dir()
            .ok_or("no state directory for named sessions: set $XDG_STATE_HOME or $HOME")?
            .join("sessions");
        Self::at(dir)
    }

    /// The store in `dir`, created (0700) when missing.
    pub fn at(dir: PathBuf) -> Result<Self, String> {
        private_dir(&dir)?;
        Ok(Self { dir })
    }

    /// Its directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file `KEY.SUFFIX`.
    #[must_use]
    pub fn path(&self, key: &str, suffix: &str) -> PathBuf {
        self.dir.join(format!("{key}.{suffix}"))
    }

    /// The record of `key`, if there is one.
    pub fn load(&self, key: &str) -> Result<Option<Record>, String> {
        let path = self.path(key, "json");
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|error| format!("{}: not a session record: {error}", path.display())),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(format!("{}: {error}", path.display())),
        }
    }

    /// Writes `record` (a whole new file, renamed into place: a reader never sees half).
    pub fn save(&self, record: &Record) -> Result<(), String> {
        let path = self.path(&record.key, "json");
        let temporary = self.path(&record.key, &format!("json.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(record).map_err(|error| error.to_string())?;
        private_file()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temporary)
            .and_then(|mut file| file.write_all((text + "\n").as_bytes()))
            .and_then(|()| std::fs::rename(&temporary, &path))
            .map_err(|error| {
                let _ = std::fs::remove_file(&temporary);
                format!("cannot write {}: {error}", path.display())
            })
    }

    /// Every record, sorted by name then key; files that are not records are skipped.
    pub fn all(&self) -> Result<Vec<Record>, String> {
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|error| format!("{}: {error}", self.dir.display()))?;
        let mut records: Vec<Record> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_str()?.to_owned();
                let key = name.strip_suffix(".json")?;
                self.load(key).ok().flatten()
            })
            .collect();
        records.sort_by(|a, b| (&a.name, &a.key).cmp(&(&b.name, &b.key)));
        Ok(records)
    }

    /// The record that `name` means: the one whose key it is, else the one of that name
    /// (with several, the one in `cwd`). The error says why none or which ones.
    pub fn select(&self, name: &str, cwd: Option<&Path>) -> Result<Record, String> {
        let all = self.all()?;
        if let Some(record) = all.iter().find(|record| record.key == name) {
            return Ok(record.clone());
        }
        let named: Vec<&Record> = all.iter().filter(|record| record.name == name).collect();
        let in_cwd: Vec<&Record> = match cwd {
            Some(dir) => {
                let dir = dir.to_string_lossy();
                named
                    .iter()
                    .copied()
                    .filter(|record| record.cwd == dir)
                    .collect()
            }
            None => Vec::new(),
        };
        match (named.as_slice(), in_cwd.as_slice()) {
            ([], _) => Err(format!(
                "no named session `{}` (see `acp sessions list`)",
                crate::commands::client::shared::text::terminal_safe(name)
            )),
            ([one], _) | (_, [one]) => Ok((*one).clone()),
            (several, _) => {
                let mut message = format!(
                    "{} named sessions are called `{name}`; pick one by its key (or run in its directory, or give --cwd):",
                    several.len()
                );
                for record in several {
                    message.push_str(&format!(
                        "\n  {}  {}  {}",
                        record.key,
                        record.cwd,
                        record.agent_label()
                    ));
                }
                Err(message)
            }
        }
    }

    /// Removes the record of `key` and its history and lock files.
    pub fn forget(&self, key: &str) -> Result<(), String> {
        for suffix in ["json", "history.jsonl", "lock", "owner.lock", "owner.log"] {
            let path = self.path(key, suffix);
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(format!("cannot remove {}: {error}", path.display())),
            }
        }
        Ok(())
    }

    /// Takes the lock `KEY.SUFFIX` for `holder` without waiting: `Ok(Err(holder))` names who
    /// has it when it is taken.
    pub fn try_lock(
        &self,
        key: &str,
        suffix: &str,
        holder: &Holder,
    ) -> Result<Result<Lock, Option<Holder>>, String> {
        let path = self.path(key, suffix);
        let file = private_file()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|error| format!("cannot open {}: {error}", path.display()))?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(mut locked) => {
                let text = serde_json::to_string(holder).unwrap_or_default();
                let _ = locked.set_len(0);
                let _ = locked.write_all(text.as_bytes());
                let _ = locked.flush();
                Ok(Ok(Lock { _file: locked }))
            }
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => Ok(Err(read_holder(&path))),
            Err((_, error)) => Err(format!("cannot lock {}: {error}", path.display())),
        }
    }

    /// Who holds the lock `KEY.SUFFIX` now, if anyone (`None` also when it is free).
    #[must_use]
    pub fn holder(&self, key: &str, suffix: &str) -> Option<Holder> {
        let path = self.path(key, suffix);
        let file = std::fs::File::open(&path).ok()?;
        match Flock::lock(file, FlockArg::LockSharedNonblock) {
            // Free: let go at once.
            Ok(_) => None,
            Err(_) => read_holder(&path),
        }
    }
}

/// What a lock file says about its holder.
fn read_holder(path: &Path) -> Option<Holder> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Options that create a file readable and writable by its owner only (0600).
#[must_use]
pub fn private_file() -> std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.mode(0o600);
    options
}

/// Creates `dir` (and its parents) when missing, and makes it owner-only (0700).
pub fn private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|error| format!("cannot make {} private: {error}", dir.display()))
}
