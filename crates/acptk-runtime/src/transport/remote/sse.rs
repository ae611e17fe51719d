//! Server-sent events, both ends. The server frames each message once ([`frame`], done by
//! the writer that routes it) and sends what is already queued for a stream as one chunk
//! ([`response`]); the client reads events from whatever chunks arrive ([`EventReader`]), in
//! time linear in the bytes.
//!
//! A JSON-RPC message goes out as `data: <message>\n\n`; a message with line breaks in it
//! (JSON allows them between tokens) goes out as one `data:` line per line, which the
//! client joins back with `\n`. While nothing is queued for [`KEEP_ALIVE`], a comment line
//! (`:`) keeps proxies from closing the idle stream.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::stream;

use super::accept::Served;
use crate::transport::queue::QueueReceiver;

/// How long a stream may stay silent before a keep-alive comment goes out.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A stream's writer hands it a chunk once the chunk has this many bytes, and chunks already
/// queued are sent together up to this many bytes (a larger chunk goes alone), so a burst
/// costs one body write, not one per message. What a chunk holds has left the stream's
/// bounded queue: this is the most a stream holds beyond that bound.
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;

/// The response that streams the chunks of server-sent-event text that `receiver` yields
/// until it ends. `served` marks the TCP connection as served while the stream is open.
pub(crate) fn response(receiver: QueueReceiver, served: Served) -> Response {
    let chunks = stream::unfold((receiver, served), |(mut receiver, served)| async move {
        let mut chunk = match tokio::time::timeout(KEEP_ALIVE, receiver.recv()).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return None,
            Err(_) => {
                return Some((Ok(Bytes::from_static(b":\n\n")), (receiver, served)));
            }
        };
        while chunk.len() < CHUNK_BYTES {
            let Some(next) = receiver.try_recv() else {
                break;
            };
            chunk.extend_from_slice(&next);
        }
        Some((Ok::<_, Infallible>(Bytes::from(chunk)), (receiver, served)))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(chunks),
    )
        .into_response()
}

/// Appends `message` to `chunk` as one event (bytes that are not UTF-8 replaced, as an
/// event stream is text).
pub(crate) fn frame(chunk: &mut Vec<u8>, message: &[u8]) {
    let text = match std::str::from_utf8(message) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(message),
    };
    if memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_none() {
        chunk.extend_from_slice(b"data: ");
        chunk.extend_from_slice(text.as_bytes());
        chunk.extend_from_slice(b"\n\n");
        return;
    }
    let mut rest = text.as_ref();
    loop {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        chunk.extend_from_slice(b"data: ");
        chunk.extend_from_slice(&rest.as_bytes()[..end]);
        chunk.push(b'\n');
        if end == rest.len() {
            break;
        }
        let skip = if rest[end..].starts_with("\r\n") {
            2
        } else {
            1
        };
        rest = &rest[end + skip..];
    }
    chunk.push(b'\n');
}

/// Reads the data of server-sent events from a byte stream, chunk by chunk, as the
/// `text/event-stream` format says: lines end with CRLF, LF or CR (also split across two
/// chunks), `data:` lines of one event are joined with `\n` (one space after the colon is
/// dropped), comment lines (`:`) and the `event`, `id` and `retry` fields are skipped, a
/// leading byte-order mark is skipped, and a blank line ends an event. Events without data
/// yield nothing.
#[derive(Debug, Default)]
pub(crate) struct EventReader {
    /// Bytes received and not read yet, from `start`.
    buffer: Vec<u8>,
    start: usize,
    /// The data of the event being read, each line followed by `\n`.
    data: Vec<u8>,
    /// The last line ended with a CR at the end of what had arrived: an LF that comes next
    /// belongs to it.
    after_cr: bool,
    /// Whether the stream's first bytes were looked at for a byte-order mark.
    begun: bool,
}

impl EventReader {
    /// Adds bytes that arrived.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(chunk);
        const BOM: &[u8] = b"\xef\xbb\xbf";
        // Decided once the buffer can no longer be the start of a mark (until then it holds
        // no line end, so nothing is read before).
        if !self.begun && (self.buffer.len() >= BOM.len() || !BOM.starts_with(&self.buffer)) {
            self.begun = true;
            if self.buffer.starts_with(BOM) {
                self.start = BOM.len();
            }
        }
    }

    /// The data of the next complete event, if one has arrived whole.
    pub(crate) fn next_event(&mut self) -> Option<Vec<u8>> {
        loop {
            if self.after_cr {
                match self.buffer.get(self.start) {
                    None => return None,
                    Some(b'\n') => self.start += 1,
                    Some(_) => {}
                }
                self.after_cr = false;
            }
            let rest = &self.buffer[self.start..];
            let end = memchr::memchr2(b'\n', b'\r', rest)?;
            let (line_start, line_end) = (self.start, self.start + end);
            self.after_cr = rest[end] == b'\r';
            self.start = line_end + 1;
            if line_start == line_end {
                if self.data.is_empty() {
                    continue;
                }
                let mut data = std::mem::take(&mut self.data);
                data.pop();
                if data.is_empty() {
                    continue;
                }
                return Some(data);
            }
            let line = &self.buffer[line_start..line_end];
            let (name, value) = match memchr::memchr(b':', line) {
                Some(colon) => {
                    let value = &line[colon + 1..];
                    (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (line, &[][..]),
            };
            if name == b"data" {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
        }
    }

    /// Bytes held for an event not complete yet: what a reader bounds.
    pub(crate) fn pending(&self) -> usize {
        self.buffer.len() - self.start + self.data.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(message: &str) -> String {
        let mut chunk = Vec::new();
        frame(&mut chunk, message.as_bytes());
        String::from_utf8(chunk).unwrap()
    }

    #[test]
    fn a_message_is_one_event_and_line_breaks_split_data_lines() {
        assert_eq!(framed(r#"{"a":1}"#), "data: {\"a\":1}\n\n");
        assert_eq!(framed(""), "data: \n\n");
        assert_eq!(
            framed("{\n\"a\":\r\n1\r}"),
            "data: {\ndata: \"a\":\ndata: 1\ndata: }\n\n"
        );
        assert_eq!(framed("x\n"), "data: x\ndata: \n\n");
        let mut chunk = Vec::new();
        frame(&mut chunk, b"\xff{}");
        assert_eq!(chunk, "data: \u{fffd}{}\n\n".as_bytes());
    }

    /// Every event of `stream`, fed in pieces of `size` bytes.
    fn read_in_pieces(stream: &[u8], size: usize) -> Vec<String> {
        let mut reader = EventReader::default();
        let mut events = Vec::new();
        for piece in stream.chunks(size) {
            reader.push(piece);
            while let Some(data) = reader.next_event() {
                events.push(String::from_utf8(data).unwrap());
            }
        }
        events
    }

    #[test]
    fn the_reader_follows_the_event_stream_format_in_any_pieces() {
        let stream = "\u{feff}: a comment\r\ndata: one\r\n\r\nevent: x\rid: 7\rdata:two\rdata:  three\r\rretry: 5\n\ndata\n\ndata: \ndata: \n\n:\n\ndata: {\"last\":1}\n\ndata: unfinished\n";
        let expected = ["one", "two\n three", "\n", "{\"last\":1}"];
        for size in 1..=stream.len() {
            assert_eq!(
                read_in_pieces(stream.as_bytes(), size),
                expected,
                "pieces of {size}"
            );
        }
    }

    #[test]
    fn framed_messages_read_back_as_they_were() {
        let messages = ["{\"a\":1}", "{\n\"b\": 2\r\n}", "x\ry", "\u{e9}\u{1f600}"];
        let mut stream = Vec::new();
        for message in messages {
            frame(&mut stream, message.as_bytes());
        }
        for size in [1, 2, 7, stream.len()] {
            let read = read_in_pieces(&stream, size);
            assert_eq!(
                read,
                ["{\"a\":1}", "{\n\"b\": 2\n}", "x\ny", "\u{e9}\u{1f600}"]
            );
        }
    }

    #[test]
    fn pending_counts_what_waits_for_the_end_of_its_event() {
        let mut reader = EventReader::default();
        reader.push(b"data: 12345\n\ndata: 678");
        assert_eq!(reader.next_event().as_deref(), Some(&b"12345"[..]));
        assert_eq!(reader.next_event(), None);
        assert_eq!(reader.pending(), 9);
        reader.push(b"9\ndata: more");
        assert_eq!(reader.next_event(), None);
        assert_eq!(reader.pending(), "6789\n".len() + "data: more".len());
    }
}
