//! The commands of the `acp` binary, as a library so that their pure parts (the terminal
//! client's state and views, the plain-text printer) can be tested from `tests/`.

pub mod commands;
