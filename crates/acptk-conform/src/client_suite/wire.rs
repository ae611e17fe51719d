//! The connection to the client under test: its lines read by a task of their own (bounded,
//! as in [`crate::peer`]), this agent's writes, and the transcript of both in `acp check`'s
//! format, the client as `client` and this agent as `agent`.

use std::collections::VecDeque;
use std::time::Duration;

use acptk_runtime::transport::Frame;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::peer::{Received, Reply, frame_text, read_lines, transcript_entry};

/// A request this agent sent: its id, transcript line and method.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub(crate) id: Value,
    pub(crate) line: u64,
    pub(crate) method: String,
}

pub(crate) struct Wire<W> {
    lines: mpsc::Receiver<Frame>,
    writer: Option<W>,
    transcript: Vec<String>,
    received: Vec<Received>,
    sent: Vec<Sent>,
    next_id: u64,
    closed: bool,
    /// How long to wait for the client's answer to a request.
    timeout: Duration,
    /// Requests and notifications of the client that came while this agent waited for a
    /// response; the session loop handles them next.
    pub(crate) backlog: VecDeque<Received>,
}

impl<W: AsyncWrite + Unpin> Wire<W> {
    pub(crate) fn new<R>(reader: R, writer: W, timeout: Duration) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
    {
        Wire {
            lines: read_lines(reader),
            writer: Some(writer),
            transcript: Vec::new(),
            received: Vec::new(),
            sent: Vec::new(),
            next_id: 0,
            closed: false,
            timeout,
            backlog: VecDeque::new(),
        }
    }

    /// Whether the client closed its side.
    pub(crate) fn closed(&self) -> bool {
        self.closed
    }

    /// The client's next message: from the backlog first, else read, waiting at most `wait`
    /// (forever when `None`); `None` when the client is gone or the wait ended.
    pub(crate) async fn next(&mut self, wait: Option<Duration>) -> Option<Received> {
        if let Some(waiting) = self.backlog.pop_front() {
            return Some(waiting);
        }
        self.read(wait).await
    }

    async fn read(&mut self, wait: Option<Duration>) -> Option<Received> {
        if self.closed {
            return None;
        }
        let frame = match wait {
            Some(wait) => tokio::time::timeout(wait, self.lines.recv()).await.ok()?,
            None => self.lines.recv().await,
        };
        let Some((line, value)) = frame.and_then(frame_text) else {
            self.closed = true;
            return None;
        };
        self.transcript.push(transcript_entry("client", &line));
        let received = Received {
            line: self.transcript.len() as u64,
            value,
        };
        self.received.push(received.clone());
        Some(received)
    }

    /// Writes one line as this agent; returns its transcript line. A client that stopped
    /// reading closes the wire.
    pub(crate) async fn send_raw(&mut self, line: &str) -> u64 {
        self.transcript.push(transcript_entry("agent", line));
        let at = self.transcript.len() as u64;
        if let Some(writer) = self.writer.as_mut() {
            let mut bytes = Vec::with_capacity(line.len() + 1);
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            if writer.write_all(&bytes).await.is_err() || writer.flush().await.is_err() {
                self.writer = None;
                self.closed = true;
            }
        }
        at
    }

    /// Sends a notification.
    pub(crate) async fn notify(&mut self, method: &str, params: Value) -> u64 {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_raw(&message.to_string()).await
    }

    /// Answers the client's request `id` with `result`.
    pub(crate) async fn respond(&mut self, id: &Value, result: Value) {
        let message = json!({"jsonrpc": "2.0", "id": id, "result": result});
        self.send_raw(&message.to_string()).await;
    }

    /// Answers the client's request `id` with an error.
    pub(crate) async fn respond_error(&mut self, id: &Value, code: i64, message: &str) {
        let message =
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        self.send_raw(&message.to_string()).await;
    }

    /// A fresh numeric request id.
    pub(crate) fn fresh_id(&mut self) -> Value {
        self.next_id += 1;
        Value::from(self.next_id)
    }

    /// Sends a request with `id` and waits for the response with that id (at most the
    /// timeout); the client's requests and notifications that come meanwhile go to the
    /// backlog, other responses stay in the record for the judges.
    pub(crate) async fn call(&mut self, id: Value, method: &str, params: Value) -> Reply {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let request_line = self.send_raw(&message.to_string()).await;
        self.sent.push(Sent {
            id: id.clone(),
            line: request_line,
            method: method.to_owned(),
        });
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(received) = self.read(Some(left)).await else {
                return Reply {
                    request_line,
                    response: None,
                    during: Vec::new(),
                };
            };
            if received.response_id() == Some(&id) {
                return Reply {
                    request_line,
                    response: Some(received),
                    during: Vec::new(),
                };
            }
            if received.method().is_some() {
                self.backlog.push_back(received);
            }
        }
    }

    /// Whether the client sent a `session/cancel` notification for `session` that waits in
    /// the backlog.
    pub(crate) fn cancel_waiting(&self, session: &str) -> bool {
        self.backlog.iter().any(|r| {
            r.method() == Some("session/cancel")
                && r.value
                    .as_ref()
                    .and_then(|v| v.pointer("/params/sessionId"))
                    .and_then(Value::as_str)
                    == Some(session)
        })
    }

    /// Everything the client sent, in order.
    pub(crate) fn received(&self) -> &[Received] {
        &self.received
    }

    /// The requests this agent sent.
    pub(crate) fn sent(&self) -> &[Sent] {
        &self.sent
    }

    /// Gives up the transcript.
    pub(crate) fn into_transcript(self) -> Vec<String> {
        self.transcript
    }
}
