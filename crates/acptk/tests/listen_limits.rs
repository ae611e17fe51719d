//! The limits of `acp agent --listen` and `acp proxy --listen` against hostile clients, on the
//! real binary: session requests with escaped method names are counted through the proxy
//! (over WebSocket and Streamable HTTP), a `session/close` sent as a notification frees
//! nothing, the listener-wide session cap, and a flood of idle sockets past the process's
//! file-descriptor limit that a legitimate client gets through within a second.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/listening.rs"]
mod listening;

use std::time::{Duration, Instant};

use acptk_runtime::transport::remote::{ClientOptions, SESSION_LIMIT_CODE, connect};
use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};
use listening::{Listening, runtime};
use serde_json::{Value, json};

const ACP: &str = env!("CARGO_BIN_EXE_acp");

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;

/// A client that sends any text and reads answers by id.
struct Peer<R, W> {
    reader: R,
    writer: W,
}

impl<R: MessageReader, W: MessageWriter> Peer<R, W> {
    async fn send(&mut self, text: &str) {
        self.writer.write(text.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// Sends `text` and reads until the answer with `id` (10 s at most).
    async fn call(&mut self, text: &str, id: u64) -> Value {
        self.send(text).await;
        let read = async {
            loop {
                let message = match self.reader.read().await.unwrap() {
                    Frame::Message(message) => serde_json::from_slice::<Value>(&message).unwrap(),
                    other => panic!("no answer to {id}: {other:?}"),
                };
                if message["id"] == id && message.get("method").is_none() {
                    return message;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), read)
            .await
            .expect("an answer within 10 s")
    }
}

async fn peer(url: &str) -> Peer<impl MessageReader, impl MessageWriter> {
    let (reader, writer) = connect(url, &ClientOptions::new()).await.unwrap();
    let mut peer = Peer { reader, writer };
    assert!(peer.call(INIT, 0).await["result"].is_object());
    peer
}

fn new_as(id: u64, method: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"cwd":"/tmp","mcpServers":[]}}}}"#
    )
}

fn refused(answer: &Value) -> bool {
    answer["error"]["code"] == SESSION_LIMIT_CODE
}

#[test]
fn escaped_session_requests_are_counted_through_the_proxy() {
    let proxy = Listening::proxy(
        &["--max-sessions", "2"],
        &[ACP, "agent", "--ephemeral"],
        &[],
    );
    let address = proxy.address().to_owned();
    runtime().block_on(async {
        for scheme in ["ws", "http"] {
            let mut peer = peer(&format!("{scheme}://{address}/acp")).await;
            let first = peer.call(&new_as(1, r"session\/new"), 1).await;
            let session = first["result"]["sessionId"].as_str().unwrap().to_owned();
            let second = peer.call(&new_as(2, r"\u0073ession/new"), 2).await;
            assert!(second["result"]["sessionId"].is_string(), "{second}");
            let third = peer.call(&new_as(3, r"session\/new"), 3).await;
            assert!(refused(&third), "{scheme}: {third}");
            // A close sent as a notification frees nothing; answered with a result, it does.
            let close = json!({"jsonrpc":"2.0","method":"session/close","params":{"sessionId":session}});
            peer.send(&close.to_string()).await;
            let fourth = peer.call(&new_as(4, "session/new"), 4).await;
            assert!(refused(&fourth), "{scheme}: {fourth}");
            let close = json!({"jsonrpc":"2.0","id":5,"method":"session/close","params":{"sessionId":session}});
            assert!(peer.call(&close.to_string(), 5).await["result"].is_object());
            let sixth = peer.call(&new_as(6, r"session\/new"), 6).await;
            assert!(sixth["result"]["sessionId"].is_string(), "{scheme}: {sixth}");
        }
    });
}

#[test]
fn the_listener_wide_session_cap_is_a_flag() {
    let agent = Listening::start(&["--ephemeral", "--max-total-sessions", "2"], &[]);
    let url = agent.url.clone();
    runtime().block_on(async {
        let mut first = peer(&url).await;
        for id in 1..=2 {
            let answer = first.call(&new_as(id, "session/new"), id).await;
            assert!(answer["result"]["sessionId"].is_string(), "{answer}");
        }
        let mut second = peer(&url).await;
        let answer = second.call(&new_as(1, "session/new"), 1).await;
        assert!(refused(&answer), "{answer}");
        assert_eq!(answer["error"]["data"]["limit"], "sessions per server");
    });
}

/// More idle sockets than `acp agent` has file descriptors: the oldest waiting ones are
/// closed to make room, so the server never runs out and a legitimate client is served at
/// once (before, accepting failed with EMFILE until the idle sockets went away).
#[cfg(target_os = "linux")]
#[test]
fn idle_sockets_past_the_descriptor_limit_do_not_keep_a_client_out() {
    let limit = 64;
    let sockets = 150;
    let agent = Listening::start_limited(
        limit,
        &["--ephemeral", "--verbose", "--max-connections", "16"],
    );
    let url = agent.url.clone();
    let address = agent.address().to_owned();
    let served = runtime().block_on(async {
        let mut idle = Vec::new();
        for _ in 0..sockets {
            idle.push(tokio::net::TcpStream::connect(&address).await.unwrap());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let started = Instant::now();
        let mut client = peer(&url).await;
        let answer = client.call(&new_as(1, "session/new"), 1).await;
        let served = started.elapsed();
        assert!(answer["result"]["sessionId"].is_string(), "{answer}");
        drop(idle);
        served
    });
    let logged = agent.stderr_until(
        |text| text.contains("waited longest"),
        Duration::from_secs(10),
    );
    drop(agent);
    println!("served in {served:?} with {sockets} idle sockets and a limit of {limit} descriptors");
    assert!(served < Duration::from_secs(1), "{served:?}");
    assert!(logged.contains("waited longest"), "{logged}");
    assert!(
        !logged.contains("accepting a connection failed"),
        "{logged}"
    );
}
