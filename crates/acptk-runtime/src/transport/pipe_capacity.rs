//! Wider pipes for message streams.
//!
//! A Linux pipe holds 64 KiB. An agent streaming updates fills that in a fraction of a
//! millisecond and then sleeps until its reader has taken some, and each such sleep and wake-up
//! costs all three sides time (in a virtual machine above all, where waking an idle processor
//! is slow). So the pipes a stream runs through (the agent's output pipe that we read, and our
//! own standard output when it is a pipe) are widened to 1 MiB, the most an unprivileged
//! process may ask for by default. Memory is only used as the pipe fills. Best effort: where the
//! system refuses, or is not Linux, the pipe stays as it was.

/// The capacity asked for.
#[cfg(target_os = "linux")]
const CAPACITY: i32 = 1 << 20;

/// Widens the pipe behind `fd`; does nothing when `fd` is not a pipe or the system refuses.
#[cfg(unix)]
pub(crate) fn widen(fd: impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(CAPACITY));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::process::{Command, Stdio};

    use nix::fcntl::{FcntlArg, fcntl};

    #[test]
    fn a_pipe_is_widened_to_one_mebibyte() {
        let mut child = Command::new("true")
            .stdout(Stdio::piped())
            .spawn()
            .expect("start true");
        let stdout = child.stdout.take().expect("a pipe");
        let before = fcntl(&stdout, FcntlArg::F_GETPIPE_SZ).expect("F_GETPIPE_SZ");
        super::widen(&stdout);
        let after = fcntl(&stdout, FcntlArg::F_GETPIPE_SZ).expect("F_GETPIPE_SZ");
        assert_eq!(after, super::CAPACITY, "before: {before}");
        let _ = child.wait();
    }
}
