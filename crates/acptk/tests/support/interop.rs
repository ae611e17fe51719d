//! Where the interop peers are: the directory `scripts/interop-setup.sh` installs them into
//! (`ACP_INTEROP_DIR`, else `target/interop` of the repository). Include it with
//! `#[path = "support/interop.rs"] mod interop;`.
//!
//! Without the peers a test skips with a message that says how to install them, unless
//! `ACP_INTEROP_REQUIRED=1` (CI), where it fails.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// The installed peers.
#[derive(Debug, Clone)]
pub struct Peers {
    dir: PathBuf,
}

/// The peers, or `None` (after printing why) when they are not installed and not required.
pub fn peers(test: &str) -> Option<Peers> {
    let dir = std::env::var_os("ACP_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/interop"));
    if dir.join("READY").is_file() {
        return Some(Peers { dir });
    }
    let message = format!(
        "{test}: the interop peers are not installed in {} (run ./scripts/interop-setup.sh)",
        dir.display()
    );
    if std::env::var("ACP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!("{message}; ACP_INTEROP_REQUIRED=1 makes this a failure");
    }
    eprintln!("skipped: {message}");
    None
}

impl Peers {
    /// The installation directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `node_modules` of the npm peers (set `NODE_PATH` to it for scripts outside it).
    pub fn node_modules(&self) -> PathBuf {
        self.dir.join("node/node_modules")
    }

    /// An executable installed by an npm package (`codex-acp`, `claude-agent-acp`, `gemini`).
    pub fn npm_bin(&self, name: &str) -> PathBuf {
        self.node_modules().join(".bin").join(name)
    }

    /// The Python interpreter of the virtual environment that has the Python SDK.
    pub fn python(&self) -> PathBuf {
        self.dir.join("venv/bin/python")
    }

    /// `node`, as found on `PATH`.
    pub fn node(&self) -> PathBuf {
        PathBuf::from("node")
    }
}
