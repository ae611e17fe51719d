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

constructor! {
    /// Content showing `terminal_id`.
    Terminal(terminal_id: impl Into<TerminalId>) { meta: None }
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

constructor! {
    /// The variable `name` set to `value`.
    EnvVariable(name: impl Into<String>, value: impl Into<String>) { meta: None }
}
