//! Zed's ACP log copy: what "Copy All Messages" in Zed's ACP log view (`dev: open acp logs`)
//! puts on the clipboard, a pretty-printed JSON array with one object per message:
//!
//! ```text
//! [
//!   {
//!     "_direction": "outgoing",
//!     "_type": "request",
//!     "id": 0,
//!     "method": "initialize",
//!     "params": { "protocolVersion": 1, ... }
//!   },
//!   ...
//! ]
//! ```
//!
//! Zed is the client: `outgoing` messages are the client's, `incoming` ones the agent's.
//! `_type` is `request`, `notification` or `response`; a response's `method` is the method of
//! the request it answers (or `[unrecognized response]`) and its `params` hold the result, or
//! the error object (`code`, `message`, optional `data`) of an error response. The array is
//! read element by element, in memory bounded by the largest element; findings name the line
//! an element starts on.

use std::cell::Cell;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

use serde::Deserialize;
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::finding::{Finding, Rule};
use crate::input::{EXPECTED, Feed, message};
use crate::transcript::Side;

/// Where the reader is: its line, and the line the current element starts on.
#[derive(Default)]
struct Position {
    line: Cell<u64>,
    /// Waiting for the first byte of the next element.
    waiting: Cell<bool>,
    start: Cell<u64>,
}

/// A reader that counts lines, and notes the line each element starts on.
struct Counting<R> {
    inner: R,
    at: Rc<Position>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &byte in &buf[..n] {
            if self.at.waiting.get() && !byte.is_ascii_whitespace() && byte != b',' {
                self.at.waiting.set(false);
                self.at.start.set(self.at.line.get());
            }
            if byte == b'\n' {
                self.at.line.set(self.at.line.get() + 1);
            }
        }
        Ok(n)
    }
}

#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(rename = "_direction")]
    direction: String,
    #[serde(rename = "_type")]
    kind: String,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// The shape of a JSON-RPC error object, to tell an error response from a result.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ErrorObject {
    code: i64,
    message: String,
    #[serde(default)]
    data: Option<IgnoredAny>,
}

/// Checks a Zed ACP log copy read from `reader`.
pub(crate) fn check<R: BufRead>(reader: R, feed: &mut Feed<'_>, max: usize) -> io::Result<()> {
    let at = Rc::new(Position::default());
    at.line.set(1);
    let counting = Counting {
        inner: reader,
        at: at.clone(),
    };
    let mut deserializer = serde_json::Deserializer::from_reader(counting);
    let entries = Entries {
        feed: &mut *feed,
        at: at.clone(),
        max,
    };
    let result = serde::Deserializer::deserialize_seq(&mut deserializer, entries)
        .and_then(|()| deserializer.end());
    if let Err(error) = result {
        if error.is_io() {
            return Err(error.into());
        }
        let line = (error.line() as u64).max(1);
        let what = if error.is_data() && line == 1 {
            format!(
                "not a Zed ACP log (a JSON array of messages): {}; {EXPECTED}",
                plain(&error)
            )
        } else {
            format!(
                "the Zed ACP log breaks off here ({}): the rest is not checked",
                plain(&error)
            )
        };
        feed.report(&Finding::new(line, Rule::UnknownInput, what));
    }
    Ok(())
}

/// A decoder's message without its ` at line L column C` (the finding has the line).
fn plain(error: &serde_json::Error) -> String {
    crate::engine::without_position(&error.to_string())
}

struct Entries<'a, 'f> {
    feed: &'a mut Feed<'f>,
    at: Rc<Position>,
    max: usize,
}

impl<'de> Visitor<'de> for Entries<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array of Zed ACP log entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            self.at.waiting.set(true);
            let Some(element) = seq.next_element::<Box<RawValue>>()? else {
                return Ok(());
            };
            let line = self.at.start.get();
            if element.get().len() > self.max {
                let finding = crate::engine::too_long(line, self.max as u64);
                self.feed.findings(&[finding]);
                continue;
            }
            entry(self.feed, line, element.get());
        }
    }
}

/// Checks one element of the array, starting at `line`.
fn entry(feed: &mut Feed<'_>, line: u64, text: &str) {
    let text_source = text;
    let entry = match serde_json::from_str::<Entry<'_>>(text) {
        Ok(entry) => entry,
        Err(error) => {
            let finding = Finding::new(
                line,
                Rule::InvalidMessage,
                format!(
                    "not a Zed ACP log entry ({{\"_direction\":...,\"_type\":...,\"method\":...,\"params\":...}}): {}",
                    plain(&error)
                ),
            );
            feed.findings(&[finding]);
            return;
        }
    };
    let from = match entry.direction.as_str() {
        "outgoing" => Side::Client,
        "incoming" => Side::Agent,
        other => {
            let finding = Finding::new(
                line,
                Rule::InvalidMessage,
                format!(
                    "Zed ACP log entry: `_direction` must be \"outgoing\" or \"incoming\", found {}",
                    crate::finding::quote(other)
                ),
            );
            feed.findings(&[finding]);
            return;
        }
    };
    let id = entry.id.map(RawValue::get);
    let params = entry.params.map(RawValue::get);
    let text = match entry.kind.as_str() {
        "request" => message(
            Some(id.unwrap_or("null")),
            entry.method.as_deref(),
            params,
            None,
        ),
        "notification" => message(None, entry.method.as_deref(), params, None),
        "response" => {
            let payload = params.unwrap_or("null");
            let error = serde_json::from_str::<ErrorObject>(payload).is_ok();
            message(
                Some(id.unwrap_or("null")),
                None,
                None,
                Some((payload, error)),
            )
        }
        other => {
            let finding = Finding::new(
                line,
                Rule::InvalidMessage,
                format!(
                    "Zed ACP log entry: `_type` must be \"request\", \"response\" or \"notification\", found {}",
                    crate::finding::quote(other)
                ),
            );
            feed.findings(&[finding]);
            return;
        }
    };
    feed.message(line, text_source, Some(from), &text);
}
