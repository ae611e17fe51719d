//! Routing of incoming messages on a client connection: session updates to the notice
//! center or the transcript, permission requests to the application's handler.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use acp_schema::jsonrpc::{Id, RawValue};
use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};

use super::state::State;
use super::{PermissionChoice, PermissionDecision, PermissionRequest};
use crate::agent::StopReason;
use crate::agent::decode_error;
use crate::connection::{BoxFuture, Connection, Handler, Reply, lock};
use crate::error::rpc;
use crate::log::Level;

/// The connection handler of a client.
pub(super) struct ClientHandler {
    state: Arc<State>,
}

impl ClientHandler {
    pub(super) fn new(state: Arc<State>) -> Self {
        Self { state }
    }
}

impl Handler for ClientHandler {
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
        Box::pin(async move {
            match state.version.get().copied() {
                Some(ProtocolVersion::V1) => {
                    notification_v1(&state, &connection, &method, params.as_deref())
                }
                Some(_) => notification_v2(&state, &connection, &method, params.as_deref()),
                None => connection.logger().log(
                    Level::Warn,
                    format!("ignored `{method}` received before the `initialize` response"),
                ),
            }
        })
    }
}

async fn request(state: &State, method: &str, params: Option<&RawValue>) -> Reply {
    match state.version.get().copied() {
        Some(ProtocolVersion::V1) => match v1::AgentRequest::decode(method, params) {
            Ok(v1::AgentRequest::SessionRequestPermission(request)) => {
                let question = PermissionRequest {
                    session_id: request.session_id.as_str().to_owned(),
                    title: request
                        .tool_call
                        .title
                        .clone()
                        .unwrap_or_else(|| "Allow this action?".to_owned()),
                    options: request
                        .options
                        .iter()
                        .map(|option| PermissionChoice {
                            id: option.option_id.as_str().to_owned(),
                            name: option.name.clone(),
                            kind: json_word(&option.kind),
                        })
                        .collect(),
                };
                let outcome = match (state.permissions)(question).await {
                    PermissionDecision::Selected(id) => v1::RequestPermissionOutcome::Selected(
                        v1::SelectedPermissionOutcome::new(id),
                    ),
                    PermissionDecision::Cancelled => v1::RequestPermissionOutcome::Cancelled,
                };
                Reply::ok(&v1::RequestPermissionResponse::new(outcome))
            }
            Ok(other) => Reply::error(rpc::method_not_found(other.method())),
            Err(error) => Reply::error(decode_error(error)),
        },
        Some(_) => match v2::AgentRequest::decode(method, params) {
            Ok(v2::AgentRequest::SessionRequestPermission(request)) => {
                let question = PermissionRequest {
                    session_id: request.session_id.as_str().to_owned(),
                    title: request.title.clone(),
                    options: request
                        .options
                        .iter()
                        .map(|option| PermissionChoice {
                            id: option.option_id.as_str().to_owned(),
                            name: option.name.clone(),
                            kind: option.kind.as_str().to_owned(),
                        })
                        .collect(),
                };
                let outcome = match (state.permissions)(question).await {
                    PermissionDecision::Selected(id) => v2::RequestPermissionOutcome::Selected(
                        v2::SelectedPermissionOutcome::new(id),
                    ),
                    PermissionDecision::Cancelled => v2::RequestPermissionOutcome::Cancelled(
                        v2::CancelledPermissionOutcome::new(),
                    ),
                };
                Reply::ok(&v2::RequestPermissionResponse::new(outcome))
            }
            Ok(other) => Reply::error(rpc::method_not_found(other.method())),
            Err(error) => Reply::error(decode_error(error)),
        },
        None => Reply::error(rpc::invalid_request(format!(
            "`{method}` before the `initialize` response"
        ))),
    }
}

fn json_word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(word)) => word,
        _ => "unknown".to_owned(),
    }
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

fn notification_v1(
    state: &State,
    connection: &Connection,
    method: &str,
    params: Option<&RawValue>,
) {
    let notification = match v1::AgentNotification::decode(method, params) {
        Ok(v1::AgentNotification::SessionUpdate(notification)) => notification,
        Ok(_) => return,
        Err(error) => {
            connection
                .logger()
                .log(Level::Warn, format!("ignored a notification: {error}"));
            return;
        }
    };
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

fn notification_v2(
    state: &State,
    connection: &Connection,
    method: &str,
    params: Option<&RawValue>,
) {
    let notification = match v2::AgentNotification::decode(method, params) {
        Ok(v2::AgentNotification::SessionUpdate(notification)) => notification,
        Ok(_) => return,
        Err(error) => {
            connection
                .logger()
                .log(Level::Warn, format!("ignored a notification: {error}"));
            return;
        }
    };
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
                    Some(v2::IdleStopReason::Error(error)) => {
                        Err(error.error.as_ref().map_or_else(
                            || "the agent reported an error".to_owned(),
                            |e| e.message.clone(),
                        ))
                    }
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

fn stop_from_v2(stop: &v2::IdleStopReason) -> StopReason {
    match stop {
        v2::IdleStopReason::MaxTokens => StopReason::MaxTokens,
        v2::IdleStopReason::MaxTurnRequests => StopReason::MaxTurnRequests,
        v2::IdleStopReason::Refusal => StopReason::Refusal,
        v2::IdleStopReason::Cancelled => StopReason::Cancelled,
        other => StopReason::from_wire(other.tag()),
    }
}
