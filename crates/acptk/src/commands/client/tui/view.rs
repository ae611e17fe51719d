//! Drawing [`AppState`] into a ratatui frame: conversation, toasts, notice list, prompt
//! editor, status line, key hints, command completions and dialogs (permission, write
//! confirmation, sign-in). Pure: the same state draws the same screen, so tests render it
//! with ratatui's `TestBackend`. Where things go is decided in [`super::layout`]; the
//! conversation's lines come from [`super::conversation`].

use acptk_notice_center::render::plain as notice_plain;
use acptk_notice_center::render::tui::{NoticePanel, ToastStack, marker};
use acptk_notice_center::sanitize::fit_width;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::agent_pane::render_agent_pane;
use super::app::{AppState, DialogKind, SecretInput};
use super::conversation::visible_lines;
use super::layout::{self, Part, ToastPlace, fit_parts};
use super::slash::Completion;
use crate::commands::client::shared::lock;
use crate::commands::client::shared::text::{terminal_safe, wrap};

/// How many characters of a long session id the status line shows.
pub const SHORT_ID: usize = 13;

/// The separator of the status line's and the key hints' parts.
const SEPARATOR: &str = " | ";

/// The width from which the open notice list shares the screen with the conversation
/// (below it, the list takes the conversation's place).
const SPLIT_LIST_WIDTH: u16 = 100;

/// Draws the whole client.
pub fn render(frame: &mut Frame<'_>, app: &AppState) {
    let area = frame.area();
    let (toast_rows, toast_count) = if app.list_open {
        (0, 0)
    } else {
        toast_rows(app)
    };
    let input_rows =
        u16::try_from(app.editor.rows(area.width.saturating_sub(2))).unwrap_or(u16::MAX);
    let areas = layout::areas(area, input_rows, toast_rows, toast_count);

    match (&app.notices, app.list_open, &app.session) {
        _ if app.agent_pane => {
            if areas.body.width >= SPLIT_LIST_WIDTH {
                let [left, right] =
                    Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
                        .areas(areas.body);
                render_agent_pane(frame, app, right);
                render_conversation(frame, app, left, inner(left));
            } else {
                render_agent_pane(frame, app, areas.body);
            }
        }
        (Some(center), true, Some(session)) => {
            let center = lock(center);
            if areas.body.width >= SPLIT_LIST_WIDTH {
                let [left, right] =
                    Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
                        .areas(areas.body);
                frame.render_widget(NoticePanel::new(&center, session, app.theme), right);
                render_conversation(frame, app, left, inner(left));
            } else {
                frame.render_widget(NoticePanel::new(&center, session, app.theme), areas.body);
            }
        }
        _ => render_conversation(frame, app, areas.body, areas.text),
    }
    match areas.toasts {
        ToastPlace::Column(column) => {
            if let Some(center) = &app.notices {
                frame.render_widget(Clear, column);
                frame.render_widget(ToastStack::new(&lock(center), app.theme), column);
            }
        }
        ToastPlace::Strip(strip) => render_toast_strip(frame, app, strip),
        ToastPlace::None | ToastPlace::StatusLine => {}
    }
    render_input(frame, app, areas.input);
    let width = usize::from(areas.status.width);
    let folded = areas.toasts == ToastPlace::StatusLine;
    frame.render_widget(
        Paragraph::new(status_text(app, width, folded)),
        areas.status,
    );
    frame.render_widget(
        Paragraph::new(help_line(app, usize::from(areas.help.width))).style(app.look.quiet()),
        areas.help,
    );
    let completions = app.completions();
    if !completions.is_empty() && app.dialog.is_none() {
        render_completions(frame, &completions, areas.body);
    }
    if app.dialog.is_some() {
        render_dialog(frame, app, areas.body);
    }
    if let Some(secret) = &app.secret {
        render_secret(frame, app, secret, areas.body);
    }
}

/// The masked input of an `env_var` sign-in: which variable, `*` per character typed.
fn render_secret(frame: &mut Frame<'_>, app: &AppState, secret: &SecretInput, area: Rect) {
    let width = area.width.saturating_sub(4).clamp(1, 72);
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let var = terminal_safe(secret.current().unwrap_or_default()).into_owned();
    let mut lines: Vec<Line<'static>> = Vec::new();
    for piece in wrap(
        &format!(
            "{}: the value of {var} (kept in memory for the agent, never saved or shown)",
            terminal_safe(&secret.name)
        ),
        inner,
    ) {
        lines.push(Line::from(piece));
    }
    lines.push(Line::from(""));
    lines.push(Line::styled(
        format!("{var}={}", secret.masked()),
        app.look.selected(),
    ));
    lines.push(Line::styled(
        "Enter use it (restarts the agent) | Esc back to the methods",
        app.look.quiet(),
    ));
    let rect = centred(area, width, lines.len());
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Sign in ")),
        rect,
    );
}

/// The inside of a bordered box.
fn inner(area: Rect) -> Rect {
    Block::bordered().inner(area)
}

/// The status line's parts: protocol (and the version asked for, when the agent answered an
/// older one), notices, unread count, mode, model, agent, activity and the latest message.
fn status_parts(app: &AppState) -> Vec<Part> {
    let status = &app.status;
    let mut parts = Vec::new();
    let mut version = format!("ACP v{}", status.protocol);
    if let Some(proposed) = status.proposed {
        version.push_str(&format!(" (asked for v{proposed})"));
    }
    parts.push(Part::new(0, 3, version));
    let notices = match (status.notices, status.protocol) {
        (true, 1) => "notices: advertised",
        (true, _) => "notices: on",
        (false, 1) => "notices: not advertised",
        (false, _) => "notices: off",
    };
    parts.push(Part::new(1, 7, notices));
    if status.notices {
        let unread = app.unread();
        parts.push(Part::new(
            2,
            if unread > 0 { 2 } else { 6 },
            format!("unread: {unread}"),
        ));
    }
    if status.violations > 0 {
        parts.push(Part::new(
            3,
            3,
            format!("notices during replay: {}", status.violations),
        ));
    }
    if let Some(mode) = &status.mode {
        parts.push(Part::new(4, 4, format!("mode: {}", terminal_safe(mode))));
    }
    if let Some(model) = &status.model {
        parts.push(Part::new(5, 5, format!("model: {}", terminal_safe(model))));
    }
    if let Some(agent) = &status.agent {
        parts.push(Part::new(6, 8, format!("agent: {}", terminal_safe(agent))));
    }
    if let Some(session) = &app.session {
        parts.push(Part::new(7, 4, format!("session: {}", short_id(session))));
    }
    if status.busy {
        parts.push(Part::new(7, 0, "working..."));
    }
    if let Some(message) = &status.message {
        parts.push(Part::new(8, 1, terminal_safe(message).replace('\n', " ")));
    }
    parts
}

/// A session id short enough for the status line: its first [`SHORT_ID`] characters and
/// `…` when it is longer (the whole id is printed on exit and shown in the agent pane).
#[must_use]
pub fn short_id(session: &str) -> String {
    let safe = terminal_safe(session);
    if safe.chars().count() <= SHORT_ID + 1 {
        return safe.into_owned();
    }
    let mut short: String = safe.chars().take(SHORT_ID).collect();
    short.push('…');
    short
}

/// The whole status line (as wide as it needs to be).
#[must_use]
pub fn status_line(app: &AppState) -> String {
    status_text(app, usize::MAX, false)
}

/// The status line for `width` columns; with `toasts`, the visible toasts folded in first.
fn status_text(app: &AppState, width: usize, toasts: bool) -> String {
    let mut parts = status_parts(app);
    if let Some(folded) = toasts.then(|| folded_toasts(app)).flatten() {
        for part in &mut parts {
            part.order = part.order.saturating_add(1);
        }
        parts.push(Part::new(0, 0, folded));
    }
    format!(" {}", fit_parts(parts, SEPARATOR, width.saturating_sub(1)))
}

/// The first visible toast as one short line (`[!] Disk almost full (+1)`).
fn folded_toasts(app: &AppState) -> Option<String> {
    let center = lock(app.notices.as_ref()?);
    let count = center.toasts().count();
    let first = center.toasts().next()?;
    let entry = first.entry();
    let more = if count > 1 {
        format!(" (+{} more)", count - 1)
    } else {
        String::new()
    };
    Some(format!(
        "{} {}: {}{more}",
        marker(entry.severity()),
        notice_plain::label(entry),
        entry.title()
    ))
}

/// The key hints for `width` columns: the most useful that fit; how to quit always. At 80
/// columns they name sending, a new line, the notice list, scrolling and the agent pane
/// (where the agent's standard error goes, found nowhere else).
#[must_use]
pub fn help_line(app: &AppState, width: usize) -> String {
    let mut parts = vec![
        Part::new(0, 1, "Enter send"),
        Part::new(1, 5, "^J new line"),
        Part::new(2, 6, "Up history"),
        Part::new(3, 7, "/ commands"),
        Part::new(6, 4, "PgUp/Dn scroll"),
        Part::new(7, 6, "^T thoughts"),
        Part::new(8, 6, "^O tool output"),
        Part::new(8, 3, "^G agent pane"),
    ];
    if app.agent_gone {
        parts.push(Part::new(9, 0, "^R restart"));
    }
    if app.notices.is_some() {
        parts.push(Part::new(4, 2, "^N notices"));
        parts.push(Part::new(5, 5, "Esc/^D dismiss"));
    }
    if app.signing_in {
        parts.push(Part::new(9, 0, "^C cancel sign-in ^Q quit"));
    } else if app.status.busy {
        parts.push(Part::new(9, 0, "^C cancel ^Q quit"));
    } else {
        parts.push(Part::new(9, 0, "^C quit"));
    }
    fit_parts(parts, SEPARATOR, width)
}

/// The conversation, with the client's notes, in its box; the text goes in `text`.
fn render_conversation(frame: &mut Frame<'_>, app: &AppState, area: Rect, text: Rect) {
    let title = if app.scroll > 0 {
        " Conversation (scrolled: Ctrl-End goes back) "
    } else {
        " Conversation "
    };
    frame.render_widget(Block::bordered().title(title), area);
    let (lines, _) = visible_lines(
        app,
        usize::from(text.width),
        usize::from(text.height),
        app.scroll,
    );
    frame.render_widget(Paragraph::new(lines), text);
}

/// How many rows the visible toasts take as boxes (only those that fit in a column of the
/// screen), and how many toasts there are.
fn toast_rows(app: &AppState) -> (u16, u16) {
    let Some(center) = &app.notices else {
        return (0, 0);
    };
    let mut used: u16 = 0;
    let mut count: u16 = 0;
    for toast in lock(center).toasts() {
        let rows = if toast.entry().description().is_some() {
            4
        } else {
            3
        };
        used = used.saturating_add(rows);
        count = count.saturating_add(1);
    }
    (used, count)
}

/// The toasts as one line each: marker and severity word in its style, title, description.
fn render_toast_strip(frame: &mut Frame<'_>, app: &AppState, area: Rect) {
    let Some(center) = &app.notices else {
        return;
    };
    let center = lock(center);
    let width = usize::from(area.width);
    let count = center.toasts().count();
    let rows = usize::from(area.height);
    let mut lines = Vec::new();
    for (index, toast) in center.toasts().enumerate().take(rows) {
        let entry = toast.entry();
        let head = format!(
            "{} {}",
            marker(entry.severity()),
            notice_plain::label(entry)
        );
        let mut rest = format!(": {}", entry.title());
        if let Some(description) = entry.description() {
            rest.push_str(" - ");
            rest.push_str(description.lines().next().unwrap_or(""));
        }
        if index + 1 == rows && count > rows {
            rest.push_str(&format!(" (+{} more: ^N)", count - rows));
        }
        let style = app
            .theme
            .severity_style(entry.severity())
            .add_modifier(Modifier::BOLD);
        let head_width = head.len().min(width);
        let tail = fit_width(&rest, width.saturating_sub(head_width)).into_owned();
        lines.push(Line::from(vec![
            Span::styled(fit_width(&head, width).into_owned(), style),
            Span::raw(tail),
        ]));
    }
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines), area);
}

/// The prompt editor in its box.
fn render_input(frame: &mut Frame<'_>, app: &AppState, area: Rect) {
    let title = if app.status.busy {
        " Prompt (agent is working) "
    } else {
        " Prompt "
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(&app.editor, inner);
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
            lines.push(Line::styled(piece, app.look.quiet()));
        }
    }
    lines.push(Line::from(""));
    for (index, choice) in dialog.choices.iter().enumerate() {
        let marker = if index == dialog.selected { ">" } else { " " };
        let text = format!(
            "{}. {} ({})",
            index + 1,
            terminal_safe(&choice.name),
            terminal_safe(&choice.kind)
        );
        let style = if index == dialog.selected {
            app.look.selected()
        } else {
            Style::default()
        };
        // A long choice wraps under its label rather than being cut.
        for (row, piece) in wrap(&text, inner.saturating_sub(5).max(1))
            .into_iter()
            .enumerate()
        {
            let piece = if row == 0 {
                format!("{marker} {piece}")
            } else {
                format!("     {piece}")
            };
            lines.push(Line::styled(piece, style));
        }
    }
    let escape = match dialog.kind {
        DialogKind::Permission => "Esc cancel",
        DialogKind::Write | DialogKind::Run => "Esc deny",
        DialogKind::Auth if app.session.is_some() => "Esc close",
        DialogKind::Auth => "Esc leave",
    };
    lines.push(Line::styled(
        format!("Up/Down or 1-9 choose | Enter answer | {escape}"),
        app.look.quiet(),
    ));
    let rect = centred(area, width, lines.len());
    let block = Block::bordered().title(dialog.heading());
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

/// A box `width` wide, tall enough for `lines` lines and its border (at most `area`'s
/// height), centred in `area`.
fn centred(area: Rect, width: u16, lines: usize) -> Rect {
    let height = u16::try_from(lines)
        .unwrap_or(u16::MAX)
        .saturating_add(2)
        .min(area.height);
    Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    )
}
