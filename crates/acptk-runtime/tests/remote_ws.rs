//! ACP over WebSocket (feature `remote`): an agent served by `RemoteServer` on a loopback
//! port, and clients connecting by URL or speaking raw frames. Covers the upgrade and its
//! connection id, notices by the rules of the client's version, a reconnect that loads the
//! session, binary frames, the token and origin checks, the connection limit, oversized
//! messages and a client that stops reading.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::time::Duration;

use acptk_runtime::ProtocolVersion;
use acptk_runtime::agent::{Agent, AgentServer, Prompt, Session, StopReason};
use acptk_runtime::client::transcript::Role;
use acptk_runtime::transport::remote::{
    CONNECTION_ID_HEADER, ClientOptions, ServerOptions, connect,
};
use acptk_schema::jsonrpc::ErrorObject;
use common::{TestAgent, client, texts};
use futures_util::{SinkExt, StreamExt};
use remote_support::{all_closed, serve_url, unreachable_status};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

type Raw =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A raw WebSocket to `url`, with `headers` on the upgrade request.
async fn raw(url: &str, headers: &[(&'static str, &str)]) -> Result<Raw, u16> {
    let mut request = url.into_client_request().unwrap();
    for (name, value) in headers {
        request
            .headers_mut()
            .insert(*name, HeaderValue::from_str(value).unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(error) => panic!("unexpected failure: {error}"),
    }
}

/// The next text frame as JSON (skipping anything else), or `None` at the close.
async fn next_json(socket: &mut Raw) -> Option<Value> {
    let wait = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(message) = socket.next().await {
            match message {
                Ok(Message::Text(text)) => return Some(serde_json::from_str(&text).unwrap()),
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => {}
            }
        }
        None
    });
    wait.await.expect("no frame within 10 s")
}

fn initialize() -> String {
    remote_support::initialize_as(1).to_string()
}

#[tokio::test]
async fn the_upgrade_names_the_connection_and_a_client_runs_a_turn() {
    let (agent, _opened) = TestAgent::new();
    let (url, _remote) = serve_url("ws", AgentServer::new(agent), ServerOptions::new()).await;

    let (reader, _writer) = connect(&url, &ClientOptions::new()).await.unwrap();
    let id = reader.connection_id().expect("an Acp-Connection-Id header");
    assert_eq!(id.len(), 36, "a UUID: {id}");
    assert_eq!(CONNECTION_ID_HEADER, "acp-connection-id");

    let client = client(ProtocolVersion::V1, true)
        .connect_url(&url, &ClientOptions::new())
        .await
        .unwrap();
    let session = client.new_session("/tmp", &[]).await.unwrap();
    client.prompt(&session, "hi").await.unwrap();
    assert_eq!(texts(&client, &session, Role::Agent), ["echo: hi"]);
}

#[tokio::test]
async fn notices_follow_the_version_rules_and_a_reconnect_loads_the_session() {
    remote_support::notices_and_a_reconnect("ws").await;
}

#[tokio::test]
async fn binary_frames_are_skipped() {
    let (agent, _opened) = TestAgent::new();
    let (url, _remote) = serve_url("ws", AgentServer::new(agent), ServerOptions::new()).await;
    let mut socket = raw(&url, &[]).await.unwrap();
    socket
        .send(Message::Binary(initialize().into_bytes().into()))
        .await
        .unwrap();
    socket.send(Message::text(initialize())).await.unwrap();
    let answer = next_json(&mut socket).await.unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], 1);
    // Only one answer: the binary copy was not read as a request.
    socket
        .send(Message::text(
            json!({"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {}}).to_string(),
        ))
        .await
        .unwrap();
    let next = next_json(&mut socket).await.unwrap();
    assert_eq!(next["id"], 2, "{next}");
}

#[tokio::test]
async fn a_token_is_required_when_set() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().token("s3cret");
    let (url, _remote) = serve_url("ws", AgentServer::new(agent), options).await;

    for options in [ClientOptions::new(), ClientOptions::new().token("wrong")] {
        let error = client(ProtocolVersion::V1, true)
            .connect_url(&url, &options)
            .await
            .unwrap_err();
        assert_eq!(unreachable_status(&error), Some(Some(401)), "{error}");
    }
    assert_eq!(
        raw(&url, &[("authorization", "Basic czNjcmV0")])
            .await
            .err(),
        Some(401)
    );
    let client = client(ProtocolVersion::V1, true)
        .connect_url(&url, &ClientOptions::new().token("s3cret"))
        .await
        .unwrap();
    client.new_session("/tmp", &[]).await.unwrap();
}

#[tokio::test]
async fn browser_origins_must_be_allowed() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().allow_origin("http://localhost:5173");
    let (url, _remote) = serve_url("ws", AgentServer::new(agent), options).await;
    assert_eq!(
        raw(&url, &[("origin", "https://evil.example")]).await.err(),
        Some(403)
    );
    let mut socket = raw(&url, &[("origin", "http://localhost:5173")])
        .await
        .unwrap();
    socket.send(Message::text(initialize())).await.unwrap();
    assert_eq!(next_json(&mut socket).await.unwrap()["id"], 1);
    // No Origin at all (not a browser): accepted.
    assert!(raw(&url, &[]).await.is_ok());
}

#[tokio::test]
async fn the_connection_limit_answers_503() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().max_connections(1);
    let (url, remote) = serve_url("ws", AgentServer::new(agent), options).await;
    let first = raw(&url, &[]).await.unwrap();
    assert_eq!(raw(&url, &[]).await.err(), Some(503));
    drop(first);
    all_closed(&remote).await;
    assert!(raw(&url, &[]).await.is_ok(), "the slot is free again");
}

#[tokio::test]
async fn a_plain_get_is_not_an_upgrade() {
    let (agent, _opened) = TestAgent::new();
    let (url, _remote) = serve_url("ws", AgentServer::new(agent), ServerOptions::new()).await;
    let address = url.trim_start_matches("ws://").trim_end_matches("/acp");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream
        .write_all(
            format!("GET /acp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    // Not an upgrade, and not asking for an event stream (Streamable HTTP): 406.
    assert!(answer.starts_with("HTTP/1.1 406"), "{answer}");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream
        .write_all(
            format!("GET /other HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
}

#[tokio::test]
async fn an_oversized_message_closes_the_socket_with_1009() {
    let (agent, _opened) = TestAgent::new();
    let options = ServerOptions::new().max_message_bytes(1024);
    let (url, remote) = serve_url("ws", AgentServer::new(agent), options).await;
    let mut socket = raw(&url, &[]).await.unwrap();
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": 1, "padding": "x".repeat(4096)}});
    socket.send(Message::text(big.to_string())).await.unwrap();
    let close = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                Some(Ok(_)) => {}
                _ => return None,
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(close, Some(1009));
    drop(socket);
    all_closed(&remote).await;
}

/// Streams large agent messages until the turn is cancelled or the connection fails.
struct Flood;

impl Agent for Flood {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let chunk = "y".repeat(64 * 1024);
        for _ in 0..100_000 {
            if session.send_text(chunk.clone()).await.is_err() {
                break;
            }
        }
        Ok(StopReason::EndTurn)
    }
}

#[tokio::test]
async fn a_client_that_stops_reading_is_disconnected() {
    let options = ServerOptions::new().stall_timeout(Duration::from_millis(500));
    let (url, remote) = serve_url("ws", AgentServer::new(Flood), options).await;
    let mut socket = raw(&url, &[]).await.unwrap();
    socket.send(Message::text(initialize())).await.unwrap();
    assert_eq!(next_json(&mut socket).await.unwrap()["id"], 1);
    socket
        .send(Message::text(
            json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                   "params": {"cwd": "/tmp", "mcpServers": []}})
            .to_string(),
        ))
        .await
        .unwrap();
    let created = next_json(&mut socket).await.unwrap();
    let session = created["result"]["sessionId"].as_str().unwrap().to_owned();
    socket
        .send(Message::text(
            json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                   "params": {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}})
            .to_string(),
        ))
        .await
        .unwrap();
    // Never read again: the server's writes stall, and it drops the connection.
    tokio::time::timeout(Duration::from_secs(20), async {
        while remote.open_connections() > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("a stalled reader is disconnected");
    drop(socket);
}
