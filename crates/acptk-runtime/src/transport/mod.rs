//! What carries ACP: message transports (newline-delimited JSON over any byte stream, or
//! channels), standard input/output, and the pipes of an agent child process.
//!
//! Over byte streams ACP sends one JSON-RPC message per line (UTF-8 JSON without embedded
//! newlines, ended by `\n`): [`LineReader`] and [`LineWriter`]. Other transports implement
//! [`MessageReader`] and [`MessageWriter`] (see [`message`]); with the `remote` feature, the
//! `remote` module carries ACP over WebSocket and Streamable HTTP.

mod child;
pub(crate) mod lines;
pub mod message;
#[cfg(unix)]
mod pipe_capacity;
pub(crate) mod queue;
#[cfg(feature = "remote")]
#[cfg_attr(docsrs, doc(cfg(feature = "remote")))]
pub mod remote;
mod stdio;

pub use child::{AgentCommand, AgentProcess, DEFAULT_GRACE, StderrSink};
pub use lines::{LineReader, LineWriter};
pub use message::{ChannelReader, ChannelWriter, Frame, MessageReader, MessageWriter};
pub use stdio::{Stdin, Stdout};

/// The standard input and output of this process, for an agent launched by a client (see
/// [`Stdin`]: pipes are driven by the reactor directly). Needs a tokio runtime with I/O
/// enabled.
pub fn stdio() -> (Stdin, Stdout) {
    (Stdin::new(), Stdout::new())
}
