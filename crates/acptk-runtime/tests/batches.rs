//! JSON-RPC 2.0 batches (section 6 of the specification) on every connection: answers to the
//! requests of a batch go back as one array, notifications get nothing, bad items get their own
//! error, and a batch never stops the connection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use acptk_runtime::connection::{BoxFuture, Handler, Reply};
use acptk_runtime::{Connection, ConnectionBuilder};
use acptk_schema::jsonrpc::RawValue;
use common::RawPeer;
use common::fn_handler::FnHandler;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A handler for the connection layer alone: `echo` answers its params, `slow` answers after
/// `params.ms` milliseconds, `wait` never answers (until cancelled), `then` answers and then
/// sends the notification `_then` (follow-up work). Notifications are reported in order.
fn probe_handler(notifications: mpsc::UnboundedSender<String>) -> impl Handler {
    FnHandler {
        request: |connection: Connection,
                  method: String,
                  params: Option<Box<RawValue>>|
         -> BoxFuture<Reply> {
            Box::pin(async move {
                let params: Value = params
                    .map(|raw| serde_json::from_str(raw.get()).unwrap())
                    .unwrap_or(Value::Null);
                match method.as_str() {
                    "echo" => Reply::ok(&params),
                    "slow" => {
                        let ms = params["ms"].as_u64().unwrap_or(10);
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        Reply::ok(&params)
                    }
                    "wait" => std::future::pending().await,
                    "then" => Reply::ok(&params).then(async move {
                        let _ = connection.notify_raw("_then", None).await;
                    }),
                    other => Reply::error(acptk_runtime::rpc::method_not_found(other)),
                }
            })
        },
        notification: move |method| {
            let _ = notifications.send(method);
        },
    }
}

/// A raw peer on one side of a connection served by [`probe_handler`] with `options`.
fn probe(options: ConnectionBuilder) -> (RawPeer, mpsc::UnboundedReceiver<String>, Connection) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(ours);
    let connection = options.start(read, write, probe_handler(tx));
    (RawPeer::new(theirs), rx, connection)
}

/// Sends a probe request and returns the messages received before its answer.
async fn until_probe(peer: &mut RawPeer) -> Vec<Value> {
    peer.send_json(json!({"jsonrpc":"2.0","id":"probe","method":"echo","params":{"probe":true}}))
        .await;
    let mut before = Vec::new();
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), peer.recv_some())
            .await
            .expect("no answer to the probe");
        if message["id"] == "probe" {
            assert_eq!(message["result"]["probe"], true, "{message}");
            return before;
        }
        before.push(message);
    }
}

/// The ids of an answer array, sorted, with each answer's error code (0 for a result).
fn answers(array: &Value) -> Vec<(String, i64)> {
    let items = array
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {array}"));
    let mut out: Vec<(String, i64)> = items
        .iter()
        .map(|item| {
            assert_eq!(item["jsonrpc"], "2.0", "{item}");
            (
                item["id"].to_string(),
                item["error"]["code"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn the_rules_of_section_6_case_by_case() {
    let (mut peer, _notifications, _connection) = probe(ConnectionBuilder::new());
    // (name, batch, the expected answers: None = nothing at all, Some(single error), array)
    enum Expected {
        Nothing,
        Single(Value, i64),
        Array(Vec<(&'static str, i64)>),
    }
    let cases = [
        (
            "a lone notification in an array is never answered",
            json!([{"jsonrpc":"2.0","method":"_x/ping"}]).to_string(),
            Expected::Nothing,
        ),
        (
            "only notifications: nothing at all",
            json!([{"jsonrpc":"2.0","method":"_x/a"},{"jsonrpc":"2.0","method":"_x/b"}])
                .to_string(),
            Expected::Nothing,
        ),
        (
            "two requests: one array of two answers",
            json!([
                {"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}},
                {"jsonrpc":"2.0","id":"two","method":"echo","params":{"n":2}}
            ])
            .to_string(),
            Expected::Array(vec![("\"two\"", 0), ("1", 0)]),
        ),
        (
            "items that are not objects: one error each, id null",
            "[17, true, null]".to_owned(),
            Expected::Array(vec![("null", -32600), ("null", -32600), ("null", -32600)]),
        ),
        (
            "the empty array: one error, not an array",
            "[]".to_owned(),
            Expected::Single(Value::Null, -32600),
        ),
        (
            "an array that is not JSON: a parse error",
            "[1,".to_owned(),
            Expected::Single(Value::Null, -32700),
        ),
        (
            "a request, a notification, an invalid item, an unknown method",
            json!([
                {"jsonrpc":"2.0","id":3,"method":"echo"},
                {"jsonrpc":"2.0","method":"_x/note"},
                {"jsonrpc":"1.0","id":4,"method":"echo"},
                {"jsonrpc":"2.0","id":5,"method":"no/such"}
            ])
            .to_string(),
            Expected::Array(vec![("3", 0), ("4", -32600), ("5", -32601)]),
        ),
        (
            "a broken response inside a batch is not answered",
            json!([{"jsonrpc":"2.0","id":9,"result":1,"error":{"code":1,"message":"x"}}])
                .to_string(),
            Expected::Nothing,
        ),
    ];
    for (name, batch, expected) in cases {
        peer.send(&batch).await;
        let before = until_probe(&mut peer).await;
        match expected {
            Expected::Nothing => assert!(before.is_empty(), "{name}: {before:?}"),
            Expected::Single(id, code) => {
                assert_eq!(before.len(), 1, "{name}: {before:?}");
                assert!(before[0].is_object(), "{name}: {}", before[0]);
                assert_eq!(before[0]["id"], id, "{name}");
                assert_eq!(before[0]["error"]["code"], code, "{name}");
            }
            Expected::Array(expected) => {
                assert_eq!(before.len(), 1, "{name}: one array, got {before:?}");
                let expected: Vec<(String, i64)> = expected
                    .into_iter()
                    .map(|(id, code)| (id.to_owned(), code))
                    .collect();
                assert_eq!(answers(&before[0]), expected, "{name}");
            }
        }
    }
}

#[tokio::test]
async fn the_same_id_twice_in_flight_is_refused_inside_the_array() {
    let (mut peer, _notifications, _connection) = probe(ConnectionBuilder::new());
    peer.send_json(json!([
        {"jsonrpc":"2.0","id":6,"method":"slow","params":{"ms":50}},
        {"jsonrpc":"2.0","id":6,"method":"echo"}
    ]))
    .await;
    let array = peer.recv_some().await;
    assert_eq!(
        answers(&array),
        [("6".to_owned(), -32600), ("6".to_owned(), 0)],
        "{array}"
    );
}

#[tokio::test]
async fn the_array_waits_for_the_slowest_request() {
    let (mut peer, _notifications, _connection) = probe(ConnectionBuilder::new());
    peer.send_json(json!([
        {"jsonrpc":"2.0","id":1,"method":"slow","params":{"ms":200}},
        {"jsonrpc":"2.0","id":2,"method":"echo"}
    ]))
    .await;
    let array = peer.recv_some().await;
    assert_eq!(
        answers(&array),
        [("1".to_owned(), 0), ("2".to_owned(), 0)],
        "both answers in one array: {array}"
    );
}

#[tokio::test]
async fn notifications_in_a_batch_are_handled_in_order() {
    let (mut peer, mut notifications, _connection) = probe(ConnectionBuilder::new());
    peer.send_json(json!([
        {"jsonrpc":"2.0","method":"_x/first"},
        {"jsonrpc":"2.0","id":1,"method":"echo"},
        {"jsonrpc":"2.0","method":"_x/second"}
    ]))
    .await;
    peer.recv_some().await;
    assert_eq!(notifications.recv().await.unwrap(), "_x/first");
    assert_eq!(notifications.recv().await.unwrap(), "_x/second");
}

#[tokio::test]
async fn follow_up_work_starts_after_the_array_went_out() {
    let (mut peer, _notifications, _connection) = probe(ConnectionBuilder::new());
    peer.send_json(json!([
        {"jsonrpc":"2.0","id":1,"method":"then"},
        {"jsonrpc":"2.0","id":2,"method":"slow","params":{"ms":100}}
    ]))
    .await;
    let first = peer.recv_some().await;
    assert!(first.is_array(), "the answers come first: {first}");
    let second = peer.recv_some().await;
    assert_eq!(second["method"], "_then", "{second}");
}

#[tokio::test]
async fn a_cancelled_request_of_a_batch_is_answered_in_the_array() {
    let (mut peer, _notifications, _connection) = probe(ConnectionBuilder::new());
    peer.send_json(json!([
        {"jsonrpc":"2.0","id":1,"method":"wait"},
        {"jsonrpc":"2.0","id":2,"method":"echo"}
    ]))
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    peer.send_json(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}))
        .await;
    let array = peer.recv_some().await;
    assert_eq!(
        answers(&array),
        [("1".to_owned(), -32800), ("2".to_owned(), 0)],
        "{array}"
    );
}

#[tokio::test]
async fn requests_over_the_in_flight_limit_are_refused_inside_the_array() {
    let (mut peer, _notifications, _connection) = probe(ConnectionBuilder::new().max_in_flight(2));
    peer.send_json(json!([
        {"jsonrpc":"2.0","id":1,"method":"slow","params":{"ms":50}},
        {"jsonrpc":"2.0","id":2,"method":"slow","params":{"ms":50}},
        {"jsonrpc":"2.0","id":3,"method":"echo"}
    ]))
    .await;
    let array = peer.recv_some().await;
    assert_eq!(
        answers(&array),
        [
            ("1".to_owned(), 0),
            ("2".to_owned(), 0),
            ("3".to_owned(), -32603)
        ],
        "{array}"
    );
    // The permits came back: the connection serves again.
    assert!(until_probe(&mut peer).await.is_empty());
}

#[tokio::test]
async fn an_oversized_batch_is_refused_and_the_connection_goes_on() {
    let (mut peer, _notifications, _connection) =
        probe(ConnectionBuilder::new().max_line_bytes(256));
    let big = "x".repeat(1000);
    peer.send_json(json!([{"jsonrpc":"2.0","id":1,"method":"echo","params":{"big":big}}]))
        .await;
    let before = until_probe(&mut peer).await;
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before[0]["error"]["code"], -32600, "{}", before[0]);
}

#[tokio::test]
async fn responses_in_a_batch_complete_our_requests() {
    let (mut peer, _notifications, connection) = probe(ConnectionBuilder::new());
    let first = {
        let connection = connection.clone();
        tokio::spawn(async move { connection.request_raw("_ask/one", None).await })
    };
    let second = {
        let connection = connection.clone();
        tokio::spawn(async move { connection.request_raw("_ask/two", None).await })
    };
    let a = peer.recv_some().await;
    let b = peer.recv_some().await;
    peer.send_json(json!([
        {"jsonrpc":"2.0","id":a["id"],"result":{"to":a["method"]}},
        {"jsonrpc":"2.0","id":b["id"],"result":{"to":b["method"]}}
    ]))
    .await;
    let one = first.await.unwrap().unwrap();
    let two = second.await.unwrap().unwrap();
    assert_eq!(one.get(), r#"{"to":"_ask/one"}"#);
    assert_eq!(two.get(), r#"{"to":"_ask/two"}"#);
}

/// The client side answers an agent's batch of requests with one array too.
#[tokio::test]
async fn a_client_answers_a_batch_from_the_agent() {
    use acptk_runtime::client::{ClientBuilder, PermissionDecision};
    let (client_io, agent_io) = tokio::io::duplex(1 << 16);
    let mut agent = RawPeer::new(agent_io);
    let (read, write) = tokio::io::split(client_io);
    let connecting = tokio::spawn(async move {
        ClientBuilder::new()
            .permissions(|request| {
                Box::pin(async move {
                    PermissionDecision::Selected(
                        request
                            .options
                            .first()
                            .map(|o| o.id.clone())
                            .unwrap_or_default(),
                    )
                })
            })
            .connect(read, write)
            .await
    });
    let initialize = agent.recv_some().await;
    agent
        .send_json(json!({"jsonrpc":"2.0","id":initialize["id"],"result":{"protocolVersion":1}}))
        .await;
    let client = Arc::new(connecting.await.unwrap().unwrap());
    let ask = |id: u64| {
        json!({"jsonrpc":"2.0","id":id,"method":"session/request_permission","params":{
            "sessionId":"s1",
            "toolCall":{"toolCallId":format!("c{id}"),"title":"Write"},
            "options":[{"optionId":format!("allow{id}"),"name":"Allow","kind":"allow_once"}]
        }})
    };
    agent.send_json(json!([ask(1), ask(2), 7])).await;
    let array = agent.recv_some().await;
    assert_eq!(
        answers(&array),
        [
            ("1".to_owned(), 0),
            ("2".to_owned(), 0),
            ("null".to_owned(), -32600)
        ],
        "{array}"
    );
    for item in array.as_array().unwrap() {
        if let Some(id) = item["id"].as_u64() {
            assert_eq!(
                item["result"]["outcome"]["optionId"],
                format!("allow{id}"),
                "{item}"
            );
        }
    }
    drop(client);
}

/// An agent answers batches in both versions; a v2 prompt's answer (in the array) comes
/// before the updates of its turn.
#[tokio::test]
async fn an_agent_answers_batches_in_both_versions() {
    use acptk_runtime::agent::AgentServer;
    for version in [1, 2] {
        let (agent, _opened) = common::TestAgent::new();
        let server = AgentServer::new(agent);
        let (client_io, agent_io) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(agent_io);
        server.start(read, write);
        let mut peer = RawPeer::new(client_io);
        let init = if version == 1 {
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}})
        } else {
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"raw","version":"0"}}})
        };
        peer.send_json(json!([init])).await;
        let array = peer.recv_some().await;
        assert_eq!(array[0]["result"]["protocolVersion"], version, "{array}");
        let new = |id: u64| json!({"jsonrpc":"2.0","id":id,"method":"session/new","params":{"cwd":"/","mcpServers":[]}});
        peer.send_json(json!([new(1), new(2)])).await;
        let array = peer.recv_some().await;
        assert_eq!(
            answers(&array),
            [("1".to_owned(), 0), ("2".to_owned(), 0)],
            "v{version}: {array}"
        );
        let session = array[0]["result"]["sessionId"].clone();
        peer.send_json(json!([
            {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":session,"prompt":[{"type":"text","text":"hi"}]}}
        ]))
        .await;
        let mut updates_before_answer = 0;
        loop {
            let message = peer.recv_some().await;
            if message.is_array() {
                assert_eq!(message[0]["id"], 3, "{message}");
                break;
            }
            assert_eq!(message["method"], "session/update", "{message}");
            updates_before_answer += 1;
        }
        if version == 2 {
            assert_eq!(
                updates_before_answer, 0,
                "v2 answers the prompt before its turn runs"
            );
        } else {
            assert!(
                updates_before_answer > 0,
                "v1 streams the turn before answering"
            );
        }
    }
}

/// A connection runs on any message transport; here on channels, as an HTTP server would.
#[tokio::test]
async fn a_connection_over_channels() {
    use acptk_runtime::transport::{ChannelReader, ChannelWriter};
    let (to_connection, incoming) = mpsc::channel(8);
    let (outgoing, mut from_connection) = mpsc::channel(8);
    let (notifications, _seen) = mpsc::unbounded_channel();
    let _connection = ConnectionBuilder::new().start_transport(
        ChannelReader::new(incoming, 1024),
        ChannelWriter::new(outgoing),
        probe_handler(notifications),
    );
    to_connection
        .send(br#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}"#.to_vec())
        .await
        .unwrap();
    let answer: Value = serde_json::from_slice(&from_connection.recv().await.unwrap()).unwrap();
    assert_eq!(answer["result"]["a"], 1, "{answer}");
    // Messages carry no framing.
    to_connection
        .send(br#"[{"jsonrpc":"2.0","id":2,"method":"echo"}]"#.to_vec())
        .await
        .unwrap();
    let raw = from_connection.recv().await.unwrap();
    assert!(!raw.ends_with(b"\n"));
    assert!(serde_json::from_slice::<Value>(&raw).unwrap().is_array());
    // Over the limit: refused with its id.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"echo","params":"{}"}}"#,
        "x".repeat(2000)
    );
    to_connection.send(big.into_bytes()).await.unwrap();
    let answer: Value = serde_json::from_slice(&from_connection.recv().await.unwrap()).unwrap();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(3), json!(-32600))
    );
    // Dropping the sender ends the input; the writer closes and the receiver sees the end.
    drop(to_connection);
    assert!(
        tokio::time::timeout(Duration::from_secs(5), from_connection.recv())
            .await
            .unwrap()
            .is_none()
    );
}

/// The answer to a batch is one message like any other: one that would be over the
/// connection's message limit is refused as a whole with one error.
#[tokio::test]
async fn a_batch_whose_answer_would_be_over_the_limit_gets_one_error() {
    const LIMIT: usize = 4096;
    let (mut peer, mut notifications, _connection) = probe(
        ConnectionBuilder::new()
            .max_line_bytes(LIMIT)
            .max_in_flight(2),
    );
    // 200 invalid items (a 1.4 KB batch) would be answered with 200 errors (over 4 KB):
    // refused before anything runs, the notification in it included.
    let mut items = vec![json!({"jsonrpc":"2.0","method":"_x/seen"})];
    items.extend((0..200).map(|n| json!(n)));
    let batch = Value::Array(items).to_string();
    assert!(batch.len() < LIMIT);
    peer.send(&batch).await;
    let refused = peer.recv_some().await;
    assert!(refused.is_object(), "one error, not an array: {refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["data"]["limit"], LIMIT, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("smaller batches"), "{message}");
    // Requests whose answers take it over the limit (two run, the other 58 are refused as over
    // the in-flight limit, each with a long error): the one error replaces the array.
    let requests: Vec<Value> = (0..60)
        .map(|n| json!({"jsonrpc":"2.0","id":n,"method":"slow","params":{"ms":20}}))
        .collect();
    let batch = Value::Array(requests).to_string();
    assert!(batch.len() < LIMIT);
    peer.send(&batch).await;
    let refused = peer.recv_some().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("limit of {LIMIT} bytes")),
        "{refused}"
    );
    // Within the limit all is as before, and the connection goes on.
    let small: Vec<Value> = (0..2)
        .map(|n| json!({"jsonrpc":"2.0","id":n,"method":"echo","params":{"n":n}}))
        .collect();
    peer.send(&Value::Array(small).to_string()).await;
    assert_eq!(
        answers(&peer.recv_some().await),
        [("0".to_owned(), 0), ("1".to_owned(), 0)]
    );
    assert!(until_probe(&mut peer).await.is_empty());
    assert!(
        notifications.try_recv().is_err(),
        "nothing of the refused batch ran"
    );
}
