//! Unused Streamable HTTP connections make way for new ones (feature `remote`), on loopback:
//! a flood of `initialize` requests never followed up does not lock a client (or everyone
//! behind one balancer) out; connections in use (an event stream, a turn, any message after
//! `initialize`) are never evicted; the limit counts per principal where tokens name one; the
//! client's address comes from `X-Forwarded-For` or a PROXY line only from a trusted peer.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod remote_support;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use acptk_runtime::ConnectionBuilder;
use acptk_runtime::agent::AgentServer;
use acptk_runtime::log::Logger;
use acptk_runtime::transport::remote::{DEFAULT_UNUSED_TIMEOUT, ServerOptions};
use common::TestAgent;
use remote_support::{Peer, http_request, initialize, new_session, serve, status_and_id};
use serde_json::json;
use tokio::net::{TcpSocket, TcpStream};

/// A server of a test agent with `options`; its address and what it logged.
async fn server(options: ServerOptions) -> (String, Arc<Mutex<Vec<String>>>) {
    let logs = Arc::new(Mutex::new(Vec::<String>::new()));
    let logged = Arc::clone(&logs);
    let logger = Logger::new(move |_, message| logged.lock().unwrap().push(message.to_owned()));
    let (agent, _opened) = TestAgent::new();
    let agent = AgentServer::new(agent).connection_options(ConnectionBuilder::new().logger(logger));
    let (address, _remote) = serve(agent, options).await;
    (address, logs)
}

/// A TCP connection to `address` from the loopback address `source`.
async fn connect_from(source: [u8; 4], address: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((source, 0))).unwrap();
    socket.connect(address.parse().unwrap()).await.unwrap()
}

/// Sends `prefix` and a POST of `body` with `headers` from `source`: the status and the
/// `Acp-Connection-Id` of the answer (status 0: the server closed the connection).
async fn post_from(
    source: [u8; 4],
    address: &str,
    prefix: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Option<String>) {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    let text = format!(
        "{prefix}{}",
        http_request(address, "POST", "/acp", &all, body)
    );
    let stream = connect_from(source, address).await;
    // However the reading ended, what came before counts.
    let (raw, _) = remote_support::exchange_on(stream, &text).await;
    status_and_id(&raw)
}

/// `initialize` from 127.0.0.1 with `headers`: the status and connection id.
async fn initialize_with(address: &str, headers: &[(&str, &str)]) -> (u16, Option<String>) {
    post_from(
        [127, 0, 0, 1],
        address,
        "",
        headers,
        &initialize().to_string(),
    )
    .await
}

/// Uses the connection `id` (a `session/new` posted on it): 202.
async fn use_it(address: &str, id: &str, headers: &[(&str, &str)]) -> u16 {
    let mut all = vec![("Acp-Connection-Id", id)];
    all.extend_from_slice(headers);
    post_from(
        [127, 0, 0, 1],
        address,
        "",
        &all,
        &new_session(1).to_string(),
    )
    .await
    .0
}

#[tokio::test]
async fn a_flood_of_unused_initializes_does_not_lock_out_a_new_client() {
    // The defaults: 64 per address, unused for 10 s before the timeout closes it.
    let (address, logs) = server(ServerOptions::new()).await;
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for _ in 0..300 {
        let (status, _) = initialize_with(&address, &[]).await;
        *statuses.entry(status).or_default() += 1;
    }
    println!("flood of 300 initializes: {statuses:?}");
    assert_eq!(statuses.get(&200), Some(&300), "{statuses:?}");
    // A new client from the same address, at once.
    let started = Instant::now();
    let (status, id) = initialize_with(&address, &[]).await;
    let took = started.elapsed();
    println!("a new client after the flood: {status} in {took:?}");
    assert_eq!(status, 200);
    assert!(id.is_some());
    assert!(took < DEFAULT_UNUSED_TIMEOUT, "{took:?}");
    let logs = logs.lock().unwrap().join("\n");
    assert!(logs.contains("evicted HTTP connection"), "{logs}");
    assert!(logs.contains("(the limit per client)"), "{logs}");
}

#[tokio::test]
async fn connections_in_use_are_never_evicted() {
    let (address, _logs) = server(ServerOptions::new().max_per_address(3)).await;
    let url = format!("http://{address}/acp");
    // One with its event stream open, one with a turn running as well.
    let mut streaming = Peer::connect(&url).await;
    let mut turning = Peer::connect(&url).await;
    let session = turning.new_session(1).await;
    let prompt = json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "wait"}]}});
    turning.send_raw(&prompt.to_string()).await;
    // The third place goes from one unused connection to the next.
    let mut last = None;
    for _ in 0..20 {
        let (status, id) = initialize_with(&address, &[]).await;
        assert_eq!(status, 200, "an unused connection makes way");
        last = id;
    }
    // Both in use still work: a new session on one, the turn of the other ends when cancelled.
    streaming.new_session(5).await;
    let cancel =
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}});
    turning.send_raw(&cancel.to_string()).await;
    let answer = turning.answer(2).await;
    assert_eq!(answer["result"]["stopReason"], "cancelled", "{answer}");
    // Once the last one is used too, every place is in use: 503.
    assert_eq!(use_it(&address, &last.unwrap(), &[]).await, 202);
    assert_eq!(initialize_with(&address, &[]).await.0, 503);
    streaming.close().await;
    turning.close().await;
}

#[tokio::test]
async fn the_limit_counts_per_principal_where_tokens_name_one() {
    let options = ServerOptions::new()
        .principal("alice", "alice-token")
        .principal("bob", "bob-token")
        .max_per_address(2);
    let (address, _logs) = server(options).await;
    let alice = [("Authorization", "Bearer alice-token")];
    let bob = [("Authorization", "Bearer bob-token")];
    for _ in 0..2 {
        let (status, id) = initialize_with(&address, &alice).await;
        assert_eq!(status, 200);
        assert_eq!(use_it(&address, &id.unwrap(), &alice).await, 202);
    }
    assert_eq!(
        initialize_with(&address, &alice).await.0,
        503,
        "alice's connections are all in use"
    );
    // Bob, from the same address, has his own count; his unused ones make way for him.
    for _ in 0..5 {
        assert_eq!(initialize_with(&address, &bob).await.0, 200);
    }
}

#[tokio::test]
async fn the_client_address_comes_from_a_trusted_balancer_only() {
    let options = ServerOptions::new()
        .max_per_address(1)
        .trusted_proxy("127.0.0.2".parse().unwrap());
    let (address, _logs) = server(options).await;
    let body = initialize().to_string();
    // Takes the one place of `source` (as the address the server sees) and uses it.
    let take = |source: [u8; 4], prefix: &'static str, forwarded: Option<&'static str>| {
        let address = address.clone();
        let body = body.clone();
        async move {
            let headers: Vec<(&str, &str)> = forwarded
                .map(|value| vec![("X-Forwarded-For", value)])
                .unwrap_or_default();
            let (status, id) = post_from(source, &address, prefix, &headers, &body).await;
            if status == 200 {
                assert_eq!(use_it(&address, &id.unwrap(), &[]).await, 202);
            }
            status
        }
    };
    // From an untrusted peer the header is ignored: all count for 127.0.0.1.
    assert_eq!(take([127, 0, 0, 1], "", Some("192.0.2.1")).await, 200);
    assert_eq!(take([127, 0, 0, 1], "", Some("192.0.2.2")).await, 503);
    // From the balancer, each forwarded address counts apart.
    assert_eq!(
        take([127, 0, 0, 2], "", Some("6.6.6.6, 192.0.2.1")).await,
        200
    );
    assert_eq!(take([127, 0, 0, 2], "", Some("192.0.2.2")).await, 200);
    assert_eq!(take([127, 0, 0, 2], "", Some("192.0.2.1")).await, 503);
    // A PROXY line from the balancer names the client, and wins over X-Forwarded-For.
    let line = "PROXY TCP4 192.0.2.3 127.0.0.1 50000 80\r\n";
    assert_eq!(take([127, 0, 0, 2], line, Some("192.0.2.4")).await, 200);
    assert_eq!(take([127, 0, 0, 2], line, None).await, 503);
    assert_eq!(take([127, 0, 0, 2], "", Some("192.0.2.4")).await, 200);
    // From anyone else a PROXY line is no HTTP: it is not served.
    assert_ne!(take([127, 0, 0, 1], line, None).await, 200);
    assert_ne!(take([127, 0, 0, 3], line, None).await, 200);
}
