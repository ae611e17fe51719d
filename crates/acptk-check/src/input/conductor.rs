//! The ACP conductor's trace: newline-delimited events (`.jsons`), as its trace writer emits
//! them (`agent-client-protocol-conductor`, `--trace`):
//!
//! ```text
//! {"type":"request","ts":0.0012,"protocol":"acp","from":"Client","to":"Agent","id":0,"method":"initialize","params":{...}}
//! {"type":"response","ts":0.0473,"from":"Agent","to":"Client","id":0,"is_error":false,"payload":{...}}
//! {"type":"notification","ts":0.9,"protocol":"acp","from":"Agent","to":"Client","method":"session/update","params":{...}}
//! ```
//!
//! Components are named `Client`, `Proxy(0)`, `Proxy(1)`, ..., `Agent` (older conductors write
//! `client`, `proxy:0`, `agent`). The conductor traces each message once per hop of its chain,
//! so the conversation checked is the agent's: every event to or from the agent, the agent's
//! events being sent by the agent and the others by the client side. Events between other
//! components, MCP-over-ACP events (`"protocol":"mcp"`, and the responses to them) and log
//! lines (`"type":"trace"`) are not checked. `ts` is not read.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::input::detect::Keys;
use crate::input::{InputFormat, message};
use crate::transcript::Side;

/// What one line of a conductor trace is.
#[derive(Debug)]
pub(crate) enum Line {
    /// A message between the client side and the agent.
    Message { from: Side, text: String },
    /// An event that is not checked: a hop between two other components, or MCP over ACP.
    Skip { kind: &'static str, reason: String },
    /// A log line: not a message at all.
    Log,
    /// A line of another format.
    Mixed(InputFormat),
    /// Not an event.
    Invalid(String),
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
}

/// Whether `name` is the agent at the end of the chain.
fn is_agent(name: &str) -> bool {
    name.eq_ignore_ascii_case("agent")
}

/// Follows the ids of MCP-over-ACP requests, whose responses carry no protocol of their own.
#[derive(Debug, Default)]
pub(crate) struct Conductor {
    mcp_requests: std::collections::VecDeque<String>,
}

/// The most MCP request ids remembered.
const MAX_MCP: usize = 4096;

impl Conductor {
    /// Reads one line (without its line break).
    pub(crate) fn read(&mut self, text: &str) -> Line {
        let event = match serde_json::from_str::<Event<'_>>(text) {
            Ok(event) => event,
            Err(error) => {
                return match Keys::of(text).and_then(|keys| keys.format()) {
                    Some(format) if format != InputFormat::Conductor => Line::Mixed(format),
                    _ => Line::Invalid(format!(
                        "expected a conductor trace event ({{\"type\":\"request\"|\"response\"|\"notification\",\"from\":...,\"to\":...}}): {}",
                        crate::engine::without_position(&error.to_string())
                    )),
                };
            }
        };
        if event.kind == "trace" {
            return Line::Log;
        }
        let (Some(from), Some(to)) = (event.from.as_deref(), event.to.as_deref()) else {
            return Line::Invalid("conductor trace event without `from` and `to`".to_owned());
        };
        let id = event.id.map(RawValue::get);
        let mcp = event.protocol.as_deref() == Some("mcp");
        if mcp {
            if let Some(id) = id.filter(|_| event.kind == "request") {
                if self.mcp_requests.len() >= MAX_MCP {
                    self.mcp_requests.pop_front();
                }
                self.mcp_requests.push_back(id.to_owned());
            }
            return Line::Skip {
                kind: "mcp",
                reason:
                    "MCP-over-ACP events of the conductor trace are not checked (MCP is not ACP)"
                        .to_owned(),
            };
        }
        if event.kind == "response"
            && let Some(at) = id.and_then(|id| self.mcp_requests.iter().position(|m| m == id))
        {
            self.mcp_requests.remove(at);
            return Line::Skip {
                kind: "mcp",
                reason:
                    "MCP-over-ACP events of the conductor trace are not checked (MCP is not ACP)"
                        .to_owned(),
            };
        }
        let side = if is_agent(from) {
            Side::Agent
        } else if is_agent(to) {
            Side::Client
        } else {
            return Line::Skip {
                kind: "hop",
                reason: format!(
                    "conductor trace: events between {} and {} are not checked, only those to and from the agent",
                    crate::finding::quote(from),
                    crate::finding::quote(to)
                ),
            };
        };
        let text = match event.kind.as_str() {
            "request" => message(
                Some(id.unwrap_or("null")),
                event.method.as_deref(),
                event.params.map(RawValue::get),
                None,
            ),
            "notification" => message(
                None,
                event.method.as_deref(),
                event.params.map(RawValue::get),
                None,
            ),
            "response" => message(
                Some(id.unwrap_or("null")),
                None,
                None,
                Some((
                    event.payload.map_or("null", RawValue::get),
                    event.is_error == Some(true),
                )),
            ),
            other => {
                return Line::Invalid(format!(
                    "conductor trace event of unknown type {} (expected \"request\", \"response\", \"notification\" or \"trace\")",
                    crate::finding::quote(other)
                ));
            }
        };
        Line::Message { from: side, text }
    }
}
