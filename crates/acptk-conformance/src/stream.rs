//! A realistic stream of `session/update` params, for benchmarks.
//!
//! The mix follows the project's design notes ("Performance"): 70% agent text chunks, 10%
//! thought chunks, 12% tool-call updates, 5% usage updates and 3% notices. Each element is the
//! `params` JSON text of one `session/update` notification, with the tag written first as agents
//! do. The stream is fully determined by its seed.

use serde_json::Value;

use crate::rng::Rng;

/// ACP protocol version of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// ACP v1 (`SessionNotification`).
    V1,
    /// ACP v2 (`UpdateSessionNotification`).
    V2,
}

/// The kind of one update in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    /// `agent_message_chunk` with text content.
    TextChunk,
    /// `agent_thought_chunk` with text content.
    ThoughtChunk,
    /// `tool_call_update` with status and content.
    ToolCallUpdate,
    /// `usage_update` with token counts and cost.
    Usage,
    /// `notice`.
    Notice,
}

/// The share of each kind per 100 updates.
pub const MIX: [(UpdateKind, usize); 5] = [
    (UpdateKind::TextChunk, 70),
    (UpdateKind::ThoughtChunk, 10),
    (UpdateKind::ToolCallUpdate, 12),
    (UpdateKind::Usage, 5),
    (UpdateKind::Notice, 3),
];

const WORDS: &[&str] = &[
    "the",
    "function",
    "returns",
    "a",
    "value",
    "when",
    "tests",
    "pass",
    "I",
    "will",
    "update",
    "`Cargo.toml`",
    "and",
    "run",
    "cargo",
    "check",
    "again",
    "error",
    "handling",
    "is",
    "missing",
    "here",
    "let's",
    "refactor",
    "this",
    "module",
    "into",
    "two",
    "files",
    "—",
    "done",
    "✓",
    "\"quoted\"",
    "path/to/file.rs",
    "because",
    "of",
    "lifetimes",
];

const NOTICES: &[(&str, &str, &str)] = &[
    (
        "warning",
        "MCP server unavailable",
        "Continuing without the `github` server.",
    ),
    (
        "info",
        "Model rerouted",
        "Requests now go to a smaller model until capacity returns.",
    ),
    ("error", "Rate limit reached", "Retrying in 20 seconds."),
    ("_acme.debug", "Cache warmed", ""),
];

/// `count` params texts of the given version, drawn from `seed`.
pub fn session_updates(version: Version, count: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut pattern: Vec<UpdateKind> = MIX
        .iter()
        .flat_map(|(kind, share)| std::iter::repeat_n(*kind, *share))
        .collect();
    let mut out = Vec::with_capacity(count);
    let mut tool_call = 0usize;
    let mut message = 0usize;
    while out.len() < count {
        rng.shuffle(&mut pattern);
        for kind in &pattern {
            if out.len() == count {
                break;
            }
            if rng.chance(0.05) {
                message += 1;
            }
            if *kind == UpdateKind::ToolCallUpdate && rng.chance(0.3) {
                tool_call += 1;
            }
            let update = update(version, *kind, &mut rng, message, tool_call);
            out.push(format!(
                r#"{{"sessionId":"sess_01JAB3XQ5N8KDN4V3Y7Z","update":{update}}}"#
            ));
        }
    }
    out
}

/// A JSON string literal.
fn q(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn sentence(rng: &mut Rng, min: usize, max: usize) -> String {
    let words = min + rng.below(max - min + 1);
    let mut text = String::new();
    for index in 0..words {
        if index > 0 {
            text.push(' ');
        }
        text.push_str(rng.pick(WORDS).copied().unwrap_or("word"));
    }
    if rng.chance(0.15) {
        text.push_str("\n\n");
    }
    text
}

fn chunk(tag: &str, version: Version, text: &str, message: usize) -> String {
    let content = format!(r#"{{"type":"text","text":{}}}"#, q(text));
    match version {
        Version::V1 => format!(r#"{{"sessionUpdate":"{tag}","content":{content}}}"#),
        Version::V2 => format!(
            r#"{{"sessionUpdate":"{tag}","messageId":"msg_{message:06}","content":{content}}}"#
        ),
    }
}

/// The JSON text of one update, keys in the order agents write them (tag first).
fn update(
    version: Version,
    kind: UpdateKind,
    rng: &mut Rng,
    message: usize,
    tool_call: usize,
) -> String {
    match kind {
        UpdateKind::TextChunk => {
            let text = sentence(rng, 2, 14);
            chunk("agent_message_chunk", version, &text, message)
        }
        UpdateKind::ThoughtChunk => {
            let text = sentence(rng, 4, 20);
            chunk("agent_thought_chunk", version, &text, message)
        }
        UpdateKind::ToolCallUpdate => {
            let status = *rng
                .pick(&["in_progress", "completed", "pending"])
                .unwrap_or(&"pending");
            let mut out = format!(
                r#"{{"sessionUpdate":"tool_call_update","toolCallId":"call_{tool_call:05}","status":"{status}""#
            );
            if rng.chance(0.3) {
                let path = match version {
                    Version::V1 => "src/session/update.rs",
                    Version::V2 => "/home/user/project/src/session/update.rs",
                };
                let line = 40 + rng.below(400);
                out.push_str(&format!(
                    r#","title":"Edit src/session/update.rs","kind":"edit","locations":[{{"path":"{path}","line":{line}}}]"#
                ));
            }
            if status == "in_progress" || rng.chance(0.3) {
                let output = sentence(rng, 6, 30);
                out.push_str(&format!(
                    r#","content":[{{"type":"content","content":{{"type":"text","text":{}}}}}]"#,
                    q(&output)
                ));
            }
            if status == "completed" && rng.chance(0.5) {
                let stdout = sentence(rng, 3, 10);
                out.push_str(&format!(
                    r#","rawOutput":{{"exitCode":0,"stdout":{}}}"#,
                    q(&stdout)
                ));
            }
            out.push('}');
            out
        }
        UpdateKind::Usage => {
            let used = 1_000 + rng.below(150_000);
            let amount = Value::from(used as f64 * 0.000_003);
            format!(
                r#"{{"sessionUpdate":"usage_update","used":{used},"size":200000,"cost":{{"amount":{amount},"currency":"USD"}}}}"#
            )
        }
        UpdateKind::Notice => {
            let (severity, title, description) =
                *rng.pick(NOTICES).unwrap_or(&("info", "Notice", ""));
            let mut out = format!(
                r#"{{"sessionUpdate":"notice","severity":{},"title":{}"#,
                q(severity),
                q(title)
            );
            if !description.is_empty() {
                out.push_str(&format!(r#","description":{}"#, q(description)));
            }
            out.push('}');
            out
        }
    }
}
