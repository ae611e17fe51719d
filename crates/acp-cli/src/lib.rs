//! The commands of the `acp` binary, as a library so that their pure parts (the terminal
//! client's state and views, the plain-text printer) can be tested from `tests/`, and so that
//! the command line itself ([`cli`]) can be turned into completions, man pages and the
//! guide's reference ([`reference`]).

pub mod cli;
pub mod commands;
pub mod reference;
