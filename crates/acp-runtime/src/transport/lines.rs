//! Bounded reading of newline-delimited messages.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What one call of [`LineReader::next`] produced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A complete line, without its `\n` (and without a trailing `\r`).
    Text(Vec<u8>),
    /// A line longer than the limit; its bytes were discarded as they came, except the first
    /// [`HEAD_BYTES`] (which usually say what the message is and its id).
    TooLong {
        /// How many bytes the line had (without the newline).
        len: usize,
        /// The first bytes of the line.
        head: Vec<u8>,
    },
    /// The end of the stream.
    Eof,
}

/// How many leading bytes of an over-long line are kept.
pub(crate) const HEAD_BYTES: usize = 512;

/// Reads lines of at most `limit` bytes; longer lines are skipped without being buffered
/// (beyond their first [`HEAD_BYTES`]).
pub(crate) struct LineReader<R> {
    reader: R,
    limit: usize,
    buffer: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R, limit: usize) -> Self {
        Self {
            reader,
            limit,
            buffer: Vec::new(),
        }
    }

    /// The next non-empty line. A last line without a newline at the end of the stream counts
    /// as a line.
    pub(crate) async fn next(&mut self) -> std::io::Result<Line> {
        loop {
            match self.read_one().await? {
                Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => continue,
                other => return Ok(other),
            }
        }
    }

    async fn read_one(&mut self) -> std::io::Result<Line> {
        self.buffer.clear();
        let mut discarded: Option<usize> = None;
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                // End of stream: a pending partial line still counts.
                return Ok(match discarded {
                    Some(len) => self.too_long(len),
                    None if self.buffer.is_empty() => Line::Eof,
                    None => Line::Text(trim_cr(std::mem::take(&mut self.buffer))),
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
                    None => Line::Text(trim_cr(std::mem::take(&mut self.buffer))),
                });
            }
        }
    }
}

impl<R> LineReader<R> {
    /// The over-long line of `len` bytes whose head is in the buffer.
    fn too_long(&mut self, len: usize) -> Line {
        Line::TooLong {
            len,
            head: std::mem::take(&mut self.buffer),
        }
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

    async fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        // A tiny buffer so that lines arrive in many pieces.
        let reader = tokio::io::BufReader::with_capacity(7, input);
        let mut lines = LineReader::new(reader, limit);
        let mut out = Vec::new();
        loop {
            match lines.next().await.expect("in-memory input") {
                Line::Eof => return out,
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
                Line::Text(b"short".to_vec()),
                // The `\r` counts: the line is cut before it is trimmed.
                Line::TooLong {
                    len: long.len() + 1,
                    head: head.clone()
                },
                Line::Text(b"next".to_vec()),
                // At the end of input without a newline.
                Line::TooLong {
                    len: long.len(),
                    head
                },
            ]
        );
    }
}
