//! The session limits of a remote server cannot be walked around (feature `remote`), over
//! WebSocket and Streamable HTTP alike: a method name is matched as the connection decodes it
//! (`"session\/new"` counts), only a `session/close` the agent answered with a result frees
//! a session (not a notification, not `"jsonrpc":"1.0"`, not an invalid request), a request
//! id that is in use is refused, and the listener-wide cap counts sessions across
//! connections, including those a connection left open when it ended.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod remote_support;

use std::time::Duration;

use acptk_runtime::agent::AgentServer;
use acptk_runtime::transport::remote::{SESSION_LIMIT_CODE, ServerOptions};
use common::TestAgent;
use remote_support::{Peer, serve};
use serde_json::{Value, json};

const TRANSPORTS: [&str; 2] = ["ws", "http"];

/// `session/new` with id `id`, its method name written as `method`.
fn new_as(id: u64, method: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"cwd":"/tmp","mcpServers":[]}}}}"#
    )
}

fn limit_code(answer: &Value) -> Option<i64> {
    answer["error"]["code"]
        .as_i64()
        .filter(|code| *code == SESSION_LIMIT_CODE)
}

/// A peer over `transport` to a test agent served with `options`, and what keeps the agent
/// and the server up.
async fn peer_to(transport: &str, options: ServerOptions) -> (Peer, impl Sized + use<>) {
    let (agent, opened) = TestAgent::new();
    let (address, remote) = serve(AgentServer::new(agent), options).await;
    let peer = Peer::connect(&format!("{transport}://{address}/acp")).await;
    (peer, (opened, remote))
}

#[tokio::test]
async fn escaped_method_names_are_counted() {
    for transport in TRANSPORTS {
        let (mut peer, _server) = peer_to(transport, ServerOptions::new().max_sessions(3)).await;
        // Three spellings of `session/new`, each served as one.
        for (id, method) in [
            (1, r"session\/new"),
            (2, r"\u0073ession/new"),
            (3, r"session\u002fnew"),
        ] {
            let answer = peer.call(&new_as(id, method), id).await;
            assert!(
                answer["result"]["sessionId"].is_string(),
                "{transport} {method}: {answer}"
            );
        }
        // Past the limit, however it is spelt.
        for (id, method) in [(4, r"session\/new"), (5, "session/new")] {
            let answer = peer.call(&new_as(id, method), id).await;
            assert_eq!(
                limit_code(&answer),
                Some(SESSION_LIMIT_CODE),
                "{transport} {method}: {answer}"
            );
        }
        // In a batch too (over WebSocket: HTTP takes no batches).
        if transport == "ws" {
            let batch = format!("[{}]", new_as(6, r"session\/new"));
            let answer = peer.call(&batch, 6).await;
            assert_eq!(limit_code(&answer), Some(SESSION_LIMIT_CODE), "{answer}");
        }
        peer.close().await;
    }
}

#[tokio::test]
async fn only_a_close_answered_with_a_result_frees_a_session() {
    for transport in TRANSPORTS {
        let (mut peer, _server) = peer_to(transport, ServerOptions::new().max_sessions(1)).await;
        let session = peer.new_session(1).await;
        let params = json!({"sessionId": session}).to_string();
        let mut id = 10;
        for close in [
            // A notification: no answer, nothing freed.
            format!(r#"{{"jsonrpc":"2.0","method":"session/close","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"session\/close","params":{params}}}"#),
            // Not JSON-RPC 2.0: answered with an error.
            format!(r#"{{"jsonrpc":"1.0","id":100,"method":"session/close","params":{params}}}"#),
            // Invalid: a request with a result.
            format!(
                r#"{{"jsonrpc":"2.0","id":101,"method":"session/close","params":{params},"result":{{}}}}"#
            ),
            // A session id that is not a string.
            r#"{"jsonrpc":"2.0","id":102,"method":"session/close","params":{"sessionId":7}}"#
                .to_owned(),
        ] {
            peer.send_raw(&close).await;
            id += 1;
            let answer = peer.call(&new_as(id, "session/new"), id).await;
            assert_eq!(
                limit_code(&answer),
                Some(SESSION_LIMIT_CODE),
                "{transport}: after {close}: {answer}"
            );
        }
        // The real close, answered with a result, frees it.
        let close = json!({"jsonrpc":"2.0","id":50,"method":"session/close","params":{"sessionId":session}});
        let answer = peer.call(&close.to_string(), 50).await;
        assert!(answer["result"].is_object(), "{transport}: {answer}");
        let answer = peer.call(&new_as(51, "session/new"), 51).await;
        assert!(
            answer["result"]["sessionId"].is_string(),
            "{transport}: {answer}"
        );
        peer.close().await;
    }
}

#[tokio::test]
async fn a_request_id_in_use_is_refused() {
    for transport in TRANSPORTS {
        let (mut peer, _server) = peer_to(transport, ServerOptions::new()).await;
        let session = peer.new_session(1).await;
        // A turn that runs until it is cancelled holds id 7.
        let prompt = json!({"jsonrpc":"2.0","id":7,"method":"session/prompt",
            "params":{"sessionId":session,"prompt":[{"type":"text","text":"wait"}]}});
        peer.send_raw(&prompt.to_string()).await;
        let answer = peer.call(&new_as(7, "session/new"), 7).await;
        assert_eq!(answer["error"]["code"], -32600, "{transport}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("not answered yet"), "{message}");
        let cancel =
            json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":session}});
        peer.send_raw(&cancel.to_string()).await;
        let answer = peer.answer(7).await;
        assert_eq!(answer["result"]["stopReason"], "cancelled", "{answer}");
        // Answered: the id is free again.
        let answer = peer.call(&new_as(7, "session/new"), 7).await;
        assert!(answer["result"]["sessionId"].is_string(), "{answer}");
        peer.close().await;
    }
}

#[tokio::test]
async fn the_listener_wide_cap_counts_sessions_left_open_by_ended_connections() {
    for transport in TRANSPORTS {
        let (agent, _opened) = TestAgent::new();
        // The idle timeout is how long a session left open keeps counting.
        let options = ServerOptions::new()
            .max_sessions(10)
            .max_total_sessions(3)
            .idle_timeout(Duration::from_millis(1500));
        let (address, remote) = serve(AgentServer::new(agent), options).await;
        let url = format!("{transport}://{address}/acp");
        let mut first = Peer::connect(&url).await;
        let sessions = [
            first.new_session(1).await,
            first.new_session(2).await,
            first.new_session(3).await,
        ];
        assert_eq!(remote.open_sessions(), 3);
        let mut second = Peer::connect(&url).await;
        let answer = second.call(&new_as(1, "session/new"), 1).await;
        assert_eq!(limit_code(&answer), Some(SESSION_LIMIT_CODE), "{answer}");
        assert_eq!(answer["error"]["data"]["limit"], "sessions per server");
        // The first connection ends without closing its sessions: they still count.
        first.close().await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let answer = second.call(&new_as(2, r"session\/new"), 2).await;
        assert_eq!(limit_code(&answer), Some(SESSION_LIMIT_CODE), "{answer}");
        // Loading one of them needs no room; closing another frees it.
        let load = json!({"jsonrpc":"2.0","id":3,"method":"session/load",
            "params":{"sessionId":sessions[0],"cwd":"/tmp","mcpServers":[]}});
        let answer = second.call(&load.to_string(), 3).await;
        assert!(answer["result"].is_object(), "{transport}: {answer}");
        let close = json!({"jsonrpc":"2.0","id":4,"method":"session/close","params":{"sessionId":sessions[1]}});
        let answer = second.call(&close.to_string(), 4).await;
        assert!(answer["result"].is_object(), "{answer}");
        assert_eq!(remote.open_sessions(), 2);
        let answer = second.call(&new_as(5, "session/new"), 5).await;
        assert!(answer["result"]["sessionId"].is_string(), "{answer}");
        second.close().await;
        // Once the linger is over, nothing counts.
        tokio::time::timeout(Duration::from_secs(10), async {
            while remote.open_sessions() > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .expect("the sessions left open stop counting after the linger");
    }
}
