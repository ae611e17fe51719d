//! Agent text made safe for a terminal, and word wrapping by display width.
//!
//! Conversation text comes from the agent and may hold anything. Before it is printed or
//! drawn, every control character except the line break goes (so an escape sequence loses its
//! `ESC` and prints as harmless text), tabs become spaces, and invisible formatting characters
//! that could reorder or hide text (bidi controls, zero-width characters, tag characters) are
//! removed. Notices are not handled here: the notice center sanitises them itself.

use std::borrow::Cow;

use unicode_width::UnicodeWidthChar;

/// Whether `c` is removed from agent text before it is shown.
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{E0000}'..='\u{E007F}')
}

/// Returns `text` without control characters (line breaks kept, tabs as a space) and without
/// invisible formatting characters. Borrows when nothing had to change.
///
/// ```
/// use acptk::commands::client::shared::text::terminal_safe;
///
/// assert_eq!(terminal_safe("plain"), "plain");
/// assert_eq!(terminal_safe("\u{1b}[31mred\tx\r\n"), "[31mred x\n");
/// assert_eq!(terminal_safe("a\u{202E}b"), "ab");
/// ```
#[must_use]
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\t' || is_hidden(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter(|&c| !is_hidden(c))
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect(),
    )
}

/// The display width of one character (0 for characters that take no column).
fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Wraps `text` into lines of at most `width` columns: line breaks are kept, lines break at
/// spaces where they can, and a word longer than a line is cut. A `width` of 0 is read as 1.
///
/// ```
/// use acptk::commands::client::shared::text::wrap;
///
/// assert_eq!(wrap("one two three", 7), ["one two", "three"]);
/// assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
/// assert_eq!(wrap("a\n\nb", 10), ["a", "", "b"]);
/// ```
#[must_use]
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        wrap_paragraph(paragraph, width, &mut lines);
    }
    lines
}

/// Wraps one paragraph (no line breaks) into `lines`; an empty paragraph gives one empty line.
fn wrap_paragraph(paragraph: &str, width: usize, lines: &mut Vec<String>) {
    let mut line = String::new();
    let mut line_width = 0;
    for word in paragraph.split(' ') {
        let word_width: usize = word.chars().map(char_width).sum();
        let gap = usize::from(!line.is_empty());
        if line_width + gap + word_width <= width {
            if gap == 1 {
                line.push(' ');
            }
            line.push_str(word);
            line_width += gap + word_width;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
            line_width = 0;
        }
        // The word starts a new line; cut it if it is longer than a line.
        for c in word.chars() {
            let w = char_width(c);
            if line_width + w > width && !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                line_width = 0;
            }
            line.push(c);
            line_width += w;
        }
    }
    lines.push(line);
}

/// `command` and `args` as one line, arguments that hold spaces or quotes in single quotes.
#[must_use]
pub fn command_line(command: &str, args: &[String]) -> String {
    let mut line = command.to_owned();
    for arg in args {
        line.push(' ');
        if arg.is_empty() || arg.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
            line.push('\'');
            line.push_str(&arg.replace('\'', "'\\''"));
            line.push('\'');
        } else {
            line.push_str(arg);
        }
    }
    line
}
