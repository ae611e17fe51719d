//! Collecting the answers to one incoming JSON-RPC batch into the single array that answers
//! it.

use std::sync::{Arc, Mutex};

use acptk_schema::jsonrpc::{Id, Response};
use tokio::sync::watch;

use super::Connection;
use super::skipped::bad_message;
use crate::lock::lock;
use crate::rpc;

/// The answers to one batch, gathered until every request of it is answered.
///
/// The reader holds the batch open while it goes through the items ([`Batch::seal`] lets go);
/// each request started from the batch holds it until it is answered. Whoever lets go last
/// sends the array (nothing at all when there is nothing to answer). Requests wait for that
/// before they run their follow-up work, so a response always goes out before the updates that
/// follow it. An array over `limit` bytes (the connection's message limit) is not sent: one
/// error goes instead (the requests did run; their answers are lost, and the error says why).
pub(crate) struct Batch {
    connection: Connection,
    limit: usize,
    collect: Mutex<Collect>,
    /// `Some(sent)` once the array went out (or was not needed).
    done: watch::Sender<Option<bool>>,
}

struct Collect {
    responses: Vec<Response>,
    /// The reader, plus the requests not answered yet.
    holds: usize,
}

impl Batch {
    /// A batch held open by the reader, whose answer may be at most `limit` bytes.
    pub(super) fn new(connection: Connection, limit: usize) -> Arc<Self> {
        Arc::new(Self {
            connection,
            limit,
            collect: Mutex::new(Collect {
                responses: Vec::new(),
                holds: 1,
            }),
            done: watch::channel(None).0,
        })
    }

    /// A request of the batch was started: the array waits for its answer.
    pub(super) fn hold(&self) {
        lock(&self.collect).holds += 1;
    }

    /// Adds an answer that needs no waiting (an error for an invalid item or a refused request).
    pub(super) fn add(&self, response: Response) {
        lock(&self.collect).responses.push(response);
    }

    /// The reader went through every item.
    pub(super) async fn seal(&self) {
        self.release(None).await;
    }

    /// A request of the batch was answered; returns, once the array went out, whether it did.
    pub(super) async fn complete(&self, response: Response) -> bool {
        self.release(Some(response)).await;
        let mut done = self.done.subscribe();
        match done.wait_for(Option::is_some).await {
            Ok(sent) => sent.unwrap_or(false),
            Err(_) => false,
        }
    }

    /// A request of the batch will never be answered (the connection is closing).
    pub(super) async fn abandon(&self) {
        self.release(None).await;
    }

    async fn release(&self, response: Option<Response>) {
        let responses = {
            let mut collect = lock(&self.collect);
            if let Some(response) = response {
                collect.responses.push(response);
            }
            collect.holds = collect.holds.saturating_sub(1);
            if collect.holds > 0 {
                return;
            }
            std::mem::take(&mut collect.responses)
        };
        let sent = if responses.is_empty() {
            true
        } else {
            match serde_json::to_vec(&responses) {
                Ok(array) if array.len() > self.limit => {
                    drop(responses);
                    refuse_batch(&self.connection, array.len(), self.limit).await;
                    false
                }
                Ok(array) => self.connection.send_message(array).await.is_ok(),
                Err(error) => {
                    self.connection.logger().log(
                        crate::log::Level::Warn,
                        format!("could not encode the answer to a batch: {error}"),
                    );
                    false
                }
            }
        };
        self.done.send_replace(Some(sent));
    }
}

/// Refuses a whole batch whose answer would be at least `least` bytes, over `limit`, with one
/// error (id `null`).
pub(super) async fn refuse_batch(connection: &Connection, least: usize, limit: usize) {
    let error = rpc::invalid_request(format!(
        "the answer to this batch would be over the message limit of {limit} bytes (at least {least} bytes); send its messages in smaller batches"
    ))
    .data(serde_json::json!({"limit": limit}));
    bad_message(connection, Id::Null, error).await;
}
