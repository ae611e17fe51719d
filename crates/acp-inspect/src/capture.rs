//! Capturing a proxy run: a [`Capture`] is the proxy's [`Tap`]; it writes each batch's frames,
//! findings and notices in one transaction, committed before the batch is forwarded.

use std::io;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use acp_check::proxy::{Body, Frame, Tap};
use acp_check::repair::Action;

use crate::Store;
use crate::error::{Error, Result};
use crate::notice::Outcome;
use crate::writer::{NewCapture, NewFrame, Writer, micros};

/// Where a capture comes from, for its row in `captures`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Origin {
    /// What was proxied: the agent's command line, or the agent's URL.
    pub agent: String,
    /// The proxy's version.
    pub proxy_version: String,
}

impl Origin {
    /// A capture of a proxy at `proxy_version` in front of `agent`.
    pub fn new(agent: impl Into<String>, proxy_version: impl Into<String>) -> Self {
        Self {
            agent: agent.into(),
            proxy_version: proxy_version.into(),
        }
    }
}

/// One proxy run being captured into a database (a [`Tap`] for
/// [`acp_check::proxy::Hooks::tap`]).
///
/// Each frame is inserted as the proxy reads it, inside a transaction that
/// [`Tap::commit`] commits: the proxy calls it before it forwards the batch, so every frame a
/// peer received is in the database (in the WAL, handed to the operating system) first.
pub struct Capture {
    store: Store,
    writer: Writer,
    open: bool,
    /// The first failure, reported at the next commit.
    error: Option<Error>,
    /// Index the database for search when the run ends.
    index_on_end: bool,
    /// Wakes the checkpointer after a commit (see [`Checkpointer`]).
    checkpointer: Option<Checkpointer>,
}

/// Checkpoints the database's write-ahead log from a thread of its own, so that the proxy's
/// commits never wait for one: SQLite's automatic checkpoint runs inside the commit that
/// crosses the WAL's size limit and syncs the file to disk, which would stall forwarding for
/// as long as the disk takes. A passive checkpoint does not block writers.
struct Checkpointer {
    wake: SyncSender<()>,
    thread: JoinHandle<()>,
}

/// How often the checkpointer runs at most.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

impl Checkpointer {
    fn start(path: &Path) -> Option<Checkpointer> {
        let conn = rusqlite::Connection::open(path).ok()?;
        conn.busy_timeout(crate::db::BUSY_TIMEOUT).ok()?;
        let (wake, woken) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("acp-capture-checkpoint".to_owned())
            .spawn(move || checkpoint_loop(&conn, &woken))
            .ok()?;
        Some(Checkpointer { wake, thread })
    }
}

fn checkpoint_loop(conn: &rusqlite::Connection, woken: &Receiver<()>) {
    let checkpoint = || {
        // Failing is harmless: the next one, or the next writer, does it.
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    };
    let mut last: Option<Instant> = None;
    let mut pending = false;
    loop {
        match woken.recv_timeout(CHECKPOINT_EVERY) {
            Ok(()) => pending = true,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                checkpoint();
                return;
            }
        }
        if pending && last.is_none_or(|at| at.elapsed() >= CHECKPOINT_EVERY) {
            checkpoint();
            last = Some(Instant::now());
            pending = false;
        }
    }
}

impl Capture {
    /// Starts a capture in the database at `path` (created and upgraded as needed).
    pub fn start(path: &Path, origin: &Origin) -> Result<Capture> {
        Self::start_in(Store::open(path)?, origin)
    }

    /// Starts a capture in `store`. The store's write-ahead log is checkpointed by a thread
    /// of the capture's own (see the crate's BENCHMARKS section for why).
    pub fn start_in(store: Store, origin: &Origin) -> Result<Capture> {
        let new = NewCapture {
            source: "proxy",
            origin: origin.agent.clone(),
            format: "proxy".to_owned(),
            started_at: micros(SystemTime::now()),
            pid: Some(std::process::id()),
            proxy_version: Some(origin.proxy_version.clone()),
            ..NewCapture::default()
        };
        let writer = Writer::create(&store.conn, &new)?;
        let checkpointer = if store.path() == Path::new(":memory:") {
            None
        } else {
            store.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
            Checkpointer::start(store.path())
        };
        Ok(Capture {
            store,
            writer,
            open: false,
            error: None,
            index_on_end: true,
            checkpointer,
        })
    }

    /// Whether [`Capture::end`] brings the search index up to date (on by default; frames not
    /// indexed are still found, by a slower scan).
    #[must_use]
    pub fn index_on_end(mut self, index: bool) -> Self {
        self.index_on_end = index;
        self
    }

    /// The capture's id.
    pub fn id(&self) -> i64 {
        self.writer.capture
    }

    fn write(&mut self, frame: &Frame<'_>) -> Result<()> {
        if !self.open {
            self.store.conn.execute_batch("BEGIN IMMEDIATE")?;
            self.open = true;
        }
        let conn = &self.store.conn;
        let (raw, too_long) = match frame.body {
            Body::Line(bytes) => (bytes, false),
            _ => (&b""[..], true),
        };
        let seq = self.writer.frame(
            conn,
            NewFrame {
                side: frame.side,
                time: Some(micros(frame.time)),
                raw,
                too_long,
            },
        )?;
        for finding in frame.findings {
            self.writer.finding(conn, Some(seq), finding)?;
        }
        if let Some(event) = frame.notice {
            let delivered_as = match frame.action {
                Action::Replace(line) => Some(line.as_str()),
                _ => None,
            };
            self.writer.notice(
                conn,
                seq,
                event,
                frame.client_notices,
                frame.version,
                Outcome::of_repair(event, frame.action),
                delivered_as,
            )?;
        }
        Ok(())
    }

    fn commit_open(&mut self) -> Result<()> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        if self.open {
            self.writer.save_counts(&self.store.conn)?;
            self.store.conn.execute_batch("COMMIT")?;
            self.open = false;
            if let Some(checkpointer) = &self.checkpointer {
                // Full: it is awake already.
                let _ = checkpointer.wake.try_send(());
            }
        }
        Ok(())
    }

    /// Ends the capture: commits, marks it ended and indexes its frames for search.
    pub fn end(&mut self) -> Result<()> {
        self.commit_open()?;
        self.writer
            .end(&self.store.conn, micros(SystemTime::now()))?;
        if self.index_on_end {
            self.store.index()?;
        }
        self.stop_checkpointer();
        Ok(())
    }

    /// Ends the checkpointer after its last checkpoint.
    fn stop_checkpointer(&mut self) {
        if let Some(Checkpointer { wake, thread }) = self.checkpointer.take() {
            drop(wake);
            let _ = thread.join();
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        // Without waiting for it: the process may be ending.
        if let Some(checkpointer) = self.checkpointer.take() {
            drop(checkpointer.wake);
        }
    }
}

impl Tap for Capture {
    fn frame(&mut self, frame: &Frame<'_>) {
        if self.error.is_some() {
            return;
        }
        if let Err(error) = self.write(frame) {
            self.error = Some(error);
        }
    }

    fn commit(&mut self) -> io::Result<()> {
        self.commit_open().map_err(io::Error::other)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.end().map_err(io::Error::other)
    }
}
