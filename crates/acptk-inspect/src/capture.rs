//! Capturing a proxy run: a [`Capture`] is the proxy's [`Tap`]. The forwarding path only
//! appends each batch to the capture's spool file, with one write before the batch is
//! forwarded; a thread of the capture's own, at the lowest scheduling priority, moves the
//! spool into the database (frames, pairing, findings, notices, counts), so that the proxy
//! never waits for SQLite or for another proxy's transaction.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use acptk_check::proxy::{Body, Frame, Tap};
use acptk_check::repair::Action;

use crate::Store;
use crate::error::{Error, Result};
use crate::expand::{Drain, SpoolWriter, create_spool, open_spool};
use crate::notice::Outcome;
use crate::spool::{self, SpooledFrame};
use crate::writer::{NewCapture, NewFinding, NewNotice, Writer, micros};

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
/// [`acptk_check::proxy::Hooks::tap`]).
///
/// [`Tap::frame`] appends each frame, with its findings and notice, to a batch in memory;
/// [`Tap::commit`], which the proxy calls before it forwards the batch, writes the batch to
/// the capture's spool file (next to the database, `DB-spool-ID`) in one write: every frame a
/// peer received was handed to the operating system first, as with `acp proxy --record`. A
/// thread of the capture's own moves the spool into the database as it grows, in
/// transactions of up to 1 MiB of spool, at the lowest scheduling priority (on Linux): under a
/// burst it falls behind and catches up when the burst is over, and [`Capture::end`] moves
/// what is left from the calling thread. A proxy killed mid-run leaves the rest in its spool, which
/// [`Store::recover`] moves into the database later.
pub struct Capture {
    id: i64,
    spool: SpoolWriter,
    spool_path: PathBuf,
    batch: Vec<u8>,
    mover: Option<Mover>,
    /// The first failure, reported at the next commit.
    error: Option<Error>,
    /// Index the database for search when the run ends.
    index_on_end: bool,
}

/// The thread that moves the spool into the database.
struct Mover {
    /// Wakes it after a commit; dropped to end it.
    wake: SyncSender<()>,
    /// How it is to end: set before `wake` is dropped.
    end: Arc<Ending>,
    /// Hands the spool and the database back when asked to (see [`Capture::end`]).
    thread: JoinHandle<Option<(Store, Drain)>>,
}

#[derive(Default)]
struct Ending {
    /// The run ended (rather than the capture being dropped without ending): the mover stops
    /// after its transaction and hands over the rest.
    ended: AtomicBool,
    /// The mover's first failure.
    failed: Mutex<Option<Error>>,
    has_failed: AtomicBool,
}

/// How long the mover waits for a wake before it looks at the spool anyway.
const IDLE: Duration = Duration::from_millis(500);

impl Capture {
    /// Starts a capture in the database at `path` (created and upgraded as needed).
    pub fn start(path: &Path, origin: &Origin) -> Result<Capture> {
        Self::start_in(Store::open(path)?, origin)
    }

    /// Starts a capture in `store`, which its mover thread takes over.
    pub fn start_in(mut store: Store, origin: &Origin) -> Result<Capture> {
        let new = NewCapture {
            source: "proxy",
            origin: origin.agent.clone(),
            format: "proxy".to_owned(),
            started_at: micros(SystemTime::now()),
            pid: Some(std::process::id()),
            proxy_version: Some(origin.proxy_version.clone()),
            ..NewCapture::default()
        };
        // The capture's row, its spool's row and the spool file (locked: the lock says the
        // proxy lives) come into being together.
        let db = store.path().to_owned();
        let tx = store
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let writer = Writer::create(&tx, &new)?;
        let (spool_path, file) = create_spool(&tx, &db, writer.capture)?;
        let started =
            open_spool(&spool_path).and_then(|reader| Ok(tx.commit().map(|()| reader)?));
        let reader = match started {
            Ok(reader) => reader,
            Err(error) => {
                let _ = std::fs::remove_file(&spool_path);
                return Err(error);
            }
        };
        let id = writer.capture;
        let appender = Arc::new(Mutex::new(file));
        let drain = Drain::new(
            writer,
            reader,
            spool_path.clone(),
            spool::MAGIC.len() as u64,
        )
        .appended_by(Arc::clone(&appender));
        let end = Arc::new(Ending::default());
        let (wake, woken) = mpsc::sync_channel(1);
        let ending = Arc::clone(&end);
        let thread = std::thread::Builder::new()
            .name("acp-capture".to_owned())
            .spawn(move || mover(store, drain, &woken, &ending))
            .map_err(|source| Error::Io {
                path: spool_path.clone(),
                source,
            })?;
        Ok(Capture {
            id,
            spool: appender,
            spool_path,
            batch: Vec::with_capacity(64 * 1024),
            mover: Some(Mover { wake, end, thread }),
            error: None,
            index_on_end: true,
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
        self.id
    }

    /// Where the capture's spool file is (removed when the capture ends).
    pub fn spool_path(&self) -> &Path {
        &self.spool_path
    }

    fn add(&mut self, frame: &Frame<'_>) {
        let (raw, size, too_long) = match frame.body {
            Body::Line(bytes) => (bytes, bytes.len() as u64, false),
            Body::TooLong(n) => (&b""[..], n, true),
            _ => (&b""[..], 0, true),
        };
        let notice = frame.notice.map(|event| {
            let delivered_as = match frame.action {
                Action::Replace(line) => Some(line.as_str()),
                _ => None,
            };
            NewNotice::of(
                event,
                frame.client_notices,
                frame.version,
                Outcome::of_repair(event, frame.action),
                delivered_as,
            )
        });
        spool::put(
            &mut self.batch,
            &SpooledFrame {
                side: frame.side,
                time: micros(frame.time),
                size,
                too_long,
                raw,
                findings: frame.findings.iter().map(NewFinding::of).collect(),
                notice,
            },
        );
    }

    fn commit_batch(&mut self) -> Result<()> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        if let Some(mover) = &self.mover
            && mover.end.has_failed.load(Ordering::Acquire)
            && let Ok(mut failed) = mover.end.failed.lock()
            && let Some(error) = failed.take()
        {
            return Err(error);
        }
        if self.batch.is_empty() {
            return Ok(());
        }
        let written = match self.spool.lock() {
            Ok(mut file) => file.write_all(&self.batch),
            Err(_) => Err(io::Error::other("the capture's thread panicked")),
        };
        self.batch.clear();
        written.map_err(|source| Error::Io {
            path: self.spool_path.clone(),
            source,
        })?;
        if let Some(mover) = &self.mover {
            // Full: it is awake already.
            let _ = mover.wake.try_send(());
        }
        Ok(())
    }

    /// Ends the capture: writes what is left, waits until all of it is in the database,
    /// marks the capture ended and indexes its frames for search.
    ///
    /// What the mover has not moved yet is moved by the calling thread, at its priority: a
    /// proxy that ends after a burst, on a busy machine, does not wait for a thread that only
    /// runs when a processor is idle.
    pub fn end(&mut self) -> Result<()> {
        self.commit_batch()?;
        let Some(Mover { wake, end, thread }) = self.mover.take() else {
            return Ok(());
        };
        end.ended.store(true, Ordering::Release);
        drop(wake);
        let handed = thread.join().ok().flatten();
        if let Ok(Some(error)) = end.failed.lock().map(|mut f| f.take()) {
            return Err(error);
        }
        let Some((mut store, mut drain)) = handed else {
            return Err(Error::Invalid(
                "the capture's thread stopped without its spool".to_owned(),
            ));
        };
        drain.run(&mut store.conn)?;
        drain.finish(&mut store.conn, true)?;
        if self.index_on_end {
            store.index()?;
        }
        Ok(())
    }
}

/// The mover thread: moves the spool into the database whenever woken (or every [`IDLE`]).
/// When the capture ends it stops after its current transaction and hands the spool back to
/// [`Capture::end`]; when the capture is dropped without ending, it moves the rest itself and
/// finishes.
fn mover(
    mut store: Store,
    mut drain: Drain,
    woken: &Receiver<()>,
    end: &Ending,
) -> Option<(Store, Drain)> {
    lower_priority();
    // The pages a long capture keeps touching (the last leaves of the frames and their
    // indexes) stay in memory: 16 MiB of page cache instead of SQLite's 2 MiB.
    let _ = store.conn.pragma_update(None, "cache_size", -16_384);
    let fail = |error: Error| {
        if let Ok(mut failed) = end.failed.lock() {
            failed.get_or_insert(error);
        }
        end.has_failed.store(true, Ordering::Release);
    };
    // What killed proxies left behind, while this one starts.
    if let Err(error) = store.recover() {
        // Not this capture's failure: it goes on.
        let _ = writeln!(
            io::stderr().lock(),
            "acptk-inspect: cannot recover the spools of other captures in {}: {error}",
            store.path().display()
        );
    }
    loop {
        let last = matches!(
            woken.recv_timeout(IDLE),
            Err(RecvTimeoutError::Disconnected)
        );
        if end.ended.load(Ordering::Acquire) {
            return Some((store, drain));
        }
        if let Err(error) = drain
            .run_until(&mut store.conn, &end.ended)
            .and_then(|_| drain.rotate(&mut store.conn))
        {
            // The spool keeps what was not moved, for `Store::recover`.
            fail(error);
            return None;
        }
        if end.ended.load(Ordering::Acquire) {
            return Some((store, drain));
        }
        if last {
            break;
        }
    }
    // Dropped without ending: nobody waits, and the capture is not marked ended.
    if let Err(error) = drain.finish(&mut store.conn, false) {
        fail(error);
    }
    None
}

/// Lowers this thread's scheduling priority as far as it goes (nice 19, on Linux): moving the
/// spool is background work, and must not take the processor from the proxy, the agent or
/// the client.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // Failing leaves the thread at the process's priority, which is only slower for others.
        let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19);
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        // Dropped without `end`: the mover moves what is written and stops, without marking
        // the capture ended and without being waited for (the process may be ending).
        if let Some(mover) = self.mover.take() {
            drop(mover.wake);
        }
    }
}

impl Tap for Capture {
    fn frame(&mut self, frame: &Frame<'_>) {
        if self.error.is_none() {
            self.add(frame);
        }
    }

    fn commit(&mut self) -> io::Result<()> {
        self.commit_batch().map_err(io::Error::other)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.end().map_err(io::Error::other)
    }
}
