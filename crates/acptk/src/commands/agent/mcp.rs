//! Checking whether the command of an stdio MCP server can be started.

use std::path::{Path, PathBuf};

/// Why a command cannot be started, or `None` when it can (it names an executable file,
/// directly or found on `PATH`).
pub fn unavailable_reason(command: &str) -> Option<String> {
    if command.trim().is_empty() {
        return Some("the server has an empty command".to_owned());
    }
    if command.contains(std::path::MAIN_SEPARATOR) || command.contains('/') {
        return check_file(Path::new(command)).err();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join(command))
        .any(|candidate: PathBuf| check_file(&candidate).is_ok());
    if found {
        None
    } else {
        Some(format!("command `{command}` was not found on PATH"))
    }
}

fn check_file(path: &Path) -> Result<(), String> {
    let metadata = std::fs::metadata(path)
        .map_err(|error| format!("cannot start `{}`: {error}", path.display()))?;
    if !metadata.is_file() {
        return Err(format!("cannot start `{}`: not a file", path.display()));
    }
    if !is_executable(&metadata) {
        return Err(format!("cannot start `{}`: not executable", path.display()));
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    true
}
