//! The Streamable HTTP client (feature `remote`): `ClientBuilder::connect_url` with
//! `http://` and `https://` URLs against `RemoteServer` on a loopback port. Covers turns with
//! notices by the rules of each version, a permission request from the agent and its answer,
//! a reconnect on a new HTTP connection that loads the session, `DELETE` on close, the token,
//! refusals reported with their status and body, cookies kept per connection (through a
//! test-only proxy that insists on its affinity cookie), HTTPS with HTTP/2 by ALPN, and an
//! event over the message limit.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod remote_support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_runtime::agent::RemoteServer;
use acptk_runtime::agent::{Agent, AgentServer, Prompt, Session, StopReason};
use acptk_runtime::client::PermissionDecision;
use acptk_runtime::client::transcript::Role;
use acptk_runtime::log::{Level, Logger};
use acptk_runtime::transport::remote::{
    ClientOptions, RemoteError, ServerOptions, TlsIdentity, connect,
};
use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};
use acptk_runtime::{Error, ProtocolVersion};
use acptk_schema::jsonrpc::ErrorObject;
use common::{TestAgent, client, texts};
use remote_support::{all_closed, serve_url, unreachable_status};
use serde_json::{Value, json};
use tokio::net::TcpListener;

#[tokio::test]
async fn notices_follow_the_version_rules_and_a_reconnect_loads_the_session() {
    remote_support::notices_and_a_reconnect("http").await;
}

#[tokio::test]
async fn a_permission_request_from_the_agent_is_answered() {
    for version in [ProtocolVersion::V1, ProtocolVersion::V2] {
        let (agent, _opened) = TestAgent::new();
        let (url, _remote) = serve_url("http", AgentServer::new(agent), ServerOptions::new()).await;
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&asked);
        let client = client(version, true)
            .permissions(move |request| {
                seen.lock().unwrap().push(request.title.clone());
                Box::pin(async move { PermissionDecision::Selected(request.options[0].id.clone()) })
            })
            .connect_url(&url, &ClientOptions::new())
            .await
            .unwrap();
        // Two sessions, so answers must find their own session's stream.
        let other = client.new_session("/tmp", &[]).await.unwrap();
        let id = client.new_session("/tmp", &[]).await.unwrap();
        client.prompt(&id, "ask").await.unwrap();
        client.prompt(&other, "hello").await.unwrap();
        assert_eq!(*asked.lock().unwrap(), ["Delete everything"], "{version:?}");
        let reply = texts(&client, &id, Role::Agent);
        assert_eq!(reply.len(), 1, "{version:?}: {reply:?}");
        assert!(reply[0].contains("allow"), "{version:?}: {reply:?}");
        assert_eq!(texts(&client, &other, Role::Agent), ["echo: hello"]);
        client.close().await;
    }
}

#[tokio::test]
async fn a_token_is_required_when_set() {
    let (agent, _opened) = TestAgent::new();
    let (url, _remote) = serve_url(
        "http",
        AgentServer::new(agent),
        ServerOptions::new().token("s3cret"),
    )
    .await;
    for options in [ClientOptions::new(), ClientOptions::new().token("wrong")] {
        let error = client(ProtocolVersion::V1, true)
            .connect_url(&url, &options)
            .await
            .unwrap_err();
        match &error {
            Error::Remote(RemoteError::Unreachable {
                status: Some(401),
                reason,
                ..
            }) => assert!(reason.contains("bearer token"), "{error}"),
            other => panic!("expected a 401, got {other:?}"),
        }
        assert!(error.to_string().starts_with("cannot connect to http://"));
    }
    let client = client(ProtocolVersion::V1, true)
        .connect_url(&url, &ClientOptions::new().token("s3cret"))
        .await
        .unwrap();
    let id = client.new_session("/tmp", &[]).await.unwrap();
    client.prompt(&id, "hi").await.unwrap();
}

#[tokio::test]
async fn refusals_name_the_status_and_the_body() {
    let (agent, _opened) = TestAgent::new();
    let (url, remote) = serve_url("http", AgentServer::new(agent), ServerOptions::new()).await;

    // Nothing at that path: 404 on `initialize`.
    let wrong = url.replace("/acp", "/elsewhere");
    let error = client(ProtocolVersion::V1, true)
        .connect_url(&wrong, &ClientOptions::new())
        .await
        .unwrap_err();
    assert_eq!(unreachable_status(&error), Some(Some(404)), "{error:?}");
    // Nothing listening at all: no status.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let error = client(ProtocolVersion::V1, true)
        .connect_url(&format!("http://{free}/acp"), &ClientOptions::new())
        .await
        .unwrap_err();
    assert_eq!(unreachable_status(&error), Some(None), "{error:?}");

    // A connection the server has forgotten: the next request fails with the status and
    // the server's words, and the transport ends.
    let (mut reader, mut writer) = connect(&url, &ClientOptions::new()).await.unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"protocolVersion": 1, "clientCapabilities": {}}});
    writer
        .write(initialize.to_string().as_bytes())
        .await
        .unwrap();
    assert_eq!(next(&mut reader).await.unwrap()["id"], 1);
    let id = reader.connection_id().expect("a connection id").to_owned();
    assert_eq!(id.len(), 36, "{id}");
    let forget = reqwest::Client::new()
        .delete(&url)
        .header("acp-connection-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(forget.status(), 202);
    all_closed(&remote).await;
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                         "params": {"cwd": "/tmp", "mcpServers": []}});
    writer.write(request.to_string().as_bytes()).await.unwrap();
    let answer = next(&mut reader).await.unwrap();
    assert_eq!(answer["id"], 2, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("POST session/new"), "{message}");
    assert!(message.contains("404"), "{message}");
    assert!(
        message.contains("the connection has ended")
            || message.contains("unknown Acp-Connection-Id"),
        "{message}"
    );
    assert_eq!(answer["error"]["data"]["status"], 404);
    assert!(next(&mut reader).await.is_none(), "the transport ended");
    assert!(writer.write(b"{}").await.is_err());
}

/// The next message from `reader` as JSON, `None` at the end.
async fn next(reader: &mut impl MessageReader) -> Option<Value> {
    let frame = tokio::time::timeout(Duration::from_secs(10), reader.read())
        .await
        .expect("a message within 10 s")
        .unwrap();
    match frame {
        Frame::Message(bytes) => Some(serde_json::from_slice(&bytes).unwrap()),
        Frame::End => None,
        other => panic!("unexpected {other:?}"),
    }
}

/// A test-only load balancer in front of `upstream`: it sets an affinity cookie of its own
/// on every new connection (the answer to `initialize`) and refuses with 400 any later
/// request that does not carry that connection's cookie.
async fn sticky_proxy(upstream: String) -> String {
    use axum::body::Body;
    use axum::extract::Request;
    use axum::http::{HeaderValue, StatusCode, header};
    use axum::response::{IntoResponse, Response};

    let cookies: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let client = reqwest::Client::new();
    let handler = move |request: Request| {
        let cookies = Arc::clone(&cookies);
        let client = client.clone();
        let upstream = upstream.clone();
        async move {
            let (parts, body) = request.into_parts();
            let connection = parts
                .headers
                .get("acp-connection-id")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            if let Some(connection) = &connection {
                let expected = cookies.lock().unwrap().get(connection).cloned();
                let sent = parts
                    .headers
                    .get_all(header::COOKIE)
                    .iter()
                    .filter_map(|value| value.to_str().ok())
                    .flat_map(|value| value.split(';'))
                    .any(|pair| Some(pair.trim()) == expected.as_deref());
                if !sent {
                    return (StatusCode::BAD_REQUEST, "missing the affinity cookie\n")
                        .into_response();
                }
            }
            let body = axum::body::to_bytes(body, 1 << 24).await.unwrap();
            let mut forward = client.request(parts.method.clone(), &upstream).body(body);
            for name in [
                "content-type",
                "accept",
                "acp-connection-id",
                "acp-session-id",
            ] {
                if let Some(value) = parts.headers.get(name) {
                    forward = forward.header(name, value.as_bytes());
                }
            }
            let answer = forward.send().await.unwrap();
            let status = answer.status();
            let mut response = Response::builder().status(status.as_u16());
            for (name, value) in answer.headers() {
                response = response.header(name.as_str(), value.as_bytes());
            }
            let created = answer
                .headers()
                .get("acp-connection-id")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            if let (None, Some(created)) = (&connection, created) {
                let cookie = format!("affinity={}", uuid::Uuid::new_v4());
                cookies.lock().unwrap().insert(created, cookie.clone());
                response = response.header(
                    header::SET_COOKIE,
                    HeaderValue::from_str(&format!("{cookie}; Path=/")).unwrap(),
                );
            }
            response
                .body(Body::from_stream(answer.bytes_stream()))
                .unwrap()
        }
    };
    let router = axum::Router::new().route("/acp", axum::routing::any(handler));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/acp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

#[tokio::test]
async fn cookies_are_kept_for_each_connection() {
    let (agent, _opened) = TestAgent::new();
    let (upstream, _remote) =
        serve_url("http", AgentServer::new(agent), ServerOptions::new()).await;
    let url = sticky_proxy(upstream).await;
    // Without the cookie the balancer refuses: the check is real.
    let refused = reqwest::Client::new()
        .get(&url)
        .header("acp-connection-id", "anything")
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);

    // Two connections, interleaved: each sends back its own cookie.
    let first = client(ProtocolVersion::V1, true)
        .connect_url(&url, &ClientOptions::new())
        .await
        .unwrap();
    let second = client(ProtocolVersion::V2, true)
        .connect_url(&url, &ClientOptions::new())
        .await
        .unwrap();
    let a = first.new_session("/tmp", &[]).await.unwrap();
    let b = second.new_session("/tmp", &[]).await.unwrap();
    first.prompt(&a, "one").await.unwrap();
    second.prompt(&b, "two").await.unwrap();
    assert_eq!(texts(&first, &a, Role::Agent), ["echo: one"]);
    assert_eq!(texts(&second, &b, Role::Agent), ["echo: two"]);
    first.close().await;
    second.close().await;
}

/// A logger that keeps what it is given.
/// Whether a line of `lines` contains `text`.
fn logged(lines: &Mutex<Vec<String>>, text: &str) -> bool {
    lines.lock().unwrap().iter().any(|line| line.contains(text))
}

fn recording() -> (Logger, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&lines);
    let logger = Logger::new(move |_level: Level, message: &str| {
        kept.lock().unwrap().push(message.to_owned());
    });
    (logger, lines)
}

#[tokio::test]
async fn https_with_a_trusted_certificate_speaks_http2() {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert, key) = (certified.cert.pem(), certified.key_pair.serialize_pem());
    let identity = TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (agent, _opened) = TestAgent::new();
    let server = RemoteServer::new(AgentServer::new(agent), ServerOptions::new());
    tokio::spawn(server.serve_tls_until(listener, identity, std::future::pending()));
    let url = format!("https://localhost:{port}/acp");

    let (logger, lines) = recording();
    let options = ClientOptions::new()
        .trust_pem(cert.as_bytes())
        .unwrap()
        .logger(logger);
    let client = client(ProtocolVersion::V1, true)
        .connect_url(&url, &options)
        .await
        .unwrap();
    let id = client.new_session("/tmp", &[]).await.unwrap();
    client.prompt(&id, "hi").await.unwrap();
    assert_eq!(texts(&client, &id, Role::Agent), ["echo: hi"]);
    client.close().await;
    assert!(
        logged(&lines, "HTTP/2"),
        "h2 by ALPN: {:?}",
        lines.lock().unwrap()
    );

    // Without the trust (the Mozilla roots do not know it): refused, saying why.
    let error = client_error(&url, &ClientOptions::new()).await;
    assert!(error.to_lowercase().contains("certificate"), "{error}");
    // Cleartext to the TLS port: refused too.
    let error = client_error(&format!("http://localhost:{port}/acp"), &options).await;
    assert!(error.starts_with("cannot connect to http://"), "{error}");
}

#[tokio::test]
async fn cleartext_speaks_http1() {
    let (agent, _opened) = TestAgent::new();
    let (url, _remote) = serve_url("http", AgentServer::new(agent), ServerOptions::new()).await;
    let (logger, lines) = recording();
    let client = client(ProtocolVersion::V1, true)
        .connect_url(&url, &ClientOptions::new().logger(logger))
        .await
        .unwrap();
    client.close().await;
    assert!(logged(&lines, "HTTP/1.1"), "{:?}", lines.lock().unwrap());
}

async fn client_error(url: &str, options: &ClientOptions) -> String {
    match client(ProtocolVersion::V1, true)
        .connect_url(url, options)
        .await
    {
        Err(error @ Error::Remote(_)) => error.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Sends one agent message longer than the client's limit.
struct Big;

impl Agent for Big {
    async fn prompt(&self, session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let _ = session.send_text("z".repeat(256 * 1024)).await;
        Ok(StopReason::EndTurn)
    }
}

#[tokio::test]
async fn an_event_over_the_limit_ends_the_connection() {
    let (url, _remote) = serve_url("http", AgentServer::new(Big), ServerOptions::new()).await;
    let options = ClientOptions::new().max_message_bytes(16 * 1024);
    let client = client(ProtocolVersion::V1, true)
        .connect_url(&url, &options)
        .await
        .unwrap();
    let id = client.new_session("/tmp", &[]).await.unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(20), client.prompt(&id, "go"))
        .await
        .expect("the turn ends rather than hangs");
    assert!(outcome.is_err(), "{outcome:?}");
}

/// The server speaks cleartext HTTP/2 too (prior knowledge, as on loopback between services),
/// not only HTTP/1.1 and HTTP/2 by ALPN over TLS.
#[tokio::test]
async fn the_server_accepts_cleartext_http2() {
    let (agent, _opened) = TestAgent::new();
    let (url, _remote) = serve_url("http", AgentServer::new(agent), ServerOptions::new()).await;
    let http = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"protocolVersion": 1, "clientCapabilities": {}}});
    let response = http
        .post(&url)
        .header("content-type", "application/json")
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.version(), reqwest::Version::HTTP_2);
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("acp-connection-id"));
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], 1, "{body}");
}
