//! Nothing `acp client` started outlives it: the agent, the commands it ran in terminals, and
//! whatever those started, even processes that left their process group with `setsid`.
//!
//! On Linux the client makes itself a *child subreaper* (`PR_SET_CHILD_SUBREAPER`): a process
//! whose parent dies is re-parented to the client instead of to init, so every descendant
//! stays findable as a child of ours. When the client ends ([`Reaper`] is dropped), it kills
//! each of its remaining children, and again the orphans that this re-parents to it, until none
//! is left (within [`END_WITHIN`]). Elsewhere the process groups are all there is: the agent's
//! group and each terminal's group are ended, and a descendant that left its group survives.
//! A client ended by `SIGKILL` cannot do any of this.

use std::time::Duration;

/// The longest the client spends ending its descendants.
pub const END_WITHIN: Duration = Duration::from_secs(2);

/// Makes this process a subreaper while it lives, and ends its descendants when dropped.
#[derive(Debug)]
pub struct Reaper {
    active: bool,
}

impl Reaper {
    /// Becomes a subreaper (Linux; a no-op elsewhere).
    #[must_use]
    pub fn start() -> Self {
        Self {
            active: become_subreaper(),
        }
    }

    /// Whether descendants are tracked (the subreaper attribute is set).
    #[must_use]
    pub fn active(&self) -> bool {
        self.active
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if self.active {
            end_descendants(END_WITHIN);
        }
    }
}

#[cfg(target_os = "linux")]
fn become_subreaper() -> bool {
    nix::sys::prctl::set_child_subreaper(true).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn become_subreaper() -> bool {
    false
}

/// Kills every child of this process that is still running, then the orphans that are
/// re-parented to it as a result, until none is left or `limit` has passed.
#[cfg(target_os = "linux")]
pub fn end_descendants(limit: Duration) {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let start = std::time::Instant::now();
    let me = std::process::id();
    loop {
        let children = live_children(me);
        if children.is_empty() || start.elapsed() > limit {
            return;
        }
        for child in children {
            if let Ok(pid) = i32::try_from(child) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Does nothing where there is no subreaper.
#[cfg(not(target_os = "linux"))]
pub fn end_descendants(_limit: Duration) {}

/// The processes whose parent is `parent` and that are not zombies, from `/proc`.
#[cfg(target_os = "linux")]
#[must_use]
pub fn live_children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (command) state ppid ...`; the command may hold spaces and `)`.
            let Some((_, rest)) = stat.rsplit_once(") ") else {
                return false;
            };
            let mut fields = rest.split(' ');
            let state = fields.next().unwrap_or("Z");
            let ppid = fields.next().and_then(|field| field.parse::<u32>().ok());
            ppid == Some(parent) && state != "Z" && state != "X"
        })
        .collect()
}
