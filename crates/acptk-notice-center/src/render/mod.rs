//! Renderers for notices: one-line plain text, and (feature `ratatui`) terminal widgets.

pub mod plain;
#[cfg(feature = "ratatui")]
pub mod tui;
