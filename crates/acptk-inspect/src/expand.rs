//! Moving a capture's spool into the database: the frames with their pairing, findings,
//! notices and counts. Done by a thread of the capturing proxy's own while it runs (see
//! [`crate::capture`]), and by [`Store::recover`] for a proxy that was killed.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rusqlite::{Connection, TransactionBehavior, params};

use crate::Store;
use crate::error::{Error, Result};
use crate::spool::{self, Next};
use crate::writer::{NewFrame, Writer, micros};

/// Spool bytes read per transaction (more when one record is larger): bounds the memory of
/// a capture that fell behind, whatever the size of its spool.
const CHUNK: usize = 1 << 20;

/// Past this size, a spool that is all in the database is emptied (see [`Drain::rotate`]).
const ROTATE_AT: u64 = 64 << 20;

/// The proxy's end of a spool: its appends and [`Drain::rotate`] take turns.
pub(crate) type SpoolWriter = Arc<Mutex<File>>;

/// Where a capture's spool is moved from.
pub(crate) struct Drain {
    pub(crate) writer: Writer,
    file: File,
    path: PathBuf,
    /// Bytes of the spool already in the database (the magic line included).
    done: u64,
    /// Spool bytes read, the first `filled` of them current.
    buffer: Vec<u8>,
    filled: usize,
    /// The proxy's end of the spool, while it appends (not for a killed proxy's).
    appender: Option<SpoolWriter>,
    rotate_at: u64,
}

impl Drain {
    /// Reads the spool `file` (at `path`) of `writer`'s capture from byte `done` on.
    pub(crate) fn new(writer: Writer, file: File, path: PathBuf, done: u64) -> Drain {
        Drain {
            writer,
            file,
            path,
            done,
            buffer: Vec::new(),
            filled: 0,
            appender: None,
            rotate_at: ROTATE_AT,
        }
    }

    /// The spool is still being appended to through `appender`, which lets [`Drain::rotate`]
    /// empty it.
    pub(crate) fn appended_by(mut self, appender: SpoolWriter) -> Drain {
        self.appender = Some(appender);
        self
    }

    /// Empties the spool once it is larger than 64 MiB and all in the database, so that a
    /// proxy that runs for days does not keep every byte it forwarded twice. The proxy's
    /// appends wait meanwhile (one small transaction). Order matters for a kill half-way: the
    /// file is cut before `done` is set back, inside one transaction, so that a spool never
    /// holds bytes that `done` says are in the database and are not.
    pub(crate) fn rotate(&mut self, conn: &mut Connection) -> Result<bool> {
        let Some(appender) = &self.appender else {
            return Ok(false);
        };
        if self.done < self.rotate_at {
            return Ok(false);
        }
        // The database's lock first: the proxy then waits for a commit, not for another
        // writer.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let file = appender
            .lock()
            .map_err(|_| Error::Invalid("capture spool: its writer panicked".to_owned()))?;
        let length = file.metadata().map_err(|e| self.io(e))?.len();
        if length != self.done {
            // More came meanwhile: next time.
            return Ok(false);
        }
        let start = spool::MAGIC.len() as u64;
        tx.execute(
            "UPDATE spools SET done = ?2 WHERE capture = ?1",
            params![self.writer.capture, start as i64],
        )?;
        file.set_len(start).map_err(|e| self.io(e))?;
        tx.commit()?;
        self.done = start;
        Ok(true)
    }

    fn io(&self, source: std::io::Error) -> Error {
        Error::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Moves every whole record written so far into the database, one transaction per chunk
    /// read; returns how many frames it moved.
    pub(crate) fn run(&mut self, conn: &mut Connection) -> Result<u64> {
        self.run_until(conn, &AtomicBool::new(false))
    }

    /// [`Drain::run`], stopping before the next transaction once `stop` is set.
    pub(crate) fn run_until(&mut self, conn: &mut Connection, stop: &AtomicBool) -> Result<u64> {
        let mut moved = 0;
        let mut want = CHUNK;
        loop {
            if stop.load(Ordering::Acquire) {
                return Ok(moved);
            }
            self.fill(want)?;
            let (frames, used, needed) = self.write(conn, stop)?;
            moved += frames;
            if used == 0 {
                if self.filled < want {
                    // Nothing whole yet: the rest is still being written.
                    return Ok(moved);
                }
                // One record larger than the chunk: read all of it.
                want = needed.max(want);
            } else {
                want = CHUNK;
            }
        }
    }

    /// Reads up to `want` bytes of the spool from `done` into the buffer (fewer at its end).
    fn fill(&mut self, want: usize) -> Result<()> {
        // The buffer's bytes stay initialised from one read to the next: only growing it
        // writes zeroes.
        if self.buffer.len() < want {
            self.buffer.resize(want, 0);
        }
        self.file
            .seek(SeekFrom::Start(self.done))
            .map_err(|e| self.io(e))?;
        let mut filled = 0;
        while filled < want {
            match self.file.read(&mut self.buffer[filled..want]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io(e)),
            }
        }
        self.filled = filled;
        Ok(())
    }

    /// Writes the whole records of the buffer in one transaction (fewer once `stop` is set);
    /// returns the frames written, the bytes they took and, when none fit, the bytes the first
    /// one needs.
    fn write(&mut self, conn: &mut Connection, stop: &AtomicBool) -> Result<(u64, usize, usize)> {
        if let Next::Partial(needed) = spool::next(&self.buffer[..self.filled])? {
            return Ok((0, 0, needed));
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut input = &self.buffer[..self.filled];
        let mut used = 0;
        let mut frames = 0;
        while let Next::Frame(frame, n) = spool::next(input)? {
            // Asked to stop: commit what is written (every 256 frames, to keep it cheap).
            if frames % 256 == 255 && stop.load(Ordering::Acquire) {
                break;
            }
            input = &input[n..];
            used += n;
            let seq = self.writer.frame(
                &tx,
                NewFrame {
                    side: frame.side,
                    time: Some(frame.time),
                    raw: frame.raw,
                    too_long: frame.too_long,
                    size: frame.size,
                },
            )?;
            for finding in &frame.findings {
                self.writer.finding_row(&tx, Some(seq), *finding)?;
            }
            if let Some(notice) = frame.notice {
                self.writer.notice_row(&tx, seq, notice)?;
            }
            frames += 1;
        }
        self.writer.save_counts(&tx)?;
        let done = self.done + used as u64;
        tx.execute(
            "UPDATE spools SET done = ?2 WHERE capture = ?1",
            params![self.writer.capture, done as i64],
        )?;
        tx.commit()?;
        self.done = done;
        Ok((frames, used, 0))
    }

    /// After the last [`Drain::run`]: marks the capture ended (`ended`: it ended normally,
    /// rather than its proxy being gone), forgets the spool and removes its file.
    pub(crate) fn finish(self, conn: &mut Connection, ended: bool) -> Result<()> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if ended {
            self.writer.end(&tx, micros(SystemTime::now()))?;
        } else {
            self.writer.save_counts(&tx)?;
        }
        tx.execute(
            "DELETE FROM spools WHERE capture = ?1",
            [self.writer.capture],
        )?;
        tx.commit()?;
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(self.io(e)),
            _ => Ok(()),
        }
    }
}

/// Where the spool named `name` in table `spools` of the database at `db` is.
pub(crate) fn spool_path(db: &Path, name: &str) -> PathBuf {
    match db.parent() {
        Some(dir) => dir.join(name),
        None => PathBuf::from(name),
    }
}

/// The spool's file name for capture `id` of the database at `db`: beside the database, or in
/// the temporary directory for one in memory.
fn spool_name(db: &Path, id: i64) -> String {
    match db.file_name() {
        Some(name) if db != Path::new(":memory:") => {
            format!("{}-spool-{id}", name.to_string_lossy())
        }
        _ => std::env::temp_dir()
            .join(format!("acp-capture-{}-{id}.spool", std::process::id()))
            .to_string_lossy()
            .into_owned(),
    }
}

/// Makes the spool of capture `capture` of the database at `db`, inside the transaction that
/// made the capture's row (`conn`): its row in `spools` and its file, created, locked (the lock
/// says its proxy lives) and started with its first line. Returns where it is and the file,
/// open for appending; a failure after the file was made removes it.
pub(crate) fn create_spool(conn: &Connection, db: &Path, capture: i64) -> Result<(PathBuf, File)> {
    let name = spool_name(db, capture);
    let path = spool_path(db, &name);
    conn.execute(
        "INSERT INTO spools (capture, path, done) VALUES (?1, ?2, ?3)",
        params![capture, name, spool::MAGIC.len() as i64],
    )?;
    let io = |source| Error::Io {
        path: path.clone(),
        source,
    };
    let create = || File::options().create_new(true).append(true).open(&path);
    let mut file = match create() {
        // Left by a capture that had this id before it was deleted: no row names it now.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(&path).map_err(io)?;
            create()
        }
        other => other,
    }
    .map_err(io)?;
    let started = file
        .try_lock()
        .map_err(|e| io(std::io::Error::other(e.to_string())))
        .and_then(|()| file.write_all(spool::MAGIC).map_err(io));
    if let Err(error) = started {
        let _ = std::fs::remove_file(&path);
        return Err(error);
    }
    Ok((path, file))
}

/// Opens the spool at `path` for reading and checks its first line.
pub(crate) fn open_spool(path: &Path) -> Result<File> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let mut magic = vec![0; spool::MAGIC.len()];
    match file.read_exact(&mut magic) {
        Ok(()) if magic == spool::MAGIC => Ok(file),
        // Created but killed before its first line: nothing in it.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(file),
        Ok(()) => Err(Error::Invalid(format!(
            "{}: not a capture spool (it starts with {:?})",
            path.display(),
            String::from_utf8_lossy(&magic)
        ))),
        Err(e) => Err(io(e)),
    }
}

impl Store {
    /// Moves into the database what proxies that were killed while capturing left in their
    /// spools (a proxy writes each batch to its spool before forwarding it, and moves it into
    /// the database from a thread of its own: see [`Capture`](crate::Capture)). A spool whose proxy
    /// still runs is left to it. Returns how many frames were moved.
    ///
    /// `acp inspect` runs this whenever it opens a database for writing; a capturing proxy runs
    /// it in its own thread when it starts.
    pub fn recover(&mut self) -> Result<u64> {
        let spools: Vec<(i64, String, i64)> = {
            let mut statement = self
                .conn
                .prepare_cached("SELECT capture, path, done FROM spools ORDER BY capture")?;
            statement
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let mut moved = 0;
        for (capture, name, _) in spools {
            let path = spool_path(self.path(), &name);
            let file = match open_spool(&path) {
                Ok(file) => file,
                Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                    // Already moved by its proxy, which is forgetting it now.
                    self.forget_spool(capture)?;
                    continue;
                }
                Err(error) => return Err(error),
            };
            match file.try_lock() {
                Ok(()) => {}
                // Its proxy is alive and holds it.
                Err(std::fs::TryLockError::WouldBlock) => continue,
                Err(std::fs::TryLockError::Error(source)) => {
                    return Err(Error::Io { path, source });
                }
            }
            // Read again under the lock: the proxy may have moved more before it let go.
            let done: Option<i64> = self
                .conn
                .query_row(
                    "SELECT done FROM spools WHERE capture = ?1",
                    [capture],
                    |row| row.get(0),
                )
                .ok();
            let Some(done) = done else { continue };
            let writer = Writer::resume(&self.conn, capture)?;
            let mut drain = Drain::new(writer, file, path, u64::try_from(done).unwrap_or(0));
            moved += drain.run(&mut self.conn)?;
            drain.finish(&mut self.conn, false)?;
        }
        Ok(moved)
    }

    fn forget_spool(&self, capture: i64) -> Result<()> {
        self.conn
            .execute("DELETE FROM spools WHERE capture = ?1", [capture])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::io::Write;

    use acptk_check::Side;

    use super::*;
    use crate::spool::SpooledFrame;
    use crate::writer::{NewCapture, NewFinding, NewNotice};

    /// A new scratch directory, removed when dropped.
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("acptk-inspect-{name}-"))
            .tempdir()
            .unwrap()
    }

    /// A store in a new scratch directory, which it lives in until the directory is dropped.
    fn scratch_store(name: &str) -> (tempfile::TempDir, Store) {
        let dir = scratch(name);
        let store = Store::open(dir.path().join("captures.db")).unwrap();
        (dir, store)
    }

    /// The spool at `path` locked, as its live proxy holds it, until the file is dropped.
    fn hold(path: &Path) -> File {
        let held = File::open(path).unwrap();
        held.lock().unwrap();
        held
    }

    fn line(n: u32) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{n}"}}}}}}}}"#
        )
    }

    /// The writer of a new capture from a proxy.
    fn proxy_writer(store: &Store) -> Writer {
        Writer::create(
            &store.conn,
            &NewCapture {
                source: "proxy",
                ..NewCapture::default()
            },
        )
        .unwrap()
    }

    /// A capture row and a spool of `frames` frames (the last one cut short, as a kill
    /// mid-write leaves it), as a proxy that was killed leaves them; the spool's first
    /// `moved` frames are already in the database.
    fn left_behind(store: &Store, frames: u32, moved: u32) -> (i64, PathBuf) {
        let writer = proxy_writer(store);
        let capture = writer.capture;
        let (path, mut file) = create_spool(&store.conn, store.path(), capture).unwrap();
        let mut bytes = spool::MAGIC.to_vec();
        let mut done = bytes.len();
        let lines: Vec<String> = (1..=frames).map(line).collect();
        for (i, raw) in lines.iter().enumerate() {
            spool::put(
                &mut bytes,
                &SpooledFrame {
                    side: Side::Agent,
                    time: 1_000 + i as i64,
                    size: raw.len() as u64,
                    too_long: false,
                    raw: raw.as_bytes(),
                    findings: if i == 2 {
                        vec![NewFinding {
                            rule: "some-rule",
                            severity: "warning",
                            message: "a finding",
                        }]
                    } else {
                        vec![]
                    },
                    notice: (i == 3).then(|| NewNotice {
                        title: Some("Rate limited"),
                        outcome: "delivered",
                        ..NewNotice::default()
                    }),
                },
            );
            if i + 1 == moved as usize {
                done = bytes.len();
            }
        }
        // Half of one more record.
        let mut cut = Vec::new();
        spool::put(
            &mut cut,
            &SpooledFrame {
                side: Side::Client,
                time: 0,
                size: 3,
                too_long: false,
                raw: b"cut",
                findings: vec![],
                notice: None,
            },
        );
        bytes.extend_from_slice(&cut[..cut.len() / 2]);
        // The spool has its first line already; the proxy is gone (its lock with it).
        file.write_all(&bytes[spool::MAGIC.len()..]).unwrap();
        drop(file);
        if moved > 0 {
            let file = open_spool(&path).unwrap();
            let mut drain = Drain::new(
                Writer::resume(&store.conn, capture).unwrap(),
                file,
                path.clone(),
                spool::MAGIC.len() as u64,
            );
            // Move the first `moved` frames only, as the proxy had before it was killed.
            let mut conn = Connection::open(store.path()).unwrap();
            drain.buffer = bytes[spool::MAGIC.len()..done].to_vec();
            drain.filled = drain.buffer.len();
            drain.write(&mut conn, &AtomicBool::new(false)).unwrap();
        }
        (capture, path)
    }

    fn texts(store: &Store, capture: i64) -> Vec<String> {
        let mut out = Vec::new();
        store
            .each_frame(capture, |_, raw| {
                out.push(String::from_utf8(raw.to_vec()).unwrap());
                Ok(())
            })
            .unwrap();
        out
    }

    #[test]
    fn a_killed_proxys_spool_is_moved_in_once_and_removed() {
        let (_dir, mut store) = scratch_store("recover");
        let (capture, path) = left_behind(&store, 6, 2);
        assert_eq!(texts(&store, capture).len(), 2);
        assert_eq!(store.recover().unwrap(), 4);
        assert_eq!(
            texts(&store, capture),
            (1..=6).map(line).collect::<Vec<_>>()
        );
        assert!(!path.exists(), "the spool is removed");
        let summary = store.capture(capture).unwrap();
        assert_eq!(summary.frames, 6);
        assert_eq!(summary.findings, 1);
        assert_eq!(summary.notices, 1);
        assert_eq!(summary.ended_at, None, "it never ended");
        assert_eq!(store.findings(capture).unwrap()[0].seq, Some(3));
        assert_eq!(store.notices(capture).unwrap()[0].seq, 4);
        // Nothing is left to do, and nothing is moved twice.
        assert_eq!(store.recover().unwrap(), 0);
        assert_eq!(texts(&store, capture).len(), 6);
    }

    #[test]
    fn a_spool_whose_proxy_still_holds_it_is_left_to_it() {
        let (_dir, mut store) = scratch_store("recover-live");
        let (capture, path) = left_behind(&store, 3, 0);
        let held = hold(&path);
        assert_eq!(store.recover().unwrap(), 0);
        assert!(path.exists());
        assert!(texts(&store, capture).is_empty());
        drop(held);
        assert_eq!(store.recover().unwrap(), 3);
        assert!(!path.exists());
    }

    #[test]
    fn a_spool_that_is_gone_is_forgotten_and_a_foreign_file_is_refused() {
        let (_dir, mut store) = scratch_store("recover-odd");
        let (_, path) = left_behind(&store, 1, 0);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(store.recover().unwrap(), 0);
        let rows: i64 = store
            .conn
            .query_row("SELECT count(*) FROM spools", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 0);
        let (_, path) = left_behind(&store, 1, 0);
        std::fs::write(&path, b"something else entirely").unwrap();
        let error = store.recover().unwrap_err().to_string();
        assert!(error.contains("not a capture spool"), "{error}");
    }

    #[test]
    fn a_spool_all_in_the_database_is_emptied_and_goes_on() {
        let (_dir, mut store) = scratch_store("rotate");
        let writer = proxy_writer(&store);
        let capture = writer.capture;
        let (path, file) = create_spool(&store.conn, store.path(), capture).unwrap();
        let appender = Arc::new(Mutex::new(file));
        let mut drain = Drain::new(
            writer,
            open_spool(&path).unwrap(),
            path.clone(),
            spool::MAGIC.len() as u64,
        )
        .appended_by(Arc::clone(&appender));
        drain.rotate_at = 1_000;
        let mut next = 1;
        let mut append = |count: u32| {
            let mut bytes = Vec::new();
            for _ in 0..count {
                let raw = line(next);
                next += 1;
                spool::put(
                    &mut bytes,
                    &SpooledFrame {
                        side: Side::Agent,
                        time: 0,
                        size: raw.len() as u64,
                        too_long: false,
                        raw: raw.as_bytes(),
                        findings: vec![],
                        notice: None,
                    },
                );
            }
            appender.lock().unwrap().write_all(&bytes).unwrap();
        };
        let length = || std::fs::metadata(&path).unwrap().len();
        let mut conn = Connection::open(store.path()).unwrap();
        append(20);
        assert_eq!(drain.run(&mut conn).unwrap(), 20);
        assert!(length() > 1_000);
        // Not while something is not in the database yet.
        append(1);
        assert!(!drain.rotate(&mut conn).unwrap());
        assert_eq!(drain.run(&mut conn).unwrap(), 1);
        assert!(drain.rotate(&mut conn).unwrap());
        assert_eq!(length(), spool::MAGIC.len() as u64);
        // It goes on from the start, and what a kill leaves after a rotation is recovered.
        append(5);
        assert_eq!(drain.run(&mut conn).unwrap(), 5);
        append(3);
        drop(drain);
        drop(appender);
        assert_eq!(store.recover().unwrap(), 3);
        assert_eq!(
            texts(&store, capture),
            (1..=29).map(line).collect::<Vec<_>>()
        );
        assert!(!path.exists());
    }

    #[test]
    fn deleting_a_killed_proxys_capture_removes_its_spool() {
        let (_dir, mut store) = scratch_store("delete-spool");
        let (capture, path) = left_behind(&store, 2, 0);
        // While its proxy holds it, it stays.
        let _held = hold(&path);
        let (other, other_path) = left_behind(&store, 2, 0);
        store.delete(other).unwrap();
        assert!(!other_path.exists());
        store.delete(capture).unwrap();
        assert!(path.exists(), "a live proxy's spool is its own to remove");
    }

    #[test]
    fn a_stale_spool_under_a_new_captures_name_is_replaced() {
        let dir = scratch("stale-spool");
        let db = dir.path().join("captures.db");
        drop(Store::open(&db).unwrap());
        let stale = dir.path().join("captures.db-spool-1");
        std::fs::write(&stale, b"left by a deleted capture 1").unwrap();
        let mut capture = crate::Capture::start(&db, &crate::Origin::new("agent", "0")).unwrap();
        assert_eq!(capture.id(), 1);
        assert_eq!(capture.spool_path(), stale);
        capture.end().unwrap();
        assert!(!stale.exists());
        let store = Store::open_read_only(&db).unwrap();
        assert!(store.capture(1).unwrap().ended_at.is_some());
    }

    #[test]
    fn a_drain_asked_to_stop_commits_what_it_wrote_and_the_rest_follows() {
        let (_dir, mut store) = scratch_store("stop");
        let (capture, path) = left_behind(&store, 1_000, 0);
        let mut drain = Drain::new(
            Writer::resume(&store.conn, capture).unwrap(),
            open_spool(&path).unwrap(),
            path.clone(),
            spool::MAGIC.len() as u64,
        );
        let stop = AtomicBool::new(false);
        drain.fill(CHUNK).unwrap();
        stop.store(true, Ordering::Release);
        let (frames, used, _) = drain.write(&mut store.conn, &stop).unwrap();
        assert_eq!(frames, 255, "stopped at the first check");
        assert!(used > 0);
        assert_eq!(drain.run_until(&mut store.conn, &stop).unwrap(), 0);
        assert_eq!(texts(&store, capture).len(), 255);
        assert_eq!(drain.run(&mut store.conn).unwrap(), 745);
        assert_eq!(
            texts(&store, capture),
            (1..=1_000).map(line).collect::<Vec<_>>()
        );
    }
}
