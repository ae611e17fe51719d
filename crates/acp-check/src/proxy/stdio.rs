//! The proxy's own standard input and output, as async streams.
//!
//! When they are pipes (the usual case: an editor launched the proxy as its agent) they are
//! driven by the reactor directly, which keeps the added latency per message small. Anything
//! else (a terminal, a file) goes through tokio's standard streams, which use a blocking
//! thread. Turning a pipe into non-blocking mode affects every process that shares that end
//! of the pipe; a proxy is normally its only user.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::path::Path;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

/// Standard input.
pub fn stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    let pipe = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| pipe::Receiver::from_file(File::from(fd)));
    match pipe {
        Ok(receiver) => Box::new(receiver),
        Err(_) => Box::new(tokio::io::stdin()),
    }
}

/// Standard output.
pub fn stdout() -> Box<dyn AsyncWrite + Unpin + Send> {
    let pipe = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| pipe::Sender::from_file(File::from(fd)));
    match pipe {
        Ok(sender) => Box::new(sender),
        Err(_) => Box::new(tokio::io::stdout()),
    }
}

/// Creates (or truncates) a file to record a transcript in.
pub async fn create_record(path: &Path) -> io::Result<tokio::fs::File> {
    tokio::fs::File::create(path).await
}
