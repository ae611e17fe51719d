//! Drawing the terminal UI into ratatui's `TestBackend`. Include it with
//! `#[path = "support/tui.rs"] mod tui;`.
#![allow(dead_code, clippy::unwrap_used)]

use acptk::commands::client::tui::app::AppState;
use acptk::commands::client::tui::view::render;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The client drawn at `width` x `height`, as rows of text.
pub fn screen(app: &AppState, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| render(frame, app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    (0..height)
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}
