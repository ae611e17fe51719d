//! The prompt editor of the terminal UI: a multi-line text area (the `ratatui-textarea`
//! crate: cursor, words, soft wrap, undo) driven by the client's own key map, with the
//! prompt history on Up and Down.
//!
//! | keys | what they do |
//! |---|---|
//! | Left, Right, Ctrl-B, Ctrl-F | a character back or forward |
//! | Ctrl-Left, Ctrl-Right, Alt-B, Alt-F | a word back or forward |
//! | Home, End, Ctrl-A, Ctrl-E | start or end of the line |
//! | Backspace, Delete | delete a character |
//! | Ctrl-W, Alt-Backspace, Alt-D | delete the word before or after the cursor |
//! | Ctrl-U, Ctrl-K | delete to the start or the end of the line |
//! | Alt-Enter, Shift-Enter, Ctrl-J | a new line (Shift-Enter where the terminal reports it) |
//! | Up, Down | a line up or down; from the first or last line, the history |
//! | Ctrl-Z, Ctrl-Y | undo, redo |
//!
//! Enter is not handled here: the client sends the text. Pasted text is inserted as it is
//! (line breaks included) and never sent.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Widget;
use ratatui_textarea::{CursorMove, TextArea, WrapMode};
use unicode_width::UnicodeWidthStr;

use super::history::History;
use super::key::Key;

/// The longest text the editor holds, in bytes; typing past it is ignored and a paste that
/// would pass it is refused whole.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;

/// The text shown while the editor is empty.
pub const PLACEHOLDER: &str = "Enter sends; Alt-Enter or Ctrl-J adds a line";

/// The prompt being written, and the prompts sent before.
#[derive(Debug, Clone)]
pub struct Editor {
    area: TextArea<'static>,
    /// The prompts sent before (Up and Down).
    pub history: History,
}

impl Default for Editor {
    fn default() -> Self {
        Self::new()
    }
}

/// A text area with the client's settings, holding `lines`, the cursor at the end.
fn text_area(lines: Vec<String>) -> TextArea<'static> {
    let mut area = TextArea::new(lines);
    area.set_wrap_mode(WrapMode::WordOrGlyph);
    area.set_cursor_line_style(Style::default());
    area.set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
    area.set_placeholder_text(PLACEHOLDER);
    area.set_placeholder_style(Style::default().add_modifier(Modifier::DIM));
    area.set_max_histories(200);
    area.move_cursor(CursorMove::Bottom);
    area.move_cursor(CursorMove::End);
    area
}

/// `text` as the editor takes it: line breaks as `\n` (also `\r\n` and a lone `\r`), no other
/// control character (a tab stays).
fn normalise(text: &str) -> String {
    text.replace("\r\n", "\n")
        .chars()
        .map(|c| if c == '\r' { '\n' } else { c })
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect()
}

impl Editor {
    /// An empty editor with an in-memory history.
    #[must_use]
    pub fn new() -> Self {
        Self {
            area: text_area(vec![String::new()]),
            history: History::in_memory(),
        }
    }

    /// The text, lines joined by `\n`.
    #[must_use]
    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Whether there is no text.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.area.is_empty()
    }

    /// The length of the text in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        let lines = self.area.lines();
        lines.iter().map(String::len).sum::<usize>() + lines.len().saturating_sub(1)
    }

    /// The lines of the text.
    #[must_use]
    pub fn lines(&self) -> &[String] {
        self.area.lines()
    }

    /// The cursor: line and character within it, from 0.
    #[must_use]
    pub fn cursor(&self) -> (usize, usize) {
        let ratatui_textarea::DataCursor(row, column) = self.area.cursor();
        (row, column)
    }

    /// Replaces the text (the cursor goes to its end; undo starts over).
    pub fn set_text(&mut self, text: &str) {
        let text = normalise(text);
        self.area = text_area(text.split('\n').map(str::to_owned).collect());
    }

    /// Takes the text out, leaving the editor empty.
    pub fn take(&mut self) -> String {
        let text = self.text();
        self.set_text("");
        text
    }

    /// Inserts pasted text at the cursor, line breaks included. Refused whole, with the
    /// reason, when the text would grow past [`MAX_INPUT_BYTES`].
    pub fn paste(&mut self, text: &str) -> Result<(), String> {
        let text = normalise(text);
        if self.len() + text.len() > MAX_INPUT_BYTES {
            return Err(format!(
                "the paste was not inserted: {} bytes would make the prompt longer than {} KiB",
                text.len(),
                MAX_INPUT_BYTES / 1024
            ));
        }
        self.history.stop_browsing();
        self.area.insert_str(text);
        Ok(())
    }

    /// Applies an editing key; `false` when the key is not one of the editor's.
    pub fn key(&mut self, key: Key) -> bool {
        let room = MAX_INPUT_BYTES.saturating_sub(self.len());
        let area = &mut self.area;
        match key {
            Key::Char(c) if c.len_utf8() <= room => area.insert_char(c),
            Key::Newline | Key::Ctrl('j') if room >= 1 => area.insert_newline(),
            // Past the limit, typing is ignored.
            Key::Char(_) | Key::Newline | Key::Ctrl('j') => {}
            Key::Backspace | Key::Ctrl('h') => {
                area.delete_char();
            }
            Key::Delete => {
                area.delete_next_char();
            }
            Key::Ctrl('w') | Key::WordBackspace => {
                area.delete_word();
            }
            Key::Alt('d') => {
                area.delete_next_word();
            }
            Key::Ctrl('u') => {
                area.delete_line_by_head();
            }
            Key::Ctrl('k') => {
                area.delete_line_by_end();
            }
            Key::Ctrl('z') => {
                area.undo();
            }
            Key::Ctrl('y') => {
                area.redo();
            }
            Key::Left | Key::Ctrl('b') => return self.moved(CursorMove::Back),
            Key::Right | Key::Ctrl('f') => return self.moved(CursorMove::Forward),
            Key::WordLeft | Key::Alt('b') => return self.moved(CursorMove::WordBack),
            Key::WordRight | Key::Alt('f') => return self.moved(CursorMove::WordForward),
            Key::Home | Key::Ctrl('a') => return self.moved(CursorMove::Head),
            Key::End | Key::Ctrl('e') => return self.moved(CursorMove::End),
            Key::Up => return self.up(),
            Key::Down => return self.down(),
            _ => return false,
        }
        // The text shown is edited: it is the draft now, not a history entry.
        self.history.stop_browsing();
        true
    }

    fn moved(&mut self, to: CursorMove) -> bool {
        self.area.move_cursor(to);
        true
    }

    /// A line up, or the previous prompt from the first line.
    fn up(&mut self) -> bool {
        let before = self.area.cursor();
        self.area.move_cursor(CursorMove::Up);
        if self.area.cursor() == before {
            let current = self.text();
            if let Some(previous) = self.history.previous(&current).map(str::to_owned) {
                self.show_history(&previous);
            }
        }
        true
    }

    /// A line down, or the next prompt (then the draft) from the last line.
    fn down(&mut self) -> bool {
        let before = self.area.cursor();
        self.area.move_cursor(CursorMove::Down);
        if self.area.cursor() == before
            && let Some(next) = self.history.following().map(str::to_owned)
        {
            self.show_history(&next);
        }
        true
    }

    /// Shows a prompt of the history without leaving it.
    fn show_history(&mut self, text: &str) {
        self.area = text_area(text.split('\n').map(str::to_owned).collect());
    }

    /// How many rows the text takes at `width` columns (soft-wrapped; at least 1). An estimate
    /// by display width, to size the input box.
    #[must_use]
    pub fn rows(&self, width: u16) -> usize {
        let width = usize::from(width.max(1));
        self.area
            .lines()
            .iter()
            .map(|line| (line.width() + 1).div_ceil(width).max(1))
            .sum()
    }
}

impl Widget for &Editor {
    fn render(self, area: Rect, buf: &mut Buffer) {
        (&self.area).render(area, buf);
    }
}
