//! The prompts sent before, per agent, for Up and Down in the prompt editor: kept in memory
//! while the client runs and in a file of the client's state directory between runs
//! (`$XDG_STATE_HOME/acp/client/history/`, or `~/.local/state/...`), one JSON string per line,
//! the newest last, at most [`MAX_ENTRIES`] prompts and [`MAX_FILE_BYTES`] bytes. The file
//! is written whole (a temporary file renamed over it) and readable by its owner only:
//! prompts can hold anything the user typed.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The most prompts kept per agent.
pub const MAX_ENTRIES: usize = 500;

/// The most bytes a history file may take; the oldest prompts go first.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// The environment variable naming the state directory (the XDG base directory spec).
pub const STATE_HOME_ENV: &str = "XDG_STATE_HOME";

/// The client's state directory: `$XDG_STATE_HOME/acp/client`, else
/// `$HOME/.local/state/acp/client`; `None` when neither variable is set to an absolute path.
#[must_use]
pub fn state_dir() -> Option<PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    let base = absolute(STATE_HOME_ENV)
        .or_else(|| absolute("HOME").map(|home| home.join(".local/state")))?;
    Some(base.join("acp").join("client"))
}

/// The history file for an agent known by `identity` (its command line, or its URL) inside
/// `dir`: a readable part of the identity and a hash of all of it, so that two agents never
/// share a file and the name says whose it is.
///
/// ```
/// use std::path::Path;
/// use acptk::commands::client::tui::history::file_for;
///
/// let file = file_for(Path::new("/state"), &["acp", "agent"]);
/// assert!(file.to_string_lossy().starts_with("/state/history/acp-agent-"));
/// assert_ne!(file, file_for(Path::new("/state"), &["acp", "agent", "--slow"]));
/// ```
#[must_use]
pub fn file_for(dir: &Path, identity: &[impl AsRef<str>]) -> PathBuf {
    let mut slug = String::new();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (index, part) in identity.iter().enumerate() {
        let part = part.as_ref();
        // FNV-1a over the parts and their separators: stable across runs and builds.
        for byte in part.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        let readable = if index == 0 {
            Path::new(part).file_name().map_or_else(
                || part.to_owned(),
                |name| name.to_string_lossy().into_owned(),
            )
        } else {
            part.to_owned()
        };
        for c in readable.chars() {
            if slug.len() >= 40 {
                break;
            }
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                slug.push(c);
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
        }
        if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    dir.join("history").join(format!("{slug}{hash:016x}"))
}

/// The prompts sent before, with the place Up and Down have reached.
#[derive(Debug, Clone, Default)]
pub struct History {
    entries: Vec<String>,
    /// The entry shown now (`None`: the draft).
    position: Option<usize>,
    /// What was in the editor before Up was first pressed.
    draft: String,
    file: Option<PathBuf>,
}

impl History {
    /// An empty history kept in memory only.
    #[must_use]
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// The history stored in `file` (empty when the file does not exist yet); later prompts
    /// are written to it. A line that is not a JSON string is skipped.
    pub fn load(file: PathBuf) -> io::Result<Self> {
        let entries = match fs::read_to_string(&file) {
            Ok(text) => text
                .lines()
                .filter_map(|line| serde_json::from_str::<String>(line).ok())
                .collect(),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(error) => return Err(error),
        };
        let mut history = Self {
            entries,
            file: Some(file),
            ..Self::default()
        };
        history.bound();
        Ok(history)
    }

    /// The prompts, oldest first.
    #[must_use]
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Where the history is stored, if anywhere.
    #[must_use]
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Whether Up or Down has moved away from the draft.
    #[must_use]
    pub fn browsing(&self) -> bool {
        self.position.is_some()
    }

    /// Records a sent prompt (not twice in a row) and goes back to an empty draft; writes the
    /// file when there is one.
    pub fn push(&mut self, prompt: &str) -> io::Result<()> {
        self.position = None;
        self.draft.clear();
        if prompt.trim().is_empty() || self.entries.last().is_some_and(|last| last == prompt) {
            return Ok(());
        }
        self.entries.push(prompt.to_owned());
        self.bound();
        self.save()
    }

    /// The prompt before the one shown (`current` is the editor's text, kept as the draft
    /// when leaving it); `None` at the oldest.
    pub fn previous(&mut self, current: &str) -> Option<&str> {
        let next = match self.position {
            None if self.entries.is_empty() => return None,
            None => {
                self.draft = current.to_owned();
                self.entries.len() - 1
            }
            Some(0) => return None,
            Some(at) => at - 1,
        };
        self.position = Some(next);
        self.entries.get(next).map(String::as_str)
    }

    /// The prompt after the one shown, or the draft after the newest; `None` when the draft
    /// is shown already.
    pub fn following(&mut self) -> Option<&str> {
        let at = self.position?;
        if at + 1 < self.entries.len() {
            self.position = Some(at + 1);
            return self.entries.get(at + 1).map(String::as_str);
        }
        self.position = None;
        Some(&self.draft)
    }

    /// Forgets the place reached (the text shown is being edited: it becomes the draft).
    pub fn stop_browsing(&mut self) {
        self.position = None;
    }

    /// Drops the oldest prompts beyond [`MAX_ENTRIES`] and [`MAX_FILE_BYTES`].
    fn bound(&mut self) {
        let excess = self.entries.len().saturating_sub(MAX_ENTRIES);
        self.entries.drain(..excess);
        let mut bytes: usize = self.entries.iter().map(|entry| entry.len() + 3).sum();
        let mut drop = 0;
        while bytes > MAX_FILE_BYTES && drop < self.entries.len() {
            bytes -= self.entries[drop].len() + 3;
            drop += 1;
        }
        self.entries.drain(..drop);
    }

    /// Writes the file: a temporary file beside it, owner-only, renamed over it.
    fn save(&self) -> io::Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let dir = file.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        let mut text = String::new();
        for entry in &self.entries {
            text.push_str(&serde_json::Value::from(entry.as_str()).to_string());
            text.push('\n');
        }
        let temporary = file.with_extension(format!("tmp{}", std::process::id()));
        let written = (|| {
            let mut out = private_file(&temporary)?;
            out.write_all(text.as_bytes())?;
            out.sync_all()?;
            fs::rename(&temporary, file)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn private_file(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> io::Result<fs::File> {
    fs::File::create(path)
}
