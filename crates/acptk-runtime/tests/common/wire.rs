//! A raw JSON-RPC client for agent tests: it speaks the wire directly, so tests see exactly
//! what the agent sends, in order, and can answer (or not) what the agent asks.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use acptk_runtime::agent::{Agent, AgentServer, Principal};
use acptk_runtime::transport::{LineReader, LineWriter};
use serde_json::{Value, json};

use super::RawPeer;

/// How long any single wait may take before the test fails (never hang).
const WAIT: Duration = Duration::from_secs(10);

/// Answers the agent's requests: the `result` to send, or `None` to leave it unanswered.
pub type Responder = Box<dyn FnMut(&Value) -> Option<Value> + Send>;

/// A raw client connected to an agent server over an in-memory pipe.
pub struct Wire {
    peer: RawPeer,
    next_id: i64,
    /// Every message that was not the response being waited for, in arrival order.
    pub seen: Vec<Value>,
    /// Requests of the agent that were not answered.
    pub asked: Vec<Value>,
    responder: Option<Responder>,
    pub version: u16,
}

/// `{"protocolVersion":1,"clientCapabilities":caps}` or the v2 form.
pub fn init_params(version: u16, capabilities: Value) -> Value {
    if version == 1 {
        json!({"protocolVersion": 1, "clientCapabilities": capabilities, "clientInfo": {"name": "wire", "version": "0"}})
    } else {
        json!({"protocolVersion": 2, "info": {"name": "wire", "version": "0"}, "capabilities": capabilities})
    }
}

impl Wire {
    /// A new connection to `server` (not initialised yet).
    pub fn connect<A: Agent>(server: &AgentServer<A>) -> Wire {
        let (client_io, agent_io) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(agent_io);
        server.start(read, write);
        Wire::over(client_io)
    }

    fn over(client_io: tokio::io::DuplexStream) -> Wire {
        Wire {
            peer: RawPeer::new(client_io),
            next_id: 100,
            seen: Vec::new(),
            asked: Vec::new(),
            responder: None,
            version: 1,
        }
    }

    /// A new connection to `server` that acts for `principal` (not initialised yet).
    pub fn connect_as<A: Agent>(server: &AgentServer<A>, principal: Principal) -> Wire {
        let (client_io, agent_io) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(agent_io);
        server.start_transport_as(
            LineReader::new(read, 16 << 20),
            LineWriter::new(write),
            principal,
        );
        Wire::over(client_io)
    }

    /// A connection initialised for `version` with the client `capabilities`; returns it
    /// and the `initialize` result.
    pub async fn start<A: Agent>(
        server: &AgentServer<A>,
        version: u16,
        capabilities: Value,
    ) -> (Wire, Value) {
        Self::initialized(Wire::connect(server), version, capabilities).await
    }

    /// A connection initialised for `version` (no client capabilities) with one new session
    /// in `cwd`; returns it and the session id.
    pub async fn with_session<A: Agent>(
        server: &AgentServer<A>,
        version: u16,
        cwd: &str,
    ) -> (Wire, String) {
        let (mut wire, _) = Self::start(server, version, json!({})).await;
        let session = wire.new_session(cwd).await;
        (wire, session)
    }

    /// As [`Self::start`], for a connection that acts for `principal`.
    pub async fn start_as<A: Agent>(
        server: &AgentServer<A>,
        version: u16,
        principal: Principal,
    ) -> Wire {
        Self::initialized(Wire::connect_as(server, principal), version, json!({}))
            .await
            .0
    }

    async fn initialized(mut wire: Wire, version: u16, capabilities: Value) -> (Wire, Value) {
        wire.version = version;
        let answer = wire
            .call("initialize", init_params(version, capabilities))
            .await;
        let result = answer["result"].clone();
        assert!(result.is_object(), "initialize failed: {answer}");
        (wire, result)
    }

    /// Sets who answers the agent's requests.
    pub fn respond_with(
        &mut self,
        responder: impl FnMut(&Value) -> Option<Value> + Send + 'static,
    ) {
        self.responder = Some(Box::new(responder));
    }

    /// The next message, failing the test after a while.
    pub async fn next(&mut self) -> Value {
        tokio::time::timeout(WAIT, self.peer.recv())
            .await
            .expect("the agent sent nothing for 10 s")
            .expect("the agent closed the connection")
    }

    /// Whether a message arrives within `wait`; `None` when none does.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        tokio::time::timeout(wait, self.peer.recv())
            .await
            .ok()
            .flatten()
    }

    /// Sends a raw JSON value.
    pub async fn send(&mut self, value: Value) {
        self.peer.send_json(value).await;
    }

    /// Sends a request without waiting; returns its id.
    pub async fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Handles one incoming message that is not the awaited response.
    async fn other(&mut self, message: Value) {
        if message.get("method").is_some() && message.get("id").is_some() {
            if let Some(responder) = self.responder.as_mut()
                && let Some(result) = responder(&message)
            {
                let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                self.seen.push(message);
                self.send(answer).await;
                return;
            }
            self.asked.push(message.clone());
        }
        self.seen.push(message);
    }

    /// The response to request `id` (taken from `seen` when it came earlier), keeping
    /// everything else in `seen`.
    pub async fn response(&mut self, id: i64) -> Value {
        let earlier = self
            .seen
            .iter()
            .position(|message| message.get("method").is_none() && message["id"] == id);
        if let Some(index) = earlier {
            return self.seen.remove(index);
        }
        loop {
            let message = self.next().await;
            if message.get("method").is_none() && message["id"] == id {
                return message;
            }
            self.other(message).await;
        }
    }

    /// Sends a request and waits for its response (the whole message).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params).await;
        self.response(id).await
    }

    /// Sends a request and returns its `result`, failing the test on an error.
    pub async fn ok(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params).await;
        assert!(answer.get("result").is_some(), "{method} failed: {answer}");
        answer["result"].clone()
    }

    /// The ids `session/list` with `params` answers, in order.
    pub async fn listed(&mut self, params: Value) -> Vec<String> {
        let result = self.ok("session/list", params).await;
        result["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|info| info["sessionId"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Sends a request and returns its error code, failing the test on a success.
    pub async fn error(&mut self, method: &str, params: Value) -> (i64, String) {
        let answer = self.call(method, params).await;
        let error = &answer["error"];
        assert!(error.is_object(), "{method} succeeded: {answer}");
        (
            error["code"].as_i64().unwrap_or_default(),
            error["message"].as_str().unwrap_or_default().to_owned(),
        )
    }

    /// Sends a request that must be refused with error `code`; returns the error message.
    pub async fn refused(&mut self, method: &str, params: Value, code: i64) -> String {
        let (got, message) = self.error(method, params).await;
        assert_eq!(got, code, "{method} refused with another code: {message}");
        message
    }

    /// Reads until a message satisfies `done`, keeping everything in `seen` (the matching
    /// one last); returns it.
    pub async fn until(&mut self, mut done: impl FnMut(&Value) -> bool) -> Value {
        loop {
            let message = self.next().await;
            let matched = done(&message);
            self.other(message.clone()).await;
            if matched {
                return message;
            }
        }
    }

    /// v2: reads until the idle `state_update` of `session`; returns its stop reason.
    pub async fn until_idle(&mut self, session: &str) -> Value {
        let idle = self
            .until(|message| {
                message["params"]["sessionId"] == session
                    && message["params"]["update"]["sessionUpdate"] == "state_update"
                    && message["params"]["update"]["state"] == "idle"
            })
            .await;
        idle["params"]["update"]["stopReason"].clone()
    }

    /// `session/new` in `cwd` without MCP servers; returns the session id.
    pub async fn new_session(&mut self, cwd: &str) -> String {
        let result = self
            .ok("session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await;
        result["sessionId"].as_str().unwrap().to_owned()
    }

    /// A text prompt's params.
    pub fn prompt_params(session: &str, text: &str) -> Value {
        json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
    }

    /// Sends a text prompt without waiting for its turn; returns the request id.
    pub async fn start_prompt(&mut self, session: &str, text: &str) -> i64 {
        self.request("session/prompt", Wire::prompt_params(session, text))
            .await
    }

    /// Sends a text prompt and returns the whole answer to it (result or error).
    pub async fn call_prompt(&mut self, session: &str, text: &str) -> Value {
        self.call("session/prompt", Wire::prompt_params(session, text))
            .await
    }

    /// Runs one text prompt to the end of its turn; returns the stop reason (v1: from the
    /// response; v2: from the idle state).
    pub async fn prompt(&mut self, session: &str, text: &str) -> Value {
        let answer = self
            .call("session/prompt", Wire::prompt_params(session, text))
            .await;
        assert!(answer.get("result").is_some(), "prompt failed: {answer}");
        if self.version == 1 {
            answer["result"]["stopReason"].clone()
        } else {
            self.until_idle(session).await
        }
    }

    /// The session updates seen so far (their `update` objects), and forgets them.
    pub fn take_updates(&mut self) -> Vec<Value> {
        let seen = std::mem::take(&mut self.seen);
        seen.into_iter()
            .filter(|message| message["method"] == "session/update")
            .map(|message| message["params"]["update"].clone())
            .collect()
    }

    /// The `sessionUpdate` kinds of `updates` (with the state for state updates).
    pub fn kinds(updates: &[Value]) -> Vec<String> {
        updates
            .iter()
            .map(|update| {
                let kind = update["sessionUpdate"].as_str().unwrap_or_default();
                match update["state"].as_str() {
                    Some(state) => format!("{kind}:{state}"),
                    None => kind.to_owned(),
                }
            })
            .collect()
    }
}

/// Asserts that `answer` is a result when `allowed`, else an error with `code`; `context`
/// names the case in the failure.
pub fn assert_allowed(answer: &Value, allowed: bool, code: i64, context: &str) {
    if allowed {
        assert!(answer.get("result").is_some(), "{context}: {answer}");
    } else {
        assert_eq!(answer["error"]["code"], code, "{context}: {answer}");
    }
}

/// The agent-side methods of a reference method table (JSON text).
pub fn agent_methods_of(table: &str) -> Vec<String> {
    let table: Value = serde_json::from_str(table).unwrap();
    table["agentMethods"]
        .as_object()
        .unwrap()
        .values()
        .map(|method| method.as_str().unwrap().to_owned())
        .collect()
}
