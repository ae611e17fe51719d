//! The plain-text form of what the user sees, for `acp client --prompt`, `acp demo` and the
//! terminal UI's conversation: one line per message, tool call, notice or client note.
//!
//! ```text
//! You: /notice warning Disk almost full -- 95% used
//! Agent: Sending the notice now.
//! [tool] Read README.md (completed)
//!   # Project
//!   [diff] /work/src/main.rs +3 -1
//!   [output] test result: ok
//! [plan] 1. Read the file (completed) | 2. Fix it (pending)
//! [notice] Warning: Disk almost full - 95% used
//! [permission] Delete everything -> Reject (reject_once)
//! [write] /work/notes.txt (12 bytes) refused: writes need --allow-write
//! [terminal] cargo test
//! -- turn ended: end_turn --
//! ```
//!
//! Agent text is made terminal-safe ([`terminal_safe`]); notice lines come from the notice
//! center's plain renderer, which sanitised them already.

use std::io::{self, Write};

use acptk_notice_center::Entry as NoticeEntry;
use acptk_notice_center::render::plain;
use acptk_runtime::client::transcript::{Entry, PlanItem, Role, ToolCall};

use super::follow::{Piece, Sink};
use crate::commands::client::driver::turn_output::TerminalTails;
use crate::commands::client::shared::events::ClientEvent;
use crate::commands::client::shared::text::terminal_safe;

/// The prefix of a notice line.
pub const NOTICE_PREFIX: &str = "[notice] ";

/// The prefix of a tool-call line.
pub const TOOL_PREFIX: &str = "[tool] ";

/// The label written before a message of `role`.
#[must_use]
pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::User => "You: ",
        Role::Thought => "Thinking: ",
        _ => "Agent: ",
    }
}

/// The agent's plan as one line: `[plan] 1. STEP (STATUS) | 2. ...`, or `[plan] (empty)`.
#[must_use]
pub fn plan_line(plan: &[PlanItem]) -> String {
    if plan.is_empty() {
        return "[plan] (empty)".to_owned();
    }
    let steps: Vec<String> = plan
        .iter()
        .enumerate()
        .map(|(index, item)| {
            format!(
                "{}. {} ({})",
                index + 1,
                terminal_safe(&item.content).replace('\n', " "),
                terminal_safe(&item.status).replace('_', " ")
            )
        })
        .collect();
    format!("[plan] {}", steps.join(" | "))
}

/// A client event as one line (`[permission] ...`, `[write] ...`, `[terminal] ...`).
#[must_use]
pub fn event_line(event: &ClientEvent) -> String {
    match event {
        ClientEvent::Permission {
            title,
            tool_kind,
            choice,
            by,
            ..
        } => {
            let answer = match choice {
                Some((_, name, kind)) => format!("{} ({kind})", terminal_safe(name)),
                None => "cancelled".to_owned(),
            };
            let kind = tool_kind
                .as_deref()
                .map_or_else(String::new, |kind| format!(" [{}]", terminal_safe(kind)));
            format!(
                "[permission] {}{kind} -> {answer}, by {}",
                terminal_safe(title).replace('\n', " "),
                by.word().replace('_', " ")
            )
        }
        ClientEvent::FileWrite {
            path,
            bytes,
            allowed,
            reason,
            ..
        } => {
            let outcome = match (allowed, reason) {
                (true, _) => "written".to_owned(),
                (false, Some(reason)) => format!("refused: {}", terminal_safe(reason)),
                (false, None) => "refused".to_owned(),
            };
            format!("[write] {} ({bytes} bytes) {outcome}", terminal_safe(path))
        }
        ClientEvent::Terminal {
            command,
            args,
            cwd,
            allowed,
            reason,
            ..
        } => {
            let line = terminal_safe(&crate::commands::client::shared::text::command_line(
                command, args,
            ))
            .replace('\n', " ");
            let outcome = match (allowed, reason) {
                (true, _) => String::new(),
                (false, Some(reason)) => format!(" refused: {}", terminal_safe(reason)),
                (false, None) => " refused".to_owned(),
            };
            format!("[terminal] {line} (in {}){outcome}", terminal_safe(cwd))
        }
    }
}

/// A tool call as one line: `[tool] TITLE (STATUS)`, the status in words (`in progress`).
#[must_use]
pub fn tool_line(call: &ToolCall) -> String {
    format!(
        "{TOOL_PREFIX}{} ({})",
        terminal_safe(&call.title).replace('\n', " "),
        terminal_safe(&call.status).replace('_', " ")
    )
}

/// A transcript entry as text (a message may span lines).
#[must_use]
pub fn entry_text(entry: &Entry) -> String {
    match entry {
        Entry::Message(message) => {
            format!(
                "{}{}",
                role_label(message.role),
                terminal_safe(&message.text)
            )
        }
        Entry::ToolCall(call) => tool_line(call),
        _ => "[unsupported entry]".to_owned(),
    }
}

/// A notice line: [`NOTICE_PREFIX`] and the notice center's plain line.
#[must_use]
pub fn notice_line(plain: &str) -> String {
    format!("{NOTICE_PREFIX}{plain}")
}

/// The most lines of a tool call's text result, and of its terminal output, shown.
pub const RESULT_LINES: usize = 10;

/// The result of a finished tool call as indented lines: its text content (the first
/// [`RESULT_LINES`] lines), one line per diff (`[diff] PATH +ADDED -REMOVED`), and the last
/// [`RESULT_LINES`] lines of each terminal's output (`[output] ...`).
#[must_use]
pub fn result_lines(call: &ToolCall, tails: Option<&TerminalTails>) -> Vec<String> {
    let mut lines = Vec::new();
    for text in &call.content {
        let all: Vec<&str> = text.lines().collect();
        for line in all.iter().take(RESULT_LINES) {
            lines.push(format!("  {}", terminal_safe(line)));
        }
        if all.len() > RESULT_LINES {
            lines.push(format!("  ... ({} more lines)", all.len() - RESULT_LINES));
        }
    }
    for diff in call.diffs.iter().flat_map(|diff| &diff.summaries) {
        let counts = match (diff.added, diff.removed) {
            (Some(added), Some(removed)) => {
                let about = if diff.exact { "" } else { "at most " };
                format!(" {about}+{added} -{removed}")
            }
            _ => String::new(),
        };
        lines.push(format!("  [diff] {}{counts}", terminal_safe(&diff.path)));
    }
    if let Some(tails) = tails {
        for terminal in &call.terminals {
            let Some(tail) = tails(terminal) else {
                continue;
            };
            let all: Vec<&str> = tail.lines().collect();
            let skip = all.len().saturating_sub(RESULT_LINES);
            for line in &all[skip..] {
                lines.push(format!("  [output] {}", terminal_safe(line)));
            }
        }
    }
    lines
}

/// Whether a tool call's status says it has finished (`completed`, `failed`).
#[must_use]
pub fn finished(call: &ToolCall) -> bool {
    matches!(call.status.as_str(), "completed" | "failed")
}

/// A client note as a line: `-- TEXT --`.
#[must_use]
pub fn note_line(text: &str) -> String {
    format!("-- {} --", terminal_safe(text))
}

/// Writes lines, and messages that may arrive in pieces: a piece of the message whose line
/// is open continues it; anything else ends that line first.
pub struct PlainPrinter<W: Write> {
    out: W,
    /// The key of the message whose line is open.
    open: Option<usize>,
    /// Where finished tool calls' terminal output comes from.
    tails: Option<TerminalTails>,
}

impl<W: Write + std::fmt::Debug> std::fmt::Debug for PlainPrinter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlainPrinter")
            .field("out", &self.out)
            .field("open", &self.open)
            .finish_non_exhaustive()
    }
}

impl<W: Write> PlainPrinter<W> {
    /// A printer writing to `out`.
    pub fn new(out: W) -> Self {
        Self {
            out,
            open: None,
            tails: None,
        }
    }

    /// Shows the end of each terminal's output under finished tool calls that show one.
    pub fn set_terminal_tails(&mut self, tails: TerminalTails) {
        self.tails = Some(tails);
    }

    /// Writes a piece of the message `key` (any number that tells messages apart). A new
    /// message starts a line with `label`; the text is made terminal-safe.
    pub fn message(&mut self, key: usize, label: &str, piece: &str) -> io::Result<()> {
        if self.open != Some(key) {
            self.end_line()?;
            self.out.write_all(label.as_bytes())?;
            self.open = Some(key);
        }
        self.out.write_all(terminal_safe(piece).as_bytes())
    }

    /// Writes a whole line.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        self.end_line()?;
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")
    }

    /// Ends the open message line, if any, and flushes.
    pub fn finish(&mut self) -> io::Result<()> {
        self.end_line()?;
        self.out.flush()
    }

    /// The writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Gives the writer back (call [`finish`](Self::finish) first).
    pub fn into_inner(self) -> W {
        self.out
    }

    fn end_line(&mut self) -> io::Result<()> {
        if self.open.take().is_some() {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl<W: Write> Sink for PlainPrinter<W> {
    fn message(&mut self, piece: Piece<'_>) -> io::Result<()> {
        let label = role_label(piece.message.role);
        if piece.whole {
            self.line(&format!("{label}{}", terminal_safe(piece.text)))
        } else {
            PlainPrinter::message(self, piece.key, label, piece.text)
        }
    }

    fn tool_call(&mut self, call: &ToolCall, _first: bool) -> io::Result<()> {
        self.line(&tool_line(call))?;
        if finished(call) {
            for line in result_lines(call, self.tails.as_ref()) {
                self.line(&line)?;
            }
        }
        Ok(())
    }

    fn plan(&mut self, plan: &[PlanItem]) -> io::Result<()> {
        self.line(&plan_line(plan))
    }

    fn notice(&mut self, entry: &NoticeEntry) -> io::Result<()> {
        self.line(&notice_line(&plain::line(entry)))
    }

    fn client(&mut self, event: &ClientEvent) -> io::Result<()> {
        self.line(&event_line(event))
    }

    fn note(&mut self, text: &str) -> io::Result<()> {
        self.line(&note_line(text))
    }
}
