//! acp-devtools' session export (version 1): one JSON document with a `session` and its
//! `messages`, each with `seq`, `timestamp` (milliseconds), `direction` (`editor-to-agent` or
//! `agent-to-editor`), `kind` and `raw` (the message text as captured). The document is
//! checked field by field, and the first problem is named (`messages[3].direction must be
//! ...`); `raw` is what is stored and checked (`payload` is their parse of it).

use std::io::Read;

use acptk_check::{Checker, Side};
use serde_json::Value;

use crate::Store;
use crate::error::{Error, Result};
use crate::import::Imported;
use crate::notice::Outcome;
use crate::writer::{NewCapture, NewFrame, Writer};

/// Whether an input that starts with `start` is an acp-devtools export: a JSON object whose
/// first key is one of theirs (`version`, which they write first, `exportedAt`, `tool`,
/// `session`, `messages`).
pub fn is_devtools(start: &[u8]) -> bool {
    let start = start.strip_prefix(b"\xef\xbb\xbf").unwrap_or(start);
    let Some(inner) = start.trim_ascii_start().strip_prefix(b"{") else {
        return false;
    };
    let inner = inner.trim_ascii_start();
    [
        &b"\"version\""[..],
        b"\"exportedAt\"",
        b"\"tool\"",
        b"\"session\"",
        b"\"messages\"",
    ]
    .iter()
    .any(|key| inner.starts_with(key))
}

fn bad(what: String) -> Error {
    Error::Invalid(format!("acp-devtools export: {what}"))
}

/// Imports one acp-devtools export (one capture).
pub(crate) fn import(store: &mut Store, mut reader: impl Read, origin: &str) -> Result<Imported> {
    let mut text = String::new();
    reader
        .read_to_string(&mut text)
        .map_err(|source| Error::Io {
            path: origin.into(),
            source,
        })?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    if doc["version"].as_i64() != Some(1) {
        return Err(bad(format!(
            "version must be 1, found {}",
            short(&doc["version"])
        )));
    }
    let session = &doc["session"];
    if !session.is_object() {
        return Err(bad("session must be an object".to_owned()));
    }
    let ms = |v: &Value| v.as_f64().map(|ms| (ms * 1000.0) as i64);
    let started_at = ms(&session["startedAt"])
        .ok_or_else(|| bad("session.startedAt must be a number".to_owned()))?;
    let optional_string = |v: &Value, name: &str| -> Result<Option<String>> {
        match v {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            other => Err(bad(format!(
                "{name} must be a string or null, found {}",
                short(other)
            ))),
        }
    };
    let name = optional_string(&session["name"], "session.name")?;
    let agent = optional_string(&session["agentCommand"], "session.agentCommand")?;
    let Some(messages) = doc["messages"].as_array() else {
        return Err(bad("messages must be an array".to_owned()));
    };
    // Check every message before storing any.
    let mut frames = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        let field = |f: &str| format!("messages[{i}].{f}");
        let side = match message["direction"].as_str() {
            Some("editor-to-agent") => Side::Client,
            Some("agent-to-editor") => Side::Agent,
            _ => {
                return Err(bad(format!(
                    "{} must be \"editor-to-agent\" or \"agent-to-editor\", found {}",
                    field("direction"),
                    short(&message["direction"])
                )));
            }
        };
        let time = ms(&message["timestamp"])
            .ok_or_else(|| bad(format!("{} must be a number", field("timestamp"))))?;
        let raw = message["raw"]
            .as_str()
            .ok_or_else(|| bad(format!("{} must be a string", field("raw"))))?;
        if !message["seq"].is_number() {
            return Err(bad(format!("{} must be a number", field("seq"))));
        }
        frames.push((side, time, raw));
    }
    let tx = store
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let new = NewCapture {
        source: "import",
        origin: match &agent {
            Some(agent) => format!("{origin} ({agent})"),
            None => origin.to_owned(),
        },
        format: "devtools".to_owned(),
        name,
        started_at,
        ..NewCapture::default()
    };
    let mut writer = Writer::create(&tx, &new)?;
    let tool = format!(
        "{} {}",
        doc["tool"]["name"].as_str().unwrap_or("acp-devtools"),
        doc["tool"]["version"].as_str().unwrap_or("")
    );
    writer.set_proxy_version(&tx, &tool, "")?;
    let mut checker = Checker::new();
    let mut last_time = started_at;
    for (line, (side, time, raw)) in (1u64..).zip(&frames) {
        let seq = writer.frame(
            &tx,
            NewFrame {
                side: *side,
                time: Some(*time),
                raw: raw.as_bytes(),
                too_long: false,
                size: raw.len() as u64,
            },
        )?;
        let observation = checker.observe(line, Some(*side), raw);
        for finding in &observation.findings {
            writer.finding(&tx, Some(seq), finding)?;
        }
        if let Some(notice) = &observation.notice {
            writer.notice(
                &tx,
                seq,
                notice,
                checker.client_advertises_notices(),
                checker.version(),
                Outcome::of_traffic(notice),
                None,
            )?;
        }
        last_time = last_time.max(*time);
    }
    let ended = ms(&session["endedAt"]).unwrap_or(last_time);
    writer.end(&tx, ended)?;
    let capture = writer.capture;
    tx.commit()?;
    store.index()?;
    Ok(Imported {
        captures: vec![capture],
        format: "devtools".to_owned(),
        frames: frames.len() as u64,
    })
}

/// A value shown in an error, cut short.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}
