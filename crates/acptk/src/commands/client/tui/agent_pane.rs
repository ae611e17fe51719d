//! The terminal UI's agent pane (Ctrl-G): the last lines the agent wrote to its standard
//! error and the protocol problems the connection met (lines that are not JSON, such as a
//! login's prompts, and messages it refused), newest at the bottom.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};

use super::app::AppState;
use crate::commands::client::shared::text::{terminal_safe, wrap};

/// The pane's lines for `width` columns, oldest first (all of them; the caller shows the
/// last that fit).
#[must_use]
pub fn pane_lines(app: &AppState, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut push = |text: &str, style| {
        for piece in wrap(&terminal_safe(text), width) {
            lines.push(Line::styled(piece, style));
        }
    };
    let quiet = app.look.quiet();
    let plain = ratatui::style::Style::default();
    if let Some(session) = &app.session {
        push(&format!("session: {session}"), quiet);
    }
    if app.agent_gone {
        push("the agent has gone: Ctrl-R starts it again", quiet);
    }
    match &app.agent_log {
        Some(log) => {
            let place = log.path().map_or_else(String::new, |path| {
                format!(" (all of it: {})", path.display())
            });
            push(
                &format!("standard error: {} line(s){place}", log.lines()),
                quiet,
            );
            for line in log.tail() {
                push(&line, plain);
            }
        }
        None => push("standard error: not captured (a remote agent)", quiet),
    }
    if let Some(log) = &app.peer_log {
        let (recent, count) = log.recent();
        push(&format!("protocol problems: {count}"), quiet);
        for record in recent {
            push(&record, plain);
        }
    }
    lines
}

/// Draws the pane in `area`.
pub fn render_agent_pane(frame: &mut Frame<'_>, app: &AppState, area: Rect) {
    let block = Block::bordered().title(" Agent: standard error and protocol (Ctrl-G closes) ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines = pane_lines(app, usize::from(inner.width));
    let rows = usize::from(inner.height);
    let skip = lines.len().saturating_sub(rows);
    lines.drain(..skip);
    frame.render_widget(Paragraph::new(lines), inner);
}
