//! Newline-delimited JSON framing over a byte stream: one message per line, bounded reading.

use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter,
};

use super::message::{Frame, HEAD_BYTES, MessageReader, MessageWriter};

/// The size of the write buffer: a burst of queued messages is gathered here and handed to
/// the stream in as few writes as possible.
const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// Reads messages, one per line, from a byte stream. Lines of more than `limit` bytes are
/// skipped without being buffered (beyond their first [`HEAD_BYTES`]); blank lines are
/// ignored; a `\r` before the newline is dropped.
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    limit: usize,
    buffer: Vec<u8>,
}

impl<R: AsyncRead + Unpin> LineReader<BufReader<R>> {
    /// Reads lines of at most `limit` bytes from `reader`.
    pub fn new(reader: R, limit: usize) -> Self {
        Self::buffered(BufReader::new(reader), limit)
    }
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Reads lines of at most `limit` bytes from an already buffered reader.
    pub fn buffered(reader: R, limit: usize) -> Self {
        Self {
            reader,
            limit,
            buffer: Vec::new(),
        }
    }

    /// The next non-empty line. A last line without a newline at the end of the stream counts
    /// as a line.
    pub async fn next(&mut self) -> std::io::Result<Frame> {
        loop {
            match self.read_one().await? {
                Frame::Message(text) if text.iter().all(u8::is_ascii_whitespace) => continue,
                other => return Ok(other),
            }
        }
    }

    async fn read_one(&mut self) -> std::io::Result<Frame> {
        self.buffer.clear();
        let mut discarded: Option<usize> = None;
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                // End of stream: a pending partial line still counts.
                return Ok(match discarded {
                    Some(len) => self.too_long(len),
                    None if self.buffer.is_empty() => Frame::End,
                    None => Frame::Message(trim_cr(std::mem::take(&mut self.buffer))),
                });
            }
            let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (&available[..at], true),
                None => (available, false),
            };
            let chunk_len = chunk.len();
            match &mut discarded {
                Some(len) => {
                    *len += chunk_len;
                    let room = HEAD_BYTES.saturating_sub(self.buffer.len());
                    self.buffer.extend_from_slice(&chunk[..room.min(chunk_len)]);
                }
                None if self.buffer.len() + chunk_len > self.limit => {
                    discarded = Some(self.buffer.len() + chunk_len);
                    // Keep the head in a small buffer; the large one is freed.
                    let kept = self.buffer.len().min(HEAD_BYTES);
                    let mut head = Vec::with_capacity(HEAD_BYTES);
                    head.extend_from_slice(&self.buffer[..kept]);
                    head.extend_from_slice(&chunk[..(HEAD_BYTES - kept).min(chunk_len)]);
                    self.buffer = head;
                }
                None => self.buffer.extend_from_slice(chunk),
            }
            let consumed = chunk_len + usize::from(found_newline);
            self.reader.consume(consumed);
            if found_newline {
                return Ok(match discarded {
                    Some(len) => self.too_long(len),
                    None => Frame::Message(trim_cr(std::mem::take(&mut self.buffer))),
                });
            }
        }
    }
}

impl<R> LineReader<R> {
    /// The over-long line of `len` bytes whose head is in the buffer.
    fn too_long(&mut self, len: usize) -> Frame {
        Frame::TooLong {
            len,
            head: std::mem::take(&mut self.buffer),
        }
    }
}

impl<R: AsyncBufRead + Unpin + Send + 'static> MessageReader for LineReader<R> {
    async fn read(&mut self) -> std::io::Result<Frame> {
        self.next().await
    }
}

/// Writes messages, one per line, to a byte stream, through a buffer that is handed to the
/// stream on each flush.
#[derive(Debug)]
pub struct LineWriter<W: AsyncWrite> {
    writer: BufWriter<W>,
}

impl<W: AsyncWrite> LineWriter<W> {
    /// Writes lines to `writer`.
    pub fn new(writer: W) -> Self {
        Self {
            writer: BufWriter::with_capacity(WRITE_BUFFER_BYTES, writer),
        }
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> MessageWriter for LineWriter<W> {
    async fn write(&mut self, message: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(message).await?;
        self.writer.write_all(b"\n").await
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush().await
    }

    async fn close(&mut self) -> std::io::Result<()> {
        self.writer.flush().await?;
        self.writer.shutdown().await
    }
}

fn trim_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], limit: usize) -> Vec<Frame> {
        // A tiny buffer so that lines arrive in many pieces.
        let reader = tokio::io::BufReader::with_capacity(7, input);
        let mut lines = LineReader::buffered(reader, limit);
        let mut out = Vec::new();
        loop {
            match lines.next().await.expect("in-memory input") {
                Frame::End => return out,
                line => out.push(line),
            }
        }
    }

    #[tokio::test]
    async fn over_long_lines_keep_only_their_head() {
        let long = format!(r#"{{"id":1,"result":"{}"}}"#, "x".repeat(2000));
        let input = format!("short\n{long}\r\nnext\n{long}");
        let got = lines(input.as_bytes(), 100).await;
        let head = long.as_bytes()[..HEAD_BYTES].to_vec();
        assert_eq!(
            got,
            [
                Frame::Message(b"short".to_vec()),
                // The `\r` counts: the line is cut before it is trimmed.
                Frame::TooLong {
                    len: long.len() + 1,
                    head: head.clone()
                },
                Frame::Message(b"next".to_vec()),
                // At the end of input without a newline.
                Frame::TooLong {
                    len: long.len(),
                    head
                },
            ]
        );
    }
}
