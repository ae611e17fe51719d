//! Drawing [`AppState`] into a ratatui frame: conversation, toasts, notice list, input line,
//! status line, help line, command completions and dialogs (permission, write confirmation,
//! sign-in). Pure: the same state draws the same
//! screen, so tests render it with ratatui's `TestBackend`.

use acp_notice_center::render::tui::{NoticePanel, ToastStack};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use acp_runtime::client::transcript::{Entry, Role};

use super::app::{AppState, DialogKind, lock};
use super::plain::{entry_text, note_line};
use super::slash::Completion;
use super::text::{terminal_safe, wrap};

/// The keys, as shown in the help line (`^N` is Ctrl-N).
pub const HELP: &str = "Enter send | / commands | ^N notices | Esc/^D dismiss | ^X all | PgUp/PgDn scroll | ^C cancel/quit";

/// The widest the toast column gets.
const TOAST_WIDTH: u16 = 44;

/// The narrowest the conversation text gets beside the toast column.
const MIN_TEXT_WIDTH: u16 = 30;

/// Draws the whole client.
pub fn render(frame: &mut Frame<'_>, app: &AppState) {
    let [body, input, status, help] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());

    let conversation = match (&app.notices, app.list_open, &app.session) {
        (Some(center), true, Some(session)) => {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
                    .areas(body);
            let center = lock(center);
            frame.render_widget(NoticePanel::new(&center, session, app.theme), right);
            left
        }
        _ => body,
    };
    render_conversation(frame, app, conversation);
    render_input(frame, app, input);
    frame.render_widget(Paragraph::new(status_line(app)), status);
    frame.render_widget(
        Paragraph::new(HELP).style(Style::default().add_modifier(Modifier::DIM)),
        help,
    );
    let completions = app.completions();
    if !completions.is_empty() && app.dialog.is_none() {
        render_completions(frame, &completions, body);
    }
    if app.dialog.is_some() {
        render_dialog(frame, app, body);
    }
}

/// The status line's text: protocol (and the version asked for, when the agent answered an
/// older one), notices, unread count, mode, model, agent and activity.
#[must_use]
pub fn status_line(app: &AppState) -> String {
    let status = &app.status;
    let mut line = format!(" ACP v{}", status.protocol);
    if let Some(proposed) = status.proposed {
        line.push_str(&format!(" (asked for v{proposed})"));
    }
    let notices = match (status.notices, status.protocol) {
        (true, 1) => "notices: advertised",
        (true, _) => "notices: on",
        (false, 1) => "notices: not advertised",
        (false, _) => "notices: off",
    };
    line.push_str(" | ");
    line.push_str(notices);
    if status.notices {
        line.push_str(&format!(" | unread: {}", app.unread()));
    }
    if status.violations > 0 {
        line.push_str(&format!(" | notices during replay: {}", status.violations));
    }
    if let Some(mode) = &status.mode {
        line.push_str(" | mode: ");
        line.push_str(&terminal_safe(mode));
    }
    if let Some(model) = &status.model {
        line.push_str(" | model: ");
        line.push_str(&terminal_safe(model));
    }
    if let Some(agent) = &status.agent {
        line.push_str(" | agent: ");
        line.push_str(&terminal_safe(agent));
    }
    if status.busy {
        line.push_str(" | working...");
    }
    if let Some(message) = &status.message {
        line.push_str(" | ");
        line.push_str(&terminal_safe(message));
    }
    line
}

/// The session's conversation with the client's notes, as wrapped, styled lines of at most
/// `width` columns.
#[must_use]
pub fn conversation_lines(app: &AppState, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut push = |text: &str, style: Style| {
        lines.extend(
            wrap(text, width)
                .into_iter()
                .map(|line| Line::from(Span::styled(line, style))),
        );
    };
    let note_style = Style::default().add_modifier(Modifier::DIM);
    let mut notes = app.notes.iter().peekable();
    if let Some(session) = &app.session {
        let transcript = lock(&app.transcript);
        let entries = transcript
            .session(session)
            .map_or(&[][..], |session| session.entries.as_slice());
        for (index, entry) in entries.iter().enumerate() {
            while let Some(note) = notes.next_if(|note| note.after <= index) {
                push(&note_line(&note.text), note_style);
            }
            let style = match entry {
                Entry::Message(message) => match message.role {
                    Role::User => Style::default().add_modifier(Modifier::BOLD),
                    Role::Thought => {
                        Style::default().add_modifier(Modifier::DIM | Modifier::ITALIC)
                    }
                    _ => Style::default(),
                },
                Entry::ToolCall(_) => Style::default().add_modifier(Modifier::ITALIC),
                _ => Style::default(),
            };
            push(&entry_text(entry), style);
        }
    }
    for note in notes {
        push(&note_line(&note.text), note_style);
    }
    lines
}

/// The conversation text, with the toasts in a column on its right (or over the text's right
/// edge when the area is too narrow for both). While the notice list is open, it shows the
/// notices and no toasts are drawn.
fn render_conversation(frame: &mut Frame<'_>, app: &AppState, area: Rect) {
    let block = Block::bordered().title(" Conversation ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let toasts = if app.list_open {
        0
    } else {
        toast_rows(app, inner.height)
    };
    let width = TOAST_WIDTH.min(inner.width);
    let (text, column) = if toasts == 0 || width < 4 {
        (inner, None)
    } else if inner.width > MIN_TEXT_WIDTH + width {
        let [text, _, column] = Layout::horizontal([
            Constraint::Min(MIN_TEXT_WIDTH),
            Constraint::Length(1),
            Constraint::Length(width),
        ])
        .areas(inner);
        (text, Some(column))
    } else {
        let column = Rect::new(inner.right() - width, inner.y, width, inner.height);
        (inner, Some(column))
    };

    let lines = conversation_lines(app, usize::from(text.width));
    let height = usize::from(text.height);
    let end = lines.len().saturating_sub(app.scroll.min(lines.len()));
    let start = end.saturating_sub(height);
    let visible: Vec<Line<'static>> = lines[start..end].to_vec();
    frame.render_widget(Paragraph::new(visible), text);

    if let (Some(column), Some(center)) = (column, &app.notices) {
        let rect = Rect::new(column.x, column.y, column.width, toasts);
        frame.render_widget(Clear, rect);
        frame.render_widget(ToastStack::new(&lock(center), app.theme), rect);
    }
}

/// How many rows the visible toasts take (only those that fit in `height`).
fn toast_rows(app: &AppState, height: u16) -> u16 {
    let Some(center) = &app.notices else {
        return 0;
    };
    let mut used: u16 = 0;
    for toast in lock(center).toasts() {
        let rows = if toast.entry().description().is_some() {
            4
        } else {
            3
        };
        if used.saturating_add(rows) > height {
            break;
        }
        used += rows;
    }
    used
}

fn render_input(frame: &mut Frame<'_>, app: &AppState, area: Rect) {
    let title = if app.status.busy {
        " Prompt (agent is working) "
    } else {
        " Prompt "
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Show the end of a long input.
    let width = usize::from(inner.width.saturating_sub(1));
    let chars: Vec<char> = app.input.chars().collect();
    let shown: String = chars[chars.len().saturating_sub(width)..].iter().collect();
    frame.render_widget(Paragraph::new(format!("{shown}_")), inner);
}

/// The commands matching the input, in a box just above the input line.
fn render_completions(frame: &mut Frame<'_>, completions: &[Completion], area: Rect) {
    let rows = u16::try_from(completions.len()).unwrap_or(u16::MAX);
    let height = rows.saturating_add(2).min(area.height);
    let width = area.width.saturating_sub(2).max(1);
    let rect = Rect::new(
        area.x + 1,
        area.y + area.height.saturating_sub(height),
        width,
        height,
    );
    let lines: Vec<Line<'static>> = completions
        .iter()
        .map(|completion| {
            let hint = completion
                .hint
                .as_deref()
                .map(|hint| format!(" {}", terminal_safe(hint)))
                .unwrap_or_default();
            let whose = if completion.local { " (client)" } else { "" };
            Line::from(format!(
                "/{}{hint} - {}{whose}",
                terminal_safe(&completion.name),
                terminal_safe(&completion.description).replace('\n', " ")
            ))
        })
        .collect();
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Commands (Tab completes) ")),
        rect,
    );
}

fn render_dialog(frame: &mut Frame<'_>, app: &AppState, area: Rect) {
    let Some(dialog) = &app.dialog else {
        return;
    };
    let width = area.width.saturating_sub(4).clamp(1, 72);
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let mut lines: Vec<Line<'static>> = wrap(&terminal_safe(&dialog.title), inner)
        .into_iter()
        .map(Line::from)
        .collect();
    for detail in &dialog.lines {
        for piece in wrap(&terminal_safe(detail), inner) {
            lines.push(Line::styled(
                piece,
                Style::default().add_modifier(Modifier::DIM),
            ));
        }
    }
    lines.push(Line::from(""));
    for (index, choice) in dialog.choices.iter().enumerate() {
        let marker = if index == dialog.selected { ">" } else { " " };
        let text = format!(
            "{marker} {}. {} ({})",
            index + 1,
            terminal_safe(&choice.name),
            terminal_safe(&choice.kind)
        );
        let style = if index == dialog.selected {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        lines.push(Line::styled(text, style));
    }
    let escape = match dialog.kind {
        DialogKind::Permission => "Esc cancel",
        DialogKind::Write | DialogKind::Run => "Esc deny",
        DialogKind::Auth => "Esc leave",
    };
    lines.push(Line::styled(
        format!("Up/Down or 1-9 choose | Enter answer | {escape}"),
        Style::default().add_modifier(Modifier::DIM),
    ));
    let height = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2)
        .min(area.height);
    let rect = Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    );
    let block = Block::bordered().title(dialog.heading());
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
