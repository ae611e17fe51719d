//! The owner of a named session: a background process (`acp client --session NAME
//! --no-wait` starts it) that keeps the agent and serves the prompts queued on its socket, one
//! turn at a time, in order.
//!
//! It leaves the terminal's session (`setsid`), listens (see [`crate::commands::client::driver::named::socket`]), takes the
//! session's lock (waiting while a run in the foreground has it), launches the agent and
//! opens the session like a one-shot run, then serves. Each turn's output is printed for the
//! client that queued it, in that client's format, and the turn is recorded in the session's
//! history. After `--ttl` seconds without work (default 300; 0: as soon as the queue is empty),
//! on `acp sessions forget`, on SIGTERM, SIGINT or SIGHUP (the running turn is cancelled
//! first), or when the agent exits, it ends the agent, fails what is still queued, removes its
//! socket and exits.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_runtime::client::Client;
use tokio::io::BufReader;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{Notify, mpsc, watch};

use super::named::claim::{self, Claim};
use super::oneshot::{Opening, Ready};
use super::prompt::{self, TurnEnd};
use crate::commands::client::Args;
use crate::commands::client::driver::named::protocol::{Phase, Reply, Request, Running, Status};
use crate::commands::client::driver::named::socket;
use crate::commands::client::driver::named::store::{self, Holder, Store};
use crate::commands::client::driver::turn_output::Renderer;
use crate::commands::client::shared::exit::{Exit, Failure, say};
use crate::commands::client::shared::format::Format;
use crate::commands::client::shared::lock;

/// The owner's idle time before it exits, unless `--ttl` says.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);

/// The most prompts waiting at once.
pub const MAX_QUEUE: usize = 256;

/// The most output bytes waiting for a slow client before its turn counts as unread
/// (cancelled like a closed output).
pub const MAX_PENDING: usize = 64 * 1024 * 1024;

/// A queued prompt.
struct Job {
    ticket: u64,
    text: String,
    format: Format,
    timeout: Option<Duration>,
    /// Where its output goes (none for `--no-wait`).
    replies: Option<Sender>,
}

/// Replies to one client, with the bytes of output it has not taken yet.
#[derive(Clone)]
struct Sender {
    tx: mpsc::UnboundedSender<Reply>,
    pending: Arc<AtomicUsize>,
}

impl Sender {
    fn send(&self, reply: Reply) -> bool {
        if let Reply::Out { data } = &reply {
            self.pending.fetch_add(data.len(), Ordering::Relaxed);
        }
        self.tx.send(reply).is_ok()
    }

    fn say(&self, line: impl Into<String>) {
        self.send(Reply::Say { line: line.into() });
    }
}

/// What the socket's connections and the serving loop share.
struct State {
    name: String,
    agent: String,
    cwd: String,
    started: tokio::time::Instant,
    started_at: String,
    ttl: Duration,
    phase: Phase,
    queue: VecDeque<Job>,
    next_ticket: u64,
    running: Option<Running>,
    last_prompt: Option<Running>,
    /// The client and session id once the session is open (to cancel a turn).
    session: Option<(Client, String)>,
    /// Why the owner could not start (told to whoever queued).
    startup_failure: Option<Failure>,
    stop: bool,
}

#[derive(Clone)]
struct Shared {
    state: Arc<Mutex<State>>,
    work: Arc<Notify>,
    phases: watch::Sender<Phase>,
}

impl Shared {
    fn set_phase(&self, phase: Phase) {
        lock(&self.state).phase = phase.clone();
        self.phases.send_replace(phase);
    }

    fn status(&self) -> Status {
        let state = lock(&self.state);
        Status {
            pid: std::process::id(),
            name: state.name.clone(),
            session_id: state.session.as_ref().map(|(_, id)| id.clone()),
            agent: state.agent.clone(),
            cwd: state.cwd.clone(),
            started_at: state.started_at.clone(),
            uptime_seconds: state.started.elapsed().as_secs(),
            phase: state.phase.clone(),
            running: state.running.clone(),
            queued: state.queue.len(),
            last_prompt: state.last_prompt.clone(),
            ttl_seconds: state.ttl.as_secs_f64(),
        }
    }

    /// Cancels the running turn (`session/cancel`), when `ticket` is it (or any, for `None`);
    /// drops `ticket` from the queue when it waits there. Returns the ticket of the turn
    /// cancelled.
    async fn cancel(&self, ticket: Option<u64>) -> Option<u64> {
        let target = {
            let mut state = lock(&self.state);
            if let Some(ticket) = ticket
                && let Some(at) = state.queue.iter().position(|job| job.ticket == ticket)
            {
                if let Some(job) = state.queue.remove(at)
                    && let Some(replies) = job.replies
                {
                    replies.say("acp: the prompt was cancelled before its turn");
                    replies.send(Reply::End {
                        exit: Exit::Failed.code(),
                    });
                }
                return None;
            }
            match (&state.running, &state.session) {
                (Some(running), Some((client, session)))
                    if ticket.is_none_or(|ticket| ticket == running.ticket) =>
                {
                    Some((running.ticket, client.clone(), session.clone()))
                }
                _ => None,
            }
        };
        let (ticket, client, session) = target?;
        let _ = client.cancel(&session).await;
        Some(ticket)
    }

    /// Ends every queued prompt: with `failure` (the owner could not start), or refused so
    /// that its client tries again.
    fn drain(&self, failure: Option<&Failure>) {
        let jobs: Vec<Job> = lock(&self.state).queue.drain(..).collect();
        for job in jobs {
            let Some(replies) = job.replies else {
                // A `--no-wait` prompt: nobody waits for it, so the owner's log says it was
                // dropped.
                say(&format!(
                    "acp: owner: prompt #{} not run ({}): {}",
                    job.ticket,
                    failure.map_or("the owner is exiting", |failure| failure.message.as_str()),
                    store::preview(&job.text)
                ));
                continue;
            };
            match failure {
                Some(failure) => {
                    if failure.exit != Exit::OutputClosed {
                        replies.say(format!("acp: {}", failure.message));
                    }
                    replies.send(Reply::End {
                        exit: failure.exit.code(),
                    });
                }
                None => {
                    replies.send(Reply::Refused {
                        message: "the session's owner is exiting".to_owned(),
                        retry: true,
                    });
                }
            }
        }
    }
}

/// The output of a turn, sent to its client as `out` replies (UTF-8 text cut at character
/// boundaries). Without a client it goes nowhere; a client that left, or that is more than
/// [`MAX_PENDING`] bytes behind, makes the write fail (and the turn is cancelled).
struct Frames {
    replies: Option<Sender>,
    partial: Vec<u8>,
}

impl Write for Frames {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(replies) = &self.replies else {
            return Ok(buf.len());
        };
        self.partial.extend_from_slice(buf);
        let valid = match std::str::from_utf8(&self.partial) {
            Ok(text) => text.len(),
            // A character cut in two waits for its end; anything else is sent as it is.
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            Err(_) => self.partial.len(),
        };
        if valid > 0 {
            let data = String::from_utf8_lossy(&self.partial[..valid]).into_owned();
            self.partial.drain(..valid);
            if replies.pending.load(Ordering::Relaxed) > MAX_PENDING {
                return Err(io::Error::other("the client does not read its output"));
            }
            if !replies.send(Reply::Out { data }) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Runs as the owner of `args.session`.
pub fn run(args: &Args, renderer: &'static dyn Renderer) -> ExitCode {
    // Out of the terminal's session: a closed terminal or Ctrl-C there does not reach it.
    let _ = nix::unistd::setsid();
    // The agent and whatever it starts end with the owner.
    let _reaper = crate::commands::reaper::Reaper::start();
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        say("acp: cannot start the owner's runtime");
        return Exit::Failed.into();
    };
    let code = runtime.block_on(serve(args, renderer));
    runtime.shutdown_background();
    code
}

async fn serve(args: &Args, renderer: &'static dyn Renderer) -> ExitCode {
    let failed = |failure: Failure| {
        say(&format!("acp: owner: {}", failure.message));
        ExitCode::from(failure.exit.code())
    };
    let (store, scope) = match claim::prepare(args) {
        Ok(pair) => pair,
        Err(failure) => return failed(failure),
    };
    let key = scope.key();
    let _owner_lock = match store.try_lock(&key, "owner.lock", &Holder::me("owner", None)) {
        Ok(Ok(lock)) => lock,
        // Another owner serves the session.
        Ok(Err(_)) => return ExitCode::SUCCESS,
        Err(message) => return failed(Failure::new(Exit::Failed, message)),
    };
    let path = match socket::path(store.dir(), &key) {
        Ok(path) => path,
        Err(message) => return failed(Failure::new(Exit::Failed, message)),
    };
    let listener = match socket::bind(&path) {
        Ok(listener) => listener,
        Err(message) => return failed(Failure::new(Exit::Failed, message)),
    };
    let shared = Shared {
        state: Arc::new(Mutex::new(State {
            name: scope.name.clone(),
            agent: scope.agent_label(),
            cwd: scope.cwd.clone(),
            started: tokio::time::Instant::now(),
            started_at: store::now(),
            ttl: args.ttl.unwrap_or(DEFAULT_TTL),
            phase: Phase::Starting,
            queue: VecDeque::new(),
            next_ticket: 1,
            running: None,
            last_prompt: None,
            session: None,
            startup_failure: None,
            stop: false,
        })),
        work: Arc::new(Notify::new()),
        phases: watch::channel(Phase::Starting).0,
    };
    let accepting = tokio::spawn(accept(listener, shared.clone()));
    let mut interrupted = prompt::interrupts();
    let code = match claim_and_start(
        args,
        &store,
        &scope,
        &key,
        &shared,
        &mut interrupted,
        renderer,
    )
    .await
    {
        Ok((mut ready, mut claim)) => {
            lock(&shared.state).session = Some((ready.client.clone(), ready.opened.id.clone()));
            shared.set_phase(Phase::Ready);
            serve_turns(args, &mut ready, &mut claim, &shared, &mut interrupted).await;
            shared.set_phase(Phase::Closing);
            ready.shutdown().await;
            shared.drain(None);
            ExitCode::SUCCESS
        }
        Err(failure) => {
            lock(&shared.state).startup_failure = Some(failure.clone());
            shared.set_phase(Phase::Closing);
            shared.drain(Some(&failure));
            failed(failure)
        }
    };
    lock(&shared.state).session = None;
    let _ = std::fs::remove_file(&path);
    // Let the connections say their last words.
    tokio::time::sleep(Duration::from_millis(50)).await;
    accepting.abort();
    code
}

/// Takes the session's lock (waiting for a run in the foreground), then starts the agent and
/// opens the session.
async fn claim_and_start(
    args: &Args,
    store: &Store,
    scope: &store::Scope,
    key: &str,
    shared: &Shared,
    interrupted: &mut watch::Receiver<Option<i32>>,
    renderer: &'static dyn Renderer,
) -> Result<(Ready, Box<Claim>), Failure> {
    let session_lock = loop {
        match store.try_lock(key, "lock", &Holder::me("owner", None)) {
            Ok(Ok(lock)) => break lock,
            Ok(Err(holder)) => {
                shared.set_phase(Phase::Waiting(holder.map_or(0, |h| h.pid)));
            }
            Err(message) => return Err(Failure::new(Exit::Failed, message)),
        }
        if lock(&shared.state).stop {
            return Err(Failure::new(Exit::Failed, "stopped before it started"));
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
            _ = interrupted.changed() => {
                let signal = (*interrupted.borrow()).unwrap_or(2);
                return Err(Failure::new(prompt::signal_exit(signal), prompt::interruption(signal)));
            }
        }
    };
    shared.set_phase(Phase::Starting);
    let claim = Claim::take(store.clone(), scope, session_lock)?;
    let mut opening = Opening::Named(Box::new(claim));
    let mut ready = Ready::start(args, &mut opening, None, interrupted, renderer).await?;
    match opening {
        Opening::Named(claim) => Ok((ready, claim)),
        Opening::Plain => {
            ready.shutdown().await;
            Err(Failure::new(Exit::Failed, "the session has no name"))
        }
    }
}

/// Serves queued prompts until the owner has been idle for its TTL, is stopped or signalled,
/// or the agent exits.
async fn serve_turns(
    args: &Args,
    ready: &mut Ready,
    claim: &mut Claim,
    shared: &Shared,
    interrupted: &mut watch::Receiver<Option<i32>>,
) {
    let client = ready.client.clone();
    loop {
        let job = tokio::select! {
            job = next_job(shared) => job,
            _ = interrupted.changed() => None,
            () = client.closed() => {
                say("acp: owner: the agent exited");
                None
            }
        };
        let idle = job.is_none();
        if let Some(job) = job {
            turn(args, ready, claim, shared, job, interrupted).await;
        }
        let signalled = *interrupted.borrow();
        if let Some(signal) = signalled {
            // For the owner's log.
            say(&format!("acp: owner: {}", prompt::interruption(signal)));
            return;
        }
        if idle || lock(&shared.state).stop {
            return;
        }
    }
}

/// The next queued prompt; `None` once the owner was idle for its TTL (no prompt is taken
/// after that: the owner is closing) or was stopped.
async fn next_job(shared: &Shared) -> Option<Job> {
    let ttl = lock(&shared.state).ttl;
    loop {
        {
            let mut state = lock(&shared.state);
            if state.stop {
                return None;
            }
            if let Some(job) = state.queue.pop_front() {
                return Some(job);
            }
        }
        if tokio::time::timeout(ttl, shared.work.notified())
            .await
            .is_err()
        {
            let mut state = lock(&shared.state);
            if state.queue.is_empty() {
                say(&format!(
                    "acp: owner: no work for {} s; exiting",
                    ttl.as_secs_f64()
                ));
                state.phase = Phase::Closing;
                shared.phases.send_replace(Phase::Closing);
                return None;
            }
        }
    }
}

/// Runs one queued prompt, printing its turn for the client that queued it.
async fn turn(
    args: &Args,
    ready: &mut Ready,
    claim: &mut Claim,
    shared: &Shared,
    job: Job,
    interrupted: &mut watch::Receiver<Option<i32>>,
) {
    let client = ready.client.clone();
    let session = ready.opened.id.clone();
    let since = store::now();
    {
        let mut state = lock(&shared.state);
        let running = Running {
            ticket: job.ticket,
            prompt: store::preview(&job.text),
            since: since.clone(),
        };
        state.last_prompt = Some(running.clone());
        state.running = Some(running);
    }
    let replies = job.replies.clone();
    let chatty = job.format == Format::Text;
    if let (Some(replies), true) = (&replies, chatty) {
        replies.say(format!(
            "{} served by its owner (pid {})",
            claim.describe(&session),
            std::process::id()
        ));
    }
    let out = ready.output(
        job.format,
        Frames {
            replies: replies.clone(),
            partial: Vec::new(),
        },
        !args.no_notices,
    );
    out.skip_existing(&client);
    out.session(&client, &session, false);
    out.named_session(
        &claim.record.name,
        &session,
        "served",
        claim.note.as_deref(),
    );
    ready.attach(&out);
    ready.decide.reset_failures();
    let permission_failures = ready.decide.failures();
    let run = prompt::Turn {
        client: &client,
        session: &session,
        timeout: job.timeout,
        permission_failures: Some(&permission_failures),
    };
    let end = run.run(&job.text, &*out, interrupted).await;
    ready.detach();
    let end = match (end, out.failed()) {
        (_, Some(_)) => TurnEnd::Failed(Failure::new(Exit::OutputClosed, "the client left")),
        (end, None) => end,
    };
    claim.record_turn(&client, &session, &job.text, &since, &end);
    let exit = prompt::exit_of(&end);
    match end {
        TurnEnd::Stopped(acptk_runtime::agent::StopReason::EndTurn) => out.finish(),
        TurnEnd::Stopped(stop) => {
            out.finish();
            if let Some(replies) = &replies {
                replies.say(format!(
                    "acp: the turn did not end normally (stop reason `{stop}`)"
                ));
            }
        }
        TurnEnd::Failed(failure) => {
            let failure = ready.explain(failure);
            out.failure(&failure);
            if let (Some(replies), false) = (&replies, failure.exit == Exit::OutputClosed) {
                replies.say(format!("acp: {}", failure.message));
            }
        }
    }
    if let Some(replies) = &replies {
        replies.send(Reply::End { exit: exit.code() });
    }
    lock(&shared.state).running = None;
}

/// Takes connections until aborted.
async fn accept(listener: UnixListener, shared: Shared) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        if !socket::same_user(&stream) {
            continue;
        }
        tokio::spawn(connection(stream, shared.clone()));
    }
}

/// Serves one connection: one request.
async fn connection(stream: UnixStream, shared: Shared) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let request = match tokio::time::timeout(
        Duration::from_secs(10),
        socket::receive::<_, Request>(&mut read),
    )
    .await
    {
        Ok(Ok(Some(request))) => request,
        _ => return,
    };
    let reply = match request {
        Request::Prompt {
            text,
            format,
            wait,
            timeout,
        } => {
            queue_prompt(&shared, read, write, text, &format, wait, timeout).await;
            return;
        }
        Request::Cancel => Reply::Cancelled {
            ticket: shared.cancel(None).await,
        },
        Request::Status => Reply::Status(Box::new(shared.status())),
        Request::Stop => {
            lock(&shared.state).stop = true;
            shared.work.notify_one();
            shared.cancel(None).await;
            Reply::Stopping
        }
    };
    let _ = socket::send(&mut write, &reply).await;
}

/// Queues a prompt; with `wait`, streams its turn to the client and cancels it when the
/// client asks or leaves.
async fn queue_prompt(
    shared: &Shared,
    read: BufReader<tokio::net::unix::OwnedReadHalf>,
    mut write: tokio::net::unix::OwnedWriteHalf,
    text: String,
    format: &str,
    wait: bool,
    timeout: Option<f64>,
) {
    let Ok(format) = <Format as clap::ValueEnum>::from_str(format, false) else {
        let _ = socket::send(
            &mut write,
            &refuse(&format!("no output format `{format}`"), false),
        )
        .await;
        return;
    };
    let timeout = timeout
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0 && *seconds < 1e9)
        .map(Duration::from_secs_f64);
    let (tx, rx) = mpsc::unbounded_channel();
    let sender = Sender {
        tx,
        pending: Arc::new(AtomicUsize::new(0)),
    };
    let failed = lock(&shared.state).startup_failure.clone();
    if let Some(failure) = failed {
        // It could not start: this prompt would fare no better.
        send_failure(&mut write, &failure).await;
        return;
    }
    let job = Job {
        ticket: 0,
        text,
        format,
        timeout,
        replies: wait.then(|| sender.clone()),
    };
    let (ticket, ahead) = match enqueue(shared, job) {
        Ok(queued) => queued,
        Err(reply) => {
            let _ = socket::send(&mut write, &reply).await;
            return;
        }
    };
    shared.work.notify_one();
    if !wait {
        answer_when_open(shared, &mut write, ticket, ahead).await;
        return;
    }
    let phase = lock(&shared.state).phase.clone();
    let queued = Reply::Queued {
        ticket,
        ahead,
        pid: std::process::id(),
        phase,
    };
    if socket::send(&mut write, &queued).await.is_err() {
        shared.cancel(Some(ticket)).await;
        return;
    }
    stream_turn(shared, read, write, ticket, rx, &sender).await;
}

/// The refusal of a prompt, saying whether trying again may help.
fn refuse(message: &str, retry: bool) -> Reply {
    Reply::Refused {
        message: message.to_owned(),
        retry,
    }
}

/// Tells the client that the owner could not start: why, then the exit code.
async fn send_failure(write: &mut tokio::net::unix::OwnedWriteHalf, failure: &Failure) {
    let _ = socket::send(
        write,
        &Reply::Say {
            line: format!("acp: {}", failure.message),
        },
    )
    .await;
    let _ = socket::send(
        write,
        &Reply::End {
            exit: failure.exit.code(),
        },
    )
    .await;
}

/// Puts `job` at the end of the queue with the next ticket: its ticket and how many prompts
/// are ahead of it, or the refusal when the owner is exiting or its queue is full.
fn enqueue(shared: &Shared, mut job: Job) -> Result<(u64, usize), Reply> {
    let mut state = lock(&shared.state);
    if state.stop || state.phase == Phase::Closing {
        return Err(refuse("the session's owner is exiting", true));
    }
    if state.queue.len() >= MAX_QUEUE {
        return Err(refuse(
            &format!("its queue is full ({MAX_QUEUE} prompts)"),
            false,
        ));
    }
    let ticket = state.next_ticket;
    state.next_ticket += 1;
    let ahead = state.queue.len() + usize::from(state.running.is_some());
    job.ticket = ticket;
    state.queue.push_back(job);
    Ok((ticket, ahead))
}

/// For a prompt that does not wait: answers once the session is open, so that a failure to
/// start is the client's to see.
async fn answer_when_open(
    shared: &Shared,
    write: &mut tokio::net::unix::OwnedWriteHalf,
    ticket: u64,
    ahead: usize,
) {
    let mut phases = shared.phases.subscribe();
    let phase = phases
        .wait_for(|phase| *phase != Phase::Starting)
        .await
        .map(|phase| phase.clone())
        .unwrap_or(Phase::Closing);
    let failure = lock(&shared.state).startup_failure.clone();
    match (phase, failure) {
        (_, Some(failure)) => send_failure(write, &failure).await,
        (phase, None) => {
            let reply = Reply::Queued {
                ticket,
                ahead,
                pid: std::process::id(),
                phase,
            };
            let _ = socket::send(write, &reply).await;
        }
    }
}

/// Streams the turn of `ticket` to a client that waits for it, and cancels the turn when the
/// client asks or leaves.
async fn stream_turn(
    shared: &Shared,
    read: BufReader<tokio::net::unix::OwnedReadHalf>,
    mut write: tokio::net::unix::OwnedWriteHalf,
    ticket: u64,
    mut rx: mpsc::UnboundedReceiver<Reply>,
    sender: &Sender,
) {
    // The client's further lines (a cancel) and its leaving, read in a task of their own.
    let (requests_tx, mut requests) = mpsc::channel::<bool>(4);
    let reader = tokio::spawn(async move {
        let mut read = read;
        loop {
            let cancel = matches!(
                socket::receive::<_, Request>(&mut read).await,
                Ok(Some(Request::Cancel))
            );
            // `false`: the client left (or sent something else: read as leaving).
            if requests_tx.send(cancel).await.is_err() || !cancel {
                return;
            }
        }
    });
    loop {
        tokio::select! {
            reply = rx.recv() => {
                let Some(reply) = reply else { break };
                if let Reply::Out { data } = &reply {
                    sender.pending.fetch_sub(data.len(), Ordering::Relaxed);
                }
                let end = matches!(reply, Reply::End { .. } | Reply::Refused { .. });
                if socket::send(&mut write, &reply).await.is_err() {
                    shared.cancel(Some(ticket)).await;
                    break;
                }
                if end {
                    break;
                }
            }
            request = requests.recv() => {
                if request == Some(true) {
                    shared.cancel(Some(ticket)).await;
                } else {
                    // The client left: its turn is cancelled and its output goes nowhere.
                    shared.cancel(Some(ticket)).await;
                    break;
                }
            }
        }
    }
    reader.abort();
}
