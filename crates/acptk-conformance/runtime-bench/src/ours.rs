//! Our side: an `acptk-runtime` agent streaming the workload to an `acptk-runtime` client (which
//! sorts every update into its transcript or its notice center, as the product does).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use acptk_runtime::Notice;
use acptk_runtime::agent::{Agent, AgentServer, Prompt, Session, StopReason};
use acptk_runtime::client::{Client, ClientBuilder};
use acptk_runtime::transport::AgentCommand;
use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::v1;

use crate::timing::{SendLog, now_ns};
use crate::workload::Workload;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// One message of the stream in our types. Not boxed: the timed loop moves the update out
/// as it is, like the other side does with its own type.
#[allow(clippy::large_enum_variant)]
enum Item {
    Update(v1::SessionUpdate),
    Notice(Notice),
}

fn items(workload: &Workload) -> Result<Vec<Item>, BoxError> {
    workload
        .params()
        .iter()
        .map(|text| {
            let notification: v1::SessionNotification = serde_json::from_str(text)?;
            Ok(match notification.update {
                v1::SessionUpdate::Notice(notice) => {
                    let ours = Notice::new(notice.severity.as_str(), notice.title.as_str());
                    Item::Notice(match notice.description {
                        Some(description) => ours.description(description),
                        None => ours,
                    })
                }
                update => Item::Update(update),
            })
        })
        .collect()
}

/// The agent: the first prompt turn streams the workload.
struct StreamAgent {
    items: Mutex<Option<Vec<Item>>>,
    pace: Option<Duration>,
    log: Arc<Mutex<SendLog>>,
    /// Where to write the send log at the end of the turn (peer process only).
    log_file: Option<String>,
}

impl Agent for StreamAgent {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let items = take(&self.items).unwrap_or_default();
        let mut notices = Vec::with_capacity(items.len() / 20 + 1);
        let mut ticker = self.pace.map(tokio::time::interval);
        let first_send = now_ns();
        for item in items {
            if let Some(ticker) = ticker.as_mut() {
                ticker.tick().await;
            }
            match item {
                Item::Update(update) => session
                    .send_v1(update)
                    .await
                    .map_err(acptk_runtime::rpc::internal)?,
                Item::Notice(notice) => {
                    notices.push(now_ns());
                    session
                        .notice(&notice)
                        .await
                        .map_err(acptk_runtime::rpc::internal)?;
                }
            }
        }
        let log = SendLog {
            first_send,
            notices,
        };
        if let Some(path) = &self.log_file {
            // Written before the turn's response, so the client finds it complete.
            std::fs::write(path, log.to_text()).map_err(acptk_runtime::rpc::internal)?;
        }
        *self.log.lock().unwrap_or_else(PoisonError::into_inner) = log;
        Ok(StopReason::EndTurn)
    }
}

fn take<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock().unwrap_or_else(PoisonError::into_inner).take()
}

type Server = (AgentServer<StreamAgent>, Arc<Mutex<SendLog>>);

fn server(workload: &Workload, log_file: Option<String>) -> Result<Server, BoxError> {
    let log = Arc::new(Mutex::new(SendLog::default()));
    let agent = StreamAgent {
        items: Mutex::new(Some(items(workload)?)),
        pace: workload.pace,
        log: Arc::clone(&log),
        log_file,
    };
    Ok((AgentServer::new(agent), log))
}

/// A client recording the receipt time of every notice: the notice center's clock is read
/// exactly once per notice, just before the notice is pushed into it.
fn client_builder() -> (ClientBuilder, Arc<Mutex<Vec<u64>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&received);
    let epoch = now_ns();
    let builder = ClientBuilder::new().clock(move || {
        let at = now_ns();
        sink.lock().unwrap_or_else(PoisonError::into_inner).push(at);
        Duration::from_nanos(at.saturating_sub(epoch))
    });
    (builder, received)
}

async fn run_turn(client: &Client) -> Result<(), BoxError> {
    let session = client.new_session("/tmp", &[]).await?;
    let stop = client.prompt(&session, "stream").await?;
    if stop != StopReason::EndTurn {
        return Err(format!("the turn ended with {stop:?}").into());
    }
    Ok(())
}

/// Agent and client in this process, over `tokio::io::duplex`.
pub async fn in_memory(workload: Workload) -> Result<(SendLog, Vec<u64>), BoxError> {
    let (server, log) = server(&workload, None)?;
    let (client_io, agent_io) = tokio::io::duplex(crate::DUPLEX_BYTES);
    let (agent_read, agent_write) = tokio::io::split(agent_io);
    let _agent = server.start(agent_read, agent_write);
    let (client_read, client_write) = tokio::io::split(client_io);
    let (builder, received) = client_builder();
    let client = builder.connect(client_read, client_write).await?;
    run_turn(&client).await?;
    let sent = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let received = received
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    Ok((sent, received))
}

/// The client in this process, the agent in a child process (`peer ours`) over its stdio.
pub async fn os_pipe(workload: Workload) -> Result<(SendLog, Vec<u64>), BoxError> {
    let log_file = crate::peer_log_path("ours");
    let command = AgentCommand::new(std::env::current_exe()?)
        .arg("peer")
        .arg("ours")
        .arg(&log_file)
        .args(workload.to_args());
    let (builder, received) = client_builder();
    let (client, process) = builder.spawn(&command).await?;
    run_turn(&client).await?;
    drop(process);
    let sent = SendLog::from_text(&std::fs::read_to_string(&log_file)?)?;
    let _ = std::fs::remove_file(&log_file);
    let received = received
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    Ok((sent, received))
}

/// The child process of [`os_pipe`]: serves the agent on stdio; the turn writes its send log
/// to `log_file`.
///
/// The figures use the runtime's own [`AgentServer::serve_stdio`]. For the diagnosis of
/// 2026-11-29 (in the history of `BENCHMARKS.md`), `ACP_BENCH_STDIO` selects another stdio
/// transport of the same agent: `buffered` (the runtime's stdio behind a `BufWriter`, so a
/// burst of lines is one write) or `pipe` (stdin and stdout as non-blocking pipes polled by
/// tokio's reactor, no thread hops).
pub async fn peer(workload: Workload, log_file: String) -> Result<(), BoxError> {
    let (server, _log) = server(&workload, Some(log_file))?;
    match std::env::var("ACP_BENCH_STDIO").as_deref() {
        Ok("buffered") => {
            let (stdin, stdout) = acptk_runtime::transport::stdio();
            let writer = tokio::io::BufWriter::with_capacity(64 * 1024, stdout);
            server.serve(stdin, writer).await?;
        }
        Ok("pipe") => {
            use std::os::fd::AsFd as _;
            let stdin = std::io::stdin().as_fd().try_clone_to_owned()?;
            let stdout = std::io::stdout().as_fd().try_clone_to_owned()?;
            let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(stdin)?;
            let writer = tokio::net::unix::pipe::Sender::from_owned_fd(stdout)?;
            server.serve(reader, writer).await?;
        }
        _ => server.serve_stdio().await?,
    }
    Ok(())
}
