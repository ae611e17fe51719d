//! `acp client --prompt TEXT --format json`: one JSON object per line per event.
//!
//! Every object has a `type`. Events replayed from a loaded session's history carry
//! `"history": true`.
//!
//! | `type` | fields |
//! |---|---|
//! | `session` | `sessionId`, `protocolVersion` (negotiated), `proposedVersion`, `agent` (name or `null`), `loaded` |
//! | `message` | `role` (`user`, `agent`, `thought`), `text` (the new piece), `messageId` (or `null`), `replace` (`true` when `text` replaces the whole message) |
//! | `tool_call` | `toolCallId`, `title`, `kind`, `status`, `content` (texts), `diffs` (`[{"path", "added", "removed"}]`), `terminalOutput` (the end of its terminals' output, once finished, or `null`); `update: true` for a change of a known call |
//! | `plan` | `entries`: `[{"content", "status"}]` |
//! | `notice` | `severity` (as sent, cleaned), `title`, `description` (or `null`), `count` |
//! | `permission` | `title`, `toolKind`, `decision` (`selected` or `cancelled`), `optionId`, `optionName`, `kind`, `allowed`, `by` (`policy`, `user`, `no_terminal`) |
//! | `file_write` | `path`, `bytes`, `allowed`, `reason` (or `null`) |
//! | `terminal` | `command`, `args`, `cwd`, `allowed`, `reason` (or `null`) |
//! | `note` | `text` |
//! | `stop` | `stopReason` (`end_turn`, `cancelled`, `max_tokens`, ...) |
//! | `error` | `code` (or `null`), `message`, `data` (the error's `data`, or `null`), `detail` (what `data` adds, in a line, or `null`), `exitCode`; `authMethods` (`[{"id", "name", "description", "kind", "vars"}]`) when the agent needs a sign-in; `missingVars` when `--auth` names an `env_var` method whose variables are unset |
//! | `session_info` | (`--list-sessions`) `sessionId`, `cwd`, `title`, `updatedAt` |
//!
//! Text from the agent is passed on as it came (JSON escapes whatever needs escaping).

use std::io::{self, Write};

use acptk_notice_center::Entry as NoticeEntry;
use acptk_runtime::client::transcript::{PlanItem, Role, ToolCall};
use serde_json::{Value, json};

use super::follow::{Piece, Sink};
use crate::commands::client::driver::turn_output::TerminalTails;
use crate::commands::client::shared::events::ClientEvent;

/// The word for a role in JSON output.
#[must_use]
pub fn role_word(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Thought => "thought",
        _ => "agent",
    }
}

/// Writes one JSON object per line.
pub struct JsonPrinter<W: Write> {
    out: W,
    history: bool,
    /// Where finished tool calls' terminal output comes from.
    tails: Option<TerminalTails>,
}

impl<W: Write + std::fmt::Debug> std::fmt::Debug for JsonPrinter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonPrinter")
            .field("out", &self.out)
            .field("history", &self.history)
            .finish_non_exhaustive()
    }
}

impl<W: Write> JsonPrinter<W> {
    /// A printer writing to `out`.
    pub fn new(out: W) -> Self {
        Self {
            out,
            history: false,
            tails: None,
        }
    }

    /// Adds the end of each terminal's output to finished tool calls that show one.
    pub fn set_terminal_tails(&mut self, tails: TerminalTails) {
        self.tails = Some(tails);
    }

    /// Marks the events that follow as replayed history (or not).
    pub fn set_history(&mut self, history: bool) {
        self.history = history;
    }

    /// Writes one object with its fields in the order given (`type` first, by convention),
    /// and `"history": true` last while printing history.
    pub fn write(&mut self, fields: &[(&str, Value)]) -> io::Result<()> {
        let mut line = String::from("{");
        let history = [("history", Value::Bool(true))];
        let extra: &[(&str, Value)] = if self.history { &history } else { &[] };
        for (index, (key, value)) in fields.iter().chain(extra).enumerate() {
            if index > 0 {
                line.push(',');
            }
            line.push_str(&Value::from(*key).to_string());
            line.push(':');
            line.push_str(&value.to_string());
        }
        line.push_str("}\n");
        self.out.write_all(line.as_bytes())
    }

    /// Flushes.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Gives the writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for JsonPrinter<W> {
    fn message(&mut self, piece: Piece<'_>) -> io::Result<()> {
        if piece.text.is_empty() && !piece.whole {
            return Ok(());
        }
        self.write(&[
            ("type", json!("message")),
            ("role", json!(role_word(piece.message.role))),
            ("text", json!(piece.text)),
            ("messageId", json!(piece.message.id)),
            ("replace", json!(piece.whole)),
        ])
    }

    fn tool_call(&mut self, call: &ToolCall, first: bool) -> io::Result<()> {
        let diffs: Vec<Value> = call
            .diffs
            .iter()
            .flat_map(|diff| &diff.summaries)
            .map(|diff| json!({"path": diff.path, "added": diff.added, "removed": diff.removed}))
            .collect();
        let output = match &self.tails {
            Some(tails) if super::plain::finished(call) && !call.terminals.is_empty() => {
                let tails: Vec<String> = call.terminals.iter().filter_map(|id| tails(id)).collect();
                json!(tails.join(""))
            }
            _ => Value::Null,
        };
        let mut fields = vec![
            ("type", json!("tool_call")),
            ("toolCallId", json!(call.id)),
            ("title", json!(call.title)),
            ("kind", json!(call.kind)),
            ("status", json!(call.status)),
            ("content", json!(call.content)),
            ("diffs", Value::Array(diffs)),
            ("terminalOutput", output),
        ];
        if !first {
            fields.push(("update", Value::Bool(true)));
        }
        self.write(&fields)
    }

    fn plan(&mut self, plan: &[PlanItem]) -> io::Result<()> {
        let entries: Vec<Value> = plan
            .iter()
            .map(|item| json!({"content": item.content, "status": item.status}))
            .collect();
        self.write(&[("type", json!("plan")), ("entries", json!(entries))])
    }

    fn notice(&mut self, entry: &NoticeEntry) -> io::Result<()> {
        self.write(&[
            ("type", json!("notice")),
            ("severity", json!(entry.severity().as_str())),
            ("title", json!(entry.title())),
            ("description", json!(entry.description())),
            ("count", json!(entry.count())),
        ])
    }

    fn client(&mut self, event: &ClientEvent) -> io::Result<()> {
        match event {
            ClientEvent::Permission {
                title,
                tool_kind,
                choice,
                by,
                ..
            } => {
                let (decision, id, name, kind) = match choice {
                    Some((id, name, kind)) => ("selected", json!(id), json!(name), json!(kind)),
                    None => ("cancelled", Value::Null, Value::Null, Value::Null),
                };
                let allowed = choice
                    .as_ref()
                    .is_some_and(|(_, _, kind)| kind.starts_with("allow"));
                self.write(&[
                    ("type", json!("permission")),
                    ("title", json!(title)),
                    ("toolKind", json!(tool_kind)),
                    ("decision", json!(decision)),
                    ("optionId", id),
                    ("optionName", name),
                    ("kind", kind),
                    ("allowed", json!(allowed)),
                    ("by", json!(by.word())),
                ])
            }
            ClientEvent::FileWrite {
                path,
                bytes,
                allowed,
                reason,
                ..
            } => self.write(&[
                ("type", json!("file_write")),
                ("path", json!(path)),
                ("bytes", json!(bytes)),
                ("allowed", json!(allowed)),
                ("reason", json!(reason)),
            ]),
            ClientEvent::Terminal {
                command,
                args,
                cwd,
                allowed,
                reason,
                ..
            } => self.write(&[
                ("type", json!("terminal")),
                ("command", json!(command)),
                ("args", json!(args)),
                ("cwd", json!(cwd)),
                ("allowed", json!(allowed)),
                ("reason", json!(reason)),
            ]),
        }
    }

    fn note(&mut self, text: &str) -> io::Result<()> {
        self.write(&[("type", json!("note")), ("text", json!(text))])
    }
}
