//! Agent messages and thoughts drawn from Markdown: headings, emphasis, lists, quotes, code
//! (inline and in blocks, in a distinct style behind a `│` gutter), tables as rows, links as
//! their text followed by their target in parentheses, wrapped to a width.
//!
//! The agent's text is never trusted: before parsing, the notice center's sanitiser removes
//! escape sequences whole (CSI, OSC 8 links, OSC 52 clipboard writes, DCS, ...), control
//! characters and invisible formatting characters; after parsing, every piece of text goes
//! through [`terminal_safe`] again, because Markdown itself can produce characters (the
//! entity `&#27;` is an `ESC`). Nothing is turned into a terminal hyperlink and HTML stays
//! literal text.

use acptk_notice_center::sanitize;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use super::theme::Look;
use crate::commands::client::shared::text::terminal_safe;

/// One styled piece of text, owned.
pub(crate) type Piece = (String, Style);

/// Renders `markdown` (agent text) as lines of at most `width` columns. `label` (`Agent: `)
/// starts the first line; `base` is patched onto every style (thoughts are dimmed whole).
#[must_use]
pub fn render(
    markdown: &str,
    width: usize,
    look: Look,
    label: Option<Span<'static>>,
    base: Style,
) -> Vec<Line<'static>> {
    let clean = sanitize::text(markdown);
    let mut writer = Writer::new(width.max(4), look, label, base);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    for event in Parser::new_ext(&clean, options) {
        writer.event(event);
    }
    writer.finish()
}

/// A container the text is inside of.
#[derive(Debug)]
enum Container {
    /// A list; the next item's number when ordered.
    List(Option<u64>),
    /// A list item: its marker, and whether the marker was drawn yet.
    Item { marker: String, drawn: bool },
    /// A block quote.
    Quote,
}

/// Turns parser events into lines.
struct Writer {
    width: usize,
    look: Look,
    base: Style,
    label: Option<Span<'static>>,
    lines: Vec<Line<'static>>,
    /// The inline text of the block being read.
    pieces: Vec<Piece>,
    /// Inline styles open (emphasis, strong, link, ...), innermost last.
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// The targets of the links open.
    links: Vec<String>,
    /// The code block being read: its language and its text.
    code: Option<(String, String)>,
    /// The heading being read.
    heading: bool,
    /// The cells of the table row being read, and whether it is the head.
    row: Option<(Vec<String>, bool)>,
    /// Whether a block ended, so the next block at the top level starts after a blank line.
    block_ended: bool,
}

impl Writer {
    fn new(width: usize, look: Look, label: Option<Span<'static>>, base: Style) -> Self {
        Self {
            width,
            look,
            base,
            label,
            lines: Vec::new(),
            pieces: Vec::new(),
            styles: Vec::new(),
            containers: Vec::new(),
            links: Vec::new(),
            code: None,
            heading: false,
            row: None,
            block_ended: false,
        }
    }

    /// The style for inline text now.
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(self.base, |style, inner| style.patch(*inner))
    }

    /// `style` with the base patched under it.
    fn based(&self, style: Style) -> Style {
        self.base.patch(style)
    }

    fn text(&mut self, text: &str) {
        let safe = terminal_safe(text);
        if let Some((_, code)) = &mut self.code {
            code.push_str(&safe);
        } else if let Some((cells, _)) = &mut self.row {
            if let Some(cell) = cells.last_mut() {
                cell.push_str(&safe);
            }
        } else {
            let style = self.style();
            self.pieces.push((safe.into_owned(), style));
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                let style = self.based(self.look.code());
                let code = terminal_safe(&code).into_owned();
                let code = if self.look.color {
                    code
                } else {
                    // Without colour, code keeps its backticks to stand apart.
                    format!("`{code}`")
                };
                if let Some((cells, _)) = &mut self.row {
                    if let Some(cell) = cells.last_mut() {
                        cell.push_str(&code);
                    }
                } else {
                    self.pieces.push((code, style));
                }
            }
            Event::InlineMath(math) | Event::DisplayMath(math) => self.text(&math),
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.text("\n"),
            Event::Rule => {
                self.block_start();
                let width = self.width.saturating_sub(self.prefix_width());
                let rule = "─".repeat(width.clamp(1, 40));
                let style = self.based(self.look.quiet());
                self.pieces.push((rule, style));
                self.flush();
                self.block_ended = true;
            }
            Event::TaskListMarker(done) => {
                let style = self.style();
                self.pieces
                    .push((if done { "[x] " } else { "[ ] " }.to_owned(), style));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock | Tag::DefinitionListTitle => self.block_start(),
            Tag::DefinitionListDefinition => {
                self.block_start();
                self.pieces.push(("  ".to_owned(), self.base));
            }
            Tag::Heading { level, .. } => {
                self.block_start();
                self.heading = true;
                let mut style = self.look.heading();
                if level > HeadingLevel::H2 {
                    style = style.remove_modifier(Modifier::UNDERLINED);
                }
                self.styles.push(style);
            }
            Tag::BlockQuote(_) => {
                self.block_start();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.block_start();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        terminal_safe(info.split_whitespace().next().unwrap_or_default())
                            .into_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((language, String::new()));
            }
            Tag::List(first) => {
                self.flush();
                if !self.in_list() {
                    self.block_start();
                }
                self.containers.push(Container::List(first));
            }
            Tag::Item => {
                self.flush();
                let marker = match self.containers.last_mut() {
                    Some(Container::List(Some(number))) => {
                        let marker = format!("{number}. ");
                        *number += 1;
                        marker
                    }
                    _ => "• ".to_owned(),
                };
                self.containers.push(Container::Item {
                    marker,
                    drawn: false,
                });
            }
            Tag::FootnoteDefinition(name) => {
                self.block_start();
                let style = self.based(self.look.quiet());
                self.pieces.push((format!("[^{name}]: "), style));
            }
            Tag::Table(_) => self.block_start(),
            Tag::TableHead | Tag::TableRow => self.row = Some((Vec::new(), tag == Tag::TableHead)),
            Tag::TableCell => {
                if let Some((cells, _)) = &mut self.row {
                    cells.push(String::new());
                }
            }
            Tag::Emphasis => self
                .styles
                .push(Style::default().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self
                .styles
                .push(Style::default().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::default().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Superscript | Tag::Subscript | Tag::MetadataBlock(_) | Tag::DefinitionList => {
                self.styles.push(Style::default());
            }
            Tag::Link { dest_url, .. } => {
                self.links.push(terminal_safe(&dest_url).into_owned());
                self.styles.push(self.look.link());
            }
            Tag::Image { dest_url, .. } => {
                self.links.push(terminal_safe(&dest_url).into_owned());
                self.styles.push(self.look.link());
                self.text("[image: ");
            }
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::HtmlBlock
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::FootnoteDefinition => {
                self.flush();
                self.block_ended = true;
            }
            TagEnd::Heading(_) => {
                self.flush();
                self.heading = false;
                self.styles.pop();
                self.block_ended = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.block_ended = true;
            }
            TagEnd::CodeBlock => {
                if let Some((language, code)) = self.code.take() {
                    self.code_block(&language, &code);
                }
                self.block_ended = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.containers.pop();
                self.block_ended = true;
            }
            TagEnd::Item => {
                self.flush();
                self.containers.pop();
            }
            TagEnd::Table => self.block_ended = true,
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some((cells, head)) = self.row.take() {
                    let style = if head {
                        self.based(Style::default().add_modifier(Modifier::BOLD))
                    } else {
                        self.base
                    };
                    self.pieces.push((cells.join(" | "), style));
                    self.flush();
                }
            }
            TagEnd::TableCell => {}
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_)
            | TagEnd::DefinitionList => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                let target = self.links.pop().unwrap_or_default();
                let shown: String = self
                    .pieces
                    .iter()
                    .rev()
                    .take(1)
                    .map(|(text, _)| text.as_str())
                    .collect();
                // An autolink shows its target already.
                if !target.is_empty() && shown != target {
                    let style = self.based(self.look.link_target());
                    self.pieces.push((format!(" ({target})"), style));
                }
            }
            TagEnd::Image => {
                self.text("]");
                self.styles.pop();
                let target = self.links.pop().unwrap_or_default();
                if !target.is_empty() {
                    let style = self.based(self.look.link_target());
                    self.pieces.push((format!(" ({target})"), style));
                }
            }
        }
    }

    fn in_list(&self) -> bool {
        self.containers
            .iter()
            .any(|container| matches!(container, Container::List(_)))
    }

    /// A block begins: what was read before it is drawn, and a blank line separates it from
    /// the previous block at the top level.
    fn block_start(&mut self) {
        self.flush();
        if self.block_ended && !self.lines.is_empty() && !self.in_list() {
            self.lines.push(Line::default());
        }
        self.block_ended = false;
    }

    /// The prefix of the next line: quote bars and list markers (a marker once, then spaces).
    fn prefix(&mut self) -> Vec<Span<'static>> {
        let gutter = self.based(self.look.gutter());
        let mut spans = Vec::new();
        for container in &mut self.containers {
            match container {
                Container::List(_) => {}
                Container::Quote => spans.push(Span::styled("> ", gutter)),
                Container::Item { marker, drawn } => {
                    if *drawn {
                        spans.push(Span::raw(" ".repeat(marker.chars().count())));
                    } else {
                        spans.push(Span::styled(marker.clone(), self.base));
                        *drawn = true;
                    }
                }
            }
        }
        spans
    }

    fn prefix_width(&self) -> usize {
        self.containers
            .iter()
            .map(|container| match container {
                Container::List(_) => 0,
                Container::Quote => 2,
                Container::Item { marker, .. } => marker.chars().count(),
            })
            .sum()
    }

    /// The label before the first line, if it is still to be drawn.
    fn take_label(&mut self) -> Option<Span<'static>> {
        self.label.take()
    }

    /// Draws the inline text read so far as wrapped lines.
    fn flush(&mut self) {
        if self.pieces.is_empty() {
            return;
        }
        let mut pieces = std::mem::take(&mut self.pieces);
        if self.heading {
            // A heading never wraps its label away from its text.
            pieces.retain(|(text, _)| !text.is_empty());
        }
        let mut first = self.prefix();
        if let Some(label) = self.take_label() {
            first.insert(0, label);
        }
        let rest = self.prefix();
        wrap_pieces(&pieces, self.width, first, &rest, &mut self.lines);
    }

    /// Draws a code block: the language on a line of its own, then each line of code behind
    /// the gutter, cut (not wrapped at words) to the width.
    fn code_block(&mut self, language: &str, code: &str) {
        if let Some(label) = self.take_label() {
            let mut line = self.prefix();
            line.insert(0, label);
            self.lines.push(Line::from(line));
        }
        let gutter = self.based(self.look.gutter());
        let style = self.based(self.look.code());
        if !language.is_empty() {
            let mut line = self.prefix();
            line.push(Span::styled(format!("│ {language}"), gutter));
            self.lines.push(Line::from(line));
        }
        let code = code.strip_suffix('\n').unwrap_or(code);
        for source in code.split('\n') {
            let mut first = self.prefix();
            first.push(Span::styled("│ ", gutter));
            let mut rest = self.prefix();
            rest.push(Span::styled("│ ", gutter));
            let piece = (source.replace('\t', "    "), style);
            cut_piece(&piece, self.width, first, &rest, &mut self.lines);
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        if let Some((language, code)) = self.code.take() {
            self.code_block(&language, &code);
        }
        self.flush();
        if let Some(label) = self.label.take() {
            self.lines.insert(0, Line::from(label));
        }
        self.lines
    }
}

fn span_width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|span| span_width(&span.content)).sum()
}

/// One word of inline text: pieces with no space between them (styles may change inside).
struct Word {
    pieces: Vec<Piece>,
    width: usize,
    /// Whether a space came before it.
    spaced: bool,
    /// Whether a forced line break came before it.
    broken: bool,
}

/// Splits styled text into words at spaces and forced line breaks.
fn words(pieces: &[Piece]) -> Vec<Word> {
    let mut words: Vec<Word> = Vec::new();
    let mut current: Option<Word> = None;
    let mut spaced = false;
    let mut broken = false;
    for (text, style) in pieces {
        let mut run = String::new();
        let end_run =
            |run: &mut String, current: &mut Option<Word>, spaced: &mut bool, broken: &mut bool| {
                if run.is_empty() {
                    return;
                }
                let word = current.get_or_insert_with(|| Word {
                    pieces: Vec::new(),
                    width: 0,
                    spaced: std::mem::take(spaced),
                    broken: std::mem::take(broken),
                });
                word.width += span_width(run);
                word.pieces.push((std::mem::take(run), *style));
            };
        for c in text.chars() {
            match c {
                ' ' | '\n' => {
                    end_run(&mut run, &mut current, &mut spaced, &mut broken);
                    if let Some(word) = current.take() {
                        words.push(word);
                    }
                    if c == '\n' {
                        broken = true;
                        spaced = false;
                    } else if !broken {
                        spaced = true;
                    }
                }
                c => run.push(c),
            }
        }
        end_run(&mut run, &mut current, &mut spaced, &mut broken);
    }
    if let Some(word) = current {
        words.push(word);
    }
    words
}

/// Wraps styled text at spaces into lines of at most `width` columns: the first line starts
/// with `first`, the others with `rest`; a word wider than a line is cut.
fn wrap_pieces(
    pieces: &[Piece],
    width: usize,
    first: Vec<Span<'static>>,
    rest: &[Span<'static>],
    lines: &mut Vec<Line<'static>>,
) {
    let mut line = first;
    let mut used = spans_width(&line);
    let mut empty = true;
    for word in words(pieces) {
        if word.broken && !empty {
            lines.push(Line::from(std::mem::replace(&mut line, rest.to_vec())));
            used = spans_width(rest);
            empty = true;
        }
        let gap = usize::from(word.spaced && !empty);
        if used + gap + word.width > width && !empty {
            lines.push(Line::from(std::mem::replace(&mut line, rest.to_vec())));
            used = spans_width(rest);
            empty = true;
        }
        if word.spaced && !empty {
            line.push(Span::raw(" "));
            used += 1;
        }
        if used + word.width <= width {
            for (text, style) in word.pieces {
                line.push(Span::styled(text, style));
            }
            used += word.width;
            empty = false;
            continue;
        }
        // Longer than a line: cut it.
        for piece in &word.pieces {
            for c in piece.0.chars() {
                let w = c.width().unwrap_or(0);
                if used + w > width && !empty {
                    lines.push(Line::from(std::mem::replace(&mut line, rest.to_vec())));
                    used = spans_width(rest);
                }
                push_char(&mut line, c, piece.1);
                used += w;
                empty = false;
            }
        }
    }
    lines.push(Line::from(line));
}

/// Cuts one piece of text into lines of at most `width` columns, without looking for words.
pub(crate) fn cut_piece(
    piece: &Piece,
    width: usize,
    first: Vec<Span<'static>>,
    rest: &[Span<'static>],
    lines: &mut Vec<Line<'static>>,
) {
    let mut line = first;
    let start = spans_width(&line);
    let mut used = start;
    for c in piece.0.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width && used > start {
            lines.push(Line::from(std::mem::replace(&mut line, rest.to_vec())));
            used = spans_width(rest);
        }
        push_char(&mut line, c, piece.1);
        used += w;
    }
    lines.push(Line::from(line));
}

/// Appends `c` to the line, extending its last span when the style is the same.
fn push_char(line: &mut Vec<Span<'static>>, c: char, style: Style) {
    match line.last_mut() {
        Some(span) if span.style == style => span.content.to_mut().push(c),
        _ => line.push(Span::styled(c.to_string(), style)),
    }
}
