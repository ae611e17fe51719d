//! Terminal widgets (feature `ratatui`): the visible toasts and a session's notice list.
//!
//! Severity is always shown as a marker and a word (`[!] Warning`), so it does not depend on
//! colour; colour is added unless the [`Theme`] says not to. [`Theme::from_env`] follows the
//! `NO_COLOR` convention (<https://no-color.org>): when the variable is set to anything but the
//! empty string, no colour is used.
//!
//! ```
//! use std::time::Duration;
//! use acptk_notice_center::render::tui::{NoticePanel, Theme, ToastStack};
//! use acptk_notice_center::{IncomingNotice, NoticeCenter, Severity};
//! use ratatui::{backend::TestBackend, layout::Rect, Terminal};
//!
//! let mut center = NoticeCenter::default();
//! center.push("s1", IncomingNotice::new(Severity::Warning, "MCP server unavailable"), Duration::ZERO);
//!
//! let mut terminal = Terminal::new(TestBackend::new(40, 8)).unwrap();
//! terminal.draw(|frame| {
//!     let theme = Theme::monochrome();
//!     frame.render_widget(ToastStack::new(&center, theme), Rect::new(0, 0, 40, 4));
//!     frame.render_widget(NoticePanel::new(&center, "s1", theme), Rect::new(0, 4, 40, 4));
//! }).unwrap();
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Widget};

use crate::center::NoticeCenter;
use crate::entry::Entry;
use crate::sanitize;
use crate::severity::{Prominence, Severity};

/// Colours on or off, decided by the host (or by `NO_COLOR` through [`Theme::from_env`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Theme {
    /// Whether severities get colours. Markers, words, bold and borders are drawn either way.
    pub color: bool,
}

impl Theme {
    /// Colours on.
    #[must_use]
    pub fn colored() -> Self {
        Self { color: true }
    }

    /// Colours off.
    #[must_use]
    pub fn monochrome() -> Self {
        Self { color: false }
    }

    /// Reads `NO_COLOR` from the environment (see [`Theme::from_no_color`]).
    #[must_use]
    pub fn from_env() -> Self {
        Self::from_no_color(
            std::env::var_os("NO_COLOR")
                .as_deref()
                .and_then(|v| v.to_str()),
        )
    }

    /// Colours unless `no_color` (the value of `NO_COLOR`) is present and not empty.
    ///
    /// ```
    /// use acptk_notice_center::render::tui::Theme;
    ///
    /// assert_eq!(Theme::from_no_color(None), Theme::colored());
    /// assert_eq!(Theme::from_no_color(Some("")), Theme::colored());
    /// assert_eq!(Theme::from_no_color(Some("1")), Theme::monochrome());
    /// ```
    #[must_use]
    pub fn from_no_color(no_color: Option<&str>) -> Self {
        Self {
            color: no_color.is_none_or(str::is_empty),
        }
    }

    /// The style for a severity's marker, word and border.
    #[must_use]
    pub fn severity_style(&self, severity: &Severity) -> Style {
        let style = Style::default();
        if !self.color {
            return style;
        }
        match severity {
            Severity::Info => style.fg(Color::Cyan),
            Severity::Warning => style.fg(Color::Yellow),
            Severity::Error => style.fg(Color::Red),
            // Unknown severities get no colour of their own: a neutral look.
            Severity::Unknown(_) => style,
        }
    }
}

impl Default for Theme {
    fn default() -> Self {
        Self::from_env()
    }
}

/// The marker drawn before the severity word: `[i]`, `[!]`, `[X]`, or `[-]` for an unknown
/// severity. Plain ASCII, so its width is the same in every terminal.
#[must_use]
pub fn marker(severity: &Severity) -> &'static str {
    match severity {
        Severity::Info => "[i]",
        Severity::Warning => "[!]",
        Severity::Error => "[X]",
        Severity::Unknown(_) => "[-]",
    }
}

/// The heading of an entry: marker, word and count, for example `[!] Warning x3`.
fn heading(entry: &Entry) -> String {
    format!(
        "{} {}",
        marker(entry.severity()),
        super::plain::label(entry)
    )
}

/// The first line of a description (descriptions may span lines; toasts show one).
fn first_line(description: &str) -> &str {
    description.lines().next().unwrap_or("")
}

/// Draws the visible toasts stacked from the top of its area, in the order they appeared.
///
/// Each toast is a bordered box: the heading (marker, severity word, count) in the border,
/// the title in bold, and the first line of the description when there is one. An entry whose
/// preset is prominent (errors, by default) gets a thick border and a bold heading. Toasts
/// that do not fit in the area are not drawn.
#[derive(Debug, Clone, Copy)]
pub struct ToastStack<'a> {
    center: &'a NoticeCenter,
    theme: Theme,
}

impl<'a> ToastStack<'a> {
    /// A stack showing `center`'s visible toasts.
    #[must_use]
    pub fn new(center: &'a NoticeCenter, theme: Theme) -> Self {
        Self { center, theme }
    }
}

impl Widget for ToastStack<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let mut y = area.y;
        for toast in self.center.toasts() {
            let entry = toast.entry();
            let height: u16 = if entry.description().is_some() { 4 } else { 3 };
            if y.saturating_add(height) > area.bottom() || area.width < 4 {
                break;
            }
            let rect = Rect::new(area.x, y, area.width, height);
            draw_toast(entry, self.center, self.theme, rect, buf);
            y += height;
        }
    }
}

fn draw_toast(entry: &Entry, center: &NoticeCenter, theme: Theme, rect: Rect, buf: &mut Buffer) {
    let prominent = center.policy().preset(entry.severity()).prominence() == Prominence::High;
    let mut severity_style = theme.severity_style(entry.severity());
    if prominent {
        severity_style = severity_style.add_modifier(Modifier::BOLD);
    }
    let inner_width = usize::from(rect.width.saturating_sub(2));
    let heading = sanitize::fit_width(&heading(entry), inner_width.saturating_sub(2)).into_owned();
    let block = Block::bordered()
        .border_type(if prominent {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(severity_style)
        .title(Span::styled(format!(" {heading} "), severity_style));
    let inner = block.inner(rect);
    block.render(rect, buf);

    let title = sanitize::fit_width(entry.title(), inner_width);
    buf.set_line(
        inner.x,
        inner.y,
        &Line::from(Span::styled(
            title,
            Style::default().add_modifier(Modifier::BOLD),
        )),
        inner.width,
    );
    if let Some(description) = entry.description() {
        let line = sanitize::fit_width(first_line(description), inner_width);
        buf.set_line(inner.x, inner.y + 1, &Line::from(line), inner.width);
    }
}

/// Draws one session's notice list, newest first, one line per entry, in a bordered panel
/// titled with the entry count.
///
/// Each line is `marker word [xN]: title - description` cut to the panel's width; the marker
/// and word carry the severity's style.
#[derive(Debug, Clone, Copy)]
pub struct NoticePanel<'a> {
    center: &'a NoticeCenter,
    session: &'a str,
    theme: Theme,
}

impl<'a> NoticePanel<'a> {
    /// A panel for `session`'s list in `center`.
    #[must_use]
    pub fn new(center: &'a NoticeCenter, session: &'a str, theme: Theme) -> Self {
        Self {
            center,
            session,
            theme,
        }
    }
}

impl Widget for NoticePanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let count = self.center.entry_count(self.session);
        let block = Block::bordered().title(format!(" Notices ({count}) "));
        let inner = block.inner(area);
        block.render(area, buf);

        let width = usize::from(inner.width);
        let rows = self
            .center
            .entries(self.session)
            .rev()
            .take(usize::from(inner.height));
        for (row, entry) in (inner.y..).zip(rows) {
            let heading = heading(entry);
            let mut rest = format!(": {}", entry.title());
            if let Some(description) = entry.description() {
                rest.push_str(" - ");
                crate::announce::push_one_line(&mut rest, description);
            }
            let line = sanitize::fit_width(&format!("{heading}{rest}"), width).into_owned();
            // Style the heading part only (it is ASCII, so the split is on a char boundary).
            let split = heading.len().min(line.len());
            let (head, tail) = line.split_at(split);
            let spans = Line::from(vec![
                Span::styled(head.to_owned(), self.theme.severity_style(entry.severity())),
                Span::raw(tail.to_owned()),
            ]);
            buf.set_line(inner.x, row, &spans, inner.width);
        }
    }
}
