//! The proxy engine reads and writes newline-delimited JSON; a remote connection carries one
//! message per WebSocket frame (or HTTP body). These two copies join them through in-memory
//! pipes of bounded size:
//!
//! * [`messages_to_lines`]: each message read from a [`MessageReader`] becomes one line (a raw
//!   line break inside JSON text can only be whitespace, so it becomes a space); the end of
//!   the messages ends the lines. A message over the size limit is dropped, and said so.
//! * [`lines_to_messages`]: each line becomes one message for a [`MessageWriter`] (empty lines
//!   are skipped; a line over the size limit is dropped, and said so); the end of the lines
//!   flushes and closes the writer.

use std::io;

use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};

/// How many bytes a pipe between a remote connection and the engine holds.
pub(super) const PIPE_BYTES: usize = 64 * 1024;

/// A pipe: what is written to the first end is read from the second.
pub(super) fn pipe() -> (DuplexStream, DuplexStream) {
    tokio::io::duplex(PIPE_BYTES)
}

/// Copies messages from `reader` to `lines` as lines until `reader` ends, then shuts `lines`
/// down. `warn` hears about dropped messages and read failures.
pub(super) async fn messages_to_lines<R, L>(
    mut reader: R,
    mut lines: L,
    warn: impl Fn(String),
) -> io::Result<()>
where
    R: MessageReader,
    L: AsyncWrite + Unpin,
{
    loop {
        let frame = match reader.read().await {
            Ok(frame) => frame,
            Err(error) => {
                warn(format!("reading the remote peer failed: {error}"));
                break;
            }
        };
        match frame {
            Frame::Message(mut message) => {
                for byte in &mut message {
                    if *byte == b'\n' || *byte == b'\r' {
                        *byte = b' ';
                    }
                }
                message.push(b'\n');
                lines.write_all(&message).await?;
                lines.flush().await?;
            }
            Frame::TooLong { len, .. } => {
                warn(format!(
                    "dropped a message of {len} bytes from the remote peer: over the size limit"
                ));
            }
            Frame::End => break,
            _ => break,
        }
    }
    lines.shutdown().await
}

/// Copies lines from `lines` to `writer` as messages until `lines` ends, then flushes and
/// closes `writer`. Lines over `limit` bytes are dropped (and said so through `warn`).
pub(super) async fn lines_to_messages<L, W>(
    lines: L,
    mut writer: W,
    limit: usize,
    warn: impl Fn(String),
) -> io::Result<()>
where
    L: AsyncRead + Unpin,
    W: MessageWriter,
{
    let mut lines = BufReader::with_capacity(PIPE_BYTES, lines);
    let mut line = Vec::new();
    let result = loop {
        line.clear();
        match read_bounded(&mut lines, &mut line, limit).await {
            Err(error) => break Err(error),
            Ok(Line::End) => break Ok(()),
            Ok(Line::TooLong(len)) => warn(format!(
                "dropped a message of {len} bytes for the remote peer: over the size limit"
            )),
            Ok(Line::Whole) => {
                let text = line.trim_ascii();
                if !text.is_empty()
                    && let Err(error) = writer.write(text).await
                {
                    break Err(error);
                }
                // Gather a burst into one flush.
                if !lines.buffer().contains(&b'\n')
                    && let Err(error) = writer.flush().await
                {
                    break Err(error);
                }
            }
        }
    };
    let _ = writer.flush().await;
    let _ = writer.close().await;
    result
}

enum Line {
    Whole,
    TooLong(usize),
    End,
}

/// Reads one line into `line` (without keeping more than `limit` bytes of it).
async fn read_bounded<L: AsyncRead + Unpin>(
    lines: &mut BufReader<L>,
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Line> {
    let mut len = 0usize;
    loop {
        let buffer = lines.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if len == 0 {
                Line::End
            } else if len > limit {
                Line::TooLong(len)
            } else {
                Line::Whole
            });
        }
        let (take, done) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        if len + take <= limit.saturating_add(1) {
            line.extend_from_slice(&buffer[..take]);
        } else {
            line.clear();
        }
        len += take;
        lines.consume(take);
        if done {
            return Ok(if len > limit.saturating_add(1) {
                Line::TooLong(len)
            } else {
                Line::Whole
            });
        }
    }
}
