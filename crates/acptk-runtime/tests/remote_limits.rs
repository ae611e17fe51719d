//! The per-connection limits of a remote server (feature `remote`): sessions per connection
//! (a `session/new` past the limit gets a JSON-RPC error naming it, and a batch loses only
//! its refused request), the idle timeout (a WebSocket gets close code 1001 with the reason;
//! a Streamable HTTP connection is ended, so its id is unknown afterwards), and a client that
//! vanishes mid-turn (the turn ends and the connection slot is given back), and posts to an
//! agent that reads nothing more (a few wait, the others get 503 at once).
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod remote_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use acptk_runtime::agent::{Agent, AgentServer, Prompt, Session, StopReason};
use acptk_runtime::transport::remote::{SESSION_LIMIT_CODE, ServerOptions};
use acptk_schema::jsonrpc::ErrorObject;
use common::TestAgent;
use remote_support::{all_closed, initialize, new_session, next, post, send, serve, socket};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test]
async fn a_session_past_the_limit_gets_an_error_naming_it() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().max_sessions(2);
    let (address, _remote) = serve(AgentServer::new(agent), options).await;
    let mut ws = socket(&address).await;
    send(&mut ws, initialize()).await;
    assert_eq!(next(&mut ws).await.unwrap()["id"], 0);
    for id in 1..=2 {
        send(&mut ws, new_session(id)).await;
        let answer = next(&mut ws).await.unwrap();
        assert_eq!(answer["id"], id);
        assert!(answer["result"]["sessionId"].is_string(), "{answer}");
    }
    send(&mut ws, new_session(3)).await;
    let refused = next(&mut ws).await.unwrap();
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(refused["error"]["code"], SESSION_LIMIT_CODE, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("2 sessions"), "{message}");
    assert_eq!(refused["error"]["data"]["max"], 2);
    // A batch loses only the refused request; the rest is served.
    send(
        &mut ws,
        json!([new_session(4), {"jsonrpc": "2.0", "id": 5, "method": "_unknown/thing", "params": {}}]),
    )
    .await;
    let mut answers = Vec::new();
    while answers.len() < 2 {
        match next(&mut ws).await.unwrap() {
            Value::Array(items) => answers.extend(items),
            one => answers.push(one),
        }
    }
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id).unwrap();
    assert_eq!(by_id(4)["error"]["code"], SESSION_LIMIT_CODE);
    assert_ne!(by_id(5)["error"]["code"], SESSION_LIMIT_CODE);
    // Another connection has its own count.
    let mut other = socket(&address).await;
    send(&mut other, initialize()).await;
    next(&mut other).await.unwrap();
    send(&mut other, new_session(1)).await;
    assert!(next(&mut other).await.unwrap()["result"]["sessionId"].is_string());
}

#[tokio::test]
async fn an_idle_websocket_is_closed_with_1001_and_the_reason() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().idle_timeout(Duration::from_millis(400));
    let (address, remote) = serve(AgentServer::new(agent), options).await;
    let mut ws = socket(&address).await;
    // Activity keeps it open past the timeout.
    send(&mut ws, initialize()).await;
    next(&mut ws).await.unwrap();
    for id in 1..=3 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        send(&mut ws, new_session(id)).await;
        assert_eq!(next(&mut ws).await.unwrap()["id"], id);
    }
    let started = std::time::Instant::now();
    let (code, reason) = next(&mut ws).await.unwrap_err().expect("a close frame");
    assert_eq!(code, u16::from(CloseCode::Away));
    assert!(reason.contains("idle"), "{reason}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    all_closed(&remote).await;
}

#[tokio::test]
async fn an_idle_http_connection_is_ended_and_then_unknown() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().idle_timeout(Duration::from_millis(300));
    let (address, remote) = serve(AgentServer::new(agent), options).await;
    let (status, id) = post(&address, &[], &initialize().to_string()).await;
    assert_eq!(status, 200);
    let id = id.unwrap();
    let ping = json!({"jsonrpc": "2.0", "method": "_ping", "params": {}}).to_string();
    // Within the timeout the connection is known.
    assert_eq!(
        post(&address, &[("Acp-Connection-Id", &id)], &ping).await.0,
        202
    );
    all_closed(&remote).await;
    assert_eq!(
        post(&address, &[("Acp-Connection-Id", &id)], &ping).await.0,
        404
    );
}

/// Streams a line every few milliseconds until sending fails; says when its turn ended
/// (returned, or was dropped by the runtime).
struct Streamer {
    ended: Arc<AtomicBool>,
}

/// Sets the flag when dropped: when the turn's future returns or is dropped.
struct Ended(Arc<AtomicBool>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Agent for Streamer {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let _ended = Ended(Arc::clone(&self.ended));
        for _ in 0..10_000 {
            if session.send_text("tick ").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Ok(StopReason::EndTurn)
    }
}

#[tokio::test]
async fn a_client_that_vanishes_mid_turn_ends_the_turn_and_frees_its_slot() {
    let ended = Arc::new(AtomicBool::new(false));
    let agent = Streamer {
        ended: Arc::clone(&ended),
    };
    let (address, remote) = serve(AgentServer::new(agent), ServerOptions::new()).await;
    let mut ws = socket(&address).await;
    send(&mut ws, initialize()).await;
    next(&mut ws).await.unwrap();
    send(&mut ws, new_session(1)).await;
    let session = next(&mut ws).await.unwrap()["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    send(
        &mut ws,
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
               "params": {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}}),
    )
    .await;
    let update = next(&mut ws).await.unwrap();
    assert_eq!(update["method"], "session/update", "{update}");
    assert_eq!(remote.open_connections(), 1);
    // Gone without a close frame.
    drop(ws);
    all_closed(&remote).await;
    tokio::time::timeout(Duration::from_secs(10), async {
        while !ended.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the turn ends when its client is gone");
    // The server still serves.
    let mut again = socket(&address).await;
    send(&mut again, initialize()).await;
    assert_eq!(next(&mut again).await.unwrap()["id"], 0);
}

/// Sends 64 KiB of text per prompt, 200 times.
struct Talker;

impl Agent for Talker {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let text = "t".repeat(64 * 1024);
        for _ in 0..200 {
            if session.send_text(&text).await.is_err() {
                break;
            }
        }
        Ok(StopReason::EndTurn)
    }
}

/// A Streamable HTTP client whose event stream is not read: the agent's output fills, the agent
/// stops reading the client's posts, a few posts wait for room, and the others get 503 at once
/// (each waiting post holds a TCP connection).
#[tokio::test]
async fn posts_to_an_agent_that_reads_nothing_wait_a_few_at_a_time() {
    use tokio::io::AsyncWriteExt;
    let small = 64 * 1024;
    let server = AgentServer::new(Talker)
        .connection_options(acptk_runtime::ConnectionBuilder::new().max_queued_bytes(small));
    let options = ServerOptions::new()
        .max_queued_bytes(small)
        .stall_timeout(Duration::from_secs(3));
    let (address, _remote) = serve(server, options).await;
    let (status, id) = post(&address, &[], &initialize().to_string()).await;
    assert_eq!(status, 200);
    let id = id.unwrap();
    // The connection's event stream, opened and never read.
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let get = format!(
        "GET /acp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\nAcp-Connection-Id: {id}\r\n\r\n"
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    let header = [("Acp-Connection-Id", id.as_str())];
    assert_eq!(
        post(&address, &header, &new_session(1).to_string()).await.0,
        202
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Prompts with a padding of 16 KiB, many at once, for a session id that does not matter:
    // the agent answers each (an error) into its full output, so it soon reads nothing more.
    let pad = "p".repeat(16 * 1024);
    let mut posts = Vec::new();
    for n in 0..40 {
        let body = json!({"jsonrpc":"2.0","id":100 + n,"method":"session/prompt",
            "params":{"sessionId":"any","prompt":[{"type":"text","text":pad}]}})
        .to_string();
        let address = address.clone();
        let id = id.clone();
        posts.push(tokio::spawn(async move {
            let started = std::time::Instant::now();
            let status = post(&address, &[("Acp-Connection-Id", &id)], &body).await.0;
            (status, started.elapsed())
        }));
    }
    let mut answers = Vec::new();
    for post in posts {
        answers.push(post.await.unwrap());
    }
    // Refused at once, not after the stall timeout (3 s) that the waiting ones get.
    let at_once = answers
        .iter()
        .filter(|(status, took)| *status == 503 && *took < Duration::from_secs(1))
        .count();
    assert!(at_once > 0, "{answers:?}");
    drop(stream);
}
