//! [`LocalFiles`]: the agent's text files on the local disk, confined to the directories of
//! the session that asks.
//!
//! A path is accepted only when it is absolute and, with every symbolic link resolved, lies
//! inside the session's working directory or one of its additional directories: a path
//! outside, or a link that leads outside, is refused with a message that names the path and
//! the directories. A file that is not UTF-8 text is refused too, and so is anything that is
//! not a regular file (a FIFO, whose read would block; a device; a socket) and a file with
//! more than one hard link (its other names may lie outside the allowed directories, and a
//! write would change the file there too). Reads honour `line` (first
//! line, from 1) and `limit` (number of lines) and never hold more than the byte limit in
//! memory; writes create missing parent directories inside the allowed directories.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};

use acptk_schema::jsonrpc::ErrorObject;

use super::handler::{ReadFiles, ReadTextFile, SessionScope, WriteFiles, WriteTextFile};
use crate::connection::BoxFuture;
use crate::rpc;

/// The most bytes of text one read returns by default (8 MiB): an answer must fit in one
/// message, and escaping can make the text longer on the wire.
pub const MAX_READ_BYTES: usize = 8 * 1024 * 1024;

/// Text files on the local disk, confined to each session's directories. Serves both
/// `fs/read_text_file` and `fs/write_text_file`; offer it through
/// [`ClientHandler::file_reader`](super::ClientHandler::file_reader) and
/// [`ClientHandler::file_writer`](super::ClientHandler::file_writer).
#[derive(Debug, Clone)]
pub struct LocalFiles {
    max_read_bytes: usize,
}

impl Default for LocalFiles {
    fn default() -> Self {
        Self::new()
    }
}

fn refused(message: String) -> ErrorObject {
    rpc::invalid_params(message)
}

fn describe_roots(scope: &SessionScope) -> String {
    scope
        .roots()
        .map(|root| format!("`{}`", root.display()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn io_error(action: &str, path: &Path, error: &io::Error) -> ErrorObject {
    if error.kind() == io::ErrorKind::NotFound {
        ErrorObject::new(
            rpc::RESOURCE_NOT_FOUND,
            format!(
                "cannot {action} `{}`: no such file or directory",
                path.display()
            ),
        )
    } else {
        rpc::internal(format!("cannot {action} `{}`: {error}", path.display()))
    }
}

impl LocalFiles {
    /// Files confined to each session's directories, reads limited to [`MAX_READ_BYTES`].
    pub fn new() -> Self {
        Self {
            max_read_bytes: MAX_READ_BYTES,
        }
    }

    /// Sets the most bytes one read may return.
    #[must_use]
    pub fn max_read_bytes(mut self, bytes: usize) -> Self {
        self.max_read_bytes = bytes.max(1);
        self
    }

    /// The session's directories with their links resolved (directories that do not exist
    /// are left out).
    fn roots(scope: &SessionScope) -> Vec<PathBuf> {
        scope
            .roots()
            .filter_map(|root| std::fs::canonicalize(root).ok())
            .collect()
    }

    fn inside(scope: &SessionScope, requested: &Path, resolved: &Path) -> Result<(), ErrorObject> {
        if Self::roots(scope)
            .iter()
            .any(|root| resolved.starts_with(root))
        {
            return Ok(());
        }
        let how = if resolved == requested {
            String::new()
        } else {
            format!(" (it resolves to `{}`)", resolved.display())
        };
        Err(refused(format!(
            "`{}` is outside the session's directories{how}; allowed: {}",
            requested.display(),
            describe_roots(scope)
        )))
    }

    fn absolute(path: &Path) -> Result<(), ErrorObject> {
        if path.is_absolute() {
            Ok(())
        } else {
            Err(refused(format!(
                "`{}` is not an absolute path (ACP file paths must be absolute)",
                path.display()
            )))
        }
    }

    /// The file a read of `path` opens, links resolved, after checking that it is inside.
    pub fn check_read(&self, scope: &SessionScope, path: &Path) -> Result<PathBuf, ErrorObject> {
        Self::absolute(path)?;
        let resolved =
            std::fs::canonicalize(path).map_err(|error| io_error("read", path, &error))?;
        Self::inside(scope, path, &resolved)?;
        Ok(resolved)
    }

    /// The file a write of `path` creates or replaces, links resolved, after checking that it
    /// is inside. For a file that does not exist yet, its nearest existing directory is
    /// resolved and must be inside; the rest of the path may not contain `..`.
    pub fn check_write(&self, scope: &SessionScope, path: &Path) -> Result<PathBuf, ErrorObject> {
        Self::absolute(path)?;
        if std::fs::symlink_metadata(path).is_ok() {
            let resolved = std::fs::canonicalize(path).map_err(|error| {
                refused(format!(
                    "`{}` is a link that cannot be resolved: {error}",
                    path.display()
                ))
            })?;
            Self::inside(scope, path, &resolved)?;
            return Ok(resolved);
        }
        let mut existing = path;
        let mut tail = Vec::new();
        while std::fs::symlink_metadata(existing).is_err() {
            let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                return Err(refused(format!(
                    "`{}` has no existing directory",
                    path.display()
                )));
            };
            tail.push(name.to_owned());
            existing = parent;
        }
        if path
            .components()
            .any(|component| matches!(component, Component::ParentDir))
        {
            return Err(refused(format!(
                "`{}` contains `..` in a part that does not exist yet",
                path.display()
            )));
        }
        let mut resolved =
            std::fs::canonicalize(existing).map_err(|error| io_error("write", path, &error))?;
        for name in tail.iter().rev() {
            resolved.push(name);
        }
        Self::inside(scope, path, &resolved)?;
        Ok(resolved)
    }

    /// Reads the text `request` asks for (blocking).
    pub fn read(&self, request: &ReadTextFile) -> Result<String, ErrorObject> {
        let file = self.check_read(&request.scope, &request.path)?;
        let handle = open_regular(&file, &request.path)?;
        let first = request.line.unwrap_or(1).max(1);
        let limit = request.limit.map_or(usize::MAX, |limit| limit as usize);
        let mut reader = BufReader::new(handle);
        let fail = |error: io::Error| io_error("read", &request.path, &error);
        for _ in 1..first {
            if !skip_line(&mut reader).map_err(fail)? {
                return Ok(String::new());
            }
        }
        let mut text = Vec::new();
        let mut lines = 0;
        while lines < limit {
            let room = self.max_read_bytes.saturating_sub(text.len());
            let read = (&mut reader)
                .take(room as u64 + 1)
                .read_until(b'\n', &mut text)
                .map_err(fail)?;
            if read == 0 {
                break;
            }
            if text.len() > self.max_read_bytes {
                return Err(refused(format!(
                    "`{}` has more than {} bytes of text in the lines asked for; ask for fewer lines with `line` and `limit`",
                    request.path.display(),
                    self.max_read_bytes
                )));
            }
            lines += 1;
        }
        String::from_utf8(text).map_err(|error| {
            rpc::internal(format!(
                "`{}` is not UTF-8 text (invalid byte at offset {} of the part read)",
                request.path.display(),
                error.utf8_error().valid_up_to()
            ))
        })
    }

    /// Writes the file `request` names (blocking), creating missing parent directories. A
    /// request the user did not agree to ([`WriteTextFile::is_approved`]) is refused.
    pub fn write(&self, request: &WriteTextFile) -> Result<(), ErrorObject> {
        if !request.is_approved() {
            return Err(refused(format!(
                "writing `{}` was not approved by the user",
                request.path.display()
            )));
        }
        let file = self.check_write(&request.scope, &request.path)?;
        if let Ok(metadata) = std::fs::metadata(&file) {
            plain_file(&metadata, &request.path)?;
        }
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|error| io_error("write", &request.path, &error))?;
        }
        std::fs::write(&file, request.content.as_bytes())
            .map_err(|error| io_error("write", &request.path, &error))
    }
}

/// Opens `file` for reading without blocking on a FIFO, and checks what it opened (not what
/// the path named a moment before): a regular file with one link.
fn open_regular(file: &Path, requested: &Path) -> Result<File, ErrorObject> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO opened for reading would wait for a writer; a terminal must not become ours.
        options.custom_flags((nix::fcntl::OFlag::O_NONBLOCK | nix::fcntl::OFlag::O_NOCTTY).bits());
    }
    let handle = options
        .open(file)
        .map_err(|error| io_error("read", requested, &error))?;
    let metadata = handle
        .metadata()
        .map_err(|error| io_error("read", requested, &error))?;
    plain_file(&metadata, requested)?;
    Ok(handle)
}

/// Refuses what is not a regular file with a single link.
fn plain_file(metadata: &std::fs::Metadata, requested: &Path) -> Result<(), ErrorObject> {
    let kind = metadata.file_type();
    if kind.is_dir() {
        return Err(refused(format!("`{}` is a directory", requested.display())));
    }
    if !kind.is_file() {
        #[cfg(unix)]
        let what = {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_fifo() {
                "a FIFO"
            } else if kind.is_char_device() || kind.is_block_device() {
                "a device"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "not a regular file"
            }
        };
        #[cfg(not(unix))]
        let what = "not a regular file";
        return Err(refused(format!(
            "`{}` is {what}; only regular files are read and written",
            requested.display()
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let links = metadata.nlink();
        if links > 1 {
            return Err(refused(format!(
                "`{}` has {links} hard links; its other names may lie outside the session's directories, so it is neither read nor written",
                requested.display()
            )));
        }
    }
    Ok(())
}

/// The directory `dir` with its links resolved, after checking that it is absolute, exists,
/// is a directory and lies inside the session's directories (the checks of a file read).
pub(crate) fn confined_dir(scope: &SessionScope, dir: &Path) -> Result<PathBuf, ErrorObject> {
    LocalFiles::absolute(dir)?;
    let resolved = std::fs::canonicalize(dir).map_err(|error| io_error("use", dir, &error))?;
    LocalFiles::inside(scope, dir, &resolved)?;
    if !resolved.is_dir() {
        return Err(refused(format!("`{}` is not a directory", dir.display())));
    }
    Ok(resolved)
}

/// Skips one line without keeping it; `false` at the end of the file.
fn skip_line(reader: &mut impl BufRead) -> io::Result<bool> {
    let mut any = false;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(any);
        }
        any = true;
        match buffer.iter().position(|byte| *byte == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                return Ok(true);
            }
            None => {
                let len = buffer.len();
                reader.consume(len);
            }
        }
    }
}

/// Runs blocking file work off the runtime's threads.
fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorObject> + Send + 'static,
) -> BoxFuture<Result<T, ErrorObject>> {
    Box::pin(async move {
        tokio::task::spawn_blocking(work)
            .await
            .unwrap_or_else(|error| Err(rpc::internal(format!("the file task failed: {error}"))))
    })
}

impl ReadFiles for LocalFiles {
    fn read_text_file(&self, request: ReadTextFile) -> BoxFuture<Result<String, ErrorObject>> {
        let files = self.clone();
        blocking(move || files.read(&request))
    }
}

impl WriteFiles for LocalFiles {
    fn write_text_file(&self, request: WriteTextFile) -> BoxFuture<Result<(), ErrorObject>> {
        let files = self.clone();
        blocking(move || files.write(&request))
    }
}
