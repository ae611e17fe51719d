//! Prompt turns, by the lifecycle of each version.
//!
//! Both versions: a session runs one turn at a time; a prompt that arrives while one runs is
//! held (in arrival order) and answered `-32800` when a `session/cancel` or `session/close`
//! comes before its turn starts. A turn holds the session's lease in the store while it runs
//! (see [`lease`](crate::agent::lease)): a prompt for a session whose turn runs in another
//! process sharing the store is answered `-32010` at once. The content must be of kinds the agent advertised
//! (`-32602`). The user's message is recorded before the agent sees it. Once `session/cancel`
//! arrived, the turn ends `cancelled`, whatever the agent's handler returns afterwards (an
//! error included), and the updates it still sends go out before the end of the turn.
//!
//! * v1: the `session/prompt` response carries the stop reason, when the handler returns.
//! * v2: the response carries the user message's `messageId` as soon as it is inserted; then
//!   the message is echoed as a `user_message` update with that id, the turn runs framed by
//!   `state_update` `running` and `idle` (with the stop reason; an error of the handler is the
//!   `error` stop reason). A retry with the same `idempotencyKey` gets the same `messageId`
//!   and inserts nothing.

use std::sync::Arc;

use acptk_schema::{v1, v2};

use acptk_schema::jsonrpc::ErrorObject;

use super::{Arrival, Inner, store_error};
use crate::agent::features::PromptContent;
use crate::agent::ids::fresh_id;
use crate::agent::lease::TurnLease;
use crate::agent::open_sessions::TurnGuard;
use crate::agent::setup::prompt_text;
use crate::agent::turn::Turn;
use crate::agent::{Agent, Prompt, Session, StopReason};
use crate::connection::{BoxFuture, Reply};
use crate::log::Level;
use crate::rpc;
use crate::version::ByVersion;

/// How a turn's handler ended.
enum Ended {
    /// It returned before the turn was cancelled.
    Returned(Result<StopReason, ErrorObject>),
    /// The turn was cancelled; the rest of the handler, when it still runs, is driven after
    /// the stop was sent (its calls fail with [`crate::Error::Cancelled`]).
    Cancelled(Option<BoxFuture<()>>),
}

/// Runs the prompt handler until it returns or the turn is cancelled. On a cancellation it
/// goes on polling the handler until no admitted call of the turn is still sending (a request
/// it gives up is cancelled meanwhile with `$/cancel_request`), so that nothing of the turn
/// can follow its stop.
async fn run<A: Agent>(agent: Arc<A>, session: Session, prompt: Prompt, turn: &Turn) -> Ended {
    let mut handler: BoxFuture<Result<StopReason, ErrorObject>> =
        Box::pin(async move { agent.prompt(session, prompt).await });
    tokio::select! {
        biased;
        result = &mut handler => return Ended::Returned(result),
        () = turn.cancelled() => {}
    }
    tokio::select! {
        biased;
        _ = &mut handler => return Ended::Cancelled(None),
        () = turn.settled() => {}
    }
    Ended::Cancelled(Some(Box::pin(async move {
        let _ = handler.await;
    })))
}

/// Ends a turn: the stop reason (`cancelled` once the turn was cancelled, or when the
/// handler ended with the cancellation's error), the tool calls it left open closed, and the
/// turn marked over. Returns the stop (or the handler's error) and the rest of the handler.
async fn end(
    session: &Session,
    turn: &Turn,
    ended: Ended,
) -> (Result<StopReason, ErrorObject>, Option<BoxFuture<()>>) {
    let (result, rest) = match ended {
        Ended::Returned(result) => (result, None),
        Ended::Cancelled(rest) => (Ok(StopReason::Cancelled), rest),
    };
    let result = match result {
        _ if turn.is_cancelled() => Ok(StopReason::Cancelled),
        Err(error) if rpc::is_turn_cancelled(&error) => Ok(StopReason::Cancelled),
        other => other,
    };
    // Everything the turn sent is recorded and on its way before its stop; a write that
    // failed and that no call of the handler reported ends the turn with the store's error.
    let flushed = session.flush().await;
    session.close_open_tools(turn).await;
    let result = match flushed.and(session.flush().await) {
        Err(error) if result.is_ok() => Err(ErrorObject::from(error)),
        _ => result,
    };
    turn.end();
    (result, rest)
}

/// The turn's handler session, the prompt, the held slot and the session's lease in the
/// store, once the prompt was inserted.
struct Started {
    session: Session,
    turn: Arc<Turn>,
    guard: TurnGuard,
    lease: TurnLease,
}

/// Waits for the session's turn slot, takes the session's lease in the store and starts the
/// turn; or the reply: `-32800` when a cancellation came first, `-32010` when the session's
/// turn runs in another process, `-32011` when the server is shutting down.
async fn start<A: Agent>(
    inner: &Inner<A>,
    session: &Session,
    arrival: Option<Arrival>,
) -> Result<Started, Reply> {
    let state = Arc::clone(session.state());
    let arrived = arrival.map_or_else(|| state.epoch(), |arrival| arrival.epoch);
    let Some(guard) = state.hold(arrived).await else {
        return Err(Reply::error(rpc::request_cancelled()));
    };
    let lease = take_lease(inner, session).await?;
    let turn = state.start_turn(&guard);
    Ok(Started {
        session: session.for_turn(Arc::clone(&turn)),
        turn,
        guard,
        lease,
    })
}

/// The open session a prompt names, once `check` found the prompt within what the
/// connection's offer says a prompt may hold; or the reply that refuses the prompt.
fn prompted<A: Agent>(
    inner: &Inner<A>,
    id: &str,
    check: impl FnOnce(&PromptContent) -> Result<(), String>,
) -> Result<Session, Reply> {
    let session = inner.open_session(id)?;
    let Some(init) = inner.initialized() else {
        return Err(Reply::error(rpc::internal(
            "the connection is not initialised",
        )));
    };
    check(&init.offer.features().prompt)
        .map_err(|detail| Reply::error(rpc::invalid_params(detail)))?;
    Ok(session)
}

/// `session/prompt` in v1.
pub(super) async fn prompt_v1<A: Agent>(
    inner: &Inner<A>,
    request: v1::PromptRequest,
    arrival: Option<Arrival>,
) -> Reply {
    let checked = prompted(inner, request.session_id.as_str(), |content| {
        content.check_v1(&request.prompt)
    });
    let session = match checked {
        Ok(session) => session,
        Err(reply) => return reply,
    };
    let started = match start(inner, &session, arrival).await {
        Ok(started) => started,
        Err(reply) => return reply,
    };
    let message_id = fresh_id("msg");
    for block in &request.prompt {
        let chunk = v1::ContentChunk::new(block.clone()).message_id(message_id.as_str());
        let recorded = session
            .record(ByVersion::V1(v1::ReplayableUpdate::UserMessageChunk(chunk)))
            .await;
        if let Err(error) = recorded {
            return Reply::error(rpc::internal(error));
        }
    }
    touch(&session).await;
    let prompt = Prompt {
        text: prompt_text(request.prompt.iter().filter_map(v1::ContentBlock::as_text)),
        message_id,
        request: ByVersion::V1(request),
    };
    let Started {
        session,
        turn,
        guard,
        lease,
    } = started;
    let ended = run(Arc::clone(&inner.agent), session.clone(), prompt, &turn).await;
    let (result, rest) = end(&session, &turn, ended).await;
    lease.release().await;
    guard.finish();
    drop(guard);
    let reply = match result {
        Ok(stop) => Reply::ok(&v1::PromptResponse::new(stop.to_v1())),
        Err(error) => Reply::error(error),
    };
    match rest {
        Some(rest) => reply.then(rest),
        None => reply,
    }
}

/// `session/prompt` in v2.
pub(super) async fn prompt_v2<A: Agent>(
    inner: &Inner<A>,
    request: v2::PromptRequest,
    arrival: Option<Arrival>,
) -> Reply {
    let checked = prompted(inner, request.session_id.as_str(), |content| {
        if request.prompt.is_empty() {
            return Err("the prompt has no content".to_owned());
        }
        content.check_v2(&request.prompt)
    });
    let session = match checked {
        Ok(session) => session,
        Err(reply) => return reply,
    };
    let state = Arc::clone(session.state());
    let key = request
        .idempotency_key
        .as_ref()
        .map(|key| key.as_str().to_owned());
    if let Some(key) = &key {
        match state.key(key).await {
            Ok(Some(message_id)) => return Reply::ok(&v2::PromptResponse::new(message_id)),
            Ok(None) => {}
            Err(error) => return Reply::error(store_error(&error)),
        }
    }
    let started = match start(inner, &session, arrival).await {
        Ok(started) => started,
        Err(reply) => return reply,
    };
    let message_id = fresh_id("msg");
    let user_message = v2::UserMessage::new(message_id.as_str()).content(request.prompt.clone());
    let recorded = session
        .record(ByVersion::V2(v2::ReplayableUpdate::UserMessage(
            user_message.clone(),
        )))
        .await;
    if let Err(error) = recorded {
        // Not inserted: the prompt fails, and no update about it is sent.
        return Reply::error(rpc::internal(error));
    }
    if let Some(key) = &key
        && let Err(error) = state.remember_key(key, &message_id).await
    {
        session.connection().logger().log(
            Level::Warn,
            format!(
                "session `{}`: the idempotency key was not recorded: {error}",
                state.id
            ),
        );
    }
    touch(&session).await;
    let prompt = Prompt {
        text: prompt_text(request.prompt.iter().filter_map(v2::ContentBlock::as_text)),
        message_id: message_id.clone(),
        request: ByVersion::V2(request),
    };
    let agent = Arc::clone(&inner.agent);
    Reply::ok(&v2::PromptResponse::new(message_id)).then(async move {
        let Started {
            session: handler_session,
            turn,
            guard,
            lease,
        } = started;
        // The echo of the inserted message, with the id of the response.
        if session.send_v2_live(user_message.into()).await.is_err() {
            return;
        }
        let running = v2::StateUpdate::Running(v2::RunningStateUpdate::new());
        if session.send_state(running).await.is_err() {
            return;
        }
        let ended = run(agent, handler_session, prompt, &turn).await;
        let (result, rest) = end(&session, &turn, ended).await;
        lease.release().await;
        let stop = match result {
            Ok(stop) => stop.to_v2(),
            Err(error) => v2::IdleStopReason::Error(
                v2::ErrorStopReason::new().error(v2::Error::new(error.code, error.message)),
            ),
        };
        let idle = v2::StateUpdate::Idle(v2::IdleStateUpdate::new().stop_reason(stop));
        let _ = session.send_state(idle).await;
        guard.finish();
        drop(guard);
        if let Some(rest) = rest {
            rest.await;
        }
    })
}

/// The lease of the session's turn, or the reply when the store refuses it (`-32010` when
/// the session's turn runs in another process) or the server is shutting down (`-32011`).
async fn take_lease<A: Agent>(
    inner: &Inner<A>,
    session: &crate::agent::Session,
) -> Result<TurnLease, Reply> {
    if inner.owned.is_draining() {
        return Err(Reply::error(rpc::shutting_down()));
    }
    let logger = session.connection().logger().clone();
    TurnLease::take(session.state(), inner.shared.lease, logger)
        .await
        .map_err(|error| Reply::error(store_error(&error)))
}

/// Marks the session active now (its place in `session/list`); a failure is only logged,
/// since the prompt itself is recorded.
async fn touch(session: &crate::agent::Session) {
    if let Err(error) = session.state().update_meta(|_| {}).await {
        session.connection().logger().log(
            Level::Warn,
            format!(
                "session `{}`: its activity time was not saved: {error}",
                session.id()
            ),
        );
    }
}
