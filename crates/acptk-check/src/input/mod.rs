//! The traces `acp check` reads: ours, and the ones people already have.
//!
//! | format | what it is | one entry |
//! |---|---|---|
//! | [`InputFormat::Transcript`] | ours (`acp proxy --record`): newline-delimited entries, see [`crate::transcript`] | `{"from":"agent","message":{...}}` |
//! | [`InputFormat::JsonRpc`] | bare JSON-RPC messages, one per line; senders are inferred | `{"jsonrpc":"2.0",...}` |
//! | [`InputFormat::Conductor`] | the ACP conductor's trace (`.jsons`): one event per line | `{"type":"request","ts":0.1,"protocol":"acp","from":"Client","to":"Agent","id":0,"method":"initialize","params":{...}}` |
//! | [`InputFormat::Zed`] | what Zed's ACP log view copies ("Copy All Messages"): one JSON array | `{"_direction":"outgoing","_type":"request","id":0,"method":"initialize","params":{...}}` |
//! | [`InputFormat::Acpx`] | `acpx --format json`: the raw JSON-RPC messages, one per line, plus acpx's own error reports | `{"jsonrpc":"2.0",...}` |
//!
//! [`InputFormat::Auto`] (the default) tells them apart from the start of the input (see
//! [`detect`]). Each foreign entry becomes the JSON-RPC message it stands for, with its sender,
//! and is checked like a line of ours; findings name the line the entry starts on. Entries that
//! are not messages between the client and the agent (log lines, MCP-over-ACP events, hops
//! between two proxies of a chain, acpx's own reports) are not checked, and said so once per
//! kind (`skipped-entry`). Input in none of these formats, or mixing them, gets an
//! `unknown-input` finding that names what was expected.

mod acpx;
mod conductor;
mod detect;
mod feed;
mod zed;

pub use crate::input_format::InputFormat;
pub use detect::detect;

/// The format one line plainly belongs to, if it tells.
pub(crate) fn line_format(line: &str) -> Option<InputFormat> {
    detect::Keys::of(line)?.format()
}
pub(crate) use feed::Feed;
pub use feed::{Event, Seen};

/// What every input was expected to be, for `unknown-input` findings.
pub(crate) const EXPECTED: &str = "expected transcript entries ({\"from\":\"client\"|\"agent\",\"message\":{...}}), bare JSON-RPC messages ({\"jsonrpc\":\"2.0\",...}), ACP conductor trace events ({\"type\":\"request\"|\"response\"|\"notification\",\"from\":...,\"to\":...}), a Zed ACP log copy (a JSON array of {\"_direction\":...,\"_type\":...}) or acpx JSON output";

/// Writes the JSON-RPC message a foreign entry stands for. `id`, `params` and `payload` are
/// JSON texts; `method` is a plain string.
pub(crate) fn message(
    id: Option<&str>,
    method: Option<&str>,
    params: Option<&str>,
    payload: Option<(&str, bool)>,
) -> String {
    let mut out = String::with_capacity(
        64 + params.map_or(0, str::len) + payload.map_or(0, |(p, _)| p.len()),
    );
    out.push_str(r#"{"jsonrpc":"2.0""#);
    if let Some(id) = id {
        out.push_str(r#","id":"#);
        out.push_str(id);
    }
    if let Some(method) = method {
        out.push_str(r#","method":"#);
        // Serialising a string cannot fail.
        out.push_str(&serde_json::to_string(method).unwrap_or_default());
    }
    if let Some(params) = params.filter(|p| p.trim() != "null") {
        out.push_str(r#","params":"#);
        out.push_str(params);
    }
    if let Some((payload, error)) = payload {
        out.push_str(if error {
            r#","error":"#
        } else {
            r#","result":"#
        });
        out.push_str(payload);
    }
    out.push('}');
    out
}

pub(crate) use acpx::own_error as acpx_error;
pub(crate) use conductor::{Conductor, Line as ConductorLine};
pub(crate) use zed::check as check_zed;
