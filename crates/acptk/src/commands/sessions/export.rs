//! `acp sessions export`: a named session with its history, as Markdown (for people) or as
//! JSON Lines (for programs: the record, then one line per turn, as in the history file).

use std::io::{self, Write};

use serde_json::json;

use crate::commands::client::driver::named::history::{HistoryEntry, TurnRecord};
use crate::commands::client::driver::named::store::Record;
use crate::commands::client::shared::text::terminal_safe;

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// A Markdown document: the session, then each turn (prompt, messages, tool calls).
    Markdown,
    /// JSON Lines: `{"type":"session",...record}`, then `{"type":"turn",...}` per turn.
    Jsonl,
}

impl ExportFormat {
    /// The format a file name asks for: JSON Lines for `.jsonl`, `.ndjson` and `.json`,
    /// Markdown otherwise.
    #[must_use]
    pub fn for_file(path: &std::path::Path) -> Self {
        match path.extension().and_then(|ext| ext.to_str()) {
            Some("jsonl" | "ndjson" | "json") => ExportFormat::Jsonl,
            _ => ExportFormat::Markdown,
        }
    }
}

/// Writes `item` as one JSON line, tagged with `"type": kind`.
fn json_line<W: Write>(out: &mut W, item: &impl serde::Serialize, kind: &str) -> io::Result<()> {
    let mut value = serde_json::to_value(item).map_err(io::Error::other)?;
    if let Some(object) = value.as_object_mut() {
        object.insert("type".to_owned(), json!(kind));
    }
    writeln!(out, "{value}")
}

/// Writes the heading of the export of `record`.
pub fn head<W: Write>(out: &mut W, format: ExportFormat, record: &Record) -> io::Result<()> {
    match format {
        ExportFormat::Jsonl => json_line(out, record, "session"),
        ExportFormat::Markdown => {
            writeln!(out, "# Session `{}`\n", record.name)?;
            writeln!(out, "- Agent: `{}`", safe_line(&record.agent_label()))?;
            writeln!(out, "- Working directory: `{}`", safe_line(&record.cwd))?;
            if let Some(id) = &record.session_id {
                writeln!(out, "- Session id: `{}`", safe_line(id))?;
            }
            if !record.earlier_session_ids.is_empty() {
                writeln!(
                    out,
                    "- Earlier session ids: {}",
                    record
                        .earlier_session_ids
                        .iter()
                        .map(|id| format!("`{}`", safe_line(id)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )?;
            }
            writeln!(out, "- Created: {}", record.created_at)?;
            writeln!(out, "- Last used: {}", record.updated_at)?;
            writeln!(out, "- Turns: {}", record.turns)
        }
    }
}

/// Writes one turn.
pub fn turn<W: Write>(out: &mut W, format: ExportFormat, turn: &TurnRecord) -> io::Result<()> {
    match format {
        ExportFormat::Jsonl => json_line(out, turn, "turn"),
        ExportFormat::Markdown => {
            writeln!(out, "\n## Turn {} ({})\n", turn.turn, turn.started_at)?;
            writeln!(out, "**You:**\n")?;
            for line in terminal_safe(&turn.prompt).lines() {
                writeln!(out, "> {line}")?;
            }
            for entry in &turn.entries {
                match entry {
                    HistoryEntry::Message { role, text } => {
                        let label = if role == "thought" {
                            "*Thinking:*"
                        } else {
                            "**Agent:**"
                        };
                        writeln!(out, "\n{label}\n\n{}", terminal_safe(text).trim_end())?;
                    }
                    HistoryEntry::ToolCall {
                        title,
                        kind,
                        status,
                        diffs,
                        ..
                    } => {
                        let mut line = format!(
                            "\n- Tool call: {} ({}{status})",
                            safe_line(title),
                            kind.as_deref()
                                .map_or(String::new(), |kind| format!("{kind}, "))
                        );
                        for diff in diffs {
                            line.push_str(&format!(
                                "; `{}` +{} -{}",
                                safe_line(&diff.path),
                                diff.added.map_or("?".to_owned(), |n| n.to_string()),
                                diff.removed.map_or("?".to_owned(), |n| n.to_string())
                            ));
                        }
                        writeln!(out, "{line}")?;
                    }
                }
            }
            let end = match (&turn.stop_reason, &turn.error) {
                (Some(stop), _) => format!("turn ended: {stop}"),
                (None, Some(error)) => format!("turn failed: {}", safe_line(error)),
                (None, None) => "turn ended".to_owned(),
            };
            writeln!(out, "\n*{end}*")
        }
    }
}

/// `text` on one line, safe for a terminal.
fn safe_line(text: &str) -> String {
    terminal_safe(text).replace(['\n', '\r'], " ")
}
