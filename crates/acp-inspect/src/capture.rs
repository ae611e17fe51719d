//! Capturing a proxy run: a [`Capture`] is the proxy's [`Tap`]; it writes each batch's frames,
//! findings and notices in one transaction, committed before the batch is forwarded.

use std::io;
use std::path::Path;
use std::time::SystemTime;

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
}

impl std::fmt::Debug for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("capture", &self.writer.capture)
            .finish_non_exhaustive()
    }
}

impl Capture {
    /// Starts a capture in the database at `path` (created and upgraded as needed).
    pub fn start(path: &Path, origin: &Origin) -> Result<Capture> {
        Self::start_in(Store::open(path)?, origin)
    }

    /// Starts a capture in `store`.
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
        Ok(Capture {
            store,
            writer,
            open: false,
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
        Ok(())
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
