//! Where an owner listens and how both ends talk: a Unix socket, owner-only (0600) in an
//! owner-only directory (0700) that must belong to this user: `$XDG_RUNTIME_DIR/acp`, else
//! `/tmp/acp-UID`. The socket is named after a hash of the session's store and key, so that
//! paths stay short (a Unix socket path holds about 100 bytes). The owner also checks that
//! each peer runs as the same user.

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

use super::protocol::MAX_LINE;
use super::store::{fnv, private_dir};

/// The longest socket path this makes (the system's limit is 104 to 108 bytes).
pub const MAX_PATH: usize = 100;

/// The directory of the owners' sockets, created (0700) when missing; an existing one must
/// belong to this user and be owner-only.
pub fn runtime_dir() -> Result<PathBuf, String> {
    let uid = nix::unistd::getuid().as_raw();
    let dir = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .map_or_else(
            || std::env::temp_dir().join(format!("acp-{uid}")),
            |dir| dir.join("acp"),
        );
    if !dir.exists() {
        private_dir(&dir)?;
    }
    check_private(&dir, uid)?;
    Ok(dir)
}

/// Fails unless `dir` is a directory (not a link) of user `uid` that only it may use.
fn check_private(dir: &Path, uid: u32) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let metadata =
        std::fs::symlink_metadata(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    if !metadata.is_dir() || metadata.uid() != uid || metadata.mode() & 0o077 != 0 {
        return Err(format!(
            "the socket directory {} is not a private directory of this user (mode {:o}, owner {}); remove it or make it 0700",
            dir.display(),
            metadata.mode() & 0o7777,
            metadata.uid()
        ));
    }
    Ok(())
}

/// The socket of the owner of session `key` in the store at `store`.
pub fn path(store: &Path, key: &str) -> Result<PathBuf, String> {
    let hash = fnv(&[store.as_os_str().as_encoded_bytes(), key.as_bytes()]);
    let path = runtime_dir()?.join(format!("{hash:016x}.sock"));
    if path.as_os_str().len() > MAX_PATH {
        return Err(format!(
            "the socket path {} is too long for a Unix socket; set $XDG_RUNTIME_DIR to a shorter directory",
            path.display()
        ));
    }
    Ok(path)
}

/// Connects to the owner at `path`: `None` when there is none (no socket, or a socket nobody
/// listens on).
pub async fn connect(path: &Path) -> Result<Option<UnixStream>, String> {
    match UnixStream::connect(path).await {
        Ok(stream) => Ok(Some(stream)),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            Ok(None)
        }
        Err(error) => Err(format!(
            "cannot reach the session's owner at {}: {error}",
            path.display()
        )),
    }
}

/// Listens at `path` (a socket left by an owner that died is replaced), owner-only.
pub fn bind(path: &Path) -> Result<UnixListener, String> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    if let Ok(metadata) = std::fs::symlink_metadata(path) {
        if metadata.file_type().is_socket() {
            let _ = std::fs::remove_file(path);
        } else {
            return Err(format!("{} is in the way (not a socket)", path.display()));
        }
    }
    let listener = UnixListener::bind(path)
        .map_err(|error| format!("cannot listen at {}: {error}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|error| format!("cannot make {} private: {error}", path.display()))?;
    Ok(listener)
}

/// Whether the peer of `stream` runs as this user.
#[must_use]
pub fn same_user(stream: &UnixStream) -> bool {
    stream
        .peer_cred()
        .is_ok_and(|cred| cred.uid() == nix::unistd::getuid().as_raw())
}

/// Writes `message` as one line.
pub async fn send<W: AsyncWrite + Unpin, T: Serialize>(out: &mut W, message: &T) -> io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line).await?;
    out.flush().await
}

/// Reads one line as a `T`: `None` at the end of the stream; an error for a line that is too
/// long or not a `T`.
pub async fn receive<R: AsyncBufRead + Unpin, T: DeserializeOwned>(
    input: &mut R,
) -> io::Result<Option<T>> {
    let mut line = Vec::new();
    let read = input
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Ok(None);
    }
    if line.len() > MAX_LINE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a line longer than {MAX_LINE} bytes"),
        ));
    }
    serde_json::from_slice(&line)
        .map(Some)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}
