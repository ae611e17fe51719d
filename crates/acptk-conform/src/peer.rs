//! The raw peer: the agent as a child process, written to line by line and read with a
//! timeout, every frame recorded in the transcript format of `acp check`
//! (`{"from":"client"|"agent","message":...}`, or `"line"` for text that is not JSON).
//!
//! The agent runs in a process group of its own ([`acptk_runtime::transport::AgentCommand`]);
//! [`RawPeer::finish`] closes its input, waits a grace period, then ends the group with
//! `SIGTERM` and `SIGKILL`. A peer dropped without `finish` kills its group at once.
//!
//! The agent's output is read by a task of its own into a short queue, so a wait that times
//! out never loses half a line, and memory stays bounded however much an agent writes: a line
//! over [`LINE_LIMIT`] is recorded by its length and first bytes, never held whole.

use std::time::Duration;

use acptk_runtime::transport::{AgentCommand, AgentProcess, Frame, LineReader};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::mpsc;

use crate::error::ConformError;

/// A message the agent wrote, with its transcript line.
#[derive(Debug, Clone)]
pub struct Received {
    /// The 1-based transcript line it was recorded at.
    pub line: u64,
    /// The parsed JSON, or `None` when the line was not JSON.
    pub value: Option<Value>,
}

impl Received {
    /// The `id` of a response (`result` or `error` and no `method`), if this is one.
    pub fn response_id(&self) -> Option<&Value> {
        let object = self.value.as_ref()?.as_object()?;
        if object.contains_key("method") {
            return None;
        }
        if object.contains_key("result") || object.contains_key("error") {
            return Some(object.get("id").unwrap_or(&Value::Null));
        }
        None
    }

    /// The error code of an error response.
    pub fn error_code(&self) -> Option<i64> {
        self.value.as_ref()?.get("error")?.get("code")?.as_i64()
    }

    /// The `result` of a success response.
    pub fn result(&self) -> Option<&Value> {
        self.value.as_ref()?.get("result")
    }

    /// The method of a request or notification from the agent.
    pub fn method(&self) -> Option<&str> {
        self.value.as_ref()?.get("method")?.as_str()
    }
}

/// The longest line read from the agent (16 MiB); a longer one is recorded as text naming
/// its length and first bytes.
pub const LINE_LIMIT: usize = 16 * 1024 * 1024;

/// How many lines read ahead may wait in the queue: with [`LINE_LIMIT`], at most 64 MiB.
const QUEUED_LINES: usize = 4;

/// The longest [`RawPeer::finish`] reads what the agent writes as it leaves.
const DRAIN_AT_MOST: Duration = Duration::from_secs(2);

/// Reads the peer's lines into `lines` until its output ends or the receiver is gone.
pub(crate) fn read_lines<R>(output: R) -> mpsc::Receiver<Frame>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    let (sender, lines) = mpsc::channel(QUEUED_LINES);
    tokio::spawn(async move {
        let mut reader = LineReader::new(output, LINE_LIMIT);
        loop {
            let frame = reader.next().await.unwrap_or(Frame::End);
            let end = matches!(frame, Frame::End);
            if sender.send(frame).await.is_err() || end {
                break;
            }
        }
    });
    lines
}

/// One line of a transcript in `acp check`'s format: the message as written when it is JSON,
/// else the text as a string under `line`.
pub(crate) fn transcript_entry(from: &str, text: &str) -> String {
    let text = text.trim_end_matches(['\n', '\r']);
    match serde_json::from_str::<&RawValue>(text) {
        Ok(raw) => format!("{{\"from\":\"{from}\",\"message\":{}}}", raw.get()),
        Err(_) => format!(
            "{{\"from\":\"{from}\",\"line\":{}}}",
            Value::String(text.to_owned())
        ),
    }
}

/// The text recorded for a frame of the peer, and its JSON when it parses.
pub(crate) fn frame_text(frame: Frame) -> Option<(String, Option<Value>)> {
    match frame {
        Frame::Message(bytes) => {
            let line = String::from_utf8_lossy(&bytes).into_owned();
            let value = serde_json::from_str(line.trim_end()).ok();
            Some((line, value))
        }
        Frame::TooLong { len, head } => Some((
            format!(
                "(a line of {len} bytes, over the {LINE_LIMIT}-byte limit, beginning: {})",
                String::from_utf8_lossy(&head)
            ),
            None,
        )),
        // The end of the output, or a frame kind this reader does not know.
        _ => None,
    }
}

/// What came back for a request: its response (if any came before the timeout) and every
/// other message received meanwhile.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The transcript line of the request.
    pub request_line: u64,
    /// The response with the request's id.
    pub response: Option<Received>,
    /// Everything else the agent sent while we waited.
    pub during: Vec<Received>,
}

/// Where the peer's messages go: the agent's standard input, or a remote connection.
enum Writer {
    Child(ChildStdin),
    #[cfg(feature = "remote")]
    Remote(acptk_runtime::transport::remote::RemoteWriter),
}

impl Writer {
    /// Writes one message (a line on a pipe, a frame on a connection); false when it failed.
    async fn send(&mut self, line: &str) -> bool {
        match self {
            Writer::Child(stdin) => {
                let mut bytes = Vec::with_capacity(line.len() + 1);
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
                stdin.write_all(&bytes).await.is_ok() && stdin.flush().await.is_ok()
            }
            #[cfg(feature = "remote")]
            Writer::Remote(remote) => {
                use acptk_runtime::transport::MessageWriter;
                remote.write(line.as_bytes()).await.is_ok() && remote.flush().await.is_ok()
            }
        }
    }

    async fn close(self) {
        match self {
            Writer::Child(stdin) => drop(stdin),
            #[cfg(feature = "remote")]
            Writer::Remote(mut remote) => {
                use acptk_runtime::transport::MessageWriter;
                // The connection ends either way; a failed close changes nothing for the run.
                let _ = remote.close().await;
            }
        }
    }
}

/// One recorded run against a freshly started agent (or a fresh connection to a remote one).
pub struct RawPeer {
    name: String,
    process: Option<AgentProcess>,
    lines: mpsc::Receiver<Frame>,
    writer: Option<Writer>,
    transcript: Vec<String>,
    received: Vec<Received>,
    timeout: Duration,
    next_id: i64,
    closed: bool,
}

impl RawPeer {
    /// Starts the agent for the run `name` (its transcript's file name). Call it inside a Tokio
    /// runtime: a task of the runtime reads the agent's output.
    pub fn spawn(
        command: &AgentCommand,
        name: impl Into<String>,
        timeout: Duration,
    ) -> Result<Self, ConformError> {
        let mut process = command.spawn().map_err(ConformError::Spawn)?;
        let Some((stdout, stdin)) = process.take_pipes() else {
            return Err(ConformError::Spawn(std::io::Error::other(
                "the agent's pipes were not available",
            )));
        };
        Ok(RawPeer {
            name: name.into(),
            process: Some(process),
            lines: read_lines(stdout),
            writer: Some(Writer::Child(stdin)),
            transcript: Vec::new(),
            received: Vec::new(),
            timeout,
            next_id: 0,
            closed: false,
        })
    }

    /// Connects to the remote agent at `url` (`ws://`, `wss://`; `http://`, `https://` for
    /// Streamable HTTP) with `token` as its bearer token, for the run `name`. Fails with the URL
    /// and the reason (the server's status, 401 for a refused token) when it cannot connect.
    #[cfg(feature = "remote")]
    pub async fn connect(
        url: &str,
        token: Option<&str>,
        name: impl Into<String>,
        timeout: Duration,
    ) -> Result<Self, ConformError> {
        use acptk_runtime::transport::MessageReader;
        use acptk_runtime::transport::remote::{ClientOptions, connect};
        let mut options = ClientOptions::new().connect_timeout(timeout);
        if let Some(token) = token {
            options = options.token(token);
        }
        let (mut reader, writer) = connect(url, &options)
            .await
            .map_err(|e| ConformError::Connect(e.to_string()))?;
        let (sender, lines) = mpsc::channel(QUEUED_LINES);
        tokio::spawn(async move {
            loop {
                let frame = reader.read().await.unwrap_or(Frame::End);
                let end = matches!(frame, Frame::End);
                if sender.send(frame).await.is_err() || end {
                    break;
                }
            }
        });
        Ok(RawPeer {
            name: name.into(),
            process: None,
            lines,
            writer: Some(Writer::Remote(writer)),
            transcript: Vec::new(),
            received: Vec::new(),
            timeout,
            next_id: 0,
            closed: false,
        })
    }

    /// The run's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The transcript so far, one JSON line per frame.
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    /// Everything the agent sent so far, in order.
    pub fn received(&self) -> &[Received] {
        &self.received
    }

    fn record(&mut self, from: &str, text: &str) -> u64 {
        self.transcript.push(transcript_entry(from, text));
        self.transcript.len() as u64
    }

    /// Writes `line` as is (a newline is added) and records it; returns its transcript line.
    /// When the agent has gone, the line is recorded all the same and nothing more comes
    /// back (the requirement waiting for an answer fails with the line as evidence).
    pub async fn send_raw(&mut self, line: &str) -> u64 {
        let at = self.record("client", line);
        let Some(writer) = self.writer.as_mut() else {
            return at;
        };
        if !writer.send(line).await {
            self.writer = None;
        }
        at
    }

    /// Reads the agent's next line, waiting at most `wait`; `None` when none came (or the
    /// agent closed its output).
    pub async fn next(&mut self, wait: Duration) -> Option<Received> {
        if self.closed {
            return None;
        }
        let frame = match tokio::time::timeout(wait, self.lines.recv()).await {
            Err(_) => return None,
            Ok(frame) => frame,
        };
        let Some((line, value)) = frame.and_then(frame_text) else {
            self.closed = true;
            return None;
        };
        let at = self.record("agent", &line);
        let received = Received { line: at, value };
        self.received.push(received.clone());
        Some(received)
    }

    /// A fresh numeric request id.
    pub fn fresh_id(&mut self) -> Value {
        self.next_id += 1;
        Value::from(self.next_id)
    }

    /// Sends a request with a fresh id and waits for its response (see [`Self::call_with_id`]).
    pub async fn call(&mut self, method: &str, params: Value) -> Reply {
        let id = self.fresh_id();
        self.call_with_id(id, method, params).await
    }

    /// Sends a request with `id` and reads until the response with that id, answering the
    /// agent's own requests on the way (a permission request gets its first allowing option,
    /// anything else -32601).
    pub async fn call_with_id(&mut self, id: Value, method: &str, params: Value) -> Reply {
        let message =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let request_line = self.send_raw(&message.to_string()).await;
        self.await_response(request_line, &id).await
    }

    /// Reads until the response with `id` (or the timeout), answering the agent's requests.
    pub async fn await_response(&mut self, request_line: u64, id: &Value) -> Reply {
        let (response, during) = self.read_until(|r| r.response_id() == Some(id)).await;
        Reply {
            request_line,
            response,
            during,
        }
    }

    /// Reads until a message for which `wanted` holds (returned first) or the timeout, and
    /// returns everything else that came meanwhile; the agent's requests are answered on the
    /// way (a permission request gets its first allowing option, anything else -32601).
    pub async fn read_until(
        &mut self,
        wanted: impl Fn(&Received) -> bool,
    ) -> (Option<Received>, Vec<Received>) {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut during = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(received) = self.next(left).await else {
                return (None, during);
            };
            if wanted(&received) {
                return (Some(received), during);
            }
            self.answer_agent_request(&received).await;
            during.push(received);
        }
    }

    async fn answer_agent_request(&mut self, received: &Received) {
        let Some(value) = &received.value else {
            return;
        };
        let (Some(id), Some(method)) = (value.get("id"), received.method()) else {
            return;
        };
        let answer = if method == "session/request_permission" {
            let allow = value
                .pointer("/params/options")
                .and_then(Value::as_array)
                .and_then(|options| {
                    options.iter().find(|o| {
                        o.get("kind")
                            .and_then(Value::as_str)
                            .is_some_and(|k| k.starts_with("allow"))
                    })
                })
                .and_then(|o| o.get("optionId"));
            let outcome = match allow {
                Some(option) => serde_json::json!({"outcome": "selected", "optionId": option}),
                None => serde_json::json!({"outcome": "cancelled"}),
            };
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": outcome}})
        } else {
            serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("method not found: {method} (the conformance client advertises no such capability)")}})
        };
        self.send_raw(&answer.to_string()).await;
    }

    /// Ends the agent (input closed, grace period, `SIGTERM`, `SIGKILL` to its group) and
    /// returns the transcript.
    pub async fn finish(mut self) -> Vec<String> {
        if let Some(writer) = self.writer.take() {
            writer.close().await;
        }
        // Whatever the agent writes as it leaves belongs to the record too.
        // Bounded: an agent that never stops writing cannot hold the run.
        let drain = Duration::from_millis(200);
        let until = tokio::time::Instant::now() + DRAIN_AT_MOST;
        while tokio::time::Instant::now() < until && self.next(drain).await.is_some() {}
        // The exit status does not matter to the suite; the group is gone either way.
        if let Some(mut process) = self.process.take() {
            let _ = process.shutdown().await;
        }
        std::mem::take(&mut self.transcript)
    }
}
