//! The JSON-RPC layer seen from a raw peer: bad and oversized lines, unknown methods, bad
//! params, extensions, `$/cancel_request`, concurrency, and the end of the stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::{AgentServer, Session};
use acptk_runtime::client::{ClientBuilder, PermissionDecision};
use acptk_runtime::{ConnectionBuilder, Error, ProtocolVersion};
use common::{RawPeer, TestAgent, client, connect, raw_agent, raw_client_of};
use serde_json::{Value, json};

/// A raw client talking to the test agent (on a connection with `options`), initialised
/// with v1.
async fn raw_client(options: ConnectionBuilder) -> RawPeer {
    let (agent, _opened) = TestAgent::new();
    let server = AgentServer::new(agent).connection_options(options);
    let mut peer = raw_client_of(&server);
    peer.send_json(initialize_v1()).await;
    let answer = peer.recv_some().await;
    assert_eq!(answer["result"]["protocolVersion"], 1);
    assert_eq!(answer["result"]["agentCapabilities"]["loadSession"], true);
    peer
}

/// v1 `initialize`, id 0.
fn initialize_v1() -> Value {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}})
}

/// `session/new` in `/`, id `id`.
fn new_session(id: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"session/new","params":{"cwd":"/","mcpServers":[]}})
}

/// Serves `server` over a pipe until its input ends: the serving task and the client's end.
fn serve_piped(
    server: AgentServer<TestAgent>,
) -> (
    tokio::task::JoinHandle<Result<(), Error>>,
    tokio::io::DuplexStream,
) {
    let (client_io, agent_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(agent_io);
    let serving = tokio::spawn(async move { server.serve(read, write).await });
    (serving, client_io)
}

/// A server of the test agent that tells on `started` when a turn starts (the session id),
/// and the sessions it opens.
fn server_telling_starts() -> (
    AgentServer<TestAgent>,
    tokio::sync::mpsc::UnboundedReceiver<String>,
    tokio::sync::mpsc::UnboundedReceiver<Session>,
) {
    let (agent, opened) = TestAgent::new();
    let (started_tx, started) = tokio::sync::mpsc::unbounded_channel();
    *agent.started.lock().unwrap() = Some(started_tx);
    (AgentServer::new(agent), started, opened)
}

/// The id and error code a bad line is expected to be answered with (`None`: no answer).
type Expected = Option<(Value, i64)>;

fn error_of(answer: &Value) -> (Value, i64) {
    (
        answer["id"].clone(),
        answer["error"]["code"].as_i64().unwrap_or_default(),
    )
}

#[tokio::test]
async fn bad_lines_are_answered_and_skipped() {
    let mut peer = raw_client(ConnectionBuilder::new().max_line_bytes(1024)).await;
    let a = "a".repeat(5000);
    let long = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"x","params":"{a}"}}"#);
    let long_notification = format!(r#"{{"jsonrpc":"2.0","method":"x","params":"{a}"}}"#);
    let long_unreadable = format!(r#"{{"jsonrpc":"2.0","x":"{a}","id":9,"method":"x"}}"#);
    let cases: Vec<(&str, String, Expected)> = vec![
        ("not JSON", "this is not json".to_owned(), Some((Value::Null, -32700))),
        ("truncated JSON", "{\"jsonrpc\":\"2.0\",".to_owned(), Some((Value::Null, -32700))),
        ("wrong version, id readable", json!({"jsonrpc":"1.0","id":5,"method":"x"}).to_string(), Some((json!(5), -32600))),
        ("method not a string", json!({"jsonrpc":"2.0","id":"a","method":3}).to_string(), Some((json!("a"), -32600))),
        ("not an object", "17".to_owned(), Some((Value::Null, -32600))),
        ("oversized request: refused with its id", long, Some((json!(9), -32600))),
        ("oversized notification: not answered", long_notification, None),
        ("oversized, id past the cut", long_unreadable, Some((Value::Null, -32600))),
        ("broken response: not answered", json!({"jsonrpc":"2.0","id":77,"result":1,"error":{"code":1,"message":"x"}}).to_string(), None),
        ("unknown method", json!({"jsonrpc":"2.0","id":10,"method":"no/such"}).to_string(), Some((json!(10), -32601))),
        ("bad params", json!({"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":7,"mcpServers":[]}}).to_string(), Some((json!(11), -32602))),
        ("extension request", json!({"jsonrpc":"2.0","id":12,"method":"_acme/ping"}).to_string(), Some((json!(12), -32601))),
        ("extension notification: ignored", json!({"jsonrpc":"2.0","method":"_acme/tick"}).to_string(), None),
        ("unknown session", json!({"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}).to_string(), Some((json!(13), -32002))),
    ];
    for (name, line, expected) in cases {
        peer.send(&line).await;
        // A valid request after each line: the connection still works, and anything the bad
        // line caused comes before its answer.
        peer.send_json(json!({"jsonrpc":"2.0","id":"probe","method":"session/new","params":{"cwd":"/","mcpServers":[]}}))
            .await;
        let mut answer = peer.recv_some().await;
        if let Some((id, code)) = expected {
            assert_eq!(error_of(&answer), (id, code), "{name}: {answer}");
            if name == "bad params" {
                let message = answer["error"]["message"].as_str().unwrap_or_default();
                assert!(
                    message.contains("cwd"),
                    "{name}: the path is named: {message}"
                );
            }
            answer = peer.recv_some().await;
        }
        assert_eq!(answer["id"], "probe", "{name}: {answer}");
        assert!(
            answer["result"]["sessionId"].is_string(),
            "{name}: {answer}"
        );
        // session/new is followed by nothing else from the test agent.
    }
}

#[tokio::test]
async fn cancel_request_answers_the_request_as_cancelled() {
    let mut peer = raw_client(ConnectionBuilder::new().max_line_bytes(1 << 20)).await;
    peer.send_json(new_session(1)).await;
    let session = peer.recv_some().await["result"]["sessionId"].clone();
    peer.send_json(json!({"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":session,"prompt":[{"type":"text","text":"wait"}]}}))
        .await;
    peer.send_json(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}))
        .await;
    let answer = peer.recv_some().await;
    assert_eq!(error_of(&answer), (json!(2), -32800), "{answer}");
    assert_eq!(answer["error"]["message"], "request cancelled");
    // The turn was ended by the cancellation: a new prompt is accepted.
    peer.send_json(json!({"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":session,"prompt":[{"type":"text","text":"x"}]}}))
        .await;
    loop {
        let message = peer.recv_some().await;
        if message["id"] == 3 {
            assert_eq!(message["result"]["stopReason"], "end_turn", "{message}");
            break;
        }
    }
}

#[tokio::test]
async fn session_cancel_ends_the_turn_in_both_versions() {
    for version in [ProtocolVersion::V1, ProtocolVersion::V2] {
        let (server, mut started, _opened) = server_telling_starts();
        let client = connect(&server, client(version, true)).await;
        let id = client.new_session("/", &[]).await.unwrap();
        let turn = {
            let client = client.clone();
            let id = id.clone();
            tokio::spawn(async move { client.prompt(&id, "wait").await })
        };
        assert_eq!(started.recv().await.unwrap(), id);
        client.cancel(&id).await.unwrap();
        let stop = turn.await.unwrap().unwrap();
        assert_eq!(
            stop,
            acptk_runtime::agent::StopReason::Cancelled,
            "v{version}"
        );
    }
}

#[tokio::test]
async fn requests_run_concurrently_in_both_directions() {
    for version in [ProtocolVersion::V1, ProtocolVersion::V2] {
        let (server, mut started, _opened) = server_telling_starts();
        let builder = client(version, true).permissions(|request| {
            Box::pin(async move { PermissionDecision::Selected(request.options[0].id.clone()) })
        });
        let client = connect(&server, builder).await;
        let a = client.new_session("/", &[]).await.unwrap();
        let b = client.new_session("/", &[]).await.unwrap();
        // Session a's turn hangs; session b's turn runs, asks the client for permission
        // (a request from agent to client while the client's requests are in flight) and ends.
        let hanging = {
            let client = client.clone();
            let a = a.clone();
            tokio::spawn(async move { client.prompt(&a, "wait").await })
        };
        started.recv().await.unwrap();
        client.prompt(&b, "ask").await.unwrap();
        let transcript = client.session_transcript(&b).unwrap();
        let reply: Vec<&str> = transcript
            .messages(acptk_runtime::client::transcript::Role::Agent)
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(reply.len(), 1, "v{version}");
        assert!(reply[0].contains("allow"), "v{version}: {reply:?}");
        client.cancel(&a).await.unwrap();
        hanging.await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn a_request_over_the_in_flight_limit_is_refused_and_reading_goes_on() {
    // Before the fix the connection stopped reading at the limit and this deadlocked.
    tokio::time::timeout(std::time::Duration::from_secs(30), over_the_limit())
        .await
        .expect("deadlock: the connection stopped reading at the in-flight limit");
}

async fn over_the_limit() {
    let mut peer = raw_client(ConnectionBuilder::new().max_in_flight(1)).await;
    peer.send_json(new_session(1)).await;
    let session = peer.recv_some().await["result"]["sessionId"].clone();
    // The one slot: a turn that asks us for permission and waits for our answer.
    peer.send_json(json!({"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":session,"prompt":[{"type":"text","text":"ask"}]}}))
        .await;
    let ask = peer.recv_some().await;
    assert_eq!(ask["method"], "session/request_permission", "{ask}");
    // A second request while the slot is taken is refused at once...
    peer.send_json(new_session(3)).await;
    let refused = peer.recv_some().await;
    assert_eq!(error_of(&refused), (json!(3), -32603), "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too many requests in flight (at most 1)"),
        "{refused}"
    );
    // ...and our answer still gets through, so the turn ends.
    peer.send_json(json!({"jsonrpc":"2.0","id":ask["id"],"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}))
        .await;
    let end = loop {
        let message = peer.recv_some().await;
        if message["id"] == 2 {
            break message;
        }
    };
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
}

#[tokio::test]
async fn stop_reasons_unknown_to_this_runtime_pass_through_v2_only() {
    use acptk_runtime::agent::StopReason;
    for (version, sent, received) in [
        (
            ProtocolVersion::V2,
            "paused_for_review",
            StopReason::Other("paused_for_review".into()),
        ),
        (ProtocolVersion::V2, "refusal", StopReason::Refusal),
        // v1's list is closed: the agent's unknown reason arrives as `end_turn`.
        (
            ProtocolVersion::V1,
            "paused_for_review",
            StopReason::EndTurn,
        ),
    ] {
        let (agent, _opened) = TestAgent::new();
        let server = AgentServer::new(agent);
        let client = connect(&server, client(version, true)).await;
        let session = client.new_session("/", &[]).await.unwrap();
        let stop = client
            .prompt(&session, &format!("stop:{sent}"))
            .await
            .unwrap();
        assert_eq!(stop, received, "v{version} {sent}");
        assert_eq!(StopReason::from_wire(stop.as_str()), stop);
    }
}

#[tokio::test]
async fn an_oversized_answer_fails_its_request_at_once() {
    let builder =
        ClientBuilder::new().connection_options(ConnectionBuilder::new().max_line_bytes(1024));
    let (client, mut agent, _) = raw_agent(builder, 1).await;
    let asking = {
        let client = client.clone();
        tokio::spawn(async move { client.new_session("/", &[]).await })
    };
    let request = agent.recv_some().await;
    let huge = "x".repeat(5000);
    agent
        .send_json(json!({"jsonrpc":"2.0","id":request["id"],"result":{"sessionId":huge}}))
        .await;
    let error = tokio::time::timeout(std::time::Duration::from_secs(10), asking)
        .await
        .expect("the request waited for the connection to close")
        .unwrap()
        .unwrap_err();
    match &error {
        Error::ResponseTooLong {
            method,
            bytes,
            limit,
        } => {
            assert_eq!((method.as_str(), *limit), ("session/new", 1024));
            assert!(*bytes > 5000, "{error}");
        }
        other => panic!("unexpected error: {other}"),
    }
    // The connection goes on.
    let asking = {
        let client = client.clone();
        tokio::spawn(async move { client.new_session("/", &[]).await })
    };
    agent.answer_next(json!({"sessionId": "s2"})).await;
    assert_eq!(asking.await.unwrap().unwrap(), "s2");
}

/// A handler that refuses every request and ignores every notification.
struct Refuse;

impl acptk_runtime::connection::Handler for Refuse {
    fn request(
        &self,
        _: acptk_runtime::Connection,
        _: acptk_schema::jsonrpc::Id,
        method: String,
        _: Option<Box<acptk_schema::jsonrpc::RawValue>>,
    ) -> acptk_runtime::connection::BoxFuture<acptk_runtime::connection::Reply> {
        Box::pin(async move {
            acptk_runtime::connection::Reply::error(acptk_runtime::rpc::method_not_found(&method))
        })
    }

    fn notification(
        &self,
        _: acptk_runtime::Connection,
        _: String,
        _: Option<Box<acptk_schema::jsonrpc::RawValue>>,
    ) -> acptk_runtime::connection::BoxFuture<()> {
        Box::pin(async {})
    }
}

#[tokio::test]
async fn a_dropped_request_is_cancelled_even_when_the_queue_is_full() {
    use std::time::Duration;
    // A peer that reads nothing yet: the writer blocks on the first line, the queue (one
    // message) fills with the second.
    let (ours, theirs) = tokio::io::duplex(16);
    let (read, write) = tokio::io::split(ours);
    let connection = ConnectionBuilder::new()
        .outgoing_queue(1)
        .start(read, write, Refuse);
    let first = {
        let connection = connection.clone();
        tokio::spawn(async move { connection.request_raw("_test/first", None).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = {
        let connection = connection.clone();
        tokio::spawn(async move { connection.request_raw("_test/second", None).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The caller gives up on the second request while the queue is full.
    second.abort();
    assert!(second.await.unwrap_err().is_cancelled());
    let mut peer = RawPeer::new(theirs);
    let mut methods = Vec::new();
    let seen_cancel = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let message = peer.recv_some().await;
            methods.push(message["method"].as_str().unwrap_or_default().to_owned());
            if message["method"] == "$/cancel_request" {
                return message;
            }
        }
    })
    .await
    .expect("the cancellation was never sent");
    assert_eq!(methods, ["_test/first", "_test/second", "$/cancel_request"]);
    assert_eq!(seen_cancel["params"]["requestId"], 2, "{seen_cancel}");
    first.abort();
}

#[tokio::test]
async fn requests_sent_before_the_end_of_input_are_still_answered() {
    let (agent, _opened) = TestAgent::new();
    let server = AgentServer::new(agent);
    let (serving, client_io) = serve_piped(server);
    let mut peer = RawPeer::new(client_io);
    // Everything at once, then the end of input, as `printf ... | agent` does.
    peer.send_json(initialize_v1()).await;
    peer.send_json(new_session(1)).await;
    peer.end_input().await;
    let mut answered = Vec::new();
    while let Some(message) = peer.recv().await {
        if message.get("result").is_some() {
            answered.push(message["id"].clone());
        }
    }
    assert_eq!(answered, [json!(0), json!(1)]);
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn after_the_end_of_input_running_requests_get_the_drain_timeout() {
    use std::time::{Duration, Instant};
    let (agent, _opened) = TestAgent::new();
    let server = AgentServer::new(agent)
        .connection_options(ConnectionBuilder::new().drain_timeout(Duration::from_millis(200)));
    let (serving, client_io) = serve_piped(server);
    let mut peer = RawPeer::new(client_io);
    peer.send_json(initialize_v1()).await;
    peer.recv_some().await;
    peer.send_json(new_session(1)).await;
    let session = peer.recv_some().await["result"]["sessionId"].clone();
    // A turn that only ends when cancelled; then the client stops sending.
    peer.send_json(json!({"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":session,"prompt":[{"type":"text","text":"wait"}]}}))
        .await;
    let start = Instant::now();
    peer.end_input().await;
    while let Some(message) = peer.recv().await {
        assert_ne!(message["id"], 2, "the hanging turn was answered: {message}");
    }
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(150),
        "closed too early: {waited:?}"
    );
    assert!(
        waited < Duration::from_secs(5),
        "the drain timeout was not kept: {waited:?}"
    );
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn end_of_stream_fails_pending_requests_and_ends_the_server() {
    // The agent hangs up while the client waits for an answer.
    let (client, mut agent, _) = raw_agent(ClientBuilder::new(), 1).await;
    let asking = {
        let client = client.clone();
        tokio::spawn(async move { client.new_session("/", &[]).await })
    };
    assert_eq!(agent.recv_some().await["method"], "session/new");
    drop(agent);
    let error = asking.await.unwrap().unwrap_err();
    assert!(matches!(error, Error::ConnectionClosed), "{error}");
    client.closed().await;
    assert!(matches!(
        client.new_session("/", &[]).await,
        Err(Error::ConnectionClosed)
    ));

    // The client hangs up: the server's `serve` returns.
    let (agent, _opened) = TestAgent::new();
    let server = AgentServer::new(agent);
    let (serving, client_io) = serve_piped(server);
    drop(client_io);
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn version_negotiation() {
    // A v2 client and a v1-only agent agree on v1.
    let (agent, _opened) = TestAgent::new();
    let server = AgentServer::new(agent).versions(&[ProtocolVersion::V1]);
    let v2_client = connect(&server, client(ProtocolVersion::V2, true)).await;
    assert_eq!(v2_client.protocol_version(), ProtocolVersion::V1);
    let id = v2_client.new_session("/", &[]).await.unwrap();
    assert_eq!(
        v2_client.prompt(&id, "hi").await.unwrap(),
        acptk_runtime::agent::StopReason::EndTurn
    );

    // A v1 client and a v2-only agent: the client refuses the answer clearly.
    let (agent, _opened) = TestAgent::new();
    let server = AgentServer::new(agent).versions(&[ProtocolVersion::V2]);
    let (client_io, agent_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(agent_io);
    server.start(read, write);
    let (read, write) = tokio::io::split(client_io);
    let error = client(ProtocolVersion::V1, true)
        .connect(read, write)
        .await
        .unwrap_err();
    assert!(matches!(error, Error::UnsupportedVersion { .. }), "{error}");
    assert!(
        error.to_string().contains("chose protocol version 2"),
        "{error}"
    );

    // A client proposing an unknown future version gets the agent's latest.
    let mut peer = raw_client_of(&AgentServer::new(TestAgent::new().0));
    peer.send_json(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":9,"info":{"name":"future","version":"9"}}}))
        .await;
    assert_eq!(peer.recv_some().await["result"]["protocolVersion"], 2);
}

#[tokio::test]
async fn v2_prompt_answers_with_a_message_id_and_ends_with_idle() {
    let mut peer = raw_client_of(&AgentServer::new(TestAgent::new().0));
    peer.send_json(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"raw","version":"0"}}}))
        .await;
    peer.recv_some().await;
    peer.send_json(json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/"}}))
        .await;
    let session = peer.recv_some().await["result"]["sessionId"].clone();
    peer.send_json(json!({"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":session,"prompt":[{"type":"text","text":"hi"}]}}))
        .await;
    let mut seen = Vec::new();
    loop {
        let message = peer.recv_some().await;
        if message["id"] == 3 {
            assert!(message["result"]["messageId"].is_string(), "{message}");
            seen.push("response".to_owned());
            continue;
        }
        let update = &message["params"]["update"];
        let kind = update["sessionUpdate"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let state = update["state"].as_str().unwrap_or_default().to_owned();
        seen.push(if state.is_empty() {
            kind
        } else {
            format!("{kind}:{state}")
        });
        if state == "idle" {
            assert_eq!(update["stopReason"], "end_turn");
            break;
        }
    }
    assert_eq!(
        seen,
        [
            "response",
            "user_message",
            "state_update:running",
            "agent_message_chunk",
            "agent_message_chunk",
            "state_update:idle"
        ]
    );
}

/// A client can hang up on its own: the agent side sees end of input and the client's
/// pending work fails with a closed connection.
#[tokio::test]
async fn a_client_can_hang_up() {
    let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
    let (agent_read, agent_write) = tokio::io::split(agent_io);
    let (client_read, client_write) = tokio::io::split(client_io);
    let server = AgentServer::new(TestAgent::default());
    let served = tokio::spawn(async move { server.serve(agent_read, agent_write).await });
    let client = ClientBuilder::new()
        .connect(client_read, client_write)
        .await
        .expect("connects");
    let other = client.clone();
    client.close().await;
    other.closed().await;
    assert!(other.new_session("/", &[]).await.is_err());
    tokio::time::timeout(std::time::Duration::from_secs(5), served)
        .await
        .expect("the agent sees end of input")
        .expect("agent task")
        .ok();
}
