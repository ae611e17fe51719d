//! Exporting a capture: our transcript format (which `acp check` and `acp inspect import`
//! read) or acp-devtools' export JSON, redacted unless asked otherwise (through
//! [`Message::read`], as `acp inspect show` is).

use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use acptk_check::transcript::{Header, Recorded, write_entry};
use serde_json::{Value, json};

use crate::Store;
use crate::error::{Error, Result};
use crate::frame::Kind;
use crate::message::Message;
use crate::query::FrameRow;

/// A format to export to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Our transcript: a run header, then one `{"from","timestamp","message"}` per frame.
    Transcript,
    /// acp-devtools' session export (version 1), pretty-printed as they write it.
    Devtools,
}

impl Format {
    /// `transcript` or `devtools`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Transcript => "transcript",
            Format::Devtools => "devtools",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "transcript" => Ok(Format::Transcript),
            "devtools" => Ok(Format::Devtools),
            other => Err(format!(
                "unknown export format `{other}` (expected transcript or devtools)"
            )),
        }
    }
}

/// What [`export`] does.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ExportOptions {
    /// The format.
    pub format: Format,
    /// Redact secrets (see [`crate::redact`]); on by default.
    pub redact: bool,
}

impl ExportOptions {
    /// `format`, redacted.
    pub fn new(format: Format) -> Self {
        Self {
            format,
            redact: true,
        }
    }

    /// Keeps secrets as they were sent.
    #[must_use]
    pub fn keep_secrets(mut self) -> Self {
        self.redact = false;
        self
    }
}

fn io(error: std::io::Error) -> Error {
    Error::Io {
        path: "<output>".into(),
        source: error,
    }
}

fn system_time(micros: i64) -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_micros(u64::try_from(micros).unwrap_or(0))
}

/// Writes capture `id` to `out`.
pub fn export(store: &Store, id: i64, options: ExportOptions, out: &mut dyn Write) -> Result<()> {
    match options.format {
        Format::Transcript => transcript(store, id, options.redact, out),
        Format::Devtools => devtools(store, id, options.redact, out),
    }
}

fn transcript(store: &Store, id: i64, redact: bool, out: &mut dyn Write) -> Result<()> {
    let summary = store.capture(id)?;
    let mut header = Header::new(
        "acp inspect export",
        env!("CARGO_PKG_VERSION"),
        vec![summary.origin.clone()],
    );
    header.time = acptk_check::transcript::rfc3339(system_time(summary.started_at));
    out.write_all(header.entry().as_bytes()).map_err(io)?;
    let mut line = Vec::new();
    store.each_frame(id, |frame: &FrameRow, raw| {
        line.clear();
        let time = frame.time.map(system_time);
        let message = Message::read(frame.kind, raw, redact);
        let recorded = match &message {
            Message::NotKept => Recorded::TooLong(frame.size as u64),
            Message::Json(text) => Recorded::Json(text),
            other => Recorded::NotJson(other.bytes()),
        };
        write_entry(&mut line, frame.side, time, recorded);
        out.write_all(&line).map_err(io)
    })?;
    out.flush().map_err(io)
}

fn devtools(store: &Store, id: i64, redact: bool, out: &mut dyn Write) -> Result<()> {
    let summary = store.capture(id)?;
    let ms = |micros: i64| micros / 1000;
    let mut messages = Vec::new();
    store.each_frame(id, |frame, raw| {
        let message = Message::read(frame.kind, raw, redact);
        let text = String::from_utf8_lossy(message.bytes()).into_owned();
        let (payload, parse_error) = match serde_json::from_str::<Value>(&text) {
            Ok(value) => (value, None),
            Err(error) => (Value::Null, Some(error.to_string())),
        };
        let kind = match frame.kind {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response => "response",
            Kind::Error => "error",
            _ => "unknown",
        };
        let mut message = json!({
            "seq": frame.seq,
            "timestamp": ms(frame.time.unwrap_or(summary.started_at)),
            "direction": if frame.side == acptk_check::Side::Client { "editor-to-agent" } else { "agent-to-editor" },
            "kind": kind,
            "raw": text,
            "payload": payload,
        });
        if let Some(method) = &frame.method {
            message["method"] = json!(method);
        }
        if let Some(id) = &frame.rpc_id {
            message["rpcId"] = serde_json::from_str(id).unwrap_or(Value::Null);
        }
        if let Some(error) = parse_error {
            message["parseError"] = json!(error);
        }
        messages.push(message);
        Ok(())
    })?;
    let now = crate::writer::micros(std::time::SystemTime::now());
    let document = json!({
        "version": 1,
        "exportedAt": ms(now),
        "tool": {"name": "acp", "version": env!("CARGO_PKG_VERSION")},
        "session": {
            "id": id,
            "name": summary.name,
            "agentCommand": summary.origin,
            "clientName": summary.client.name,
            "startedAt": ms(summary.started_at),
            "endedAt": summary.ended_at.map(ms),
        },
        "messages": messages,
    });
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, formatter);
    serde::Serialize::serialize(&document, &mut serializer)
        .map_err(|e| Error::Invalid(e.to_string()))?;
    out.write_all(b"\n").map_err(io)?;
    out.flush().map_err(io)
}
