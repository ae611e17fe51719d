//! This process's standard input and output as async streams.
//!
//! When they are pipes (the usual case: an editor launched this process) they are driven by
//! the reactor directly, in non-blocking mode. Anything else (a terminal, a file) goes through
//! tokio's standard streams, which hand every read and write to a blocking thread: that
//! hand-off costs more than the I/O itself for small messages, which is why pipes are not left
//! to them.
//!
//! Non-blocking mode belongs to the open pipe, not to this process: every process sharing
//! that end of the pipe sees it. A program launched with its own pipes (as agents are) is
//! their only user. Nothing else should write to standard output anyway (it carries the
//! protocol), but note that `println!` would now fail on a full pipe instead of waiting; and
//! child processes should get their own stdin/stdout rather than inherit these.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Declares one standard stream: `$name` over `$inner`, a pipe (`$pipe`, opened by
/// `unix::$open`) driven by the reactor, else tokio's blocking-thread stream (`$std`, made by
/// `tokio::io::$make`); `new` is documented with `$new_doc`.
macro_rules! std_stream {
    (
        $(#[$attr:meta])* $name:ident($inner:ident),
        $pipe:ty, $open:ident, $std:ty, $make:ident, $new_doc:literal
    ) => {
        $(#[$attr])*
        #[derive(Debug)]
        pub struct $name($inner);

        #[derive(Debug)]
        enum $inner {
            #[cfg(unix)]
            Pipe($pipe),
            Std($std),
        }

        impl $name {
            #[doc = $new_doc]
            pub fn new() -> Self {
                #[cfg(unix)]
                if let Ok(pipe) = unix::$open() {
                    return Self($inner::Pipe(pipe));
                }
                Self($inner::Std(tokio::io::$make()))
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }
    };
}

std_stream!(
    /// Standard input: a pipe driven by the reactor, or tokio's blocking-thread stream.
    Stdin(StdinInner),
    tokio::net::unix::pipe::Receiver, receiver, tokio::io::Stdin, stdin,
    "This process's standard input. Needs a tokio runtime with I/O enabled."
);

std_stream!(
    /// Standard output: a pipe driven by the reactor, or tokio's blocking-thread stream.
    Stdout(StdoutInner),
    tokio::net::unix::pipe::Sender, sender, tokio::io::Stdout, stdout,
    "This process's standard output. Needs a tokio runtime with I/O enabled."
);

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::io;
    use std::os::fd::AsFd;

    use tokio::net::unix::pipe;

    /// Standard input as a pipe receiver; fails when it is not a pipe.
    pub(super) fn receiver() -> io::Result<pipe::Receiver> {
        let fd = io::stdin().as_fd().try_clone_to_owned()?;
        pipe::Receiver::from_file(File::from(fd))
    }

    /// Standard output as a pipe sender; fails when it is not a pipe.
    pub(super) fn sender() -> io::Result<pipe::Sender> {
        let fd = io::stdout().as_fd().try_clone_to_owned()?;
        let sender = pipe::Sender::from_file(File::from(fd))?;
        super::super::pipe_capacity::widen(&sender);
        Ok(sender)
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            #[cfg(unix)]
            StdinInner::Pipe(pipe) => Pin::new(pipe).poll_read(cx, buf),
            StdinInner::Std(std) => Pin::new(std).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            #[cfg(unix)]
            StdoutInner::Pipe(pipe) => Pin::new(pipe).poll_write(cx, buf),
            StdoutInner::Std(std) => Pin::new(std).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            #[cfg(unix)]
            StdoutInner::Pipe(pipe) => Pin::new(pipe).poll_flush(cx),
            StdoutInner::Std(std) => Pin::new(std).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            #[cfg(unix)]
            StdoutInner::Pipe(pipe) => Pin::new(pipe).poll_shutdown(cx),
            StdoutInner::Std(std) => Pin::new(std).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            #[cfg(unix)]
            StdoutInner::Pipe(pipe) => Pin::new(pipe).poll_write_vectored(cx, bufs),
            StdoutInner::Std(std) => Pin::new(std).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.0 {
            #[cfg(unix)]
            StdoutInner::Pipe(pipe) => pipe.is_write_vectored(),
            StdoutInner::Std(std) => std.is_write_vectored(),
        }
    }
}
