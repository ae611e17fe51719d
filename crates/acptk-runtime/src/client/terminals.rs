//! [`LocalTerminals`]: commands the agent runs on the local machine, one process group each.
//!
//! A terminal runs its command with the given arguments, environment (added to the
//! client's) and working directory (the session's by default), with no input and with
//! standard output and standard error merged into one output. Only the last
//! `outputByteLimit` bytes are kept: older output is dropped from the front, at a character
//! boundary, and the output says it was truncated. The command runs in a process group of
//! its own, so that `terminal/kill`, `terminal/release` and dropping the [`LocalTerminals`]
//! end it together with everything it started.
//!
//! Nothing runs without the user's consent: a request that is not marked approved
//! ([`CreateTerminal::is_approved`], which the runtime sets once
//! [`ClientHandler::approve`](super::ClientHandler::approve) allowed it) is refused, and so is
//! a working directory outside the session's directories (the checks of
//! [`LocalFiles`](super::LocalFiles)).
//!
//! A client shows a terminal's output inside the tool calls that name it, also after the
//! agent released it: [`LocalTerminals::tail`] gives the last of a terminal's output, and the
//! last [`RELEASED_KEPT`] released terminals keep their final [`RELEASED_TAIL_BYTES`] bytes
//! for that.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use acptk_schema::jsonrpc::ErrorObject;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

use super::fs::confined_dir;
use super::handler::{CreateTerminal, TerminalExit, TerminalOutput, TerminalRef, Terminals};
use crate::connection::BoxFuture;
use crate::lock::lock;
use crate::rpc;

/// The output kept when the agent gives no `outputByteLimit` (1 MiB).
pub const DEFAULT_OUTPUT_LIMIT: usize = 1024 * 1024;

/// The most output any terminal keeps, whatever the agent asks (8 MiB).
pub const MAX_OUTPUT_LIMIT: usize = 8 * 1024 * 1024;

/// The most terminals one client keeps at once (released ones do not count).
pub const MAX_TERMINALS: usize = 32;

/// How many released terminals keep the end of their output for display.
pub const RELEASED_KEPT: usize = 32;

/// How much of a released terminal's output is kept for display, in bytes.
pub const RELEASED_TAIL_BYTES: usize = 64 * 1024;

/// The end of a terminal's output, for display.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TerminalTail {
    /// The last bytes of the output, as text (it starts at a line break when it was cut).
    pub text: String,
    /// Whether earlier output is missing (dropped by the output limit or by the cut).
    pub truncated: bool,
    /// How the command ended, once it has.
    pub exit: Option<TerminalExit>,
    /// Whether the agent released the terminal (the output can no longer grow).
    pub released: bool,
}

/// The last `max_bytes` of `text`, from a line start when a line break is near; and whether
/// something was cut.
fn text_tail(text: &str, max_bytes: usize) -> (&str, bool) {
    if text.len() <= max_bytes {
        return (text, false);
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let tail = &text[start..];
    let tail = tail.find('\n').map_or(tail, |at| &tail[at + 1..]);
    (tail, true)
}

/// The last bytes of a command's output.
#[derive(Debug)]
struct Output {
    bytes: VecDeque<u8>,
    limit: usize,
    truncated: bool,
    /// How many bytes came in all (kept or not).
    received: u64,
}

impl Output {
    fn new(limit: usize) -> Self {
        Self {
            bytes: VecDeque::new(),
            limit,
            truncated: false,
            received: 0,
        }
    }

    /// Appends `chunk`, then drops the oldest bytes beyond the limit, and any continuation
    /// bytes of a character whose start was dropped.
    fn push(&mut self, chunk: &[u8]) {
        self.received += chunk.len() as u64;
        self.bytes.extend(chunk);
        if self.bytes.len() <= self.limit {
            return;
        }
        let excess = self.bytes.len() - self.limit;
        self.bytes.drain(..excess);
        while self
            .bytes
            .front()
            .is_some_and(|byte| (0x80..0xC0).contains(byte))
        {
            self.bytes.pop_front();
        }
        self.truncated = true;
    }

    /// The output as text: invalid bytes as U+FFFD, and an incomplete character at the end
    /// left out while more output may complete it.
    fn text(&self, finished: bool) -> String {
        let (front, back) = self.bytes.as_slices();
        let mut bytes = Vec::with_capacity(self.bytes.len());
        bytes.extend_from_slice(front);
        bytes.extend_from_slice(back);
        decode(&bytes, finished)
    }
}

/// Decodes `bytes` as UTF-8, lossily; an incomplete sequence at the very end is dropped unless
/// `complete`.
fn decode(mut bytes: &[u8], complete: bool) -> String {
    let mut text = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => {
                text.push_str(valid);
                return text;
            }
            Err(error) => {
                let (valid, rest) = bytes.split_at(error.valid_up_to());
                // `valid_up_to` marks the end of valid UTF-8.
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                match error.error_len() {
                    Some(len) => {
                        text.push('\u{FFFD}');
                        bytes = &rest[len..];
                    }
                    None => {
                        if complete {
                            text.push('\u{FFFD}');
                        }
                        return text;
                    }
                }
            }
        }
    }
}

/// Where a terminal's exit is announced (`None` while it runs).
type ExitWatch = watch::Receiver<Option<TerminalExit>>;

/// One terminal.
#[derive(Debug)]
struct Terminal {
    session: String,
    output: Arc<Mutex<Output>>,
    exit: ExitWatch,
    /// The process group of the command.
    group: Option<u32>,
    /// The tasks reading its output and waiting for it.
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Terminal {
    fn kill(&self) {
        if let Some(group) = self.group {
            kill_group(group);
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.kill();
        for task in &self.tasks {
            task.abort();
        }
    }
}

#[cfg(unix)]
fn kill_group(group: u32) {
    use nix::sys::signal::{Signal, killpg};
    if let Ok(group) = i32::try_from(group) {
        // Never group 0 (ours) or 1.
        if group > 1 {
            let _ = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_group: u32) {}

/// What is kept of a released terminal for display.
#[derive(Debug)]
struct Released {
    id: String,
    tail: TerminalTail,
    received: u64,
}

#[derive(Debug, Default)]
struct Registry {
    next: u64,
    terminals: HashMap<String, Terminal>,
    /// The latest released terminals, oldest first.
    released: VecDeque<Released>,
}

/// Commands run for the agent on this machine (`terminal/*`). Offer it through
/// [`ClientHandler::terminals`](super::ClientHandler::terminals). Cheap to clone; clones
/// share the terminals. Every command still running is killed (with its process group) when
/// it is released or when the last clone is dropped.
#[derive(Debug, Clone, Default)]
pub struct LocalTerminals {
    registry: Arc<Mutex<Registry>>,
}

fn unknown(terminal: &TerminalRef) -> ErrorObject {
    rpc::invalid_params(format!(
        "unknown terminal `{}` in session `{}`",
        terminal.terminal_id, terminal.scope.session_id
    ))
}

/// Reads `pipe` into `output` until it ends.
async fn pump(mut pipe: impl AsyncRead + Unpin, output: Arc<Mutex<Output>>) {
    let mut buffer = vec![0u8; 8192];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => lock(&output).push(&buffer[..read]),
        }
    }
}

fn exit_of(status: std::process::ExitStatus) -> TerminalExit {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = nix::sys::signal::Signal::try_from(signal)
                .map_or_else(|_| format!("signal {signal}"), |s| s.as_str().to_owned());
            return TerminalExit::signal(name);
        }
    }
    let code = status.code().unwrap_or(-1);
    TerminalExit::code(u32::try_from(code).unwrap_or(u32::MAX))
}

impl LocalTerminals {
    /// No terminals yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many terminals are kept (running or ended, not released).
    pub fn count(&self) -> usize {
        lock(&self.registry).terminals.len()
    }

    /// The process groups of the commands still kept (for tests and diagnostics).
    pub fn process_groups(&self) -> Vec<u32> {
        lock(&self.registry)
            .terminals
            .values()
            .filter_map(|terminal| terminal.group)
            .collect()
    }

    /// The directory the command of `request` would run in, links resolved: its `cwd`, or
    /// the session's working directory. Refused when it is not absolute, not a directory, or
    /// outside the session's directories.
    pub fn working_dir(request: &CreateTerminal) -> Result<PathBuf, ErrorObject> {
        let cwd = request.cwd.as_ref().unwrap_or(&request.scope.cwd);
        if !cwd.is_absolute() {
            return Err(rpc::invalid_params(format!(
                "the terminal's cwd `{}` is not an absolute path",
                cwd.display()
            )));
        }
        confined_dir(&request.scope, cwd)
    }

    /// How far terminal `id`'s output has come: the bytes received and whether the command
    /// has ended. Cheap; a view calls [`tail`](Self::tail) only when this changed.
    pub fn progress(&self, id: &str) -> Option<(u64, bool)> {
        let registry = lock(&self.registry);
        if let Some(terminal) = registry.terminals.get(id) {
            let ended = terminal.exit.borrow().is_some();
            return Some((lock(&terminal.output).received, ended));
        }
        registry
            .released
            .iter()
            .find(|released| released.id == id)
            .map(|released| (released.received, true))
    }

    /// The last `max_bytes` (at most) of terminal `id`'s output, with how it ended; also for a
    /// recently released terminal. `None` for a terminal this client does not know (or no
    /// longer keeps).
    pub fn tail(&self, id: &str, max_bytes: usize) -> Option<TerminalTail> {
        let registry = lock(&self.registry);
        if let Some(terminal) = registry.terminals.get(id) {
            let exit = terminal.exit.borrow().clone();
            let output = lock(&terminal.output);
            let text = output.text(exit.is_some());
            let (tail, cut) = text_tail(&text, max_bytes);
            return Some(TerminalTail {
                text: tail.to_owned(),
                truncated: output.truncated || cut,
                exit,
                released: false,
            });
        }
        let released = registry
            .released
            .iter()
            .find(|released| released.id == id)?;
        let (tail, cut) = text_tail(&released.tail.text, max_bytes);
        Some(TerminalTail {
            text: tail.to_owned(),
            truncated: released.tail.truncated || cut,
            ..released.tail.clone()
        })
    }

    fn start(&self, request: CreateTerminal) -> Result<String, ErrorObject> {
        if !request.is_approved() {
            return Err(rpc::invalid_params(format!(
                "running `{}` was not approved by the user",
                request.command
            )));
        }
        let cwd = Self::working_dir(&request)?;
        if lock(&self.registry).terminals.len() >= MAX_TERMINALS {
            return Err(rpc::internal(format!(
                "too many terminals (at most {MAX_TERMINALS}); release one first"
            )));
        }
        let limit = request
            .output_byte_limit
            .map_or(DEFAULT_OUTPUT_LIMIT, |limit| {
                usize::try_from(limit).unwrap_or(usize::MAX)
            })
            .min(MAX_OUTPUT_LIMIT);
        let mut command = tokio::process::Command::new(&request.command);
        command
            .args(&request.args)
            .envs(request.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&cwd)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        let cannot_run = |error: std::io::Error| {
            rpc::internal(format!(
                "cannot run `{}` in `{}`: {error}",
                request.command,
                cwd.display()
            ))
        };
        // On Unix both streams go into one pipe, as in a terminal: what the command writes
        // keeps its order, whichever stream it uses.
        #[cfg(unix)]
        let merged = {
            command.process_group(0);
            let (reader, writer) = std::io::pipe().map_err(cannot_run)?;
            let second = writer.try_clone().map_err(cannot_run)?;
            command.stdout(writer).stderr(second);
            reader
        };
        #[cfg(not(unix))]
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let spawned = command.spawn();
        // The command owns the parent's copies of the pipe's write end: they must be closed
        // now, or the output would never reach its end.
        drop(command);
        let mut child = spawned.map_err(cannot_run)?;
        let group = child.id();
        let output = Arc::new(Mutex::new(Output::new(limit)));
        let (exit_tx, exit_rx) = watch::channel(None);
        let mut tasks = Vec::new();
        #[cfg(unix)]
        {
            let receiver = tokio::net::unix::pipe::Receiver::from_owned_fd(merged.into())
                .map_err(cannot_run)?;
            tasks.push(tokio::spawn(pump(receiver, Arc::clone(&output))));
        }
        if let Some(stdout) = child.stdout.take() {
            tasks.push(tokio::spawn(pump(stdout, Arc::clone(&output))));
        }
        if let Some(stderr) = child.stderr.take() {
            tasks.push(tokio::spawn(pump(stderr, Arc::clone(&output))));
        }
        tasks.push(tokio::spawn(async move {
            let exit = match child.wait().await {
                Ok(status) => exit_of(status),
                Err(_) => TerminalExit::default(),
            };
            let _ = exit_tx.send(Some(exit));
        }));
        let mut registry = lock(&self.registry);
        registry.next += 1;
        let id = format!("term_{}", registry.next);
        registry.terminals.insert(
            id.clone(),
            Terminal {
                session: request.scope.session_id.clone(),
                output,
                exit: exit_rx,
                group,
                tasks,
            },
        );
        Ok(id)
    }

    /// The pieces of the terminal `request` names that a call needs, checked to belong to its
    /// session.
    fn find(&self, terminal: &TerminalRef) -> Result<(Arc<Mutex<Output>>, ExitWatch), ErrorObject> {
        let registry = lock(&self.registry);
        match registry.terminals.get(&terminal.terminal_id) {
            Some(found) if found.session == terminal.scope.session_id => {
                Ok((Arc::clone(&found.output), found.exit.clone()))
            }
            _ => Err(unknown(terminal)),
        }
    }
}

impl Terminals for LocalTerminals {
    fn create(&self, request: CreateTerminal) -> BoxFuture<Result<String, ErrorObject>> {
        let result = self.start(request);
        Box::pin(async move { result })
    }

    fn output(&self, terminal: TerminalRef) -> BoxFuture<Result<TerminalOutput, ErrorObject>> {
        let result = self.find(&terminal).map(|(output, exit)| {
            let exit = exit.borrow().clone();
            let output = lock(&output);
            TerminalOutput {
                output: output.text(exit.is_some()),
                truncated: output.truncated,
                exit,
            }
        });
        Box::pin(async move { result })
    }

    fn wait_for_exit(&self, terminal: TerminalRef) -> BoxFuture<Result<TerminalExit, ErrorObject>> {
        let found = self.find(&terminal);
        Box::pin(async move {
            let (_, mut exit) = found?;
            let ended = exit
                .wait_for(Option::is_some)
                .await
                .map(|exit| exit.clone())
                .ok()
                .flatten();
            ended.ok_or_else(|| rpc::internal("the terminal was released while it was waited for"))
        })
    }

    fn kill(&self, terminal: TerminalRef) -> BoxFuture<Result<(), ErrorObject>> {
        let result = {
            let registry = lock(&self.registry);
            match registry.terminals.get(&terminal.terminal_id) {
                Some(found) if found.session == terminal.scope.session_id => {
                    found.kill();
                    Ok(())
                }
                _ => Err(unknown(&terminal)),
            }
        };
        Box::pin(async move { result })
    }

    fn release(&self, terminal: TerminalRef) -> BoxFuture<Result<(), ErrorObject>> {
        let removed = {
            let mut registry = lock(&self.registry);
            match registry.terminals.get(&terminal.terminal_id) {
                Some(found) if found.session == terminal.scope.session_id => {
                    let removed = registry.terminals.remove(&terminal.terminal_id);
                    if let Some(found) = &removed {
                        // Keep the end of its output for the tool calls that show it.
                        let exit = found.exit.borrow().clone();
                        let output = lock(&found.output);
                        let text = output.text(true);
                        let (tail, cut) = text_tail(&text, RELEASED_TAIL_BYTES);
                        let kept = Released {
                            id: terminal.terminal_id.clone(),
                            tail: TerminalTail {
                                text: tail.to_owned(),
                                truncated: output.truncated || cut,
                                exit,
                                released: true,
                            },
                            received: output.received,
                        };
                        drop(output);
                        if registry.released.len() >= RELEASED_KEPT {
                            registry.released.pop_front();
                        }
                        registry.released.push_back(kept);
                    }
                    removed
                }
                _ => None,
            }
        };
        // Dropping the terminal kills its group and stops its tasks.
        let result = removed.map(drop).ok_or_else(|| unknown(&terminal));
        Box::pin(async move { result })
    }
}
