//! A tool call drawn as a block: its header (`[tool] TITLE (STATUS)`, coloured by status, the
//! status always written out), then behind a `│` gutter the client's answer to a permission
//! request about it, its text content, its file diffs
//! (per file, `+` and `-` lines, coloured) and the output of its terminals with how they
//! ended. Folded (the default), each part shows its last [`FOLDED_LINES`] lines and says how
//! many it left out; Ctrl-O unfolds them all.

use acptk_notice_center::sanitize;
use acptk_runtime::client::transcript::{FileDiff, ToolCall};
use acptk_runtime::client::{LocalTerminals, TerminalTail};
use acptk_runtime::diff::{LineTag, line_hunks};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::markdown::cut_piece;
use super::plain::tool_line;
use super::theme::Look;
use crate::commands::client::shared::text::terminal_safe;

/// How many lines each part of a folded tool call shows.
pub const FOLDED_LINES: usize = 8;

/// How much terminal output a folded block reads (its last lines come from it).
const FOLDED_TAIL_BYTES: usize = 8 * 1024;

/// How much terminal output an unfolded block reads.
const UNFOLDED_TAIL_BYTES: usize = 256 * 1024;

/// Lines of diff context around each change.
const DIFF_CONTEXT: usize = 2;

/// The gutter before a tool call's content.
const GUTTER: &str = "  │ ";

/// One line of content before drawing: its text and its style.
type Row = (String, Style);

/// What changes a tool call's drawing besides the call itself: the progress of its
/// terminals' output.
#[must_use]
pub fn terminal_stamp(call: &ToolCall, terminals: Option<&LocalTerminals>) -> u64 {
    let Some(terminals) = terminals else {
        return 0;
    };
    call.terminals.iter().fold(0u64, |stamp, id| {
        let (received, ended) = terminals.progress(id).unwrap_or((0, false));
        stamp
            .wrapping_mul(31)
            .wrapping_add(received.wrapping_mul(2) + u64::from(ended))
    })
}

/// Draws `call` in lines of at most `width` columns, with the client's `notes` about it (its
/// answer to a permission request) under the header, before what the call gave.
#[must_use]
pub fn render(
    call: &ToolCall,
    width: usize,
    look: Look,
    unfolded: bool,
    terminals: Option<&LocalTerminals>,
    notes: &[&str],
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let header = (tool_line(call), look.tool(&call.status));
    cut_piece(&header, width, Vec::new(), &[], &mut lines);
    let gutter = Span::styled(GUTTER, look.quiet());
    for note in notes {
        let row = (terminal_safe(note).into_owned(), look.note());
        cut_piece(
            &row,
            width,
            vec![gutter.clone()],
            std::slice::from_ref(&gutter),
            &mut lines,
        );
    }
    let section =
        |(head, rows): (Vec<Row>, Vec<Row>), from_end: bool, lines: &mut Vec<Line<'static>>| {
            content(head, rows, from_end, width, look, unfolded, lines);
        };
    for text in &call.content {
        let rows = clean_lines(text, Style::default());
        section((Vec::new(), rows), false, &mut lines);
    }
    for diff in &call.diffs {
        section(diff_rows(diff, look), false, &mut lines);
    }
    for id in &call.terminals {
        let bytes = if unfolded {
            UNFOLDED_TAIL_BYTES
        } else {
            FOLDED_TAIL_BYTES
        };
        let tail = terminals.and_then(|terminals| terminals.tail(id, bytes));
        section(terminal_rows(id, tail.as_ref(), look), true, &mut lines);
    }
    lines
}

/// Draws content rows behind the gutter: the `head` rows, then all the others when
/// `unfolded`, else their first (or, `from_end`, their last) [`FOLDED_LINES`] with a line
/// saying how many were left out.
fn content(
    head: Vec<Row>,
    mut rows: Vec<Row>,
    from_end: bool,
    width: usize,
    look: Look,
    unfolded: bool,
    lines: &mut Vec<Line<'static>>,
) {
    while rows.last().is_some_and(|(text, _)| text.trim().is_empty()) {
        rows.pop();
    }
    if rows.is_empty() && head.is_empty() {
        return;
    }
    let hidden = if unfolded {
        0
    } else {
        rows.len().saturating_sub(FOLDED_LINES)
    };
    let gutter = Span::styled(GUTTER, look.quiet());
    let note = (
        format!("... {hidden} more lines (Ctrl-O shows all)"),
        look.quiet().add_modifier(Modifier::ITALIC),
    );
    let shown: Vec<Row> = if hidden == 0 {
        rows
    } else if from_end {
        std::iter::once(note)
            .chain(rows.into_iter().skip(hidden))
            .collect()
    } else {
        let mut shown: Vec<Row> = rows.into_iter().take(FOLDED_LINES).collect();
        shown.push(note);
        shown
    };
    for row in head.iter().chain(&shown) {
        let safe = (terminal_safe(&row.0).into_owned(), row.1);
        cut_piece(
            &safe,
            width,
            vec![gutter.clone()],
            std::slice::from_ref(&gutter),
            lines,
        );
    }
}

/// A file diff as rows: a line per changed path, then the changed lines (`+`, `-`, context
/// and `@@` hunk headers).
fn diff_rows(diff: &FileDiff, look: Look) -> (Vec<Row>, Vec<Row>) {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut head: Vec<Row> = Vec::new();
    for path in &diff.paths {
        let what = match &path.from {
            Some(from) => format!("{} -> {}", from, path.path),
            None => path.path.clone(),
        };
        head.push((format!("{what} ({})", path.operation), bold));
    }
    if diff.too_large {
        head.push(("(the change is too large to show)".to_owned(), look.quiet()));
        return (head, Vec::new());
    }
    (head, diff_lines(diff, look))
}

/// The changed lines of a diff: the patch's lines, or a line diff of the old and new text.
fn diff_lines(diff: &FileDiff, look: Look) -> Vec<Row> {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut rows: Vec<Row> = Vec::new();
    if let Some(patch) = &diff.patch {
        for line in patch.split('\n') {
            let line = sanitize::text(line);
            let line = line.as_ref();
            let style = if line.starts_with("diff --git") {
                bold
            } else if line.starts_with("+++") || line.starts_with("---") {
                look.quiet()
            } else if line.starts_with("@@") {
                look.hunk()
            } else if line.starts_with('+') {
                look.added()
            } else if line.starts_with('-') {
                look.removed()
            } else {
                Style::default()
            };
            rows.push((line.to_owned(), style));
        }
        return rows;
    }
    let Some(new) = &diff.new_text else {
        return rows;
    };
    let old = diff.old_text.as_deref().unwrap_or("");
    for hunk in line_hunks(old, new, DIFF_CONTEXT) {
        rows.push((
            format!(
                "@@ -{},{} +{},{} @@",
                hunk.old_start + 1,
                hunk.old_len,
                hunk.new_start + 1,
                hunk.new_len
            ),
            look.hunk(),
        ));
        for line in &hunk.lines {
            let style = match line.tag {
                LineTag::Insert => look.added(),
                LineTag::Delete => look.removed(),
                LineTag::Equal => Style::default(),
            };
            let text = line.text.trim_end_matches(['\n', '\r']);
            rows.push((
                format!("{}{}", line.tag.sign(), sanitize::text(text)),
                style,
            ));
        }
    }
    rows
}

/// `text` as rows of `style`, each line made safe on its own (so that indentation and blank
/// lines stay as they are).
fn clean_lines(text: &str, style: Style) -> Vec<Row> {
    text.split('\n')
        .map(|line| (sanitize::text(line).into_owned(), style))
        .collect()
}

/// A terminal's output as rows (after a heading row), ending with how the command ended.
fn terminal_rows(id: &str, tail: Option<&TerminalTail>, look: Look) -> (Vec<Row>, Vec<Row>) {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let Some(tail) = tail else {
        let head = (
            format!("terminal {}: no output to show", terminal_safe(id)),
            look.quiet(),
        );
        return (vec![head], Vec::new());
    };
    let mut heading = format!("terminal {}", terminal_safe(id));
    if tail.truncated {
        heading.push_str(" (earlier output not kept)");
    }
    let mut rows: Vec<Row> = Vec::new();
    rows.extend(clean_lines(&tail.text, Style::default()));
    while rows.last().is_some_and(|(text, _)| text.trim().is_empty()) {
        rows.pop();
    }
    let ended = match &tail.exit {
        None => "(running)".to_owned(),
        Some(exit) => match (&exit.exit_code, &exit.signal) {
            (Some(code), _) => format!("(exit {code})"),
            (None, Some(signal)) => format!("(ended by {})", terminal_safe(signal)),
            (None, None) => "(ended)".to_owned(),
        },
    };
    let style = match &tail.exit {
        Some(exit) if exit.exit_code == Some(0) => look.added(),
        Some(_) => look.removed(),
        None => look.quiet(),
    };
    rows.push((ended, style));
    (vec![(heading, bold)], rows)
}
