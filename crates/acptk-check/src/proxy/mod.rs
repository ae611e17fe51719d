//! The forwarding core of `acp proxy`: two pipes between a client and an agent, checked,
//! recorded and repaired on the way.
//!
//! [`run`] reads lines from both peers. Each line is checked by one shared [`Checker`] (so
//! the agent's notices are judged against what the client said in `initialize`), recorded
//! when a record is kept, and then forwarded: byte for byte when nothing is repaired. Only
//! the agent's `notice` updates are ever changed (see [`crate::repair`]). Lines longer than
//! the limit are streamed through unchecked, so memory stays bounded by the limit.
//!
//! **The record is written ahead.** A message is in the record, handed to the operating system
//! with a `write`, before any byte of it is forwarded, so a proxy that is killed, or whose
//! peers vanish, never forwarded anything its record lacks. To keep that cheap, each direction
//! works in batches: it checks every whole line its read brought in, collecting what to
//! forward; when no whole line is left to read without waiting (or 64 KiB are collected), it
//! writes the record once for the batch and then forwards the batch with one write. A single
//! message costs one record write and one forward; a burst costs one of each per batch.
//!
//! A record that fails to write is reported at once through [`Hooks::on_record_error`];
//! recording stops there and forwarding goes on.
//!
//! A [`Tap`] ([`Hooks::tap`]) sees every line with the checker's verdict and commits each batch
//! at the same point as the record, before the batch is forwarded (`acp proxy --capture`).

mod control;
mod lines;
mod shared;
mod tap;

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

use crate::lines::DEFAULT_MAX_LINE;
use crate::repair::{Action, Fallback};
use crate::report::Summary;
use crate::transcript::{Header, Side};
use crate::{Checker, Finding};

pub use control::Control;
use control::Watcher;
use lines::{Out, Read, copy_rest, read_line, split_ending, whole_line};
use shared::Shared;
pub use tap::{Body, Frame, Tap};

/// Bytes collected for forwarding before a batch is written out in any case.
const BATCH: usize = 64 * 1024;

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
    /// The header entry the record starts with, if any.
    pub header: Option<Header>,
    /// Lines the record already holds (when appending to it): findings are numbered after
    /// them, like the lines of the whole file.
    pub first_line: u64,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        Self {
            fallback: Fallback::Message,
            max_line: DEFAULT_MAX_LINE,
            timestamps: true,
            header: None,
            first_line: 1,
        }
    }
}

impl ProxyOptions {
    /// The defaults: agent-message fallback, 16 MiB lines, timestamps in the record, no
    /// header, a record that starts empty.
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

    /// Starts the record with `header` (a run header: `acp check` starts fresh there).
    #[must_use]
    pub fn header(mut self, header: Header) -> Self {
        self.header = Some(header);
        self
    }

    /// The line of the record this run's first entry goes to (1 for an empty record; when
    /// appending, one past the lines already there).
    #[must_use]
    pub fn first_line(mut self, line: u64) -> Self {
        self.first_line = line.max(1);
        self
    }
}

/// Where the proxy sends what it finds and records.
#[non_exhaustive]
pub struct Hooks {
    /// Receives each rule finding and each repair, numbered like the record's lines.
    pub on_finding: Box<dyn FnMut(&Finding) + Send>,
    /// Receives the transcript, as the peers sent it, when set. It is written synchronously
    /// before the bytes it describes are forwarded: give it a file (or anything whose writes
    /// do not block for long).
    pub record: Option<Box<dyn io::Write + Send>>,
    /// Told at once when writing the record fails (recording stops; forwarding goes on).
    pub on_record_error: Box<dyn FnMut(&io::Error) + Send>,
    /// Shown every line and committed before each batch is forwarded, when set.
    pub tap: Option<Box<dyn Tap>>,
    /// Told at once when the tap fails to commit (the tap stops; forwarding goes on).
    pub on_tap_error: Box<dyn FnMut(&io::Error) + Send>,
}

impl Hooks {
    /// Findings go to `on_finding`; nothing is recorded.
    pub fn new(on_finding: impl FnMut(&Finding) + Send + 'static) -> Self {
        Self {
            on_finding: Box::new(on_finding),
            record: None,
            on_record_error: Box::new(|_| {}),
            tap: None,
            on_tap_error: Box::new(|_| {}),
        }
    }

    /// Records the transcript to `writer`.
    #[must_use]
    pub fn record(mut self, writer: impl io::Write + Send + 'static) -> Self {
        self.record = Some(Box::new(writer));
        self
    }

    /// Calls `report` at once when writing the record fails.
    #[must_use]
    pub fn on_record_error(mut self, report: impl FnMut(&io::Error) + Send + 'static) -> Self {
        self.on_record_error = Box::new(report);
        self
    }

    /// Shows every line to `tap`, committed before each batch is forwarded.
    #[must_use]
    pub fn tap(mut self, tap: impl Tap + 'static) -> Self {
        self.tap = Some(Box::new(tap));
        self
    }

    /// Calls `report` at once when the tap fails.
    #[must_use]
    pub fn on_tap_error(mut self, report: impl FnMut(&io::Error) + Send + 'static) -> Self {
        self.on_tap_error = Box::new(report);
        self
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("record", &self.record.is_some())
            .field("tap", &self.tap.is_some())
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
    /// Entries written to the record (the header included).
    pub recorded: u64,
    /// Why reading from the client failed, if it did (the agent's input was closed then).
    pub client_error: Option<io::Error>,
    /// Why the tap stopped early, if it did.
    pub tap_error: Option<io::Error>,
}

/// Creates (or truncates) a file to record a transcript in.
pub fn create_record(path: &std::path::Path) -> io::Result<std::fs::File> {
    std::fs::File::create(path)
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
    run_with(
        client_in,
        client_out,
        agent_in,
        agent_out,
        options,
        hooks,
        Control::new(),
    )
    .await
}

/// [`run`], steered by `control`: it can stop the client's direction (closing the agent's
/// input) or the whole run, and tells when the agent's input was closed. Returns when the
/// agent's output ends or [`Control::stop`] was called.
pub async fn run_with<CI, CO, AI, AO>(
    client_in: CI,
    client_out: CO,
    agent_in: AI,
    agent_out: AO,
    options: ProxyOptions,
    hooks: Hooks,
    control: Control,
) -> io::Result<ProxyReport>
where
    CI: AsyncRead + Unpin,
    CO: AsyncWrite + Unpin,
    AI: AsyncWrite + Unpin,
    AO: AsyncRead + Unpin,
{
    let shared = Shared::new(Checker::new(), &options, hooks);
    let upstream = async {
        let result = pump(
            Side::Client,
            client_in,
            agent_in,
            &shared,
            &options,
            control.watcher(true),
        )
        .await;
        control.set_client_done();
        result
    };
    let downstream = pump(
        Side::Agent,
        agent_out,
        client_out,
        &shared,
        &options,
        control.watcher(false),
    );
    tokio::pin!(upstream);
    tokio::pin!(downstream);
    let mut client_result = None;
    let agent_result = loop {
        tokio::select! {
            result = &mut upstream, if client_result.is_none() => client_result = Some(result),
            result = &mut downstream => break result,
        }
    };
    let finished = shared.finish();
    agent_result?;
    Ok(ProxyReport {
        summary: finished.summary,
        record_error: finished.record_error,
        recorded: finished.recorded,
        client_error: client_result.and_then(Result::err),
        tap_error: finished.tap_error,
    })
}

/// Forwards the lines `side` sends, from `reader` to `writer`, until `reader` ends or `watcher`
/// says to stop; then closes `writer`. Every batch is recorded before it is forwarded.
async fn pump<R, W>(
    side: Side,
    reader: R,
    writer: W,
    shared: &Shared,
    options: &ProxyOptions,
    mut watcher: Watcher,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut out = Out::new(writer);
    let mut buf = Vec::new();
    // What this direction checked and will forward once it is recorded.
    let mut batch: Vec<u8> = Vec::with_capacity(BATCH);
    let result = loop {
        let whole = whole_line(reader.buffer());
        // Reading on would wait: record and forward what is collected first. A stop is
        // looked for here, once per batch rather than once per line (lines already read
        // are still checked, recorded and forwarded).
        if whole.is_none() {
            forward(shared, &mut out, &mut batch, &mut watcher).await;
            if watcher.is_stopped() {
                break Ok(());
            }
        }
        // The usual case: a whole line within the limit is buffered; check and collect it
        // where it lies, without copying it out first.
        if let Some(len) = whole.filter(|len| *len - 1 <= options.max_line) {
            let line = &reader.buffer()[..len];
            let (content, ending) = split_ending(line);
            collect(shared.observe(side, content), line, ending, &mut batch);
            reader.consume(len);
            if batch.len() >= BATCH {
                forward(shared, &mut out, &mut batch, &mut watcher).await;
            }
            continue;
        }
        let read = if whole.is_some() {
            read_line(&mut reader, &mut buf, options.max_line).await
        } else {
            tokio::select! {
                biased;
                () = watcher.stopped() => break Ok(()),
                read = read_line(&mut reader, &mut buf, options.max_line) => read,
            }
        };
        match read {
            Err(error) => break Err(error),
            Ok(None) => break Ok(()),
            Ok(Some(Read::Line)) => {
                let (content, ending) = split_ending(&buf);
                collect(shared.observe(side, content), &buf, ending, &mut batch);
                if batch.len() >= BATCH {
                    forward(shared, &mut out, &mut batch, &mut watcher).await;
                }
            }
            Ok(Some(Read::TooLong)) => {
                // Noted in the record, then streamed through as it comes.
                shared.too_long(side);
                batch.extend_from_slice(&buf);
                forward(shared, &mut out, &mut batch, &mut watcher).await;
                if let Err(error) = copy_rest(&mut reader, &mut out).await {
                    break Err(error);
                }
            }
        }
    };
    forward(shared, &mut out, &mut batch, &mut watcher).await;
    out.close().await;
    result
}

/// Adds what `action` says to forward for `line` (line break included; `ending` is that
/// break) to `batch`.
fn collect(action: Action, line: &[u8], ending: &[u8], batch: &mut Vec<u8>) {
    match action {
        Action::Forward => batch.extend_from_slice(line),
        Action::Replace(replacement) => {
            batch.extend_from_slice(replacement.as_bytes());
            batch.extend_from_slice(ending);
        }
        Action::Drop => {}
    }
}

/// Writes the record (every entry made so far, so those of `batch` too), then forwards
/// `batch` and whatever else is buffered for the peer. Once `watcher` says stop, a peer that
/// does not read is not waited for: what it did not take is dropped (and is in the record).
async fn forward<W: AsyncWrite + Unpin>(
    shared: &Shared,
    out: &mut Out<W>,
    batch: &mut Vec<u8>,
    watcher: &mut Watcher,
) {
    shared.write_record();
    let send = out.send(batch);
    tokio::select! {
        biased;
        () = send => {}
        () = watcher.stopped() => out.abandon(),
    }
    batch.clear();
}
