//! Routing of incoming messages on a client connection: session updates to the notice
//! center or the transcript, the agent's requests to the application's handler (each to the
//! service that the handler offers, or `-32601` when it offers none).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use acptk_schema::jsonrpc::{ErrorObject, Id, RawValue};
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::handler::{
    Action, Consent, CreateTerminal, ReadTextFile, SessionScope, TerminalExit, TerminalRef,
    WriteTextFile,
};
use super::permission::PermissionRequest;
use super::shared::State;
use crate::connection::{BoxFuture, Connection, Handler, Reply};
use crate::lock::lock;
use crate::log::Level;
use crate::rpc;
use crate::rpc::decode_error;
use crate::stop_reason::StopReason;
use crate::version::ByVersion;

/// The connection handler of a client: routes the agent's messages to the state and to the
/// application's [`ClientHandler`](super::ClientHandler).
pub(super) struct ClientDispatch {
    state: Arc<State>,
}

impl ClientDispatch {
    pub(super) fn new(state: Arc<State>) -> Self {
        Self { state }
    }
}

impl Handler for ClientDispatch {
    fn request(
        &self,
        _connection: Connection,
        _id: Id,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<Reply> {
        let state = Arc::clone(&self.state);
        Box::pin(async move { request(&state, &method, params.as_deref()).await })
    }

    fn notification(
        &self,
        connection: Connection,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<()> {
        let state = Arc::clone(&self.state);
        Box::pin(async move { agent_notification(&state, &connection, &method, params.as_deref()) })
    }
}

async fn request(state: &State, method: &str, params: Option<&RawValue>) -> Reply {
    match state.version.get().copied() {
        Some(ProtocolVersion::V1) => match v1::AgentRequest::decode(method, params) {
            Ok(request) => request_v1(state, request).await,
            Err(error) => Reply::error(decode_error(error)),
        },
        Some(_) => match v2::AgentRequest::decode(method, params) {
            Ok(request) => request_v2(state, request).await,
            Err(error) => Reply::error(decode_error(error)),
        },
        None => Reply::error(rpc::invalid_request(format!(
            "`{method}` before the `initialize` response"
        ))),
    }
}

/// The scope of a session this client opened, or the error for a session it did not.
fn scope(state: &State, session: &v1::SessionId) -> Result<SessionScope, ErrorObject> {
    lock(&state.scopes)
        .get(session.as_str())
        .cloned()
        .ok_or_else(|| {
            rpc::invalid_params(format!(
                "unknown session `{}`: this client did not open it",
                session.as_str()
            ))
        })
}

/// The request with the tool kind and title the session's transcript knows, when the request
/// itself gives none (a v1 request may name its tool call by id alone).
fn with_announced(state: &State, mut request: PermissionRequest) -> PermissionRequest {
    if let Some(id) = &request.tool_call_id {
        let transcript = lock(&state.transcript);
        let announced = transcript.tool_call(&request.session_id, id);
        if request.tool_kind.is_none() {
            request.tool_kind = announced.and_then(|call| call.kind.clone());
        }
        if request.title.trim().is_empty() {
            request.title = announced
                .map(|call| call.title.trim())
                .filter(|title| !title.is_empty())
                .unwrap_or(PermissionRequest::UNTITLED)
                .to_owned();
        }
    }
    if request.title.trim().is_empty() {
        PermissionRequest::UNTITLED.clone_into(&mut request.title);
    }
    request
}

/// Puts `action` to the handler; the error to answer with when it is refused.
async fn consent(state: &State, action: Action<'_>) -> Result<(), ErrorObject> {
    let what = match action {
        Action::RunCommand(request) => format!("running `{}`", request.command),
        Action::WriteFile(request) => format!("writing `{}`", request.path.display()),
    };
    match state.handler.approve(action).await {
        Consent::Allowed => Ok(()),
        Consent::Refused(reason) => Err(rpc::internal(format!("{what} was refused: {reason}"))),
    }
}

/// Answers with a service's result, or with its error.
fn answer<T: serde::Serialize>(result: Result<T, ErrorObject>) -> Reply {
    match result {
        Ok(value) => Reply::ok(&value),
        Err(error) => Reply::error(error),
    }
}

/// Runs `call` with the service `service` when the handler offers it; `-32601` otherwise (the
/// capability was not advertised either).
macro_rules! serve {
    ($state:expr, $accessor:ident, $method:expr, |$service:ident| $call:expr) => {
        match $state.handler.$accessor() {
            Some($service) => $call,
            None => Reply::error(rpc::method_not_found($method)),
        }
    };
}

/// Declares `$name`, the handling of one version's agent requests: the permission
/// request and elicitation alike for both versions, then the version's own `$arms` (written
/// with `$state` and `$method`), the rest in [`super::draft_methods`]. `$side` and `$wrong`
/// are the [`ByVersion`] sides of this version and the other; `$mixed` the error when the
/// elicitation service answers in the other version.
macro_rules! agent_requests {
    (
        $name:ident, $version:ident, $from:ident, $to:ident, $side:ident, $wrong:ident,
        $mixed:literal, |$state:ident, $method:ident| { $($arms:tt)* }
    ) => {
        async fn $name($state: &State, request: $version::AgentRequest) -> Reply {
            use $version::AgentRequest as R;
            let $method = request.method().to_owned();
            match request {
                R::SessionRequestPermission(request) => {
                    let question = with_announced($state, PermissionRequest::$from(&request));
                    let decision = $state.handler.request_permission(question).await;
                    Reply::ok(&decision.$to())
                }
                R::ElicitationCreate(request) => serve!($state, elicitation, &$method, |service| {
                    match service.create(ByVersion::$side(request)).await {
                        Ok(ByVersion::$side(response)) => Reply::ok(&response),
                        Ok(ByVersion::$wrong(_)) => Reply::error(rpc::internal($mixed)),
                        Err(error) => Reply::error(error),
                    }
                }),
                $($arms)*
                other => super::draft_methods::$name($state, other).await,
            }
        }
    };
}

agent_requests!(
    request_v1, v1, from_v1, to_v1, V1, V2,
    "the client answered a v1 elicitation with a v2 response",
    |state, method| {
        R::FsReadTextFile(request) => serve!(state, file_reader, &method, |reader| {
            let read = match scope(state, &request.session_id) {
                Ok(scope) => reader.read_text_file(ReadTextFile {
                    scope,
                    path: request.path.clone().into(),
                    line: request.line,
                    limit: request.limit,
                }),
                Err(error) => return Reply::error(error),
            };
            answer(read.await.map(v1::ReadTextFileResponse::new))
        }),
        R::FsWriteTextFile(request) => serve!(state, file_writer, &method, |writer| {
            let write = match scope(state, &request.session_id) {
                Ok(scope) => WriteTextFile::new(scope, &request.path, request.content.clone()),
                Err(error) => return Reply::error(error),
            };
            let write = match consent(state, Action::WriteFile(&write)).await {
                Ok(()) => writer.write_text_file(write.approve()),
                Err(error) => return Reply::error(error),
            };
            answer(write.await.map(|()| v1::WriteTextFileResponse::new()))
        }),
        R::TerminalCreate(request) => serve!(state, terminals, &method, |terminals| {
            let mut create = match scope(state, &request.session_id) {
                Ok(scope) => CreateTerminal::new(scope, request.command.clone()),
                Err(error) => return Reply::error(error),
            };
            create.args.clone_from(&request.args);
            create.env = request
                .env
                .iter()
                .map(|var| (var.name.clone(), var.value.clone()))
                .collect();
            create.cwd = request.cwd.as_ref().map(Into::into);
            create.output_byte_limit = request.output_byte_limit;
            let create = match consent(state, Action::RunCommand(&create)).await {
                Ok(()) => terminals.create(create.approve()),
                Err(error) => return Reply::error(error),
            };
            answer(create.await.map(v1::CreateTerminalResponse::new))
        }),
        R::TerminalOutput(request) => serve!(state, terminals, &method, |terminals| {
            let output = match terminal_ref(state, &request.session_id, &request.terminal_id) {
                Ok(terminal) => terminals.output(terminal),
                Err(error) => return Reply::error(error),
            };
            answer(output.await.map(|output| {
                let response = v1::TerminalOutputResponse::new(output.output, output.truncated);
                match output.exit {
                    Some(exit) => response.exit_status(exit_status(&exit)),
                    None => response,
                }
            }))
        }),
        R::TerminalWaitForExit(request) => serve!(state, terminals, &method, |terminals| {
            let wait = match terminal_ref(state, &request.session_id, &request.terminal_id) {
                Ok(terminal) => terminals.wait_for_exit(terminal),
                Err(error) => return Reply::error(error),
            };
            answer(wait.await.map(|exit| {
                let mut response = v1::WaitForTerminalExitResponse::new();
                response.exit_code = exit.exit_code;
                response.signal = exit.signal;
                response
            }))
        }),
        R::TerminalKill(request) => serve!(state, terminals, &method, |terminals| {
            let kill = match terminal_ref(state, &request.session_id, &request.terminal_id) {
                Ok(terminal) => terminals.kill(terminal),
                Err(error) => return Reply::error(error),
            };
            answer(kill.await.map(|()| v1::KillTerminalResponse::new()))
        }),
        R::TerminalRelease(request) => serve!(state, terminals, &method, |terminals| {
            let release = match terminal_ref(state, &request.session_id, &request.terminal_id) {
                Ok(terminal) => terminals.release(terminal),
                Err(error) => return Reply::error(error),
            };
            answer(release.await.map(|()| v1::ReleaseTerminalResponse::new()))
        }),
    }
);

agent_requests!(
    request_v2,
    v2,
    from_v2,
    to_v2,
    V2,
    V1,
    "the client answered a v2 elicitation with a v1 response",
    |state, method| {}
);

fn terminal_ref(
    state: &State,
    session: &v1::SessionId,
    terminal: &v1::TerminalId,
) -> Result<TerminalRef, ErrorObject> {
    Ok(TerminalRef {
        scope: scope(state, session)?,
        terminal_id: terminal.as_str().to_owned(),
    })
}

fn exit_status(exit: &TerminalExit) -> v1::TerminalExitStatus {
    let mut status = v1::TerminalExitStatus::new();
    status.exit_code = exit.exit_code;
    status.signal.clone_from(&exit.signal);
    status
}

/// A notice arrived: show it, or count and log why not. Returns whether it was shown.
fn admit_notice(state: &State, connection: &Connection, session: &str, advertised: bool) -> bool {
    if !state.notices_enabled {
        if advertised {
            state.unadvertised.fetch_add(1, Ordering::Relaxed);
            connection.logger().log(
                Level::Warn,
                format!("protocol violation: a notice for session `{session}` although `session.notices` was not advertised; ignored"),
            );
        }
        return false;
    }
    if state.is_replaying(session) {
        state.during_replay.fetch_add(1, Ordering::Relaxed);
        connection.logger().log(
            Level::Warn,
            format!(
                "protocol violation: a notice for session `{session}` during a replay; ignored"
            ),
        );
        return false;
    }
    true
}

/// Decodes one version's agent notification (`$version`, its [`ByVersion`] side `$side`) into
/// the session notification it carries; `None` when it carried something else, which is
/// handled here (an elicitation's completion, the unstable notifications by `$unstable`), or
/// did not decode (logged and ignored).
macro_rules! session_update {
    ($version:ident, $side:ident, $unstable:ident, $state:expr, $connection:expr, $method:expr, $params:expr) => {
        match $version::AgentNotification::decode($method, $params) {
            Ok($version::AgentNotification::SessionUpdate(notification)) => Some(notification),
            Ok($version::AgentNotification::ElicitationComplete(done)) => {
                if let Some(service) = $state.handler.elicitation() {
                    service.complete(ByVersion::$side(done));
                }
                None
            }
            Ok(other) => {
                super::draft_methods::$unstable($state, other);
                None
            }
            Err(error) => {
                $connection
                    .logger()
                    .log(Level::Warn, format!("ignored a notification: {error}"));
                None
            }
        }
    };
}

/// A notification from the agent, in the connection's version (none before the `initialize`
/// response).
fn agent_notification(
    state: &State,
    connection: &Connection,
    method: &str,
    params: Option<&RawValue>,
) {
    match state.version.get().copied() {
        Some(ProtocolVersion::V1) => {
            let update =
                session_update!(v1, V1, notification_v1, state, connection, method, params);
            if let Some(notification) = update {
                session_update_v1(state, connection, notification);
            }
        }
        Some(_) => {
            let update =
                session_update!(v2, V2, notification_v2, state, connection, method, params);
            if let Some(notification) = update {
                session_update_v2(state, connection, notification);
            }
        }
        None => connection.logger().log(
            Level::Warn,
            format!("ignored `{method}` received before the `initialize` response"),
        ),
    }
}

/// A session update of v1.
fn session_update_v1(
    state: &State,
    connection: &Connection,
    notification: v1::SessionNotification,
) {
    let session = notification.session_id.as_str();
    if notification.update.is_live_only() {
        // v1 counts a notice without the capability as a violation.
        if admit_notice(state, connection, session, true) {
            let now = (state.clock)();
            lock(&state.notices).push_v1(&notification, now);
            state.changed();
        }
        return;
    }
    if let Ok(update) = v1::ReplayableUpdate::try_from(notification.update) {
        lock(&state.transcript).apply_v1(session, &update);
        state.changed();
    }
}

/// A session update of v2.
fn session_update_v2(
    state: &State,
    connection: &Connection,
    notification: v2::UpdateSessionNotification,
) {
    let session = notification.session_id.as_str().to_owned();
    if notification.update.is_live_only() {
        // v2 has no capability: a client without a notice center just ignores notices.
        if admit_notice(state, connection, &session, false) {
            let now = (state.clock)();
            lock(&state.notices).push_v2(&notification, now);
            state.changed();
        }
        return;
    }
    match &notification.update {
        v2::SessionUpdate::ReplayComplete(_) => {
            state.end_replay(&session);
            return;
        }
        v2::SessionUpdate::StateUpdate(state_update) => {
            if let v2::StateUpdate::Idle(idle) = &**state_update {
                let outcome = match &idle.stop_reason {
                    Some(v2::IdleStopReason::Error(error)) => Err(turn_error(error.error.as_ref())),
                    Some(stop) => Ok(stop_from_v2(stop)),
                    None => Ok(StopReason::EndTurn),
                };
                if let Some(waiter) = lock(&state.turns).remove(&session) {
                    let _ = waiter.send(outcome);
                }
            }
        }
        _ => {}
    }
    if let Ok(update) = v2::ReplayableUpdate::try_from(notification.update) {
        lock(&state.transcript).apply_v2(&session, &update);
        state.changed();
    }
}

/// The error a v2 turn ended with, as a JSON-RPC error object (code, message and data kept).
fn turn_error(error: Option<&v2::Error>) -> ErrorObject {
    let Some(error) = error else {
        return rpc::internal("the agent ended the turn with an error and gave no detail");
    };
    let object = ErrorObject::new(error.code.code(), error.message.clone());
    match error
        .data
        .as_ref()
        .and_then(|data| serde_json::to_value(data).ok())
    {
        Some(data) => object.data(data),
        None => object,
    }
}

fn stop_from_v2(stop: &v2::IdleStopReason) -> StopReason {
    match stop {
        v2::IdleStopReason::MaxTokens => StopReason::MaxTokens,
        v2::IdleStopReason::MaxTurnRequests => StopReason::MaxTurnRequests,
        v2::IdleStopReason::Refusal => StopReason::Refusal,
        v2::IdleStopReason::Cancelled => StopReason::Cancelled,
        other => StopReason::from_wire(other.tag()),
    }
}
