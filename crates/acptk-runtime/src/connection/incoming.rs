//! The receiving half: reads messages, routes requests, notifications and responses (alone or
//! in JSON-RPC batches), answers bad messages, and closes the connection at the end of the
//! input.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use acptk_schema::jsonrpc::{ErrorObject, Id, Message, RawValue, Request, Response};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio::task::JoinHandle;

use super::batch::{Batch, refuse_batch};
use super::head::{Head, Kind};
use super::skipped::{bad_message, skipped};
use super::{Connection, ConnectionBuilder, Handler, Reply, State};
use crate::lock::lock;
use crate::log::Level;
use crate::rpc;
use crate::transport::{Frame, MessageReader};

/// The method of the protocol-level cancellation notification.
pub(crate) const CANCEL_REQUEST: &str = "$/cancel_request";

/// The incoming requests that may be handled at the same time: by number and by size.
pub(super) struct Permits {
    semaphore: Arc<Semaphore>,
    limit: usize,
    bytes: Arc<Semaphore>,
    byte_limit: u32,
}

/// Where the answer to a request goes: straight to the peer, or into the array answering the
/// batch it came in.
pub(super) enum Answer {
    Single,
    Batch(Arc<Batch>),
}

pub(super) async fn read_loop<R: MessageReader, H: Handler>(
    mut reader: R,
    options: ConnectionBuilder,
    handler: Arc<H>,
    connection: Connection,
    writer: JoinHandle<()>,
) {
    let byte_limit = u32::try_from(options.max_in_flight_bytes).unwrap_or(u32::MAX);
    let permits = Permits {
        semaphore: Arc::new(Semaphore::new(options.max_in_flight)),
        limit: options.max_in_flight,
        bytes: Arc::new(Semaphore::new(byte_limit as usize)),
        byte_limit,
    };
    let mut closing = connection.shared.state.subscribe();
    let mut end_of_input = false;
    loop {
        // While the outgoing queue is full (the peer does not take what we send), nothing more
        // is read from the peer: it is slowed down instead of making us hold more.
        let outgoing = &connection.shared.outgoing;
        let frame = tokio::select! {
            frame = async {
                outgoing.room().await;
                reader.read().await
            } => frame,
            // Closed by us, or the writer failed: nobody can hear us any more.
            _ = closing.wait_for(|state| *state != State::Open) => break,
        };
        match frame {
            Ok(Frame::End) => {
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
            Ok(Frame::TooLong { len, head }) => {
                too_long(&connection, len, options.max_line_bytes, &head).await;
            }
            Ok(Frame::Message(text)) => match Frame::bounded(text, options.max_line_bytes) {
                Frame::Message(text) if options.skip_unparsable && !looks_like_json(&text) => {
                    skipped_line(&connection, &text);
                }
                Frame::Message(text) => {
                    handle_message(
                        &connection,
                        &handler,
                        &permits,
                        &text,
                        options.max_line_bytes,
                    )
                    .await
                }
                Frame::TooLong { len, head } => {
                    too_long(&connection, len, options.max_line_bytes, &head).await;
                }
                Frame::End => {}
            },
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

/// A message over the limit: its head says what it was. A response fails its request now (it
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
        Kind::Request(id) => bad_message(connection, id, rpc::invalid_request(detail)).await,
        Kind::Notification => skipped(connection, format!("a notification: {detail}")),
        Kind::Unknown => bad_message(connection, Id::Null, rpc::invalid_request(detail)).await,
    }
}

/// The most characters of a skipped line that are logged.
const SKIPPED_LINE_CHARS: usize = 2000;

/// Whether `text` parses as JSON at all (valid JSON that is not a message is still answered).
fn looks_like_json(text: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok()
}

/// Counts and logs a line that is not JSON, without answering it.
fn skipped_line(connection: &Connection, text: &[u8]) {
    let line = String::from_utf8_lossy(text);
    let line: String = line.trim_end().chars().take(SKIPPED_LINE_CHARS).collect();
    skipped(connection, format!("a line that is not JSON: {line}"));
}

/// Whether `text` is a JSON array (a batch), judged by its first non-blank byte.
fn is_batch(text: &[u8]) -> bool {
    text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

async fn handle_message<H: Handler>(
    connection: &Connection,
    handler: &Arc<H>,
    permits: &Permits,
    text: &[u8],
    limit: usize,
) {
    if is_batch(text) {
        return handle_batch(connection, handler, permits, text, limit).await;
    }
    match classify(text) {
        Item::Request(request) => {
            if let Err(error) = start_request(connection, handler, permits, request, Answer::Single)
            {
                bad_message(connection, error.id, error.error).await;
            }
        }
        Item::Notification(method, params) => {
            notification(connection, handler, method, params).await;
        }
        Item::Response(response) => connection.complete(response),
        Item::Invalid(id, error) => bad_message(connection, id, error).await,
        Item::Ignored(what) => skipped(connection, what),
    }
}

/// One incoming message, sorted.
enum Item {
    Request(Request),
    Notification(String, Option<Box<RawValue>>),
    Response(Response),
    /// Not a valid message; answered with this id and error.
    Invalid(Id, ErrorObject),
    /// Not a valid message, and not answered (it looks like a response: answering a broken
    /// response could start an endless exchange of errors).
    Ignored(String),
}

impl Item {
    /// The fewest bytes this item adds to the answer of its batch: the error for an invalid
    /// item, the shortest response for a request, nothing for the rest.
    fn least_answer(&self) -> usize {
        /// `{"jsonrpc":"2.0","id":,"result":{}},` without the id.
        const SHORTEST: usize = 36;
        match self {
            Item::Request(request) => SHORTEST + request.id.to_string().len(),
            Item::Invalid(id, error) => {
                serde_json::to_vec(&Response::<Box<RawValue>>::error(id.clone(), error.clone()))
                    .map_or(SHORTEST, |answer| answer.len() + 1)
            }
            _ => 0,
        }
    }
}

fn classify(text: &[u8]) -> Item {
    match serde_json::from_slice::<Message>(text) {
        Ok(Message::Request(request)) => Item::Request(request),
        Ok(Message::Notification(notification)) => {
            Item::Notification(notification.method, notification.params)
        }
        Ok(Message::Response(response)) => Item::Response(response),
        Ok(_) => Item::Ignored("a message of an unknown kind".to_owned()),
        Err(error) if error.is_data() => {
            // Valid JSON, but not a JSON-RPC message.
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
                Item::Ignored(format!("an invalid response: {}", error.message))
            } else {
                Item::Invalid(id, error)
            }
        }
        Err(error) => Item::Invalid(Id::Null, rpc::parse_error(error)),
    }
}

/// A JSON-RPC batch (section 6 of the JSON-RPC 2.0 specification): an array of messages.
///
/// An empty array gets one `-32600` with id `null`. Every item is handled as if it had come
/// alone, except that the answers to its requests, and the errors for its invalid items, go
/// back together as one array once every request of the batch is answered. Notifications get
/// no answer; a batch with nothing to answer gets nothing at all. Nothing in a batch stops the
/// connection. An answer that would be over `limit` bytes (the connection's message limit)
/// is replaced by one error: before anything of the batch runs when its invalid items and
/// requests alone would take it over, otherwise once its requests are answered (see
/// [`Batch`]).
async fn handle_batch<H: Handler>(
    connection: &Connection,
    handler: &Arc<H>,
    permits: &Permits,
    text: &[u8],
    limit: usize,
) {
    let items = match serde_json::from_slice::<Vec<Box<RawValue>>>(text) {
        Ok(items) => items,
        Err(error) if error.is_syntax() || error.is_eof() => {
            return bad_message(connection, Id::Null, rpc::parse_error(error)).await;
        }
        Err(error) => {
            return bad_message(connection, Id::Null, rpc::invalid_request(error)).await;
        }
    };
    if items.is_empty() {
        return bad_message(
            connection,
            Id::Null,
            rpc::invalid_request("an empty batch (a batch needs at least one message)"),
        )
        .await;
    }
    let items: Vec<Item> = items
        .iter()
        .map(|item| classify(item.get().as_bytes()))
        .collect();
    // What the answer will hold at the least: the errors for the invalid items and the
    // smallest answer to each request. When that alone is over the limit, nothing runs.
    let least: usize = items.iter().map(Item::least_answer).sum();
    if least > limit {
        return refuse_batch(connection, least, limit).await;
    }
    let batch = Batch::new(connection.clone(), limit);
    for item in items {
        match item {
            Item::Request(request) => {
                let answer = Answer::Batch(Arc::clone(&batch));
                if let Err(refusal) = start_request(connection, handler, permits, request, answer) {
                    skipped(
                        connection,
                        format!("a request in a batch: {}", refusal.error.message),
                    );
                    batch.add(Response::error(refusal.id, refusal.error));
                }
            }
            Item::Notification(method, params) => {
                notification(connection, handler, method, params).await;
            }
            Item::Response(response) => connection.complete(response),
            Item::Invalid(id, error) => {
                skipped(connection, format!("an item of a batch: {}", error.message));
                batch.add(Response::error(id, error));
            }
            Item::Ignored(what) => skipped(connection, format!("an item of a batch: {what}")),
        }
    }
    batch.seal().await;
}

async fn notification<H: Handler>(
    connection: &Connection,
    handler: &Arc<H>,
    method: String,
    params: Option<Box<RawValue>>,
) {
    if method == CANCEL_REQUEST {
        cancel_in_flight(connection, params.as_deref());
    } else {
        handler
            .notification(connection.clone(), method, params)
            .await;
    }
}

/// A request that was not started, and the error to answer it with. (Rare: only refused
/// requests build one, so its size does not matter.)
struct Refusal {
    id: Id,
    error: ErrorObject,
}

/// How a request's handler ended.
enum Outcome {
    Replied(Reply),
    /// `$/cancel_request` named it.
    Cancelled,
    /// The connection closed under it.
    Closed,
}

#[allow(clippy::result_large_err)]
fn start_request<H: Handler>(
    connection: &Connection,
    handler: &Arc<H>,
    permits: &Permits,
    request: Request,
    answer: Answer,
) -> Result<(), Refusal> {
    // Refuse rather than wait: the reader must keep going, because the handlers in flight may
    // be waiting for answers from the peer that only the reader can deliver.
    let refuse = |request: Request, logged: String, limit: String| {
        connection.logger().log(
            Level::Warn,
            format!("refused `{}` (id {}): {logged}", request.method, request.id),
        );
        Refusal {
            id: request.id,
            error: rpc::internal(format!(
                "too many requests in flight ({limit}); send it again once one has been answered"
            )),
        }
    };
    let Ok(permit) = permits.semaphore.clone().try_acquire_owned() else {
        let limit = permits.limit;
        return Err(refuse(
            request,
            format!("{limit} requests already in flight"),
            format!("at most {limit}"),
        ));
    };
    let size = request.method.len() + request.params.as_ref().map_or(0, |p| p.get().len());
    let cost = u32::try_from(size)
        .unwrap_or(u32::MAX)
        .clamp(1, permits.byte_limit);
    let Ok(bytes) = permits.bytes.clone().try_acquire_many_owned(cost) else {
        let limit = permits.byte_limit;
        return Err(refuse(
            request,
            format!("{size} bytes, and the requests in flight hold {limit} bytes already"),
            format!("they may hold {limit} bytes together"),
        ));
    };
    let (cancel_tx, cancel_rx) = oneshot::channel::<()>();
    let token = connection.shared.next_token.fetch_add(1, Ordering::Relaxed);
    {
        let mut in_flight = lock(&connection.shared.in_flight);
        if in_flight.contains_key(&request.id) {
            return Err(Refusal {
                error: rpc::invalid_request(format!(
                    "request id {} is already in use by a request in flight",
                    request.id
                )),
                id: request.id,
            });
        }
        in_flight.insert(request.id.clone(), (token, cancel_tx));
    }
    if let Answer::Batch(batch) = &answer {
        batch.hold();
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
        let outcome = tokio::select! {
            reply = work => Outcome::Replied(reply),
            cancelled = cancel_rx => match cancelled {
                Ok(()) => Outcome::Cancelled,
                // The sender was dropped: the connection is closing.
                Err(_) => Outcome::Closed,
            },
        };
        {
            // Unregister the id, unless a canceller already did and the peer reused it.
            let mut in_flight = lock(&connection.shared.in_flight);
            if in_flight.get(&id).is_some_and(|(ours, _)| *ours == token) {
                in_flight.remove(&id);
            }
        }
        finish(&connection, id, outcome, answer, (permit, bytes)).await;
    });
    Ok(())
}

/// Answers a request by how it ended, then runs its follow-up work (which keeps the request's
/// in-flight slot, so that the end of the input waits for it too).
async fn finish(
    connection: &Connection,
    id: Id,
    outcome: Outcome,
    answer: Answer,
    _permits: (OwnedSemaphorePermit, OwnedSemaphorePermit),
) {
    let (result, then) = match outcome {
        Outcome::Replied(reply) => (reply.result, reply.then),
        Outcome::Cancelled => (Err(rpc::request_cancelled()), None),
        Outcome::Closed => {
            if let Answer::Batch(batch) = answer {
                batch.abandon().await;
            }
            return;
        }
    };
    let sent = match answer {
        Answer::Single => connection.respond(id, result).await.is_ok(),
        Answer::Batch(batch) => {
            let response = match result {
                Ok(result) => Response::ok(id, result),
                Err(error) => Response::error(id, error),
            };
            batch.complete(response).await
        }
    };
    if sent && let Some(then) = then {
        then.await;
    }
}

fn cancel_in_flight(connection: &Connection, params: Option<&RawValue>) {
    let params = params.map_or("{}", RawValue::get);
    let Ok(cancel) = serde_json::from_str::<acptk_schema::v1::CancelRequestNotification>(params)
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
        // The request's task answers it as cancelled.
        Some((_, cancel)) => {
            let _ = cancel.send(());
        }
        None => connection.logger().log(
            Level::Debug,
            format!("`$/cancel_request` for {id}, which is not in flight"),
        ),
    }
}
