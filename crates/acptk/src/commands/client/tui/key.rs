//! A key press as the terminal UI sees it, whatever the terminal library.

/// A key press, independent of the terminal library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Key {
    /// A printable character.
    Char(char),
    /// A letter typed with Ctrl held.
    Ctrl(char),
    /// A letter typed with Alt held.
    Alt(char),
    /// Enter.
    Enter,
    /// A new line in the prompt: Alt-Enter, or Shift-Enter where the terminal reports it.
    Newline,
    /// Backspace.
    Backspace,
    /// Alt-Backspace or Ctrl-Backspace: delete the word before the cursor.
    WordBackspace,
    /// Delete.
    Delete,
    /// Escape.
    Esc,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Ctrl-Left: a word back.
    WordLeft,
    /// Ctrl-Right: a word forward.
    WordRight,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Ctrl-Home: the start of the conversation.
    ScrollTop,
    /// Ctrl-End: the end of the conversation.
    ScrollBottom,
    /// Tab.
    Tab,
}
