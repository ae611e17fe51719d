//! Reading lines asynchronously with a length limit; a longer line is left for streaming.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufWriter};

/// What [`read_line`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// A whole line, with its line break when it had one, is in the buffer.
    Line,
    /// The line is longer than the limit: the buffer holds its first bytes and the rest is
    /// still in the reader (see [`copy_rest`]).
    TooLong,
}

/// Reads the next line, line break included, into `buf` (cleared first), holding at most
/// `limit` bytes plus the line break. `None` at the end of input.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Option<Read>> {
    buf.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if buf.is_empty() {
                None
            } else {
                Some(Read::Line)
            });
        }
        let (take, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let content = take - usize::from(done);
        if buf.len() + content > limit {
            let room = limit.saturating_sub(buf.len());
            buf.extend_from_slice(&available[..room]);
            reader.consume(room);
            return Ok(Some(Read::TooLong));
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(take);
        if done {
            return Ok(Some(Read::Line));
        }
    }
}

/// Streams the rest of the current line (line break included) from `reader` to `out`.
/// Returns how many bytes it read.
pub(crate) async fn copy_rest<R, W>(reader: &mut R, out: &mut Out<W>) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut moved = 0u64;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(moved);
        }
        let (take, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        out.write(&available[..take]).await;
        reader.consume(take);
        moved += take as u64;
        if done {
            return Ok(moved);
        }
    }
}

/// A buffered writer to a peer that stops writing (but never fails) once the peer is gone,
/// so that the other direction keeps flowing and the input keeps being read.
pub(crate) struct Out<W> {
    inner: BufWriter<W>,
    error: Option<io::Error>,
}

impl<W: AsyncWrite + Unpin> Out<W> {
    /// A writer with a 64 KiB buffer.
    pub(crate) fn new(writer: W) -> Self {
        Self {
            inner: BufWriter::with_capacity(64 * 1024, writer),
            error: None,
        }
    }

    /// Writes `bytes`, unless the peer is gone.
    pub(crate) async fn write(&mut self, bytes: &[u8]) {
        if self.error.is_none()
            && let Err(error) = self.inner.write_all(bytes).await
        {
            self.error = Some(error);
        }
    }

    /// Sends what is buffered and then `bytes`, unless the peer is gone. `bytes` goes to the
    /// peer as it is, without a copy into the buffer.
    pub(crate) async fn send(&mut self, bytes: &[u8]) {
        self.flush().await;
        if self.error.is_none()
            && !bytes.is_empty()
            && let Err(error) = self.inner.get_mut().write_all(bytes).await
        {
            self.error = Some(error);
        }
    }

    /// Sends what is buffered, unless the peer is gone.
    pub(crate) async fn flush(&mut self) {
        if self.error.is_none()
            && let Err(error) = self.inner.flush().await
        {
            self.error = Some(error);
        }
    }

    /// Gives up on the peer: nothing more is written to it (what is buffered is dropped).
    pub(crate) fn abandon(&mut self) {
        if self.error.is_none() {
            self.error = Some(io::Error::other("stopped"));
        }
    }

    /// Flushes and closes the writer (the peer sees the end of input).
    pub(crate) async fn close(&mut self) {
        self.flush().await;
        if self.error.is_none()
            && let Err(error) = self.inner.shutdown().await
        {
            self.error = Some(error);
        }
    }
}

/// The length of the whole line (line break included) at the start of `buffered`, if it
/// holds one, so that reading it needs no wait.
pub(crate) fn whole_line(buffered: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', buffered).map(|at| at + 1)
}

/// `line` without its trailing `\n` or `\r\n`, and that ending.
pub(crate) fn split_ending(line: &[u8]) -> (&[u8], &'static [u8]) {
    if let Some(rest) = line.strip_suffix(b"\r\n") {
        (rest, b"\r\n")
    } else if let Some(rest) = line.strip_suffix(b"\n") {
        (rest, b"\n")
    } else {
        (line, b"")
    }
}
