//! Streamable HTTP on the ACP endpoint (the server side).
//!
//! * `POST` with `Content-Type: application/json` carries one client message (415 for other
//!   types, 400 for a body that is not one JSON object, 501 for a batch array). Without
//!   `Acp-Connection-Id` it must be `initialize`: that creates a connection and is answered
//!   `200` with the JSON response and the new `Acp-Connection-Id` (past the limit per client
//!   or the connection limit an unused connection makes way, else 503). With it (404 when
//!   unknown), the message goes into the connection and the POST is answered `202` at once;
//!   answers travel on an event stream. `Acp-Session-Id` is accepted on any POST (the SDKs
//!   differ in which methods carry it); the answer to a request posted for a session goes to
//!   that session's stream.
//! * `GET` with `Accept: text/event-stream` (406 otherwise) and the connection id opens the
//!   connection's server-sent-event stream; with `Acp-Session-Id` as well, that session's
//!   stream (409 when that stream is open already).
//! * `DELETE` with the connection id ends the connection (`202`).
//!
//! A connection acts for the principal of the bearer token that created it; a request of
//! another principal that names it gets 404, as for an unknown id.

use std::net::IpAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::CONNECTION_ID_HEADER;
use super::accept::Served;
use super::context::Shared;
use super::http_conn::{Client, HttpConnection, StreamRefusal, StreamWriter};
use super::http_room;
use super::limits;
use super::peek::{id_key, session_of};
use super::service::{Service, ServiceHandle};
use super::sse;
use crate::lock::lock;
use crate::log::Level;
use crate::principal::Principal;
use crate::transport::ChannelReader;
use crate::transport::queue::queue;

/// The request header that names a session.
pub const SESSION_ID_HEADER: &str = "acp-session-id";

/// How many messages may wait on the way into and out of one connection.
const QUEUE_MESSAGES: usize = 64;

/// How long the POST of `initialize` waits for its answer.
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(60);

fn refuse(status: StatusCode, message: &str) -> Response {
    (status, format!("{message}\n")).into_response()
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .filter(|value| !value.is_empty())
}

/// The connection named by the request, or the status and message refusing it. A
/// connection of another principal is unknown to this one.
fn named<S>(
    shared: &Shared<S>,
    headers: &HeaderMap,
    principal: &Principal,
) -> Result<Arc<HttpConnection>, (StatusCode, &'static str)> {
    let Some(id) = header_text(headers, CONNECTION_ID_HEADER) else {
        return Err((
            StatusCode::BAD_REQUEST,
            "missing Acp-Connection-Id (POST initialize first)",
        ));
    };
    // Marked used under the registry's lock, so that it is not evicted once named.
    lock(&shared.http)
        .get(id)
        .filter(|connection| connection.serves(principal))
        .inspect(|connection| connection.mark_used())
        .cloned()
        .ok_or((StatusCode::NOT_FOUND, "unknown Acp-Connection-Id"))
}

/// `POST`: one client message, from `principal`.
pub(crate) async fn post<S: Service>(
    shared: Arc<Shared<S>>,
    headers: HeaderMap,
    body: Bytes,
    peer: IpAddr,
    principal: Principal,
) -> Response {
    let json = header_text(&headers, header::CONTENT_TYPE.as_str())
        .and_then(|value| value.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "expected Content-Type: application/json",
        );
    }
    let message: Value = match serde_json::from_slice(&body) {
        Ok(message) => message,
        Err(error) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!("the body is not JSON: {error}"),
            );
        }
    };
    if message.is_array() {
        return refuse(
            StatusCode::NOT_IMPLEMENTED,
            "JSON-RPC batches are not supported over HTTP",
        );
    }
    if !message.is_object() {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the body is not a JSON-RPC message",
        );
    }
    if header_text(&headers, CONNECTION_ID_HEADER).is_none() {
        return initialize(shared, message, body, peer, principal).await;
    }
    let connection = match named(&shared, &headers, &principal) {
        Ok(connection) => connection,
        Err((status, message)) => return refuse(status, message),
    };
    if message.get("method").is_some()
        && let Some(id) = message.get("id").and_then(id_key)
    {
        let session = header_text(&headers, SESSION_ID_HEADER)
            .map(str::to_owned)
            .or_else(|| session_of(&message));
        if let Some(session) = session {
            connection.request_for_session(id, session);
        }
    }
    // A post waits while the agent reads nothing more (it is slowed down), but only a few at
    // a time: each holds a TCP connection.
    let Some(_waiting) = connection.wait_to_post() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the agent is not reading and other posts wait already; try again later",
        );
    };
    match tokio::time::timeout(
        shared.options.stall_timeout,
        connection.inbound.send(body.to_vec()),
    )
    .await
    {
        Ok(Ok(())) => StatusCode::ACCEPTED.into_response(),
        Ok(Err(_)) => refuse(StatusCode::NOT_FOUND, "the connection has ended"),
        Err(_) => refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the agent is not reading; try again later",
        ),
    }
}

/// `POST initialize` without a connection id: a new connection that acts for `principal`.
async fn initialize<S: Service>(
    shared: Arc<Shared<S>>,
    message: Value,
    body: Bytes,
    peer: IpAddr,
    principal: Principal,
) -> Response {
    let is_initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
    let Some(id) = message.get("id").and_then(id_key).filter(|_| is_initialize) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "missing Acp-Connection-Id: only `initialize` may come without one",
        );
    };
    let (inbound, inbound_rx) = queue(QUEUE_MESSAGES, shared.options.max_queued_bytes);
    let reader = ChannelReader::from_queue(inbound_rx, shared.options.max_message_bytes);
    // The connection is closed through its service handle, which exists only once the
    // service runs on the writer that needs this connection.
    let handle = Arc::new(OnceLock::<S::Handle>::new());
    let closer = Arc::clone(&handle);
    let http = Arc::new(
        HttpConnection::new(
            inbound,
            move || {
                if let Some(connection) = closer.get() {
                    connection.close();
                }
            },
            shared.options.stall_timeout,
            shared.options.max_queued_bytes,
            peer,
            shared.logger.clone(),
        )
        .acting_for(principal.clone()),
    );
    let connection_id = uuid::Uuid::new_v4().to_string();
    if let Err(full) = http_room::admit(
        &shared,
        &http,
        &connection_id,
        &Client::of(&principal, peer),
    ) {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, full.message());
    }
    let (reader, writer, guard_pump, activity) = limits::guard(
        reader,
        StreamWriter::new(Arc::clone(&http)),
        &shared.options,
        Arc::clone(&shared.sessions),
        shared.logger.clone(),
    );
    let connection = shared.service.start(reader, writer, principal);
    let _ = handle.set(connection.clone());
    let answer = http.expect_initialize(id);
    let watched = Arc::clone(&http);
    let registry = Arc::clone(&shared);
    let forget = connection_id.clone();
    let served = connection.clone();
    tokio::spawn(async move {
        let run = async {
            let guarded = async {
                guard_pump.run().await;
                served.close();
            };
            tokio::join!(guarded, served.closed());
        };
        // Closes the connection for a timeout, logging `why`: later requests naming it get
        // 404; its streams end with its output.
        let give_up = |why: String| {
            registry.logger.log(Level::Warn, why);
            lock(&registry.http).remove(&forget);
            served.close();
        };
        let unused = async {
            let timeout = registry.options.unused_timeout;
            tokio::time::sleep(timeout).await;
            if watched.is_used() {
                return std::future::pending().await;
            }
            give_up(format!(
                "HTTP connection {forget} from {peer}: no event stream and no second request within {} s; closing it",
                timeout.as_secs_f64()
            ));
            std::future::pending::<()>().await;
        };
        let watchdog = async {
            let Some(timeout) = registry.options.idle_timeout else {
                return std::future::pending().await;
            };
            limits::idle(activity, timeout).await;
            give_up(format!(
                "HTTP connection {forget}: no message either way for {} s (the idle timeout); closing it",
                timeout.as_secs_f64()
            ));
            std::future::pending::<()>().await;
        };
        tokio::pin!(run);
        tokio::select! {
            () = &mut run => {}
            () = watchdog => {}
            () = unused => {}
        }
        lock(&registry.http).remove(&forget);
        drop(watched.release());
    });
    if http.inbound.send(body.to_vec()).await.is_err() {
        return refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the connection ended at once",
        );
    }
    match tokio::time::timeout(INITIALIZE_TIMEOUT, answer).await {
        Ok(Ok(response)) => {
            http.mark_initialized();
            let mut response = (
                StatusCode::OK,
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                response,
            )
                .into_response();
            if let Ok(value) = HeaderValue::from_str(&connection_id) {
                response.headers_mut().insert(CONNECTION_ID_HEADER, value);
            }
            response
        }
        _ => {
            connection.close();
            refuse(
                StatusCode::GATEWAY_TIMEOUT,
                "the agent did not answer `initialize`",
            )
        }
    }
}

/// `GET` without an upgrade: an event stream, for `principal`.
///
/// `served` marks the TCP connection as served while the stream is open.
pub(crate) async fn events<S: Service>(
    shared: Arc<Shared<S>>,
    headers: HeaderMap,
    served: Served,
    principal: &Principal,
) -> Response {
    let accepts = header_text(&headers, header::ACCEPT.as_str()).is_some_and(|accept| {
        accept.split(',').any(|item| {
            let mime = item.split(';').next().unwrap_or_default().trim();
            mime.eq_ignore_ascii_case("text/event-stream")
        })
    });
    if !accepts {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            "expected Accept: text/event-stream (or a WebSocket upgrade)",
        );
    }
    let connection = match named(&shared, &headers, principal) {
        Ok(connection) => connection,
        Err((status, message)) => return refuse(status, message),
    };
    let session = header_text(&headers, SESSION_ID_HEADER).map(str::to_owned);
    let receiver = match connection.open_stream(session) {
        Ok(receiver) => receiver,
        Err(StreamRefusal::Conflict) => {
            return refuse(StatusCode::CONFLICT, "this event stream is open already");
        }
        Err(StreamRefusal::Ended) => {
            return refuse(StatusCode::NOT_FOUND, "the connection has ended");
        }
    };
    sse::response(receiver, served)
}

/// `DELETE`: ends the connection (one of `principal`'s).
pub(crate) async fn delete<S: Service>(
    shared: Arc<Shared<S>>,
    headers: HeaderMap,
    principal: &Principal,
) -> Response {
    let connection = match named(&shared, &headers, principal) {
        Ok(connection) => connection,
        Err((status, message)) => return refuse(status, message),
    };
    if let Some(id) = header_text(&headers, CONNECTION_ID_HEADER) {
        lock(&shared.http).remove(id);
    }
    connection.close();
    StatusCode::ACCEPTED.into_response()
}
