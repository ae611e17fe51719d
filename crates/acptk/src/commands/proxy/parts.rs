//! Runs that an earlier `acp proxy --listen --record FILE` never added to FILE: it was killed
//! (SIGKILL, a crash, the machine going down) while their connections were open, so each is
//! still in its part file `FILE.PID-N.part`, and process PID is gone.
//!
//! A proxy that starts with the same record finds them. With `--append` it adds each to FILE as
//! a run of its own (header first, as written, a last line cut short ended), oldest first, and
//! removes the part; without it (FILE is replaced) it leaves them and says so. A part whose
//! process still runs belongs to a proxy that is still recording, and is never touched.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;

/// A part file whose proxy process is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Orphan {
    /// The part file.
    pub(super) path: PathBuf,
    /// The process that wrote it.
    pub(super) pid: u32,
    /// The connection it recorded, counted from 1 in that process.
    pub(super) connection: u64,
}

/// Where connection `connection` of process `pid` records its run before adding it to
/// `record`: `FILE.PID-N.part` beside it.
pub(super) fn path(record: &Path, pid: u32, connection: u64) -> PathBuf {
    record.with_file_name(format!("{}{pid}-{connection}.part", prefix(record)))
}

/// What the name of every part of `record` starts with: the record's file name and a dot.
fn prefix(record: &Path) -> String {
    let name = record
        .file_name()
        .map_or_else(|| "record".into(), |name| name.to_string_lossy());
    format!("{name}.")
}

/// The orphaned parts beside `record`, in the order they were last written (then by process
/// and connection). A directory that cannot be read has none.
pub(super) fn orphans(record: &Path) -> Vec<Orphan> {
    let any = path(record, 0, 0);
    let dir = match any.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let prefix = prefix(record);
    let mut found: Vec<(SystemTime, Orphan)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file_name = entry.file_name();
            let (pid, connection) = parse(file_name.to_str()?, &prefix)?;
            if pid == std::process::id() || running(pid) {
                return None;
            }
            let metadata = entry.metadata().ok().filter(fs::Metadata::is_file)?;
            let written = metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let orphan = Orphan {
                path: dir.join(&file_name),
                pid,
                connection,
            };
            Some((written, orphan))
        })
        .collect();
    found.sort_by(|(a, x), (b, y)| (a, x.pid, x.connection).cmp(&(b, y.pid, y.connection)));
    found.into_iter().map(|(_, orphan)| orphan).collect()
}

/// `PID` and `N` of `PREFIX` + `PID-N.part`.
fn parse(file_name: &str, prefix: &str) -> Option<(u32, u64)> {
    let middle = file_name.strip_prefix(prefix)?.strip_suffix(".part")?;
    let (pid, connection) = middle.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(connection) {
        return None;
    }
    Some((pid.parse().ok()?, connection.parse().ok()?))
}

/// Whether process `pid` exists (one we may not signal exists too).
fn running(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    !matches!(kill(Pid::from_raw(raw), None), Err(Errno::ESRCH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_exactly() {
        let prefix = "r.ndjson.";
        assert_eq!(parse("r.ndjson.12-3.part", prefix), Some((12, 3)));
        // What `path` writes is what `parse` reads.
        let written = path(Path::new("/tmp/r.ndjson"), 12, 3);
        assert_eq!(written, Path::new("/tmp/r.ndjson.12-3.part"));
        let name = written.file_name().and_then(|name| name.to_str());
        assert_eq!(name.and_then(|name| parse(name, prefix)), Some((12, 3)));
        for other in [
            "r.ndjson",
            "r.ndjson.12-3.part.bak",
            "r.ndjson.12.part",
            "r.ndjson.-3.part",
            "r.ndjson.12-.part",
            "r.ndjson.1x-3.part",
            "r.ndjson.+1-3.part",
            "other.12-3.part",
            "r.ndjson.99999999999-3.part",
        ] {
            assert_eq!(parse(other, prefix), None, "{other}");
        }
    }

    #[test]
    fn only_parts_of_processes_that_are_gone_are_orphans() {
        let dir = std::env::temp_dir().join(format!("acp-parts-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        // A process that has exited (and was reaped), this one, and one that runs.
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        gone.wait().unwrap();
        let mut live = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let record = dir.join("r.ndjson");
        for pid in [gone.id(), std::process::id(), live.id()] {
            fs::write(dir.join(format!("r.ndjson.{pid}-0.part")), "x\n").unwrap();
        }
        fs::write(dir.join("unrelated.1-0.part"), "x\n").unwrap();
        let found = orphans(&record);
        let _ = live.kill();
        let _ = live.wait();
        let _ = fs::remove_dir_all(&dir);
        assert_eq!(
            found,
            vec![Orphan {
                path: dir.join(format!("r.ndjson.{}-0.part", gone.id())),
                pid: gone.id(),
                connection: 0,
            }]
        );
    }
}
