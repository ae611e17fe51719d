//! A remote server as a load balancer sees it (feature `remote`): `GET /health` without a
//! token, and the drain when it is asked to stop: new connections refused, `/health`
//! draining, running turns finished or cancelled after the grace period, new prompts
//! refused with `-32011`, leases given up, connections closed with 1001.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use acptk_runtime::agent::RemoteServer;
use acptk_runtime::agent::{
    Agent, AgentServer, MemoryStore, Prompt, Session, SessionStore, StopReason,
};
use acptk_runtime::rpc;
use acptk_runtime::transport::remote::ServerOptions;
use acptk_schema::jsonrpc::ErrorObject;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

/// `slow`: one chunk, then another once the test says so (`go`); `forever`: runs until
/// cancelled, then says so.
#[derive(Default)]
struct Slow {
    go: Arc<tokio::sync::Notify>,
}

impl Agent for Slow {
    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let send = |text: &'static str| {
            let session = session.clone();
            async move { session.send_text(text).await.map_err(rpc::internal) }
        };
        match prompt.text.as_str() {
            "slow" => {
                send("one").await?;
                self.go.notified().await;
                send("two").await?;
                Ok(StopReason::EndTurn)
            }
            _ => {
                send("working").await?;
                session.cancelled().await;
                send("stopped").await?;
                Ok(StopReason::Cancelled)
            }
        }
    }
}

const TOKEN: &str = "secret-token";

struct Running {
    address: String,
    stop: Option<oneshot::Sender<()>>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Waits until the server task ends, which must be soon and cleanly.
async fn stopped(served: tokio::task::JoinHandle<std::io::Result<()>>) {
    tokio::time::timeout(Duration::from_secs(5), served)
        .await
        .expect("the server stopped")
        .unwrap()
        .unwrap();
}

async fn start(server: AgentServer<Slow>, grace: Duration) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let options = ServerOptions::new().token(TOKEN).drain_grace(grace);
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(
        RemoteServer::new(server, options).serve_until(listener, async {
            let _ = stopped.await;
        }),
    );
    Running {
        address,
        stop: Some(stop),
        served,
    }
}

/// One plain HTTP/1.1 request; the status and the body.
async fn http(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let text = remote_support::http_request(address, method, path, headers, body);
    let (status, _, body) =
        remote_support::answer_parts(&remote_support::exchange(address, &text).await);
    (status, body)
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A WebSocket with the token, or the HTTP status of the refusal.
async fn socket(address: &str) -> Result<Socket, u16> {
    let mut request = format!("ws://{address}/acp").into_client_request().unwrap();
    request.headers_mut().insert(
        "authorization",
        HeaderValue::from_str(&format!("Bearer {TOKEN}")).unwrap(),
    );
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(error) => panic!("unexpected failure: {error}"),
    }
}

async fn send(socket: &mut Socket, value: Value) {
    socket
        .send(Message::Text(value.to_string().into()))
        .await
        .unwrap();
}

/// The next message as JSON, or `Err(close code)` when the socket closes.
async fn next(socket: &mut Socket) -> Result<Value, Option<u16>> {
    let wait = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(message) = socket.next().await {
            match message {
                Ok(Message::Text(text)) => return Ok(serde_json::from_str(&text).unwrap()),
                Ok(Message::Close(frame)) => return Err(frame.map(|f| u16::from(f.code))),
                Err(_) => return Err(None),
                Ok(_) => {}
            }
        }
        Err(None)
    });
    wait.await.expect("nothing within 20 s")
}

/// Reads until the response to request `id`; the updates' texts seen on the way.
async fn response(socket: &mut Socket, id: i64, texts: &mut Vec<String>) -> Value {
    loop {
        let message = next(socket).await.expect("the socket closed early");
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
        if let Some(text) = message["params"]["update"]["content"]["text"].as_str() {
            texts.push(text.to_owned());
        }
    }
}

/// An initialised v1 WebSocket connection with one session; returns the session id.
async fn session(socket: &mut Socket) -> String {
    send(
        socket,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}}}),
    )
    .await;
    response(socket, 1, &mut Vec::new()).await;
    send(
        socket,
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": "/work", "mcpServers": []}}),
    )
    .await;
    let created = response(socket, 2, &mut Vec::new()).await;
    created["result"]["sessionId"].as_str().unwrap().to_owned()
}

fn prompt(id: i64, session: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": text}]}})
}

#[tokio::test]
async fn health_needs_no_token_and_says_ready() {
    let running = start(AgentServer::new(Slow::default()), Duration::from_secs(1)).await;
    let (status, body) = http(&running.address, "GET", "/health", &[], "").await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["status"],
        "ready"
    );
    // The endpoint itself still wants the token.
    let (status, _) = http(&running.address, "GET", "/acp", &[], "").await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn a_drain_finishes_running_turns_refuses_new_work_and_closes_everything() {
    let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new());
    let agent = Slow::default();
    let go = Arc::clone(&agent.go);
    let server = AgentServer::new(agent).shared_store(Arc::clone(&store));
    let mut running = start(server, Duration::from_secs(5)).await;
    let mut busy = socket(&running.address).await.unwrap();
    let busy_session = session(&mut busy).await;
    let mut idle = socket(&running.address).await.unwrap();
    let idle_session = session(&mut idle).await;
    send(&mut busy, prompt(10, &busy_session, "slow")).await;
    // The first chunk is out: the turn runs.
    let first = next(&mut busy).await.unwrap();
    assert_eq!(first["params"]["update"]["content"]["text"], "one");
    let asked = Instant::now();
    running.stop.take().unwrap().send(()).unwrap();

    // Draining: /health says so, new connections are refused, new prompts too.
    let (mut status, mut body) = (0, String::new());
    for _ in 0..100 {
        (status, body) = http(&running.address, "GET", "/health", &[], "").await;
        if status != 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, 503);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["status"],
        "draining"
    );
    assert_eq!(socket(&running.address).await.err(), Some(503));
    let authorization = format!("Bearer {TOKEN}");
    let (status, _) = http(
        &running.address,
        "POST",
        "/acp",
        &[
            ("Content-Type", "application/json"),
            ("Authorization", &authorization),
        ],
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#,
    )
    .await;
    assert_eq!(status, 503);
    send(&mut idle, prompt(11, &idle_session, "slow")).await;
    let refused = response(&mut idle, 11, &mut Vec::new()).await;
    assert_eq!(refused["error"]["code"], rpc::SHUTTING_DOWN, "{refused}");

    // The running turn ends by itself, with everything it sent recorded.
    go.notify_one();
    let mut texts = Vec::new();
    let done = response(&mut busy, 10, &mut texts).await;
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert_eq!(texts, ["two"]);
    assert_eq!(store.history(&busy_session).await.unwrap().len(), 3);
    // Then every connection is closed as going away, and the server stops.
    assert_eq!(next(&mut busy).await.err(), Some(Some(1001)));
    assert_eq!(next(&mut idle).await.err(), Some(Some(1001)));
    stopped(running.served).await;
    assert!(
        asked.elapsed() < Duration::from_secs(4),
        "{:?}",
        asked.elapsed()
    );
}

#[tokio::test]
async fn a_turn_that_outlives_the_grace_period_is_cancelled() {
    let server = AgentServer::new(Slow::default());
    let mut running = start(server, Duration::from_millis(300)).await;
    let mut socket = socket(&running.address).await.unwrap();
    let id = session(&mut socket).await;
    send(&mut socket, prompt(10, &id, "forever")).await;
    assert_eq!(
        next(&mut socket).await.unwrap()["params"]["update"]["content"]["text"],
        "working"
    );
    let asked = Instant::now();
    running.stop.take().unwrap().send(()).unwrap();
    let mut texts = Vec::new();
    let done = response(&mut socket, 10, &mut texts).await;
    assert_eq!(done["result"]["stopReason"], "cancelled", "{done}");
    // Nothing of a cancelled turn follows its stop: the handler's "stopped" fails (the turn's
    // calls answer that it was cancelled).
    assert!(texts.is_empty(), "{texts:?}");
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    assert_eq!(next(&mut socket).await.err(), Some(Some(1001)));
    stopped(running.served).await;
}

/// With a store that several processes share, the drain gives up the leases at once.
#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_drain_gives_up_the_leases() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.sqlite3");
    let store = acptk_runtime::agent::SqliteStore::open(&path).unwrap();
    let server = AgentServer::new(Slow::default()).store(store);
    let mut running = start(server, Duration::from_millis(200)).await;
    let mut socket = socket(&running.address).await.unwrap();
    let id = session(&mut socket).await;
    send(&mut socket, prompt(10, &id, "forever")).await;
    next(&mut socket).await.unwrap();
    let other = acptk_runtime::agent::SqliteStore::open(&path).unwrap();
    assert!(other.lease(&id, Duration::from_secs(5)).await.is_err());
    running.stop.take().unwrap().send(()).unwrap();
    stopped(running.served).await;
    other.lease(&id, Duration::from_secs(5)).await.unwrap();
}
