//! Our client's connection stack, raw: a JSON-RPC connection of the runtime over a `ws://` or
//! `http://` URL (`transport::remote::connect`) that records every `session/update` it
//! receives, so a test sees exactly what a client was sent. Include it with
//! `#[path = "support/remote_peer.rs"] mod remote_peer;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_runtime::connection::{BoxFuture, Handler, Reply};
use acptk_runtime::transport::remote::{ClientOptions, connect};
use acptk_runtime::{Connection, ConnectionBuilder, Error, rpc};
use acptk_schema::jsonrpc::{Id, RawValue};
use serde_json::{Value, json};

/// Records the `update` of every `session/update`; refuses the agent's requests.
struct Recorder(Arc<Mutex<Vec<Value>>>);

impl Handler for Recorder {
    fn request(
        &self,
        _: Connection,
        _: Id,
        method: String,
        _: Option<Box<RawValue>>,
    ) -> BoxFuture<Reply> {
        Box::pin(async move { Reply::error(rpc::method_not_found(&method)) })
    }

    fn notification(
        &self,
        _: Connection,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<()> {
        if method == "session/update"
            && let Some(params) = params
            && let Ok(value) = serde_json::from_str::<Value>(params.get())
        {
            self.0.lock().unwrap().push(value["update"].clone());
        }
        Box::pin(async {})
    }
}

/// One initialised connection.
pub struct Peer {
    pub connection: Connection,
    updates: Arc<Mutex<Vec<Value>>>,
    pub version: u16,
}

impl Peer {
    /// Connects to `url` and initialises protocol `version` (1 or 2).
    pub async fn connect(url: &str, version: u16) -> Result<Peer, Error> {
        let options = ClientOptions::new().connect_timeout(Duration::from_secs(10));
        let (reader, writer) = connect(url, &options).await?;
        let updates = Arc::new(Mutex::new(Vec::new()));
        let connection = ConnectionBuilder::new().start_transport(
            reader,
            writer,
            Recorder(Arc::clone(&updates)),
        );
        let peer = Peer {
            connection,
            updates,
            version,
        };
        let params = if version == 1 {
            json!({"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {"name": "cluster-test", "version": "0"}})
        } else {
            json!({"protocolVersion": 2, "info": {"name": "cluster-test", "version": "0"}, "capabilities": {}})
        };
        peer.call("initialize", params).await?;
        Ok(peer)
    }

    /// Connects, retrying for a few seconds while the balancer has no instance to give.
    pub async fn connect_retrying(url: &str, version: u16) -> Peer {
        let mut last = None;
        for _ in 0..50 {
            match Peer::connect(url, version).await {
                Ok(peer) => return peer,
                Err(error) => last = Some(error),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no connection to {url}: {last:?}");
    }

    /// A request; its result.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, Error> {
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        let result = tokio::time::timeout(
            Duration::from_secs(30),
            self.connection.request_raw(method, Some(raw)),
        )
        .await
        .unwrap_or_else(|_| panic!("no answer to {method} within 30 s"))?;
        Ok(serde_json::from_str(result.get()).unwrap())
    }

    /// `session/new` in `/work`; the session id.
    pub async fn new_session(&self) -> String {
        let params = if self.version == 1 {
            json!({"cwd": "/work", "mcpServers": []})
        } else {
            json!({"cwd": "/work"})
        };
        let result = self.call("session/new", params).await.unwrap();
        result["sessionId"].as_str().unwrap().to_owned()
    }

    /// Reopens session `id` with its history: v1 `session/load`, v2 `session/resume`
    /// replaying from the start.
    pub async fn reopen(&self, id: &str) -> Result<Value, Error> {
        if self.version == 1 {
            self.call(
                "session/load",
                json!({"sessionId": id, "cwd": "/work", "mcpServers": []}),
            )
            .await
        } else {
            self.call(
                "session/resume",
                json!({"sessionId": id, "cwd": "/work", "replayFrom": {"type": "start"}}),
            )
            .await
        }
    }

    /// Sends a text prompt without waiting for its turn (v1: the response comes at the end of
    /// the turn; the returned task resolves with it).
    pub fn start_prompt(
        &self,
        id: &str,
        text: &str,
    ) -> tokio::task::JoinHandle<Result<Value, Error>> {
        let connection = self.connection.clone();
        let params = json!({"sessionId": id, "prompt": [{"type": "text", "text": text}]});
        tokio::spawn(async move {
            let raw = serde_json::value::to_raw_value(&params).unwrap();
            let result = connection.request_raw("session/prompt", Some(raw)).await?;
            Ok(serde_json::from_str(result.get()).unwrap())
        })
    }

    /// Runs a text prompt to the end of its turn; its stop reason (v2: from the idle state).
    pub async fn prompt(&self, id: &str, text: &str) -> Result<String, Error> {
        let before = self.updates().len();
        let params = json!({"sessionId": id, "prompt": [{"type": "text", "text": text}]});
        let result = self.call("session/prompt", params).await?;
        if self.version == 1 {
            return Ok(result["stopReason"].as_str().unwrap_or_default().to_owned());
        }
        for _ in 0..1500 {
            let idle = self.updates()[before..]
                .iter()
                .find(|update| {
                    update["sessionUpdate"] == "state_update" && update["state"] == "idle"
                })
                .map(|update| update["stopReason"].as_str().unwrap_or("?").to_owned());
            if let Some(stop) = idle {
                return Ok(stop);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the v2 turn did not end within 30 s");
    }

    /// Every update received so far.
    pub fn updates(&self) -> Vec<Value> {
        self.updates.lock().unwrap().clone()
    }

    /// Waits until at least `count` updates arrived.
    pub async fn wait_for_updates(&self, count: usize) {
        for _ in 0..1500 {
            if self.updates().len() >= count {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "fewer than {count} updates within 30 s: {:?}",
            self.updates()
        );
    }
}

/// The updates that are conversation history (what a replay repeats): everything but state
/// snapshots, command lists, mode and option state, the replay's end marker and notices.
pub fn history(updates: &[Value]) -> Vec<Value> {
    updates
        .iter()
        .filter(|update| {
            !matches!(
                update["sessionUpdate"].as_str(),
                Some(
                    "state_update"
                        | "replay_complete"
                        | "available_commands_update"
                        | "current_mode_update"
                        | "config_option_update"
                        | "notice"
                )
            )
        })
        .cloned()
        .collect()
}
