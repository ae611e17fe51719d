//! Where things go on the screen, for any size from 60x20 up: the conversation, the toasts,
//! the prompt, the status line and the key hints.
//!
//! Toasts never narrow the conversation below [`MIN_TEXT_WIDTH`] columns and never cover
//! it: beside the conversation when the screen is wide enough for both, else on a strip of
//! one line per toast between the conversation and the prompt, else (a short screen) folded
//! into the status line. The status line and the key hints are built from parts with
//! priorities: when the width runs short, the least important parts go first, and how to quit
//! is always kept.

use ratatui::layout::Rect;

/// The widest the toast column gets.
pub const TOAST_WIDTH: u16 = 44;

/// The narrowest the conversation text gets beside the toast column.
pub const MIN_TEXT_WIDTH: u16 = 60;

/// The fewest conversation rows (inside its border) that a toast strip may leave.
pub const MIN_TEXT_ROWS: u16 = 6;

/// The most rows the prompt editor takes (inside its border).
pub const MAX_INPUT_ROWS: u16 = 8;

/// The most toasts a strip shows (one line each).
pub const MAX_STRIP_TOASTS: u16 = 3;

/// Where the toasts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToastPlace {
    /// No toast to show.
    None,
    /// A column at the right of the conversation text (inside its border), full toasts.
    Column(Rect),
    /// A strip of one line per toast above the prompt.
    Strip(Rect),
    /// Folded into the status line.
    StatusLine,
}

/// The areas of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The conversation's box (with its border).
    pub body: Rect,
    /// Where the conversation text goes (inside the border, left of a toast column).
    pub text: Rect,
    /// Where the toasts go.
    pub toasts: ToastPlace,
    /// The prompt's box (with its border).
    pub input: Rect,
    /// The status line.
    pub status: Rect,
    /// The key hints.
    pub help: Rect,
}

/// Lays out a screen of `area`: the prompt needs `input_rows` rows (inside its border);
/// `toast_rows` is what the toasts need in a column (boxes), `toast_count` how many there are.
#[must_use]
pub fn areas(area: Rect, input_rows: u16, toast_rows: u16, toast_count: u16) -> Areas {
    let bottom = area.bottom();
    let help = Rect::new(
        area.x,
        bottom.saturating_sub(1),
        area.width,
        area.height.min(1),
    );
    let status = Rect::new(
        area.x,
        bottom.saturating_sub(2),
        area.width,
        area.height.saturating_sub(1).min(1),
    );
    let rest = area.height.saturating_sub(2);
    // The prompt gets its rows, but leaves the conversation at least a third of the screen.
    let input_cap = (rest / 3).saturating_sub(2).clamp(1, MAX_INPUT_ROWS);
    let input_height = (input_rows.clamp(1, input_cap) + 2).min(rest);
    let input = Rect::new(
        area.x,
        area.y + rest - input_height,
        area.width,
        input_height,
    );
    let mut body = Rect::new(area.x, area.y, area.width, rest - input_height);
    let inner = Rect::new(
        body.x.saturating_add(1),
        body.y.saturating_add(1),
        body.width.saturating_sub(2),
        body.height.saturating_sub(2),
    );
    let mut text = inner;
    let toasts = if toast_count == 0 {
        ToastPlace::None
    } else if inner.width >= MIN_TEXT_WIDTH + 1 + TOAST_WIDTH
        && toast_rows > 0
        && toast_rows <= inner.height
    {
        text.width = inner.width - TOAST_WIDTH - 1;
        ToastPlace::Column(Rect::new(
            inner.right() - TOAST_WIDTH,
            inner.y,
            TOAST_WIDTH,
            toast_rows,
        ))
    } else {
        let strip = toast_count.min(MAX_STRIP_TOASTS);
        if inner.height >= MIN_TEXT_ROWS + strip {
            body.height -= strip;
            text.height -= strip;
            ToastPlace::Strip(Rect::new(area.x, body.bottom(), area.width, strip))
        } else if inner.height > MIN_TEXT_ROWS {
            body.height -= 1;
            text.height -= 1;
            ToastPlace::Strip(Rect::new(area.x, body.bottom(), area.width, 1))
        } else {
            ToastPlace::StatusLine
        }
    };
    Areas {
        body,
        text,
        toasts,
        input,
        status,
        help,
    }
}

/// One part of a line: its place from the left, its priority (0 first), its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Where it stands among the parts shown (smaller is further left).
    pub order: u8,
    /// How important it is (0 is kept longest).
    pub priority: u8,
    /// Its text.
    pub text: String,
}

impl Part {
    /// A part.
    #[must_use]
    pub fn new(order: u8, priority: u8, text: impl Into<String>) -> Self {
        Self {
            order,
            priority,
            text: text.into(),
        }
    }
}

/// Joins the parts that fit in `width` columns with `separator`, the most important first
/// (a part that does not fit is left out and less important ones may still fit), shown in
/// their order. The most important part is cut to the width if it alone is too wide.
#[must_use]
pub fn fit_parts(mut parts: Vec<Part>, separator: &str, width: usize) -> String {
    use acptk_notice_center::sanitize::{display_width, fit_width};
    parts.sort_by_key(|part| part.priority);
    let gap = display_width(separator);
    let mut kept: Vec<Part> = Vec::new();
    let mut used = 0usize;
    for part in parts {
        let cost = display_width(&part.text) + if kept.is_empty() { 0 } else { gap };
        if used + cost <= width {
            used += cost;
            kept.push(part);
        } else if kept.is_empty() {
            let text = fit_width(&part.text, width).into_owned();
            used = display_width(&text);
            kept.push(Part { text, ..part });
        }
    }
    kept.sort_by_key(|part| part.order);
    kept.iter()
        .map(|part| part.text.as_str())
        .collect::<Vec<_>>()
        .join(separator)
}
