//! First sanitising pass: drop escape sequences and invisible or control characters, fold
//! whitespace, and stop once enough text has been kept.
//!
//! Escape sequences are recognised by the `vte` parser (the DEC ANSI state machine used by
//! terminal emulators), so a sequence is removed as a whole, parameters and payload included.
//! `vte` reads UTF-8 and treats a C1 control character (U+0080-U+009F) in plain text as a lone
//! control; a terminal in 8-bit mode would instead start a sequence there. To strip the 8-bit
//! forms as thoroughly as the 7-bit ones, every C1 character is handed to the parser in its
//! equivalent 7-bit form (`ESC` followed by the character minus 0x40), so `U+009B 31m` is
//! removed exactly like `ESC [ 31m`.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use unicode_width::UnicodeWidthChar;

/// Which rules apply: a title is one line, a description may have line breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// One line: every whitespace run, line breaks included, becomes one space.
    Title,
    /// Several lines: line breaks are kept (at most one blank line in a row), `\r` is dropped.
    Description,
}

/// At most this many zero-width characters (combining marks and the like) are kept after one
/// visible character; the rest of the run is dropped. Real scripts need a handful; thousands
/// stacked on one letter ("zalgo" text) smear over neighbouring lines.
pub(crate) const MAX_MARKS_PER_CHAR: usize = 8;

/// How many bytes of input are handed to the parser at once; between chunks the collector's
/// budget is checked so that a huge input is not read past what can be shown.
const CHUNK: usize = 1024;

/// The result of the first pass.
pub(crate) struct Stripped {
    /// The kept text: no controls, no escapes, no invisible characters, whitespace folded,
    /// no leading whitespace (trailing whitespace may remain).
    pub text: String,
    /// Whether reading stopped before the end of the input because the budget was used up.
    pub cut: bool,
}

/// Runs the first pass over `input`, stopping once the kept text is wider than `stop_at`
/// columns (counted per character, which is only an estimate of the final width).
pub(crate) fn strip(input: &str, mode: Mode, stop_at: usize) -> Stripped {
    let mut collector = Collector::new(mode, stop_at);
    let mut parser = vte::Parser::new();
    let bytes = input.as_bytes();
    let mut start = 0;
    while start < bytes.len() && !collector.full {
        let end = bytes.len().min(start.saturating_add(CHUNK));
        match find_c1(bytes, start, end) {
            Some(at) => {
                feed(&mut parser, &mut collector, &bytes[start..at]);
                // The C1 character is two bytes: 0xC2 then 0x80..=0x9F.
                let code = bytes.get(at + 1).copied().unwrap_or(0x80);
                if code == 0x85 {
                    // NEL (next line) is a line break, not the start of a sequence.
                    feed(&mut parser, &mut collector, b"\n");
                } else {
                    feed(&mut parser, &mut collector, &[0x1B, code - 0x40]);
                }
                start = at + 2;
            }
            None => {
                feed(&mut parser, &mut collector, &bytes[start..end]);
                start = end;
            }
        }
    }
    // Once full, the collector ignored at least the rest of its chunk; and the character that
    // filled it made the text wider than any budget this is used with, so it is cut anyway.
    Stripped {
        text: collector.out,
        cut: collector.full,
    }
}

/// Hands `bytes` to the parser, stopping as soon as the collector is full.
fn feed(parser: &mut vte::Parser, collector: &mut Collector, bytes: &[u8]) {
    // What is left after a stop is never read: the caller stops as well.
    let _ = parser.advance_until_terminated(collector, bytes);
}

/// Finds the first C1 control character (UTF-8 `C2 80`..`C2 9F`) that starts in
/// `bytes[start..end]`.
fn find_c1(bytes: &[u8], start: usize, end: usize) -> Option<usize> {
    let mut at = start;
    while at < end {
        let offset = bytes[at..end].iter().position(|&b| b == 0xC2)?;
        at += offset;
        if matches!(bytes.get(at + 1), Some(0x80..=0x9F)) {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// What to do with one character that reached the plain-text state of the parser.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Drop,
    LineBreak,
    Space,
    Visible,
}

fn classify(c: char) -> Class {
    match c {
        '\n' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => Class::LineBreak,
        '\t' => Class::Space,
        // C0, DEL and C1 controls (general category Cc).
        c if c.is_control() => Class::Drop,
        // The whole tag block, assigned or not.
        '\u{E0000}'..='\u{E007F}' => Class::Drop,
        // Hangul fillers: letters by category, but they draw nothing and are used to fake
        // blank or look-alike text.
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' => Class::Drop,
        // Format characters (Cf): bidi embeddings, overrides and isolates, LRM/RLM/ALM,
        // zero-width space/joiners, word joiner, BOM, soft hyphen, invisible operators,
        // interlinear annotation marks, tag characters and so on.
        c if c.general_category() == GeneralCategory::Format => Class::Drop,
        c if c.is_whitespace() => Class::Space,
        _ => Class::Visible,
    }
}

/// The `vte` callback that keeps plain text.
struct Collector {
    mode: Mode,
    out: String,
    /// Estimated width of `out`, in columns (a line break counts as one).
    width: usize,
    stop_at: usize,
    /// The budget is used up: keep nothing more.
    full: bool,
    /// Title mode: a space is owed before the next visible character.
    pending_space: bool,
    /// Zero-width characters kept since the last character with a width.
    mark_run: usize,
    /// Whether a visible character has been kept yet.
    seen_visible: bool,
}

impl Collector {
    fn new(mode: Mode, stop_at: usize) -> Self {
        Self {
            mode,
            out: String::new(),
            width: 0,
            stop_at,
            full: false,
            pending_space: false,
            mark_run: 0,
            seen_visible: false,
        }
    }

    fn handle(&mut self, c: char) {
        if self.full {
            return;
        }
        match classify(c) {
            Class::Drop => {}
            Class::LineBreak => self.line_break(),
            Class::Space => self.space(c),
            Class::Visible => self.visible(c),
        }
    }

    fn line_break(&mut self) {
        match self.mode {
            Mode::Title => self.space(' '),
            Mode::Description => {
                if !self.seen_visible {
                    return;
                }
                let kept = self.out.trim_end_matches(is_horizontal_space).len();
                self.out.truncate(kept);
                let newlines = self.out.len() - self.out.trim_end_matches('\n').len();
                if newlines < 2 {
                    self.out.push('\n');
                    self.grow(1);
                }
                self.mark_run = 0;
            }
        }
    }

    fn space(&mut self, c: char) {
        if !self.seen_visible {
            return;
        }
        match self.mode {
            Mode::Title => self.pending_space = true,
            Mode::Description => {
                // A tab becomes a space; other spaces (no-break, ideographic, ...) stay.
                let c = if c == '\t' { ' ' } else { c };
                self.out.push(c);
                self.grow(c.width().unwrap_or(1));
                self.mark_run = 0;
            }
        }
    }

    fn visible(&mut self, c: char) {
        let width = c.width().unwrap_or(0);
        if width == 0 {
            // A mark with nothing of the agent's before it would attach to whatever the
            // client draws in front of the text.
            if !self.seen_visible || self.mark_run >= MAX_MARKS_PER_CHAR {
                return;
            }
            self.mark_run += 1;
        } else {
            self.mark_run = 0;
        }
        if self.pending_space {
            self.pending_space = false;
            self.out.push(' ');
            self.grow(1);
            if self.full {
                return;
            }
        }
        self.out.push(c);
        self.seen_visible = true;
        self.grow(width);
    }

    fn grow(&mut self, width: usize) {
        self.width += width;
        if self.width > self.stop_at {
            self.full = true;
        }
    }
}

fn is_horizontal_space(c: char) -> bool {
    c != '\n' && c.is_whitespace()
}

impl vte::Perform for Collector {
    fn print(&mut self, c: char) {
        self.handle(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' | 0x0B | 0x0C => self.handle('\n'),
            b'\t' => self.handle('\t'),
            b'\r' if self.mode == Mode::Title => self.handle(' '),
            // Every other C0 or C1 control (bell, backspace, shift-in/out, ...) is dropped.
            _ => {}
        }
    }

    fn terminated(&self) -> bool {
        self.full
    }
}
