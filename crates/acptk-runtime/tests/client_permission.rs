//! What a client's handler learns of a v1 permission request: a request may name its tool call
//! by id alone, and the handler then gets the title and kind the agent announced for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use acptk_runtime::ProtocolVersion;
use acptk_runtime::client::{Client, ClientHandler, PermissionDecision, PermissionRequest};
use acptk_runtime::connection::BoxFuture;
use common::{RawPeer, client, raw_agent};
use serde_json::{Value, json};

/// Records every permission request and answers `cancelled`.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<PermissionRequest>>>);

impl ClientHandler for Recorder {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<PermissionDecision> {
        self.0.lock().unwrap().push(request);
        Box::pin(async { PermissionDecision::Cancelled })
    }
}

async fn open(client: &Client, agent: &mut RawPeer) {
    let opening = {
        let client = client.clone();
        tokio::spawn(async move { client.new_session("/tmp", &[]).await })
    };
    let request = agent.recv_some().await;
    assert_eq!(request["method"], "session/new");
    agent
        .send_json(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"sessionId": "s1"}}))
        .await;
    opening.await.unwrap().unwrap();
}

/// Asks permission about `tool_call` and returns the answer the client sent.
async fn ask(agent: &mut RawPeer, id: u64, tool_call: Value) -> Value {
    let options = json!([{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]);
    let params = json!({"sessionId": "s1", "toolCall": tool_call, "options": options});
    agent.ask(id, "session/request_permission", params).await
}

#[tokio::test]
async fn a_request_naming_only_the_tool_call_id_gets_its_announced_title_and_kind() {
    let recorder = Recorder::default();
    let builder = client(ProtocolVersion::V1, false).handler(recorder.clone());
    let (client, mut agent, _) = raw_agent(builder, 1).await;
    open(&client, &mut agent).await;
    let update = json!({"sessionUpdate": "tool_call", "toolCallId": "t1",
        "title": "Edit src/main.rs", "kind": "edit", "status": "pending"});
    agent
        .send_json(json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": "s1", "update": update}}))
        .await;

    let answer = ask(&mut agent, 7, json!({"toolCallId": "t1"})).await;
    assert_eq!(
        answer["result"]["outcome"]["outcome"], "cancelled",
        "{answer}"
    );
    ask(
        &mut agent,
        8,
        json!({"toolCallId": "t1", "title": "Own title"}),
    )
    .await;
    ask(&mut agent, 9, json!({"toolCallId": "never-announced"})).await;

    let seen = recorder.0.lock().unwrap().clone();
    let seen: Vec<(&str, Option<&str>)> = seen
        .iter()
        .map(|request| (request.title.as_str(), request.tool_kind.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            ("Edit src/main.rs", Some("edit")),
            ("Own title", Some("edit")),
            ("Allow this action?", None),
        ]
    );
}
