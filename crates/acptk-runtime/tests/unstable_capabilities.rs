//! The unstable agent methods (cargo feature `unstable`) keep the rule of the stable ones:
//! every request method of each version's unstable reference table (from `reference/`) that
//! the stable table does not have is sent to agents of several configurations, and it
//! answers `-32601` exactly when no advertised capability implies it.
#![cfg(feature = "unstable")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod unstable_support;

use acptk_runtime::agent::{AgentServer, FileStore, MemoryStore};
use common::TestAgent;
use common::wire::{Wire, agent_methods_of, assert_allowed};
use serde_json::{Value, json};
use unstable_support::FullAgent;

/// The methods the unstable table of `version` adds to the stable one.
fn unstable_methods(version: u16) -> Vec<String> {
    let (stable, unstable) = match version {
        1 => (
            include_str!("../../../reference/acp-v1.methods.json"),
            include_str!("../../../reference/acp-v1.unstable.methods.json"),
        ),
        _ => (
            include_str!("../../../reference/acp-v2.methods.json"),
            include_str!("../../../reference/acp-v2.unstable.methods.json"),
        ),
    };
    let stable = agent_methods_of(stable);
    agent_methods_of(unstable)
        .into_iter()
        .filter(|method| !stable.contains(method))
        .collect()
}

/// Whether the `initialize` result advertises `method`; `None` for a notification.
fn advertised(version: u16, init: &Value, method: &str) -> Option<bool> {
    let caps = if version == 1 {
        &init["agentCapabilities"]
    } else {
        &init["capabilities"]
    };
    let session = if version == 1 {
        &caps["sessionCapabilities"]
    } else {
        &caps["session"]
    };
    Some(match method {
        "providers/list" | "providers/set" | "providers/disable" => caps["providers"].is_object(),
        "auth/status" => caps["auth"]["status"].is_object(),
        "session/fork" => session["fork"].is_object(),
        "session/archive" | "session/unarchive" => {
            // Archive needs list too.
            let archive = session["archive"].is_object();
            if archive && version == 1 {
                assert!(session["list"].is_object(), "{init}");
            }
            archive
        }
        "session/status" => session["status"].is_object(),
        "session/options" => session["options"].is_object(),
        "session/set_title" => session["title"].is_object(),
        // A notification from the client: never answered.
        "mcp/message" => return None,
        other => panic!("the walk does not know the unstable method {other}"),
    })
}

/// Params that make `method` succeed when it is answered.
fn params(method: &str, session: &str, spare: &str) -> Value {
    match method {
        "providers/list" | "auth/status" => json!({}),
        "providers/set" => {
            json!({"providerId": "main", "apiType": "openai", "baseUrl": "https://llm.example"})
        }
        "providers/disable" => json!({"providerId": "main"}),
        "session/fork" => json!({"sessionId": session, "cwd": "/work", "mcpServers": []}),
        "session/archive" | "session/unarchive" => json!({"sessionId": spare}),
        "session/status" => json!({"sessionId": session}),
        "session/options" => json!({"cwd": "/work"}),
        "session/set_title" => json!({"sessionId": session, "title": "Renamed"}),
        other => panic!("no params for {other}"),
    }
}

/// Walks the unstable methods of both versions on `server`; returns how many were
/// advertised (over both versions).
async fn walk<A: acptk_runtime::agent::Agent>(name: &str, server: &AgentServer<A>) -> usize {
    let mut advertised_count = 0;
    for version in [1u16, 2] {
        let (mut wire, init) = Wire::start(server, version, json!({})).await;
        let session = wire.new_session("/work").await;
        let methods = unstable_methods(version);
        assert!(methods.len() >= 10, "v{version}: {methods:?}");
        for method in methods {
            let Some(expected) = advertised(version, &init, &method) else {
                continue;
            };
            let spare = wire.new_session("/work").await;
            let answer = wire.call(&method, params(&method, &session, &spare)).await;
            let not = if expected { "" } else { "not " };
            let context = format!("{name} v{version}: {method} is {not}advertised");
            assert_allowed(&answer, expected, -32601, &context);
            advertised_count += usize::from(expected);
        }
    }
    advertised_count
}

#[tokio::test]
async fn unstable_methods_are_answered_exactly_when_advertised() {
    let scratch = tempfile::tempdir().unwrap();
    // The runtime alone: fork, archive, status and title from the store.
    let baseline = walk("baseline", &AgentServer::new(TestAgent::default())).await;
    // 2 versions x (fork, archive, unarchive, status, set_title).
    assert_eq!(baseline, 10);
    // Without history nothing can be forked.
    let without_history = walk(
        "without history",
        &AgentServer::new(TestAgent::default()).store(MemoryStore::without_history()),
    )
    .await;
    assert_eq!(without_history, 8);
    // An agent that implements everything, on a file store.
    let full = walk(
        "every feature",
        &AgentServer::new(FullAgent::default())
            .store(FileStore::open(scratch.path().join("full")).unwrap()),
    )
    .await;
    // Plus providers (3), auth/status and options, in both versions.
    assert_eq!(full, 20);
}

#[tokio::test]
async fn declared_features_reach_the_capabilities_of_both_versions() {
    let server = AgentServer::new(FullAgent::default());
    let (_, v1) = Wire::start(&server, 1, json!({})).await;
    let caps = &v1["agentCapabilities"];
    assert_eq!(caps["providers"], json!({}));
    assert_eq!(caps["auth"]["status"], json!({}));
    assert_eq!(caps["mcpCapabilities"]["acp"], true);
    for name in ["fork", "archive", "status", "options", "title"] {
        assert!(
            caps["sessionCapabilities"][name].is_object(),
            "{name}: {caps}"
        );
    }
    let (_, v2) = Wire::start(&server, 2, json!({})).await;
    let caps = &v2["capabilities"];
    assert_eq!(caps["providers"], json!({}));
    assert_eq!(caps["auth"]["status"], json!({}));
    assert_eq!(caps["session"]["mcp"]["acp"], json!({}));
    // A baseline agent advertises none of what only an agent can answer.
    let (_, plain) = Wire::start(&AgentServer::new(TestAgent::default()), 1, json!({})).await;
    let caps = &plain["agentCapabilities"];
    assert!(caps.get("providers").is_none(), "{caps}");
    assert!(caps["auth"].get("status").is_none(), "{caps}");
    assert_eq!(caps["mcpCapabilities"]["acp"], false);
    assert!(
        caps["sessionCapabilities"].get("options").is_none(),
        "{caps}"
    );
}
