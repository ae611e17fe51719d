//! Opening the record: a new file, or (`--append`) the end of an existing one.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;

/// Opens the record at `path` and returns it with the line its first new entry goes to.
///
/// Without `append` the file is created or emptied. With `append` it is created if missing,
/// its lines are counted (so that findings name lines of the whole file), and a last line cut
/// short (a run that died mid-write) is ended first, so that the new entries start on a line of
/// their own. Something that is not a regular file (a pipe, a device) is appended to as it is.
pub(super) fn open(path: &Path, append: bool) -> io::Result<(File, u64)> {
    if !append {
        return Ok((File::create(path)?, 1));
    }
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Ok((file, 1));
    }
    let mut lines = 0u64;
    let mut last = b'\n';
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
        last = buf[n - 1];
    }
    if last != b'\n' {
        file.write_all(b"\n")?;
        lines += 1;
    }
    Ok((file, lines + 1))
}
