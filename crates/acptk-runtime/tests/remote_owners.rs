//! Principals on a remote server (feature `remote`): each bearer token names a principal,
//! and over WebSocket and Streamable HTTP alike a connection sees only its principal's
//! sessions (every session method of the version's tables answers another's session as an
//! unknown one); a server without tokens is one principal; an HTTP connection id is unknown
//! to another principal; an empty token matches nothing; repeated `Origin` or
//! `Authorization` headers are refused with 400.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod owners_support;
mod remote_support;

use std::time::Duration;

use acptk_runtime::agent::AgentServer;
use acptk_runtime::client::Client;
use acptk_runtime::transport::remote::{ClientOptions, ServerOptions};
use acptk_runtime::{Error, ProtocolVersion};
use common::client;
use owners_support::{Caller, SECRET, probe, session_methods};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Serves the ownership test agent with `options` on a loopback port; returns `host:port`.
async fn serve(options: ServerOptions) -> String {
    let server = AgentServer::new(owners_support::agent());
    remote_support::serve(server, options).await.0
}

fn two_principals() -> ServerOptions {
    ServerOptions::new()
        .principal("alice", "alice-token")
        .principal("bob", "bob-token")
}

async fn connect(url: &str, version: ProtocolVersion, token: &str) -> Client {
    client(version, true)
        .connect_url(url, &ClientOptions::new().token(token))
        .await
        .unwrap()
}

/// A runtime client sending raw requests.
struct Remote(Client);

impl Caller for Remote {
    async fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let params = serde_json::value::to_raw_value(&params).unwrap();
        match self.0.connection().request_raw(method, Some(params)).await {
            Ok(raw) => Ok(serde_json::from_str(raw.get()).unwrap()),
            Err(Error::Rpc(error)) => Err(serde_json::to_value(error).unwrap()),
            Err(other) => panic!("`{method}`: {other}"),
        }
    }

    async fn notify(&mut self, method: &str, params: Value) {
        let params = serde_json::value::to_raw_value(&params).unwrap();
        self.0
            .connection()
            .notify_raw(method, Some(params))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn over_websocket_and_http_a_principal_reaches_only_its_own_sessions() {
    let address = serve(two_principals()).await;
    for scheme in ["ws", "http"] {
        for version in [ProtocolVersion::V1, ProtocolVersion::V2] {
            let url = format!("{scheme}://{address}/acp");
            let alice = connect(&url, version, "alice-token").await;
            let theirs = alice.new_session("/work", &[]).await.unwrap();
            alice
                .prompt(&theirs, &format!("title:{SECRET}"))
                .await
                .unwrap();
            let mut bob = Remote(connect(&url, version, "bob-token").await);
            let mine = bob.0.new_session("/work", &[]).await.unwrap();

            let number = if version == ProtocolVersion::V1 { 1 } else { 2 };
            let (requests, notifications) = session_methods(number);
            let codes = probe(&mut bob, &theirs, &requests).await;
            assert!(
                codes.contains(&("session/prompt".to_owned(), -32002)),
                "{scheme} v{number}: {codes:?}"
            );
            for method in &notifications {
                bob.notify(method, owners_support::params(&theirs)).await;
            }
            let listed = bob.call("session/list", json!({})).await.unwrap();
            let text = listed.to_string();
            assert!(
                text.contains(&mine) && !text.contains(&theirs) && !text.contains("0000"),
                "{scheme} v{number}: {text}"
            );
            // Alice still has her session, titled, and can go on with it.
            let page = alice.list_sessions(None, None).await.unwrap();
            let titles: Vec<Option<String>> = page
                .sessions
                .iter()
                .filter(|summary| summary.id == theirs)
                .map(|summary| summary.title.clone())
                .collect();
            assert_eq!(titles, [Some(SECRET.to_owned())], "{scheme} v{number}");
            assert!(!page.sessions.iter().any(|summary| summary.id == mine));
            alice.prompt(&theirs, "still mine").await.unwrap();
            alice.delete_session(&theirs).await.unwrap();
            alice.close().await;
            bob.0.close().await;
        }
    }
}

#[tokio::test]
async fn a_server_without_tokens_is_one_principal() {
    let address = serve(ServerOptions::new()).await;
    let url = format!("ws://{address}/acp");
    let first = client(ProtocolVersion::V1, true)
        .connect_url(&url, &ClientOptions::new())
        .await
        .unwrap();
    let session = first.new_session("/work", &[]).await.unwrap();
    first.close().await;
    let second = client(ProtocolVersion::V1, true)
        .connect_url(&format!("http://{address}/acp"), &ClientOptions::new())
        .await
        .unwrap();
    let page = second.list_sessions(None, None).await.unwrap();
    assert!(page.sessions.iter().any(|summary| summary.id == session));
    second.load_session(&session, "/work", &[]).await.unwrap();
}

/// One raw HTTP/1.1 request; returns the status and the response head.
async fn send(address: &str, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let text = remote_support::http_request(address, method, "/acp", headers, body);
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(text.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    // An event stream stays open: the head is enough.
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut raw)).await;
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let head = raw.split("\r\n\r\n").next().unwrap_or_default().to_owned();
    (status, head)
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const UPGRADE: [(&str, &str); 4] = [
    ("Upgrade", "websocket"),
    ("Connection", "Upgrade"),
    ("Sec-WebSocket-Version", "13"),
    ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
];

fn initialize() -> String {
    remote_support::initialize_as(1).to_string()
}

#[tokio::test]
async fn an_http_connection_is_unknown_to_another_principal() {
    let address = serve(two_principals()).await;
    let (status, head) = send(
        &address,
        "POST",
        &[JSON, ("Authorization", "Bearer alice-token")],
        &initialize(),
    )
    .await;
    assert_eq!(status, 200, "{head}");
    let id = head
        .lines()
        .find_map(|line| line.strip_prefix("acp-connection-id: "))
        .unwrap()
        .trim()
        .to_owned();
    let new = json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                     "params": {"cwd": "/work", "mcpServers": []}})
    .to_string();
    let bob = ("Authorization", "Bearer bob-token");
    let named = ("Acp-Connection-Id", id.as_str());
    assert_eq!(
        send(&address, "POST", &[JSON, bob, named], &new).await.0,
        404
    );
    let events = [bob, named, ("Accept", "text/event-stream")];
    assert_eq!(send(&address, "GET", &events, "").await.0, 404);
    assert_eq!(send(&address, "DELETE", &[bob, named], "").await.0, 404);
    // Still alice's, and still open.
    let alice = ("Authorization", "Bearer alice-token");
    assert_eq!(
        send(&address, "POST", &[JSON, alice, named], &new).await.0,
        202
    );
    assert_eq!(send(&address, "DELETE", &[alice, named], "").await.0, 202);
}

#[tokio::test]
async fn an_empty_token_matches_nothing() {
    let address = serve(ServerOptions::new().token("")).await;
    for headers in [
        vec![JSON],
        vec![JSON, ("Authorization", "Bearer ")],
        vec![JSON, ("Authorization", "Bearer")],
    ] {
        let (status, head) = send(&address, "POST", &headers, &initialize()).await;
        assert_eq!(status, 401, "{headers:?}: {head}");
    }
}

#[tokio::test]
async fn repeated_origin_or_authorization_headers_are_refused() {
    let address = serve(
        ServerOptions::new()
            .token("right")
            .allow_origin("http://localhost:5173"),
    )
    .await;
    let right = ("Authorization", "Bearer right");
    let origin = ("Origin", "http://localhost:5173");
    // Each alone is accepted.
    assert_eq!(
        send(&address, "POST", &[JSON, right, origin], &initialize())
            .await
            .0,
        200
    );
    let refused: [Vec<(&str, &str)>; 4] = [
        vec![right, ("Authorization", "Bearer wrong")],
        vec![("Authorization", "Bearer wrong"), right],
        vec![right, right],
        vec![right, origin, ("Origin", "http://evil.example")],
    ];
    for headers in refused {
        let mut post = vec![JSON];
        post.extend(&headers);
        let (status, head) = send(&address, "POST", &post, &initialize()).await;
        assert_eq!(status, 400, "POST {headers:?}: {head}");
        let mut upgrade = UPGRADE.to_vec();
        upgrade.extend(&headers);
        let (status, head) = send(&address, "GET", &upgrade, "").await;
        assert_eq!(status, 400, "upgrade {headers:?}: {head}");
    }
}
