//! The styles of the terminal UI outside the notice widgets (which the notice center draws
//! with its own [`Theme`](acptk_notice_center::render::tui::Theme)).
//!
//! Meaning never depends on colour alone: every styled thing also has a glyph or a word
//! (`+`/`-` before diff lines, `[ok]`/`[failed]` on tool calls, `│` before code, labels before
//! messages), so the UI reads the same with `NO_COLOR` set, in a monochrome terminal, or read
//! aloud. The high-contrast look (`--high-contrast`, or `ACP_HIGH_CONTRAST=1`) never dims
//! text, uses the bright colours and puts bold where the usual look uses colour only.

use ratatui::style::{Color, Modifier, Style};

/// The environment variable that turns the high-contrast look on (any value but empty or
/// `0`).
pub const HIGH_CONTRAST_ENV: &str = "ACP_HIGH_CONTRAST";

/// Whether `value` (of [`HIGH_CONTRAST_ENV`]) asks for high contrast.
///
/// ```
/// use acptk::commands::client::render::theme::high_contrast_from;
///
/// assert!(high_contrast_from(Some("1")));
/// assert!(!high_contrast_from(Some("0")));
/// assert!(!high_contrast_from(Some("")));
/// assert!(!high_contrast_from(None));
/// ```
#[must_use]
pub fn high_contrast_from(value: Option<&str>) -> bool {
    value.is_some_and(|value| !value.is_empty() && value != "0")
}

/// The UI's look: colours on or off, usual or high contrast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Look {
    /// Whether colours are used (off with `NO_COLOR`).
    pub color: bool,
    /// Whether the high-contrast look is on.
    pub high_contrast: bool,
}

impl Default for Look {
    fn default() -> Self {
        Self::new(true, false)
    }
}

impl Look {
    /// A look with colours on or off, high contrast or not.
    #[must_use]
    pub fn new(color: bool, high_contrast: bool) -> Self {
        Self {
            color,
            high_contrast,
        }
    }

    /// `color` as given; high contrast when asked for or when [`HIGH_CONTRAST_ENV`] says so.
    #[must_use]
    pub fn from_env(color: bool, high_contrast: bool) -> Self {
        let env = std::env::var(HIGH_CONTRAST_ENV).ok();
        Self::new(color, high_contrast || high_contrast_from(env.as_deref()))
    }

    /// `color` when colours are on (the bright variant in high contrast), else nothing.
    fn fg(self, normal: Color, bright: Color) -> Style {
        match (self.color, self.high_contrast) {
            (false, _) => Style::default(),
            (true, false) => Style::default().fg(normal),
            (true, true) => Style::default().fg(bright),
        }
    }

    /// Secondary text: dimmed, or plain in high contrast.
    #[must_use]
    pub fn quiet(self) -> Style {
        if self.high_contrast {
            Style::default()
        } else {
            Style::default().add_modifier(Modifier::DIM)
        }
    }

    /// The label before a message (`You:`, `Agent:`).
    #[must_use]
    pub fn label(self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    /// The user's own prompts.
    #[must_use]
    pub fn user(self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    /// The agent's thoughts: dimmed and italic (italic only in high contrast).
    #[must_use]
    pub fn thought(self) -> Style {
        self.quiet().add_modifier(Modifier::ITALIC)
    }

    /// Lines from the client itself (`-- turn ended --`).
    #[must_use]
    pub fn note(self) -> Style {
        self.quiet()
    }

    /// A Markdown heading.
    #[must_use]
    pub fn heading(self) -> Style {
        self.fg(Color::Cyan, Color::LightCyan)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// Inline code and code blocks.
    #[must_use]
    pub fn code(self) -> Style {
        let style = self.fg(Color::Yellow, Color::LightYellow);
        if self.high_contrast {
            style.add_modifier(Modifier::BOLD)
        } else {
            style
        }
    }

    /// The gutter before code block lines and quotes.
    #[must_use]
    pub fn gutter(self) -> Style {
        self.quiet()
    }

    /// A link's text.
    #[must_use]
    pub fn link(self) -> Style {
        self.fg(Color::Blue, Color::LightBlue)
            .add_modifier(Modifier::UNDERLINED)
    }

    /// A link's target, shown after its text.
    #[must_use]
    pub fn link_target(self) -> Style {
        self.quiet()
    }

    /// An added line of a diff (`+`).
    #[must_use]
    pub fn added(self) -> Style {
        self.fg(Color::Green, Color::LightGreen)
    }

    /// A removed line of a diff (`-`).
    #[must_use]
    pub fn removed(self) -> Style {
        self.fg(Color::Red, Color::LightRed)
    }

    /// A hunk header of a diff (`@@`).
    #[must_use]
    pub fn hunk(self) -> Style {
        self.fg(Color::Cyan, Color::LightCyan)
    }

    /// The header line of a tool call, coloured by its status word.
    #[must_use]
    pub fn tool(self, status: &str) -> Style {
        let style = match status {
            "completed" => self.fg(Color::Green, Color::LightGreen),
            "failed" => self.fg(Color::Red, Color::LightRed),
            "in_progress" => self.fg(Color::Yellow, Color::LightYellow),
            _ => Style::default(),
        };
        style.add_modifier(Modifier::BOLD)
    }

    /// The highlighted choice of a dialog.
    #[must_use]
    pub fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
}
