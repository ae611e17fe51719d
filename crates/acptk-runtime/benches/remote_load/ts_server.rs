//! The TypeScript SDK's server for the load benchmark: `ts_streamer.mjs` (an agent written
//! with the official TypeScript SDK, served by its WebSocket server transport) in a node
//! process of its own, started here and ended when dropped. The SDK and the `ws` package come
//! from the interop peers that `scripts/interop-setup.sh` installs (`ACP_INTEROP_DIR`, else
//! `target/interop` of the workspace); without them the row is skipped with the reason.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The interop peers' `node_modules`, or why the row cannot run.
pub(super) fn node_modules() -> Result<PathBuf, String> {
    let dir = std::env::var_os("ACP_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/interop"));
    let modules = dir.join("node/node_modules");
    if !dir.join("READY").is_file() || !modules.join("ws/package.json").is_file() {
        return Err(format!(
            "the interop peers (TypeScript SDK, ws) are not installed in {} (run \
             ./scripts/interop-setup.sh)",
            dir.display()
        ));
    }
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !node.is_ok_and(|status| status.success()) {
        return Err("node is not on PATH".to_owned());
    }
    Ok(modules)
}

/// The running node server.
pub(super) struct TsServer {
    child: Child,
    /// Its `ws://` URL.
    pub(super) url: String,
}

impl TsServer {
    /// Starts the server streaming `updates` notices per prompt, one every `interval_us`
    /// microseconds (0: as fast as it can); waits (up to 30 s) for its URL.
    pub(super) fn start(updates: usize, interval_us: u64) -> Result<Self, String> {
        let modules = node_modules()?;
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/remote_load/ts_streamer.mjs");
        let mut child = Command::new("node")
            .arg(script)
            .arg(updates.to_string())
            .arg(interval_us.to_string())
            .env("ACP_SDK_DIR", modules.join("@agentclientprotocol/sdk"))
            .env("ACP_NODE_MODULES", &modules)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| format!("node could not be started: {error}"))?;
        let stdout = child.stdout.take().ok_or("no standard output")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
        let Some(url) = line.trim().strip_prefix("listening on ").map(str::to_owned) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "ts_streamer.mjs did not say where it listens: {line:?}"
            ));
        };
        Ok(Self { child, url })
    }

    /// The node process's peak resident memory (VmHWM), in KiB.
    pub(super) fn peak_rss_kib(&self) -> u64 {
        super::vm_hwm_kib(&format!("/proc/{}/status", self.child.id()))
    }
}

impl Drop for TsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
