//! The sending half: the writer task, requests with id correlation, notifications and
//! responses.

use std::sync::atomic::Ordering;

use acptk_schema::jsonrpc::{ErrorObject, Id, Notification, RawValue, Request, Response};
use acptk_schema::method::{NotificationMethod, RequestMethod};
use serde::Serialize;
use std::future::Future;
use std::time::Duration;

use tokio::sync::oneshot;

use super::{Connection, Hook, PendingRequest, State};
use crate::error::Error;
use crate::lock::lock;
use crate::log::Level;
use crate::transport::MessageWriter;
use crate::transport::queue::{QueueReceiver, TrySendError};

/// Writes queued messages until the connection closes, then writes what is left and closes
/// the transport.
///
/// Messages are handed to the transport one after the other and flushed once per burst
/// (everything queued at that moment), so a burst costs a few writes rather than one per
/// message; on transports such as `tokio::io::Stdout`, where each write is a hand-off to another
/// thread, that is most of the cost of sending. A lone message is still flushed at once.
///
/// With a `stall` timeout, a burst (or the final writes) that the peer does not take within it
/// ends the connection: it is logged, and what is still queued is dropped rather than waited
/// for.
pub(super) async fn write_loop<W: MessageWriter>(
    mut writer: W,
    mut queue: QueueReceiver,
    connection: Connection,
    stall: Option<Duration>,
) {
    let mut state = connection.shared.state.subscribe();
    loop {
        let message = tokio::select! {
            biased;
            message = queue.recv() => message,
            _ = state.wait_for(|state| state.closing()) => None,
        };
        let Some(message) = message else { break };
        match within(stall, write_burst(&mut writer, message, &mut queue)).await {
            Some(Ok(())) => {}
            Some(Err(error)) => {
                connection
                    .logger()
                    .log(Level::Warn, format!("writing to the peer failed: {error}"));
                connection.begin_close();
                return;
            }
            None => return stalled(&connection, stall, &mut queue),
        }
    }
    // Closing: write whatever is still queued, then stop.
    let rest = async {
        while let Some(message) = queue.try_recv() {
            writer.write(&message).await?;
        }
        writer.flush().await?;
        writer.close().await
    };
    if within(stall, rest).await.is_none() {
        stalled(&connection, stall, &mut queue);
    }
}

/// Runs `work`, within `stall` when there is one; `None` when it took longer.
async fn within<T>(stall: Option<Duration>, work: impl Future<Output = T>) -> Option<T> {
    match stall {
        Some(stall) => tokio::time::timeout(stall, work).await.ok(),
        None => Some(work.await),
    }
}

/// The peer took nothing for the stall timeout: says so, closes the connection and drops
/// what is queued for the peer.
fn stalled(connection: &Connection, stall: Option<Duration>, queue: &mut QueueReceiver) {
    let seconds = stall.unwrap_or_default().as_secs_f64();
    connection.logger().log(
        Level::Warn,
        format!(
            "the peer read nothing for {seconds} s (the stall timeout); disconnecting it and dropping what was queued for it"
        ),
    );
    connection.begin_close();
    queue.close();
    while queue.try_recv().is_some() {}
}

/// Writes `first` and everything else already queued, then flushes once.
async fn write_burst<W: MessageWriter>(
    writer: &mut W,
    first: Vec<u8>,
    queue: &mut QueueReceiver,
) -> std::io::Result<()> {
    writer.write(&first).await?;
    drop(first);
    while let Some(message) = queue.try_recv() {
        writer.write(&message).await?;
    }
    writer.flush().await
}

/// Removes a pending request when its caller stops waiting before the answer, and asks the
/// peer to cancel it once the request has been queued.
struct PendingGuard<'a> {
    connection: &'a Connection,
    id: Id,
    /// The request line is in the outgoing queue (so the peer will see it).
    sent: bool,
    armed: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let removed = lock(&self.connection.shared.pending)
            .requests
            .remove(&self.id)
            .is_some();
        if !(removed && self.sent) {
            return;
        }
        let params = acptk_schema::v1::CancelRequestNotification::new(self.id.clone());
        let Ok(line) = encode(&Notification::new("$/cancel_request", Some(params))) else {
            return;
        };
        // Queued after the request, so the peer sees them in that order. When the queue is
        // full, a task waits for room: a drop cannot wait. Outside a runtime (the whole
        // program is ending) the cancellation is left out.
        let outgoing = &self.connection.shared.outgoing;
        if let Err(TrySendError::Full(line)) = outgoing.try_send(line)
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let outgoing = outgoing.clone();
            runtime.spawn(async move {
                let _ = outgoing.send(line).await;
            });
        }
    }
}

/// Serialises one message (without framing; the transport adds it).
pub(super) fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(message).map_err(Error::Encode)
}

impl Connection {
    /// Queues one encoded message; waits while the queue is full.
    pub(super) async fn send_message(&self, line: Vec<u8>) -> Result<(), Error> {
        if self.shared.state.borrow().closing() {
            return Err(Error::ConnectionClosed);
        }
        self.shared
            .outgoing
            .send(line)
            .await
            .map_err(|_| Error::ConnectionClosed)
    }

    /// Sends a request with raw params and waits for its raw result.
    ///
    /// Dropping the returned future before the answer arrives sends `$/cancel_request` for it.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Box<RawValue>>,
    ) -> Result<Box<RawValue>, Error> {
        self.request_hooked(method, params, None).await
    }

    /// Like [`Self::request_raw`], with a hook that the reading task runs as soon as the
    /// answer arrives, before it handles any later message.
    pub(crate) async fn request_hooked(
        &self,
        method: &str,
        params: Option<Box<RawValue>>,
        on_answer: Option<Hook>,
    ) -> Result<Box<RawValue>, Error> {
        let id = Id::Number(self.shared.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = lock(&self.shared.pending);
            if !pending.open {
                return Err(Error::ConnectionClosed);
            }
            pending.requests.insert(
                id.clone(),
                PendingRequest {
                    method: method.to_owned(),
                    answer: tx,
                    on_answer,
                },
            );
        }
        let mut guard = PendingGuard {
            connection: self,
            id: id.clone(),
            sent: false,
            armed: true,
        };
        let line = encode(&Request::new(id, method, params))?;
        self.send_message(line).await?;
        guard.sent = true;
        let answer = rx.await.map_err(|_| Error::ConnectionClosed);
        guard.armed = false;
        answer?
    }

    /// Sends a typed request and decodes its result.
    pub async fn request<M: RequestMethod>(&self, params: &M::Params) -> Result<M::Result, Error> {
        let raw = M::encode_params(params).map_err(Error::Encode)?;
        let result = self.request_raw(M::METHOD, Some(raw)).await?;
        decode_result_with(M::METHOD, &result, M::decode_result)
    }

    /// Sends a notification with raw params.
    pub async fn notify_raw(
        &self,
        method: &str,
        params: Option<Box<RawValue>>,
    ) -> Result<(), Error> {
        self.send_message(encode(&Notification::new(method, params))?)
            .await
    }

    /// Encodes a typed notification for [`Self::send_encoded`] (the session outbox encodes
    /// an update when it is queued and sends it once it is recorded).
    pub(crate) fn encode_notification<M: NotificationMethod>(
        params: &M::Params,
    ) -> Result<Vec<u8>, Error> {
        M::encode_notification(params).map_err(Error::Encode)
    }

    /// Queues a message encoded by [`Self::encode_notification`]; waits while the queue is
    /// full.
    pub(crate) async fn send_encoded(&self, line: Vec<u8>) -> Result<(), Error> {
        self.send_message(line).await
    }

    /// Sends a typed notification.
    pub async fn notify<M: NotificationMethod>(&self, params: &M::Params) -> Result<(), Error> {
        self.send_message(Self::encode_notification::<M>(params)?)
            .await
    }

    /// Sends a response.
    pub(super) async fn respond(
        &self,
        id: Id,
        result: Result<Box<RawValue>, ErrorObject>,
    ) -> Result<(), Error> {
        let response = match result {
            Ok(result) => Response::ok(id, result),
            Err(error) => Response::error(id, error),
        };
        self.send_message(encode(&response)?).await
    }

    /// The peer's input has ended but the connection still writes (answers to the requests
    /// it sent before): requests of ours fail, since no answer can come.
    pub(super) fn end_input(&self) {
        self.fail_pending();
        self.shared.state.send_if_modified(|state| {
            if *state == State::Open {
                *state = State::Draining;
                true
            } else {
                false
            }
        });
    }

    /// Stops accepting new requests and stops the writer once the queue is written.
    pub(super) fn begin_close(&self) {
        self.fail_pending();
        lock(&self.shared.in_flight).clear();
        self.shared.state.send_if_modified(|state| {
            if state.closing() {
                false
            } else {
                *state = State::Closing;
                true
            }
        });
    }

    /// Fails every pending request of ours with [`Error::ConnectionClosed`], and every later
    /// one at once.
    fn fail_pending(&self) {
        let drained: Vec<PendingRequest> = {
            let mut pending = lock(&self.shared.pending);
            pending.open = false;
            pending
                .requests
                .drain()
                .map(|(_, request)| request)
                .collect()
        };
        for request in drained {
            if let Some(hook) = request.on_answer {
                hook();
            }
            let _ = request.answer.send(Err(Error::ConnectionClosed));
        }
    }

    /// Completes a pending request with the peer's answer.
    pub(super) fn complete(&self, response: Response) {
        let result = response.result.map_err(Error::Rpc);
        self.answer(&response.id, |_| result);
    }

    /// Fails the pending request `id`, whose answer was `bytes` long, over the `limit`.
    pub(super) fn fail_too_long(&self, id: &Id, bytes: usize, limit: usize) {
        self.answer(id, |method| {
            Err(Error::ResponseTooLong {
                method: method.to_owned(),
                bytes,
                limit,
            })
        });
    }

    /// Hands the pending request `id` its answer, made from its method.
    fn answer(&self, id: &Id, answer: impl FnOnce(&str) -> Result<Box<RawValue>, Error>) {
        let request = lock(&self.shared.pending).requests.remove(id);
        let Some(request) = request else {
            self.logger().log(
                Level::Warn,
                format!("ignored a response with unknown id {id}"),
            );
            return;
        };
        if let Some(hook) = request.on_answer {
            hook();
        }
        let _ = request.answer.send(answer(&request.method));
    }
}

/// Encodes a value as raw JSON.
pub(crate) fn to_raw<T: Serialize>(value: &T) -> Result<Box<RawValue>, Error> {
    serde_json::value::to_raw_value(value).map_err(Error::Encode)
}

/// Decodes a result (`null` reads as `{}`) with `decode`, naming the method on failure. The
/// decoder is a method table's (`RequestMethod::decode_result`), compiled in `acptk_schema`:
/// `serde_json::from_str::<T>` named here would compile each result type's decoder again.
pub(crate) fn decode_result_with<T>(
    method: &str,
    raw: &RawValue,
    decode: impl FnOnce(&str) -> Result<T, serde_json::Error>,
) -> Result<T, Error> {
    let text = match raw.get() {
        "null" => "{}",
        text => text,
    };
    decode(text).map_err(|error| {
        Error::Decode(acptk_schema::Error::InvalidParams {
            method: method.to_owned(),
            path: ".".to_owned(),
            message: error.to_string(),
        })
    })
}

#[cfg(all(test, feature = "remote"))]
mod tests {
    use super::*;
    use crate::transport::remote::peek::tests::decoded_whole;
    use crate::transport::remote::peek::{leading_session, outgoing_route};

    /// What the runtime encodes for a session's updates takes the remote transport's quickest
    /// read; were the encoder's key order to change, this fails (the routing would still be
    /// right, slower).
    #[test]
    fn the_runtime_s_own_updates_are_read_from_their_first_bytes() {
        let v1: acptk_schema::v1::SessionNotification = serde_json::from_str(
            r#"{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}"#,
        )
        .unwrap();
        let line = Connection::encode_notification::<acptk_schema::v1::methods::SessionUpdate>(&v1)
            .unwrap();
        assert_eq!(leading_session(&line).as_deref(), Some("sess-1"));
        let text = std::str::from_utf8(&line).unwrap();
        assert_eq!(outgoing_route(&line), decoded_whole(text));
    }
}
