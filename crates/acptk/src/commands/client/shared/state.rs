//! The client's state directory, where it keeps its logs, its prompt history and its named
//! sessions.

use std::path::{Path, PathBuf};

/// The client's state directory (its logs, its named sessions): `$XDG_STATE_HOME/acp/client`,
/// else `~/.local/state/acp/client`.
#[must_use]
pub fn state_dir() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".local/state")))?;
    Some(state.join("acp/client"))
}
