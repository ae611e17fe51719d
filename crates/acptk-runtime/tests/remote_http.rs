//! Streamable HTTP on the remote server's endpoint (feature `remote`): every error rule of
//! the wire (415, 400, 501, 404, 406, 409, 413, 401), `initialize` answered 200 with the
//! connection id, other messages 202 with their answers on the event stream, session
//! streams, and `DELETE`. The requests are written by hand over a loopback TCP socket so
//! that each status can be checked exactly.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod remote_support;

use std::time::Duration;

use acptk_runtime::agent::AgentServer;
use acptk_runtime::transport::remote::ServerOptions;
use common::TestAgent;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn serve(options: ServerOptions) -> String {
    let (agent, _opened) = TestAgent::new();
    remote_support::serve(AgentServer::new(agent), options)
        .await
        .0
}

fn request(address: &str, method: &str, headers: &[(&str, &str)], body: &str) -> String {
    remote_support::http_request(address, method, "/acp", headers, body)
}

struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }
}

async fn send(address: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let text = request(address, method, headers, body);
    let (status, head, body) =
        remote_support::answer_parts(&remote_support::exchange(address, &text).await);
    Answer { status, head, body }
}

const JSON: (&str, &str) = ("Content-Type", "application/json");

/// `initialize` posted with `headers`.
async fn initialize_with(address: &str, headers: &[(&str, &str)]) -> Answer {
    send(address, "POST", headers, &initialize_body()).await
}

fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": 1, "clientCapabilities": {"session": {"notices": {}}}}})
    .to_string()
}

/// `initialize`: the connection id.
async fn connect(address: &str) -> String {
    let answer = initialize_with(address, &[JSON]).await;
    assert_eq!(answer.status, 200, "{}", answer.head);
    answer.header("acp-connection-id").unwrap()
}

/// An open event stream: its socket, read as it comes.
struct Events {
    stream: TcpStream,
    seen: String,
}

impl Events {
    async fn open(address: &str, headers: &[(&str, &str)]) -> Self {
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream
            .write_all(request(address, "GET", headers, "").as_bytes())
            .await
            .unwrap();
        Self {
            stream,
            seen: String::new(),
        }
    }

    /// The next `data:` message that satisfies `check`.
    async fn until(&mut self, check: impl Fn(&Value) -> bool) -> Value {
        tokio::time::timeout(Duration::from_secs(10), async {
            let mut searched = 0;
            loop {
                while let Some(start) = self.seen[searched..].find("data: ") {
                    let from = searched + start + 6;
                    let Some(len) = self.seen[from..].find('\n') else {
                        break;
                    };
                    searched = from + len;
                    if let Ok(value) = serde_json::from_str::<Value>(&self.seen[from..from + len])
                        && check(&value)
                    {
                        return value;
                    }
                }
                let mut buffer = [0u8; 4096];
                let read = self.stream.read(&mut buffer).await.unwrap();
                assert!(read > 0, "the event stream ended: {}", self.seen);
                self.seen
                    .push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        })
        .await
        .expect("the message within 10 s")
    }

    fn status(&self) -> &str {
        self.seen.split_whitespace().nth(1).unwrap_or_default()
    }
}

#[tokio::test]
async fn post_rules() {
    let address = serve(ServerOptions::new()).await;
    let plain = initialize_with(&address, &[("Content-Type", "text/plain")]).await;
    assert_eq!(plain.status, 415);
    let none = initialize_with(&address, &[]).await;
    assert_eq!(none.status, 415);
    assert_eq!(
        send(&address, "POST", &[JSON], "{not json").await.status,
        400
    );
    assert_eq!(send(&address, "POST", &[JSON], "42").await.status, 400);
    let batch = format!("[{}]", initialize_body());
    assert_eq!(send(&address, "POST", &[JSON], &batch).await.status, 501);
    let list =
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {}}).to_string();
    let missing = send(&address, "POST", &[JSON], &list).await;
    assert_eq!(
        missing.status, 400,
        "only initialize may come without a connection id"
    );
    let unknown = send(
        &address,
        "POST",
        &[JSON, ("Acp-Connection-Id", "nope")],
        &list,
    )
    .await;
    assert_eq!(unknown.status, 404);

    let answer = initialize_with(
        &address,
        &[("Content-Type", "application/json; charset=utf-8")],
    )
    .await;
    assert_eq!(answer.status, 200);
    assert!(
        answer
            .header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    let id = answer.header("acp-connection-id").unwrap();
    assert_eq!(id.len(), 36);
    let body: Value = serde_json::from_str(answer.body.trim()).unwrap();
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], 1);
    let accepted = send(&address, "POST", &[JSON, ("Acp-Connection-Id", &id)], &list).await;
    assert_eq!(accepted.status, 202);
}

#[tokio::test]
async fn get_rules_and_answers_on_the_event_streams() {
    let address = serve(ServerOptions::new()).await;
    let id = connect(&address).await;
    let no_accept = send(&address, "GET", &[("Acp-Connection-Id", &id)], "").await;
    assert_eq!(no_accept.status, 406);
    let json_only = send(
        &address,
        "GET",
        &[("Accept", "application/json"), ("Acp-Connection-Id", &id)],
        "",
    )
    .await;
    assert_eq!(json_only.status, 406);
    const SSE: (&str, &str) = ("Accept", "text/event-stream");
    assert_eq!(send(&address, "GET", &[SSE], "").await.status, 400);
    assert_eq!(
        send(&address, "GET", &[SSE, ("Acp-Connection-Id", "nope")], "")
            .await
            .status,
        404
    );

    let mut events = Events::open(&address, &[SSE, ("Acp-Connection-Id", &id)]).await;
    let new = json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                     "params": {"cwd": "/tmp", "mcpServers": []}});
    let posted = send(
        &address,
        "POST",
        &[JSON, ("Acp-Connection-Id", &id)],
        &new.to_string(),
    )
    .await;
    assert_eq!(posted.status, 202);
    let created = events.until(|m| m["id"] == 2).await;
    assert_eq!(events.status(), "200");
    assert!(
        events
            .seen
            .to_ascii_lowercase()
            .contains("content-type: text/event-stream")
    );
    let session = created["result"]["sessionId"].as_str().unwrap().to_owned();
    // A second connection stream: 409.
    let again = send(&address, "GET", &[SSE, ("Acp-Connection-Id", &id)], "").await;
    assert_eq!(again.status, 409);

    // The session's stream gets the answer of a request posted for the session, and its
    // updates.
    let mut session_events = Events::open(
        &address,
        &[
            SSE,
            ("Acp-Connection-Id", &id),
            ("Acp-Session-Id", &session),
        ],
    )
    .await;
    // Let the stream open before anything is sent for the session.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let prompt = json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}});
    let posted = send(
        &address,
        "POST",
        &[
            JSON,
            ("Acp-Connection-Id", &id),
            ("Acp-Session-Id", &session),
        ],
        &prompt.to_string(),
    )
    .await;
    assert_eq!(posted.status, 202);
    let chunk = session_events
        .until(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .await;
    assert_eq!(chunk["params"]["update"]["content"]["text"], "echo: ");
    let done = session_events.until(|m| m["id"] == 3).await;
    assert_eq!(done["result"]["stopReason"], "end_turn");
    // None of it went to the connection's stream.
    let elsewhere = tokio::time::timeout(
        Duration::from_millis(300),
        events.until(|m| m["id"] == 3 || m["method"] == "session/update"),
    )
    .await;
    assert!(elsewhere.is_err(), "{}", events.seen);
}

#[tokio::test]
async fn delete_ends_the_connection() {
    let address = serve(ServerOptions::new()).await;
    let id = connect(&address).await;
    assert_eq!(send(&address, "DELETE", &[], "").await.status, 400);
    assert_eq!(
        send(&address, "DELETE", &[("Acp-Connection-Id", "nope")], "")
            .await
            .status,
        404
    );
    assert_eq!(
        send(&address, "DELETE", &[("Acp-Connection-Id", &id)], "")
            .await
            .status,
        202
    );
    let list =
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {}}).to_string();
    let after = send(&address, "POST", &[JSON, ("Acp-Connection-Id", &id)], &list).await;
    assert_eq!(after.status, 404);
}

#[tokio::test]
async fn token_size_and_origin_rules_apply_to_http_too() {
    let options = ServerOptions::new().token("t0ken").max_message_bytes(2048);
    let address = serve(options).await;
    assert_eq!(initialize_with(&address, &[JSON]).await.status, 401);
    let auth = ("Authorization", "Bearer t0ken");
    let origin = ("Origin", "https://elsewhere.example");
    assert_eq!(
        initialize_with(&address, &[JSON, auth, origin])
            .await
            .status,
        403
    );
    assert_eq!(
        send(&address, "DELETE", &[("Acp-Connection-Id", "x")], "")
            .await
            .status,
        401
    );
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": 1, "padding": "x".repeat(4096)}})
    .to_string();
    assert_eq!(
        send(&address, "POST", &[JSON, auth], &big).await.status,
        413
    );
    let answer = initialize_with(&address, &[JSON, auth]).await;
    assert_eq!(answer.status, 200);
}
