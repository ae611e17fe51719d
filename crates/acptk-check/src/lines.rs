//! Reading lines with a length limit, in bounded memory.

use std::io::{self, BufRead};

/// The default line limit: 16 MiB.
pub const DEFAULT_MAX_LINE: usize = 16 * 1024 * 1024;

/// What [`read_line`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// A whole line is in the buffer (without its line break).
    Line,
    /// The line was longer than the limit; it was skipped and the buffer is empty.
    TooLong,
}

/// Reads the next line into `buf` (cleared first), without its `\n` or `\r\n`. Never holds
/// more than `limit` bytes: the rest of a longer line is skipped. `None` at the end of input.
pub fn read_line<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Option<LineRead>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            break;
        }
        any = true;
        let (piece, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (&available[..at], true),
            None => (available, false),
        };
        if !too_long {
            if buf.len() + piece.len() > limit {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(piece);
            }
        }
        let used = piece.len() + usize::from(done);
        reader.consume(used);
        if done {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if too_long {
        return Ok(Some(LineRead::TooLong));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(LineRead::Line))
}
