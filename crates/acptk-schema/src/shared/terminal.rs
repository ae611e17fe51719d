//! Terminal types shared by both versions: a terminal embedded in tool call content, and an
//! environment variable.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// Tool call content that shows a terminal: the client displays its output live, and keeps
    /// showing it after the terminal is gone.
    ///
    /// ```json
    /// {"type": "terminal", "terminalId": "term_1"}
    /// ```
    pub struct Terminal {
        /// The terminal to show.
        pub terminal_id: TerminalId,
    }
}

impl Terminal {
    /// Content showing `terminal_id`.
    pub fn new(terminal_id: impl Into<TerminalId>) -> Self {
        Self {
            terminal_id: terminal_id.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// An environment variable to set for a command.
    ///
    /// ```json
    /// {"name": "RUST_LOG", "value": "debug"}
    /// ```
    pub struct EnvVariable {
        /// The variable's name.
        pub name: String,
        /// The variable's value.
        pub value: String,
    }
}

impl EnvVariable {
    /// The variable `name` set to `value`.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            meta: None,
        }
    }
}
