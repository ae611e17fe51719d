//! `acp agent` as a child process, driven with raw JSON-RPC lines: what the tests of the
//! example agent and its flags share. Every wait is bounded; dropping the peer ends the
//! process.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// How long one wait may take before the test fails.
const WAIT: Duration = Duration::from_secs(10);

/// Answers the agent's requests: the `result`, or `None` to leave one unanswered.
type Responder = Box<dyn FnMut(&Value) -> Option<Value>>;

/// A running `acp agent`.
pub struct AgentPeer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: i64,
    /// Everything that arrived that was not the response waited for, in order.
    pub seen: Vec<Value>,
    responder: Option<Responder>,
    pub version: u16,
}

/// `initialize` params for `version` with the client `capabilities`.
pub fn init_params(version: u16, capabilities: Value) -> Value {
    if version == 1 {
        json!({"protocolVersion": 1, "clientCapabilities": capabilities})
    } else {
        json!({"protocolVersion": 2, "info": {"name": "peer", "version": "0"}, "capabilities": capabilities})
    }
}

impl AgentPeer {
    /// Starts `acp agent ARGS` (no chunk delay).
    pub fn spawn(args: &[&str]) -> AgentPeer {
        let mut child = Command::new(ACP)
            .arg("agent")
            .args(args)
            .env("ACP_AGENT_DELAY_MS", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value =
                    serde_json::from_str(&line).unwrap_or(json!({"unparsable": line}));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        AgentPeer {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
            seen: Vec::new(),
            responder: None,
            version: 1,
        }
    }

    /// Starts `acp agent ARGS` and initialises it for `version`; returns the result too.
    pub fn start(args: &[&str], version: u16, capabilities: Value) -> (AgentPeer, Value) {
        let mut peer = AgentPeer::spawn(args);
        peer.version = version;
        let result = peer.ok("initialize", init_params(version, capabilities));
        (peer, result)
    }

    /// Sets who answers the agent's requests.
    pub fn respond_with(&mut self, responder: impl FnMut(&Value) -> Option<Value> + 'static) {
        self.responder = Some(Box::new(responder));
    }

    pub fn send(&mut self, value: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(format!("{value}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next message.
    pub fn next(&mut self) -> Value {
        self.lines
            .recv_timeout(WAIT)
            .expect("the agent sent nothing for 10 s")
    }

    fn other(&mut self, message: Value) {
        if message.get("method").is_some()
            && message.get("id").is_some()
            && let Some(result) = self
                .responder
                .as_mut()
                .and_then(|respond| respond(&message))
        {
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
            self.send(&answer);
        }
        self.seen.push(message);
    }

    /// Sends a request and waits for its response (the whole message).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next();
            if message.get("method").is_none() && message["id"] == id {
                return message;
            }
            self.other(message);
        }
    }

    /// Sends a request and returns its result, failing the test on an error.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params);
        assert!(answer.get("result").is_some(), "{method} failed: {answer}");
        answer["result"].clone()
    }

    /// Reads until a message satisfies `done` (kept in `seen`, last).
    pub fn until(&mut self, mut done: impl FnMut(&Value) -> bool) -> Value {
        loop {
            let message = self.next();
            let matched = done(&message);
            self.other(message.clone());
            if matched {
                return message;
            }
        }
    }

    /// `session/new` in `cwd`; the id.
    pub fn new_session(&mut self, cwd: &str) -> String {
        self.ok("session/new", json!({"cwd": cwd, "mcpServers": []}))["sessionId"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// One text prompt to the end of its turn; the stop reason.
    pub fn prompt(&mut self, session: &str, text: &str) -> Value {
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        let answer = self.call("session/prompt", params);
        assert!(answer.get("result").is_some(), "prompt failed: {answer}");
        if self.version == 1 {
            return answer["result"]["stopReason"].clone();
        }
        let idle = self.until(|m| {
            m["params"]["sessionId"] == session && m["params"]["update"]["state"] == "idle"
        });
        idle["params"]["update"]["stopReason"].clone()
    }

    /// The session updates seen so far, forgotten afterwards.
    pub fn take_updates(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.seen)
            .into_iter()
            .filter(|m| m["method"] == "session/update")
            .map(|m| m["params"]["update"].clone())
            .collect()
    }

    /// The text of the agent's message chunks in `updates`, joined.
    pub fn agent_text(updates: &[Value]) -> String {
        updates
            .iter()
            .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|u| u["content"]["text"].as_str())
            .collect()
    }

    /// Closes the agent's input and waits for it to exit; its exit code.
    pub fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("acp agent did not exit within 10 s of the end of its input");
    }
}

impl Drop for AgentPeer {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
