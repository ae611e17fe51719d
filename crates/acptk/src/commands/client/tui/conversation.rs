//! The conversation as drawn lines: each transcript entry rendered once (messages and
//! thoughts from Markdown, tool calls as blocks) and kept in a [`LineCache`](super::line_cache::LineCache) until the entry
//! changes (a new [`Entry::revision`]), the width changes, or a fold key is pressed; the
//! client's notes between them, or inside the block of the tool call they are about. A frame
//! only renders the entries it shows: it walks back from the end of the conversation until
//! the view is full, so a frame's cost does not grow with the length of the conversation.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;

use acptk_runtime::client::transcript::{Entry, Role};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::app::{AppState, Note};
use super::line_cache::Settings;
use crate::commands::client::render::markdown;
use crate::commands::client::render::plain::{note_line, role_label};
use crate::commands::client::render::theme::Look;
use crate::commands::client::render::tool_block;
use crate::commands::client::shared::lock;
use crate::commands::client::shared::text::{terminal_safe, wrap};

/// Draws one entry at `width` columns (a tool call with the client's `notes` about it).
fn draw_entry(app: &AppState, entry: &Entry, width: usize, notes: &[&str]) -> Vec<Line<'static>> {
    let look = app.look;
    match entry {
        Entry::Message(message) => {
            let label_text = role_label(message.role);
            match message.role {
                Role::User => {
                    let text = format!("{label_text}{}", terminal_safe(&message.text));
                    wrap(&text, width)
                        .into_iter()
                        .map(|line| Line::styled(line, look.user()))
                        .collect()
                }
                Role::Thought if app.thoughts_folded => {
                    let first = message
                        .text
                        .lines()
                        .find(|line| !line.trim().is_empty())
                        .unwrap_or("");
                    let text = format!(
                        "{label_text}{} ... (Ctrl-T unfolds)",
                        terminal_safe(first.trim())
                    );
                    let cut = acptk_notice_center::sanitize::fit_width(&text, width);
                    vec![Line::styled(cut.into_owned(), look.thought())]
                }
                Role::Thought => markdown::render(
                    &message.text,
                    width,
                    look,
                    Some(Span::styled(label_text, look.thought().patch(look.label()))),
                    look.thought(),
                ),
                _ => markdown::render(
                    &message.text,
                    width,
                    look,
                    Some(Span::styled(label_text, look.label())),
                    Style::default(),
                ),
            }
        }
        Entry::ToolCall(call) => tool_block::render(
            call,
            width,
            look,
            app.tools_unfolded,
            app.terminals.as_ref(),
            notes,
        ),
        _ => vec![Line::raw("[unsupported entry]")],
    }
}

/// What a tool call's drawing owes to the client's notes in its block.
fn notes_stamp(notes: &[&str]) -> u64 {
    if notes.is_empty() {
        return 0;
    }
    let mut hasher = DefaultHasher::new();
    notes.hash(&mut hasher);
    hasher.finish()
}

/// Draws a client note at `width` columns.
fn draw_note(text: &str, width: usize, look: Look) -> Vec<Line<'static>> {
    wrap(&note_line(text), width)
        .into_iter()
        .map(|line| Line::styled(line, look.note()))
        .collect()
}

/// The lines of the conversation that a view of `height` rows scrolled `scroll` lines up from
/// the end shows at `width` columns, and the scroll actually used (at most the top).
#[must_use]
pub fn visible_lines(
    app: &AppState,
    width: usize,
    height: usize,
    scroll: usize,
) -> (Vec<Line<'static>>, usize) {
    let width = width.max(1);
    let needed = height.saturating_add(scroll);
    let mut cache = app.cache.borrow_mut();
    cache.begin(Settings {
        width,
        look: Some(app.look),
        thoughts_folded: app.thoughts_folded,
        tools_unfolded: app.tools_unfolded,
    });
    // Pieces from the end backwards, each in its own order.
    let mut pieces: Vec<Rc<[Line<'static>]>> = Vec::new();
    let mut total = 0usize;
    {
        let transcript = lock(&app.transcript);
        let entries = app
            .session
            .as_deref()
            .and_then(|session| transcript.session(session))
            .map_or(&[][..], |session| session.entries.as_slice());
        // A note about a tool call is drawn inside its block; the others between entries.
        let in_block = |note: &Note| {
            note.within
                .is_some_and(|at| matches!(entries.get(at), Some(Entry::ToolCall(_))))
        };
        let mut notes = app
            .notes
            .iter()
            .rev()
            .filter(|note| !in_block(note))
            .peekable();
        for position in (0..=entries.len()).rev() {
            if total >= needed {
                break;
            }
            // Notes written when `position` entries existed come right before that entry.
            while let Some(note) = notes.next_if(|note| note.after >= position) {
                let lines: Rc<[Line<'static>]> = draw_note(&note.text, width, app.look).into();
                total += lines.len();
                pieces.push(lines);
            }
            if position == 0 || total >= needed {
                continue;
            }
            let entry = &entries[position - 1];
            let (stamp, inside) = match entry {
                Entry::ToolCall(call) => {
                    let inside: Vec<&str> = app
                        .notes
                        .iter()
                        .filter(|note| note.within == Some(position - 1) && in_block(note))
                        .map(|note| note.text.as_str())
                        .collect();
                    let terminals = tool_block::terminal_stamp(call, app.terminals.as_ref());
                    (terminals ^ notes_stamp(&inside), inside)
                }
                _ => (0, Vec::new()),
            };
            let lines = cache.lines(entry.revision(), stamp, || {
                draw_entry(app, entry, width, &inside)
            });
            total += lines.len();
            pieces.push(lines);
        }
    }
    cache.end();
    let scroll = scroll.min(total.saturating_sub(height));
    let mut lines: Vec<Line<'static>> = Vec::with_capacity(height.min(total));
    // Skip the first `total - scroll - height` lines, take `height`.
    let mut skip = total.saturating_sub(scroll).saturating_sub(height);
    let mut take = height.min(total.saturating_sub(scroll));
    for piece in pieces.iter().rev() {
        if take == 0 {
            break;
        }
        if skip >= piece.len() {
            skip -= piece.len();
            continue;
        }
        for line in piece.iter().skip(skip).take(take) {
            lines.push(line.clone());
            take -= 1;
        }
        skip = 0;
    }
    (lines, scroll)
}

/// The whole conversation as lines of at most `width` columns (tests and the benchmark; the
/// view draws only what it shows, with [`visible_lines`]).
#[must_use]
pub fn all_lines(app: &AppState, width: usize) -> Vec<Line<'static>> {
    visible_lines(app, width, usize::MAX / 4, 0).0
}
