//! The receiving half: reads lines, routes requests, notifications and responses, answers
//! bad lines, and closes the connection at the end of the input.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use acp_schema::jsonrpc::{Id, Message, RawValue, Request};
use tokio::io::{AsyncRead, BufReader};
use tokio::sync::{Semaphore, oneshot};
use tokio::task::JoinHandle;

use super::head::{Head, Kind};
use super::{Connection, ConnectionBuilder, Handler, State, lock};
use crate::error::rpc;
use crate::log::Level;
use crate::transport::lines::{Line, LineReader};

/// The method of the protocol-level cancellation notification.
pub(crate) const CANCEL_REQUEST: &str = "$/cancel_request";

/// The incoming requests that may be handled at the same time.
struct Permits {
    semaphore: Arc<Semaphore>,
    limit: usize,
}

pub(super) async fn read_loop<R: AsyncRead + Unpin, H: Handler>(
    reader: R,
    options: ConnectionBuilder,
    handler: Arc<H>,
    connection: Connection,
    writer: JoinHandle<()>,
) {
    let mut lines = LineReader::new(BufReader::new(reader), options.max_line_bytes);
    let permits = Permits {
        semaphore: Arc::new(Semaphore::new(options.max_in_flight)),
        limit: options.max_in_flight,
    };
    let mut closing = connection.shared.state.subscribe();
    let mut end_of_input = false;
    loop {
        let line = tokio::select! {
            line = lines.next() => line,
            // Closed by us, or the writer failed: nobody can hear us any more.
            _ = closing.wait_for(|state| *state != State::Open) => break,
        };
        match line {
            Ok(Line::Eof) => {
                end_of_input = true;
                break;
            }
            Err(error) => {
                connection.logger().log(
                    Level::Warn,
                    format!("reading from the peer failed: {error}"),
                );
                break;
            }
            Ok(Line::TooLong { len, head }) => {
                too_long(&connection, len, options.max_line_bytes, &head).await;
            }
            Ok(Line::Text(text)) => {
                handle_line(&connection, &handler, &permits, &text).await;
            }
        }
    }
    if end_of_input {
        drain(&connection, &permits, options.drain_timeout).await;
    }
    connection.begin_close();
    let _ = writer.await;
    connection.shared.state.send_replace(State::Closed);
}

/// The peer's input has ended: lets the requests it sent finish (their permits all come
/// back), for at most `timeout`, while their answers are still written.
async fn drain(connection: &Connection, permits: &Permits, timeout: std::time::Duration) {
    connection.end_input();
    let all = u32::try_from(permits.limit).unwrap_or(u32::MAX);
    let mut closing = connection.shared.state.subscribe();
    tokio::select! {
        _ = permits.semaphore.acquire_many(all) => {}
        // Closed by us, or the writer failed.
        _ = closing.wait_for(|state| state.closing()) => {}
        () = tokio::time::sleep(timeout) => connection.logger().log(
            Level::Warn,
            format!(
                "the peer's input ended; requests still running after {timeout:?} were dropped"
            ),
        ),
    }
}

/// A line over the limit: its head says what it was. A response fails its request now (it
/// would otherwise wait for the connection to close), a request is refused with its id, a
/// notification is only logged, and anything else is answered as before with id `null`.
async fn too_long(connection: &Connection, len: usize, limit: usize, head: &[u8]) {
    let detail = format!("message of {len} bytes exceeds the limit of {limit} bytes");
    match Head::read(head).kind() {
        Kind::Response(id) => {
            skipped(
                connection,
                format!("the response to request {id}: {detail}"),
            );
            connection.fail_too_long(&id, len, limit);
        }
        Kind::Request(id) => bad_line(connection, id, rpc::invalid_request(detail)).await,
        Kind::Notification => skipped(connection, format!("a notification: {detail}")),
        Kind::Unknown => bad_line(connection, Id::Null, rpc::invalid_request(detail)).await,
    }
}

/// Counts and logs an incoming line that was skipped; `what` says what it was and why.
fn skipped(connection: &Connection, what: String) {
    connection
        .shared
        .stats
        .bad_lines
        .fetch_add(1, Ordering::Relaxed);
    connection
        .logger()
        .log(Level::Warn, format!("skipped {what}"));
}

/// Skips a line and answers it with `error`.
async fn bad_line(connection: &Connection, id: Id, error: acp_schema::jsonrpc::ErrorObject) {
    skipped(connection, format!("an incoming line: {}", error.message));
    let _ = connection.respond(id, Err(error)).await;
}

async fn handle_line<H: Handler>(
    connection: &Connection,
    handler: &Arc<H>,
    permits: &Permits,
    text: &[u8],
) {
    match serde_json::from_slice::<Message>(text) {
        Ok(Message::Request(request)) => start_request(connection, handler, permits, request).await,
        Ok(Message::Notification(notification)) => {
            if notification.method == CANCEL_REQUEST {
                cancel_in_flight(connection, notification.params.as_deref()).await;
            } else {
                handler
                    .notification(connection.clone(), notification.method, notification.params)
                    .await;
            }
        }
        Ok(Message::Response(response)) => connection.complete(response),
        Ok(_) => {}
        Err(error) if error.is_data() => {
            // Valid JSON, but not a JSON-RPC message. Answer unless it looks like a response
            // (answering a broken response could start an endless exchange of errors).
            let value: serde_json::Value = serde_json::from_slice(text).unwrap_or_default();
            let object = value.as_object();
            let id = object
                .and_then(|object| object.get("id"))
                .and_then(|id| serde_json::from_value::<Id>(id.clone()).ok())
                .unwrap_or(Id::Null);
            let looks_like_response = object.is_some_and(|object| {
                !object.contains_key("method")
                    && (object.contains_key("result") || object.contains_key("error"))
            });
            let error = rpc::invalid_request(error);
            if looks_like_response {
                skipped(
                    connection,
                    format!("an invalid response: {}", error.message),
                );
            } else {
                bad_line(connection, id, error).await;
            }
        }
        Err(error) => bad_line(connection, Id::Null, rpc::parse_error(error)).await,
    }
}

async fn start_request<H: Handler>(
    connection: &Connection,
    handler: &Arc<H>,
    permits: &Permits,
    request: Request,
) {
    // Refuse rather than wait: the reader must keep going, because the handlers in flight may
    // be waiting for answers from the peer that only the reader can deliver.
    let Ok(permit) = permits.semaphore.clone().try_acquire_owned() else {
        let limit = permits.limit;
        connection.logger().log(
            Level::Warn,
            format!(
                "refused `{}` (id {}): {limit} requests already in flight",
                request.method, request.id
            ),
        );
        let refusal = rpc::internal(format!(
            "too many requests in flight (at most {limit}); send it again once one has been answered"
        ));
        let _ = connection.respond(request.id, Err(refusal)).await;
        return;
    };
    let (cancel_tx, cancel_rx) = oneshot::channel::<()>();
    let duplicate = {
        let mut in_flight = lock(&connection.shared.in_flight);
        if in_flight.contains_key(&request.id) {
            true
        } else {
            in_flight.insert(request.id.clone(), cancel_tx);
            false
        }
    };
    if duplicate {
        bad_line(
            connection,
            request.id.clone(),
            rpc::invalid_request(format!(
                "request id {} is already in use by a request in flight",
                request.id
            )),
        )
        .await;
        return;
    }
    let id = request.id;
    let work = handler.request(
        connection.clone(),
        id.clone(),
        request.method,
        request.params,
    );
    let connection = connection.clone();
    tokio::spawn(async move {
        let _permit = permit;
        let reply = tokio::select! {
            reply = work => reply,
            // Cancelled (the canceller answers), or the connection closed.
            _ = cancel_rx => return,
        };
        let ours = lock(&connection.shared.in_flight).remove(&id).is_some();
        if !ours {
            return;
        }
        if connection.respond(id, reply.result).await.is_ok() {
            // The follow-up work (a v2 turn) keeps the slot, so that the end of the input
            // waits for it too.
            if let Some(then) = reply.then {
                then.await;
            }
        }
    });
}

async fn cancel_in_flight(connection: &Connection, params: Option<&RawValue>) {
    let params = params.map_or("{}", RawValue::get);
    let Ok(cancel) = serde_json::from_str::<acp_schema::v1::CancelRequestNotification>(params)
    else {
        connection.logger().log(
            Level::Warn,
            "ignored a `$/cancel_request` with invalid params",
        );
        return;
    };
    let id = Id::from(cancel.request_id);
    let cancelled = lock(&connection.shared.in_flight).remove(&id);
    match cancelled {
        Some(cancel) => {
            let _ = cancel.send(());
            let _ = connection.respond(id, Err(rpc::request_cancelled())).await;
        }
        None => connection.logger().log(
            Level::Debug,
            format!("`$/cancel_request` for {id}, which is not in flight"),
        ),
    }
}
