//! Byte streams that carry ACP: any tokio reader/writer pair, standard input/output, or the
//! pipes of an agent child process.
//!
//! ACP sends one JSON-RPC message per line (UTF-8 JSON without embedded newlines, ended by
//! `\n`). The framing itself lives in the connection; this module only provides streams.

mod child;
pub(crate) mod lines;
mod stdio;

pub use child::{AgentCommand, AgentProcess};
pub use stdio::{Stdin, Stdout};

/// The standard input and output of this process, for an agent launched by a client (see
/// [`Stdin`]: pipes are driven by the reactor directly). Needs a tokio runtime with I/O
/// enabled.
pub fn stdio() -> (Stdin, Stdout) {
    (Stdin::new(), Stdout::new())
}
