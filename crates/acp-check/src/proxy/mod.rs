//! The forwarding core of `acp proxy`: two pipes between a client and an agent, checked and
//! repaired on the way.
//!
//! [`run`] reads lines from both peers. Each line is checked by one shared [`Checker`] (so
//! the agent's notices are judged against what the client said in `initialize`), recorded
//! when a record is kept, and then forwarded: byte for byte when nothing is repaired. Only
//! the agent's `notice` updates are ever changed (see [`crate::repair`]). Lines longer than
//! the limit are streamed through unchecked, so memory stays bounded by the limit.
//!
//! Writes are buffered and flushed whenever the input has nothing more buffered, which keeps
//! single messages fast and bursts cheap; the record is written out at the same moments.

mod lines;
mod shared;

use std::io;

use tokio::io::{AsyncRead, AsyncWrite, BufReader};

use crate::lines::DEFAULT_MAX_LINE;
use crate::repair::{Action, Fallback};
use crate::report::Summary;
use crate::transcript::Side;
use crate::{Checker, Finding};

use lines::{Out, Read, copy_rest, read_line, split_ending};
use shared::Shared;

/// Options of the proxy.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProxyOptions {
    /// What to do with notices a v1 client cannot receive.
    pub fallback: Fallback,
    /// Lines longer than this many bytes are forwarded unchecked.
    pub max_line: usize,
    /// Whether recorded entries carry a `timestamp`.
    pub timestamps: bool,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        Self {
            fallback: Fallback::Message,
            max_line: DEFAULT_MAX_LINE,
            timestamps: true,
        }
    }
}

impl ProxyOptions {
    /// The defaults: agent-message fallback, 16 MiB lines, timestamps in the record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the fallback for notices a v1 client cannot receive.
    #[must_use]
    pub fn fallback(mut self, fallback: Fallback) -> Self {
        self.fallback = fallback;
        self
    }

    /// Sets the line limit in bytes.
    #[must_use]
    pub fn max_line(mut self, bytes: usize) -> Self {
        self.max_line = bytes;
        self
    }

    /// Sets whether recorded entries carry a `timestamp`.
    #[must_use]
    pub fn timestamps(mut self, timestamps: bool) -> Self {
        self.timestamps = timestamps;
        self
    }
}

/// Where the proxy sends what it finds and records.
#[non_exhaustive]
pub struct Hooks {
    /// Receives each rule finding and each repair, numbered like the record's lines.
    pub on_finding: Box<dyn FnMut(&Finding) + Send>,
    /// Receives the transcript, as the peers sent it, when set.
    pub record: Option<Box<dyn AsyncWrite + Unpin + Send>>,
}

impl Hooks {
    /// Findings go to `on_finding`; nothing is recorded.
    pub fn new(on_finding: impl FnMut(&Finding) + Send + 'static) -> Self {
        Self {
            on_finding: Box::new(on_finding),
            record: None,
        }
    }

    /// Records the transcript to `writer`.
    #[must_use]
    pub fn record(mut self, writer: impl AsyncWrite + Unpin + Send + 'static) -> Self {
        self.record = Some(Box::new(writer));
        self
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("record", &self.record.is_some())
            .finish_non_exhaustive()
    }
}

/// How a proxy run ended.
#[derive(Debug)]
#[non_exhaustive]
pub struct ProxyReport {
    /// Messages and findings (repairs included) over both directions.
    pub summary: Summary,
    /// Why the record stopped early, if it did.
    pub record_error: Option<io::Error>,
    /// Why reading from the client failed, if it did (the agent's input was closed then).
    pub client_error: Option<io::Error>,
}

/// Creates (or truncates) a file to record a transcript in.
pub async fn create_record(path: &std::path::Path) -> io::Result<tokio::fs::File> {
    tokio::fs::File::create(path).await
}

/// Runs the proxy until the agent's output ends.
///
/// * `client_in` / `client_out`: what the client writes, and where the client reads.
/// * `agent_in` / `agent_out`: the agent's input (closed when the client's input ends) and
///   the agent's output.
///
/// Fails only when reading the agent's output fails. A peer that stops reading is no error:
/// its lines are still read, checked and recorded, and dropped.
pub async fn run<CI, CO, AI, AO>(
    client_in: CI,
    client_out: CO,
    agent_in: AI,
    agent_out: AO,
    options: ProxyOptions,
    hooks: Hooks,
) -> io::Result<ProxyReport>
where
    CI: AsyncRead + Unpin,
    CO: AsyncWrite + Unpin,
    AI: AsyncWrite + Unpin,
    AO: AsyncRead + Unpin,
{
    let shared = Shared::new(Checker::new(), &options, hooks);
    let upstream = pump(Side::Client, client_in, agent_in, &shared, &options);
    let downstream = pump(Side::Agent, agent_out, client_out, &shared, &options);
    tokio::pin!(upstream);
    tokio::pin!(downstream);
    let mut client_result = None;
    let agent_result = loop {
        tokio::select! {
            result = &mut upstream, if client_result.is_none() => client_result = Some(result),
            result = &mut downstream => break result,
        }
    };
    let (summary, record_error) = shared.finish().await;
    agent_result?;
    Ok(ProxyReport {
        summary,
        record_error,
        client_error: client_result.and_then(Result::err),
    })
}

/// Forwards the lines `side` sends, from `reader` to `writer`, until `reader` ends; then
/// closes `writer`.
async fn pump<R, W>(
    side: Side,
    reader: R,
    writer: W,
    shared: &Shared,
    options: &ProxyOptions,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut out = Out::new(writer);
    let mut buf = Vec::new();
    let result = loop {
        match read_line(&mut reader, &mut buf, options.max_line).await {
            Err(error) => break Err(error),
            Ok(None) => break Ok(()),
            Ok(Some(Read::Line)) => {
                let (content, ending) = split_ending(&buf);
                match shared.observe(side, content).await {
                    Action::Forward => out.write(&buf).await,
                    Action::Replace(line) => {
                        out.write(line.as_bytes()).await;
                        out.write(ending).await;
                    }
                    Action::Drop => {}
                }
            }
            Ok(Some(Read::TooLong)) => {
                shared.too_long(side).await;
                out.write(&buf).await;
                if let Err(error) = copy_rest(&mut reader, &mut out).await {
                    break Err(error);
                }
            }
        }
        if reader.buffer().is_empty() {
            out.flush().await;
            // Keep the record current while the peers are quiet (`tail -f` shows it live).
            shared.write_record().await;
        }
    };
    out.close().await;
    result
}
