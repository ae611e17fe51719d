//! `acp proxy --listen ADDR -- AGENT_COMMAND`: the agent served to remote clients, one agent
//! process per connection (WebSocket or Streamable HTTP), each behind its own proxy run with
//! the same checks, repairs and lifecycle as over stdio.
//!
//! With `--record FILE`, each connection records to a file of its own next to FILE
//! (`FILE.PID-N.part`, written ahead as usual), which is added to FILE as one run (its header
//! first) when the connection ends, so runs of concurrent connections never interleave.
//! Findings name `FILE[connection N]` and lines counted from that run's header. The parts
//! that a killed proxy left behind are dealt with when the next one starts ([`parts`]).
//!
//! Every connection passes the session gate of its principal ([`super::gate`]): whatever
//! the agent processes keep, a client reaches only the sessions its principal created
//! through this proxy.
//!
//! SIGTERM, SIGINT or SIGHUP stops accepting connections and ends every open one (its agent's input
//! is closed, then its process group is ended as over stdio).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use acptk_check::proxy::Control;
use acptk_runtime::agent::Principal;
use acptk_runtime::log::{Level, Logger};
use acptk_runtime::transport::remote::{DEFAULT_MAX_MESSAGE_BYTES, Service, ServiceHandle};
use acptk_runtime::transport::{AgentCommand, MessageReader, MessageWriter};
use tokio::sync::watch;

use super::gate::Gate;
use super::gated::gated;
use super::lifecycle::{self, DRAIN_AFTER_EXIT};
use super::owners::Owners;
use super::{Args, Run, bridge, finish, parts, record};
use crate::commands::listen::{self as listening, Listen};
use crate::commands::signals::Signals;

/// The record all connections add their runs to.
struct Record {
    path: PathBuf,
    file: Mutex<File>,
}

impl Record {
    /// Where connection `n` records its run before it is added.
    fn part(&self, n: u64) -> PathBuf {
        parts::path(&self.path, std::process::id(), n)
    }

    /// Adds the run in `part` to the record (on a line of its own) and removes `part`.
    fn add(&self, part: &Path) -> io::Result<()> {
        let mut run = File::open(part)?;
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        let copied = io::copy(&mut run, &mut *file)?;
        if copied > 0 {
            run.seek(io::SeekFrom::End(-1))?;
            let mut last = [0u8; 1];
            run.read_exact(&mut last)?;
            if last[0] != b'\n' {
                file.write_all(b"\n")?;
            }
        }
        file.flush()?;
        drop(file);
        std::fs::remove_file(part)
    }

    /// Deals with the runs of earlier proxies on this record that were killed with connections
    /// open ([`parts`]): added to the record with `append`, otherwise kept and named.
    fn recover(&self, append: bool) {
        for orphan in parts::orphans(&self.path) {
            let shown = orphan.path.display();
            let whose = format!(
                "connection {} of an earlier proxy (process {}), which ended before adding it",
                orphan.connection, orphan.pid
            );
            if !append {
                eprintln!(
                    "acp proxy: warning: {shown} holds the run of {whose}; it is kept (--append adds it to the record)"
                );
                continue;
            }
            match self.add(&orphan.path) {
                Ok(()) => eprintln!(
                    "acp proxy: added the run of {whose} to {} (from {shown})",
                    self.path.display()
                ),
                Err(error) => {
                    eprintln!(
                        "acp proxy: cannot add {shown}, the run of {whose}: {error}; it is kept"
                    )
                }
            }
        }
    }
}

/// What the connections share.
struct Inner {
    args: Args,
    record: Option<Record>,
    /// Which principal owns which session (see [`owners`](super::owners)).
    owners: Arc<Owners>,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Handle>>,
}

impl Inner {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Handle>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The proxy as a remote service: every connection starts the agent.
#[derive(Clone)]
struct ProxyService {
    inner: Arc<Inner>,
}

/// One connection's proxy run.
#[derive(Clone)]
struct Handle {
    control: Control,
    done: watch::Receiver<bool>,
}

impl ServiceHandle for Handle {
    fn close(&self) {
        // As when the client's input ends: the agent's input is closed, the agent ended.
        self.control.close_client();
    }

    async fn closed(&self) {
        let mut done = self.done.clone();
        // The sender is dropped only once the run is over.
        let _ = done.wait_for(|done| *done).await;
    }
}

impl Service for ProxyService {
    type Handle = Handle;

    fn start<R: MessageReader, W: MessageWriter>(
        &self,
        reader: R,
        writer: W,
        principal: Principal,
    ) -> Handle {
        let n = self.inner.next.fetch_add(1, Ordering::Relaxed) + 1;
        let control = Control::new();
        let (done_tx, done) = watch::channel(false);
        let handle = Handle {
            control: control.clone(),
            done,
        };
        self.inner.open().insert(n, handle.clone());
        let inner = Arc::clone(&self.inner);
        tokio::spawn(async move {
            connection(&inner, n, reader, writer, control, principal).await;
            inner.open().remove(&n);
            let _ = done_tx.send(true);
        });
        handle
    }

    /// Refusals (token, origin, limits) and transport failures go to standard error.
    fn logger(&self) -> Logger {
        Logger::stderr(Level::Warn)
    }
}

impl ProxyService {
    /// Ends every open connection.
    fn close_all(&self) {
        for handle in self.inner.open().values() {
            handle.close();
        }
    }

    /// Waits (up to `limit`) until every connection has ended.
    async fn wait_all(&self, limit: Duration) {
        let handles: Vec<Handle> = self.inner.open().values().cloned().collect();
        let all = async {
            for handle in handles {
                handle.closed().await;
            }
        };
        let _ = tokio::time::timeout(limit, all).await;
    }
}

/// Serves until SIGTERM, SIGINT or SIGHUP, then ends every connection.
pub(super) async fn serve(args: &Args, listen: Listen) -> super::super::Outcome {
    if args.command.is_empty() {
        return Err("missing the agent command (after `--`)".into());
    }
    let record = match &args.record {
        Some(path) => {
            let (file, _) = record::open(path, args.append)
                .map_err(|e| format!("cannot open the record {}: {e}", path.display()))?;
            let record = Record {
                path: path.clone(),
                file: Mutex::new(file),
            };
            record.recover(args.append);
            Some(record)
        }
        None => None,
    };
    let owners = match &args.session_owners {
        Some(path) => Owners::open(path)
            .map_err(|e| format!("cannot open the session owners {}: {e}", path.display()))?,
        None => Owners::in_memory(),
    };
    let service = ProxyService {
        inner: Arc::new(Inner {
            args: args.clone(),
            record,
            owners: Arc::new(owners),
            next: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }),
    };
    // SIGTERM, SIGINT and SIGHUP, as for the stdio proxy.
    let mut signals = Signals::new()?;
    let stopping = service.clone();
    let shutdown = async move {
        signals.recv().await;
        stopping.close_all();
    };
    let served = listening::serve(service.clone(), listen, "acp proxy", shutdown).await;
    service.close_all();
    let grace = Duration::from_secs_f64(args.grace_period);
    service
        .wait_all(grace * 2 + DRAIN_AFTER_EXIT + Duration::from_secs(5))
        .await;
    served?;
    Ok(ExitCode::SUCCESS)
}

/// One connection of `principal`: starts the agent and proxies between it and the remote
/// client, through the session gate, until either ends; then the agent's process group is
/// ended and the run added to the record.
async fn connection<R: MessageReader, W: MessageWriter>(
    inner: &Inner,
    n: u64,
    reader: R,
    writer: W,
    control: Control,
    principal: Principal,
) {
    let args = &inner.args;
    let say = move |message: String| eprintln!("acp proxy: connection {n}: {message}");
    let gate = Gate::new(Arc::clone(&inner.owners), principal);
    let (reader, writer) = gated(gate, reader, writer, say);
    let Some((program, agent_args)) = args.command.split_first() else {
        return;
    };
    let label = match &args.record {
        Some(path) => format!("{}[connection {n}]", path.display()),
        None => format!("<proxy connection {n}>"),
    };
    let mut run = Run::new(args, label.clone(), args.command.clone());
    let mut part = None;
    if let Some(record) = &inner.record {
        let path = record.part(n);
        match File::create(&path) {
            Ok(file) => {
                run = run.record(file, 1);
                part = Some(path);
            }
            Err(error) => say(format!(
                "cannot create {}: {error}; this connection is not recorded",
                path.display()
            )),
        }
    }
    if let Err(error) = run.capture(args, &args.command.join(" "), &format!("connection {n}: ")) {
        say(format!("{error}; this connection is not captured"));
    }
    let spawned = AgentCommand::new(program)
        .args(agent_args)
        .grace_period(Duration::from_secs_f64(args.grace_period))
        .spawn();
    let mut agent = match spawned {
        Ok(agent) => agent,
        Err(error) => {
            say(format!("cannot start the agent: {error}"));
            let mut writer = writer;
            let _ = writer.close().await;
            if let Some(part) = &part {
                let _ = std::fs::remove_file(part);
            }
            return;
        }
    };
    let Some((agent_out, agent_in)) = agent.take_pipes() else {
        say("the agent's standard streams are not available".to_owned());
        let _ = agent.kill().await;
        return;
    };
    say(format!(
        "started the agent (process {})",
        agent
            .id()
            .map_or_else(|| "?".to_owned(), |id| id.to_string())
    ));
    let (to_engine, client_in) = bridge::pipe();
    let (client_out, from_engine) = bridge::pipe();
    let inbound = tokio::spawn(bridge::messages_to_lines(reader, to_engine, say));
    let outbound = bridge::lines_to_messages(from_engine, writer, DEFAULT_MAX_MESSAGE_BYTES, say);
    let forward = run.forward(client_in, client_out, agent_in, agent_out, control.clone());
    tokio::pin!(forward);
    let mut signals = Signals::none();
    let (ending, _) = tokio::join!(
        lifecycle::drive(&mut agent, forward, &control, &mut signals),
        outbound
    );
    inbound.abort();
    if let Some(Ok(report)) = ending.report {
        finish(&label, report);
    }
    match ending.status {
        Ok(status) => say(format!("closed; the agent ended ({status})")),
        Err(error) => say(format!("closed; ending the agent failed: {error}")),
    }
    if let (Some(record), Some(part)) = (&inner.record, part)
        && let Err(error) = record.add(&part)
    {
        say(format!(
            "cannot add its run ({}) to the record {}: {error}",
            part.display(),
            record.path.display()
        ));
    }
}
