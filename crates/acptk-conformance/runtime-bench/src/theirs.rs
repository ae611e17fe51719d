//! Their side: an `agent-client-protocol` agent streaming the workload to an
//! `agent-client-protocol` client whose `session/update` handler receives each typed update.
//! Written from the crate's public API documentation; the official crate is a test peer only.

use std::process::Stdio as ProcessStdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, ClientSessionCapabilities, ContentBlock, InitializeRequest,
    InitializeResponse, NewSessionRequest, NewSessionResponse, NoticeCapabilities, PromptRequest,
    PromptResponse, SessionId, SessionNotification, SessionUpdate, StopReason, TextContent,
};
use agent_client_protocol::{Agent, ByteStreams, Client, ConnectTo, Responder, V1};
use tokio_util::compat::{TokioAsyncReadCompatExt as _, TokioAsyncWriteCompatExt as _};

use crate::timing::{SendLog, now_ns};
use crate::workload::Workload;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// One message of the stream in their types, and whether it is a notice.
type Item = (SessionNotification, bool);

fn items(workload: &Workload) -> Result<(SessionId, Vec<Item>), BoxError> {
    let mut session = None;
    let items = workload
        .params()
        .iter()
        .map(|text| {
            let notification: SessionNotification = serde_json::from_str(text)?;
            session.get_or_insert_with(|| notification.session_id.clone());
            let is_notice = matches!(notification.update, SessionUpdate::Notice(_));
            Ok((notification, is_notice))
        })
        .collect::<Result<Vec<_>, BoxError>>()?;
    let session = session.ok_or("empty stream")?;
    Ok((session, items))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sends the stream from a task of the connection (the documented way to do long work
/// without holding the dispatch loop), then answers the prompt.
async fn stream_turn(
    items: Vec<Item>,
    pace: Option<Duration>,
    connection: ConnectionTo<Client>,
    responder: Responder<PromptResponse, V1>,
    log: Arc<Mutex<SendLog>>,
    log_file: Option<String>,
) -> agent_client_protocol::Result<()> {
    let mut notices = Vec::with_capacity(items.len() / 20 + 1);
    let mut ticker = pace.map(tokio::time::interval);
    let first_send = now_ns();
    for (notification, is_notice) in items {
        if let Some(ticker) = ticker.as_mut() {
            ticker.tick().await;
        }
        if is_notice {
            notices.push(now_ns());
        }
        connection.send_notification(notification)?;
    }
    let sent = SendLog {
        first_send,
        notices,
    };
    if let Some(path) = &log_file {
        std::fs::write(path, sent.to_text())
            .map_err(agent_client_protocol::Error::into_internal_error)?;
    }
    *lock(&log) = sent;
    responder.respond(PromptResponse::new(StopReason::EndTurn))
}

/// Runs the agent on `transport` until the client hangs up.
async fn serve_agent(
    workload: Workload,
    transport: impl ConnectTo<Agent> + 'static,
    log: Arc<Mutex<SendLog>>,
    log_file: Option<String>,
) -> Result<(), BoxError> {
    let (session, items) = items(&workload)?;
    let items = Arc::new(Mutex::new(Some(items)));
    let pace = workload.pace;
    Agent
        .v1()
        .name("bench-agent")
        .on_receive_request(
            async |initialize: InitializeRequest, responder, _connection| {
                responder.respond(InitializeResponse::new(initialize.protocol_version))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_request: NewSessionRequest, responder, _connection| {
                responder.respond(NewSessionResponse::new(session.clone()))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_request: PromptRequest,
                        responder: Responder<PromptResponse, V1>,
                        connection: ConnectionTo<Client>| {
                let items = lock(&items).take().unwrap_or_default();
                let log = Arc::clone(&log);
                let log_file = log_file.clone();
                connection.clone().spawn(stream_turn(
                    items, pace, connection, responder, log, log_file,
                ))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(transport)
        .await?;
    Ok(())
}

/// Runs the client on `transport`: initialize (advertising `session.notices`), one session,
/// one prompt turn. Returns the receipt time of every notice.
async fn run_client(transport: impl ConnectTo<Client> + 'static) -> Result<Vec<u64>, BoxError> {
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&received);
    Client
        .v1()
        .name("bench-client")
        .on_receive_notification(
            async move |notification: SessionNotification, _connection| {
                if matches!(notification.update, SessionUpdate::Notice(_)) {
                    lock(&sink).push(now_ns());
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(transport, async |connection| {
            let capabilities = ClientCapabilities::new()
                .session(ClientSessionCapabilities::new().notices(NoticeCapabilities::new()));
            connection
                .send_request(
                    InitializeRequest::new(ProtocolVersion::V1).client_capabilities(capabilities),
                )
                .block_task()
                .await?;
            let session = connection
                .send_request(NewSessionRequest::new("/tmp"))
                .block_task()
                .await?;
            let prompt = PromptRequest::new(
                session.session_id,
                vec![ContentBlock::Text(TextContent::new("stream"))],
            );
            let response = connection.send_request(prompt).block_task().await?;
            if response.stop_reason != StopReason::EndTurn {
                return Err(agent_client_protocol::Error::internal_error());
            }
            Ok(())
        })
        .await?;
    let received = lock(&received).clone();
    Ok(received)
}

/// Agent and client in this process, over `tokio::io::duplex`.
pub async fn in_memory(workload: Workload) -> Result<(SendLog, Vec<u64>), BoxError> {
    let log = Arc::new(Mutex::new(SendLog::default()));
    let (client_io, agent_io) = tokio::io::duplex(crate::DUPLEX_BYTES);
    let (agent_read, agent_write) = tokio::io::split(agent_io);
    let agent_transport = ByteStreams::new(agent_write.compat_write(), agent_read.compat());
    let agent = tokio::spawn(serve_agent(
        workload,
        agent_transport,
        Arc::clone(&log),
        None,
    ));
    let (client_read, client_write) = tokio::io::split(client_io);
    let received = run_client(ByteStreams::new(
        client_write.compat_write(),
        client_read.compat(),
    ))
    .await?;
    agent.abort();
    let sent = lock(&log).clone();
    Ok((sent, received))
}

/// The client in this process, the agent in a child process (`peer theirs`) over its stdio.
pub async fn os_pipe(workload: Workload) -> Result<(SendLog, Vec<u64>), BoxError> {
    let log_file = crate::peer_log_path("theirs");
    let mut child = tokio::process::Command::new(std::env::current_exe()?)
        .arg("peer")
        .arg("theirs")
        .arg(&log_file)
        .args(workload.to_args())
        .stdin(ProcessStdio::piped())
        .stdout(ProcessStdio::piped())
        .stderr(ProcessStdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let stdin = child.stdin.take().ok_or("no stdin pipe")?;
    let stdout = child.stdout.take().ok_or("no stdout pipe")?;
    let received = run_client(ByteStreams::new(stdin.compat_write(), stdout.compat())).await?;
    drop(child);
    let sent = SendLog::from_text(&std::fs::read_to_string(&log_file)?)?;
    let _ = std::fs::remove_file(&log_file);
    Ok((sent, received))
}

/// The child process of [`os_pipe`]: serves the agent on stdio with the crate's own
/// [`agent_client_protocol::Stdio`] transport.
pub async fn peer(workload: Workload, log_file: String) -> Result<(), BoxError> {
    let log = Arc::new(Mutex::new(SendLog::default()));
    serve_agent(
        workload,
        agent_client_protocol::Stdio::new(),
        log,
        Some(log_file),
    )
    .await
}
