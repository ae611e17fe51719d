//! Bounded reading of newline-delimited messages.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What one call of [`LineReader::next`] produced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A complete line, without its `\n` (and without a trailing `\r`).
    Text(Vec<u8>),
    /// A line longer than the limit; its bytes were discarded as they came.
    TooLong {
        /// How many bytes the line had (without the newline).
        len: usize,
    },
    /// The end of the stream.
    Eof,
}

/// Reads lines of at most `limit` bytes; longer lines are skipped without being buffered.
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
                    Some(len) => Line::TooLong { len },
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
                Some(len) => *len += chunk_len,
                None if self.buffer.len() + chunk_len > self.limit => {
                    discarded = Some(self.buffer.len() + chunk_len);
                    self.buffer = Vec::new();
                }
                None => self.buffer.extend_from_slice(chunk),
            }
            let consumed = chunk_len + usize::from(found_newline);
            self.reader.consume(consumed);
            if found_newline {
                return Ok(match discarded {
                    Some(len) => Line::TooLong { len },
                    None => Line::Text(trim_cr(std::mem::take(&mut self.buffer))),
                });
            }
        }
    }
}

fn trim_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}
