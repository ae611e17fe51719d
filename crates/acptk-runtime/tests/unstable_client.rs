//! The client side of the unstable methods (cargo feature `unstable`), in both versions: the
//! typed calls reach the agent when it advertised them and fail before sending anything when
//! it did not; the handler's `mcp/message` service and `auth/status_update` hook receive what
//! the agent sends, and a client without them answers `-32601` / ignores the notification.
#![cfg(feature = "unstable")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod unstable_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_runtime::agent::{AgentServer, AuthStatusUpdate, McpRequest, McpResponse, MemoryStore};
use acptk_runtime::client::{Client, ClientBuilder, ClientHandler, McpOverAcp, SessionOptions};
use acptk_runtime::connection::BoxFuture;
use acptk_runtime::{ByVersion, Error, ProtocolVersion};
use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::{v1, v2};
use common::{RawPeer, TestAgent, client, connect, raw_agent};
use serde_json::{Value, json};
use unstable_support::FullAgent;

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1, ProtocolVersion::V2];

/// A server of the agent that answers every unstable method, and what it records.
fn full_server() -> (AgentServer<FullAgent>, Arc<Mutex<Vec<String>>>) {
    let agent = FullAgent::default();
    let events = agent.events.clone();
    (AgentServer::new(agent), events)
}

/// Waits (bounded) until `events` holds `expected`.
async fn wait_for(events: &Arc<Mutex<Vec<String>>>, expected: &str) {
    for _ in 0..200 {
        if events.lock().unwrap().iter().any(|event| event == expected) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("`{expected}` never happened: {:?}", events.lock().unwrap());
}

/// Waits (a second at most) until `events` holds something.
async fn wait_for_any(events: &Arc<Mutex<Vec<String>>>) {
    for _ in 0..200 {
        if !events.lock().unwrap().is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn typed_calls_reach_an_agent_that_advertises_them() {
    for version in VERSIONS {
        let (server, events) = full_server();
        let client = connect(&server, client(version, true)).await;

        let providers = client.list_providers().await.unwrap();
        assert_eq!(providers.len(), 1, "{version}: {providers:?}");
        assert_eq!(providers[0].id, "main");
        assert_eq!(providers[0].supported, ["openai"]);
        client
            .set_provider("main", "openai", "https://llm.example", &[])
            .await
            .unwrap();
        client.disable_provider("main").await.unwrap();
        wait_for(&events, "providers/set:main=https://llm.example").await;
        wait_for(&events, "providers/disable:main").await;

        let state = match client.auth_status().await.unwrap() {
            ByVersion::V1(status) => status.state.as_str().to_owned(),
            ByVersion::V2(status) => status.state.as_str().to_owned(),
        };
        assert_eq!(state, "not_required");

        let options = SessionOptions::new("/work");
        let controls = client.session_options(&options, None).await.unwrap();
        assert!(controls.option("fast").is_some(), "{version}: {controls:?}");

        let source = client.open_session(&options).await.unwrap();
        client.prompt(&source, "hello").await.unwrap();
        let fork = client.fork_session(&source, &options).await.unwrap();
        assert_ne!(fork, source);
        // The fork is open here with its controls, and answers prompts.
        assert!(client.session_controls(&fork).is_some());
        client.prompt(&fork, "again").await.unwrap();

        let title = client
            .set_session_title(&fork, "  The fork  ")
            .await
            .unwrap();
        assert_eq!(title, "The fork");
        let status = client.session_status(&fork).await.unwrap();
        assert!(status.is_open(), "{status:?}");
        assert_eq!(
            status.running.is_some(),
            version == ProtocolVersion::V2,
            "{status:?}"
        );

        client.archive_session(&source).await.unwrap();
        let listed: Vec<String> = client
            .list_sessions(None, None)
            .await
            .unwrap()
            .sessions
            .into_iter()
            .map(|summary| summary.id)
            .collect();
        assert_eq!(listed, vec![fork.clone()], "{version}");
        let archived = client
            .list_sessions_archived(None, None, "only")
            .await
            .unwrap()
            .sessions;
        assert_eq!(archived.len(), 1, "{version}: {archived:?}");
        assert_eq!(archived[0].id, source);
        assert_eq!(archived[0].archived, Some(true));
        assert_eq!(archived[0].title, None);
        client.unarchive_session(&source).await.unwrap();
        assert_eq!(
            client
                .list_sessions(None, None)
                .await
                .unwrap()
                .sessions
                .len(),
            2
        );

        client
            .mcp_notify("srv", "r1", "notifications/progress", None)
            .await
            .unwrap();
        wait_for(&events, "mcp/message:notifications/progress").await;
    }
}

#[tokio::test]
async fn calls_the_agent_did_not_advertise_fail_before_sending() {
    for version in VERSIONS {
        // No history: no fork; a baseline agent: no providers, status of auth, options or acp.
        let server = AgentServer::new(TestAgent::default()).store(MemoryStore::without_history());
        let client = connect(&server, client(version, true)).await;
        let options = SessionOptions::new("/work");
        let session = client.open_session(&options).await.unwrap();
        let refusals = [
            client.list_providers().await.map(|_| ()),
            client.disable_provider("main").await,
            client.auth_status().await.map(|_| ()),
            client.session_options(&options, None).await.map(|_| ()),
            client.fork_session(&session, &options).await.map(|_| ()),
            client.mcp_notify("srv", "r1", "x", None).await,
        ];
        for refusal in refusals {
            match refusal {
                Err(Error::Protocol(message)) => {
                    assert!(message.contains("did not advertise"), "{message}");
                }
                other => panic!("{version}: expected a refusal, got {other:?}"),
            }
        }
        // What the runtime answers from any store still works.
        assert_eq!(
            client.set_session_title(&session, "Kept").await.unwrap(),
            "Kept"
        );
        assert!(client.session_status(&session).await.unwrap().is_open());
    }
}

/// Serves one `acp` MCP server (`tools`) and records status updates.
#[derive(Default)]
struct McpClient {
    updates: Arc<Mutex<Vec<String>>>,
}

impl McpOverAcp for McpClient {
    fn message(&self, request: McpRequest) -> BoxFuture<Result<McpResponse, ErrorObject>> {
        Box::pin(async move {
            let (server, method) = match &request {
                ByVersion::V1(request) => (request.server_id.to_string(), request.method.clone()),
                ByVersion::V2(request) => (request.server_id.to_string(), request.method.clone()),
            };
            if server != "tools" {
                return Err(acptk_runtime::rpc::invalid_params(format!(
                    "no MCP server `{server}`"
                )));
            }
            let result = json!({"answered": method});
            Ok(match request {
                ByVersion::V1(_) => ByVersion::V1(v1::MessageMcpResponse::success(result)),
                ByVersion::V2(_) => ByVersion::V2(v2::MessageMcpResponse::success(result)),
            })
        })
    }
}

impl ClientHandler for McpClient {
    fn mcp_over_acp(&self) -> Option<&dyn McpOverAcp> {
        Some(self)
    }

    fn auth_status_update(&self, update: AuthStatusUpdate) {
        let state = match update {
            ByVersion::V1(update) => update.state.as_str().to_owned(),
            ByVersion::V2(update) => update.state.as_str().to_owned(),
        };
        self.updates.lock().unwrap().push(state);
    }
}

/// Asks the client (as request `id`) to pass `tools/list` to its `acp` MCP server
/// `server` as the agent's request `request`; the answer.
async fn tools_list(agent: &mut RawPeer, id: u64, server: &str, request: &str) -> Value {
    let params = json!({"serverId": server, "requestId": request, "method": "tools/list"});
    agent.ask(id, "mcp/message", params).await
}

/// Connects `builder` to a raw agent speaking `version`.
async fn connect_raw(builder: ClientBuilder, version: u16) -> (Client, RawPeer) {
    let (client, agent, _) = raw_agent(builder, version).await;
    (client, agent)
}

#[tokio::test]
async fn the_handler_serves_mcp_messages_and_hears_auth_status_updates() {
    for (version, protocol) in [(1u16, ProtocolVersion::V1), (2, ProtocolVersion::V2)] {
        let handler = McpClient::default();
        let updates = handler.updates.clone();
        let (_client, mut agent) = connect_raw(
            ClientBuilder::new().protocol(protocol).handler(handler),
            version,
        )
        .await;
        let answer = tools_list(&mut agent, 1, "tools", "r1").await;
        assert_eq!(
            answer["result"],
            json!({"result": {"answered": "tools/list"}}),
            "v{version}: {answer}"
        );
        let answer = tools_list(&mut agent, 2, "other", "r2").await;
        assert_eq!(answer["error"]["code"], -32602, "v{version}: {answer}");
        agent
            .send_json(json!({"jsonrpc": "2.0", "method": "auth/status_update", "params": {"state": "unauthenticated"}}))
            .await;
        wait_for_any(&updates).await;
        assert_eq!(*updates.lock().unwrap(), ["unauthenticated"], "v{version}");
    }
}

#[tokio::test]
async fn a_client_without_the_services_refuses_mcp_and_ignores_status_updates() {
    for (version, protocol) in [(1u16, ProtocolVersion::V1), (2, ProtocolVersion::V2)] {
        let (_client, mut agent) =
            connect_raw(ClientBuilder::new().protocol(protocol), version).await;
        agent
            .send_json(json!({"jsonrpc": "2.0", "method": "auth/status_update", "params": {"state": "authenticated"}}))
            .await;
        let answer = tools_list(&mut agent, 7, "tools", "r1").await;
        // The notification got no answer: the first reply is the request's.
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["error"]["code"], -32601, "v{version}: {answer}");
    }
}

#[tokio::test]
async fn the_agent_reaches_the_acp_servers_the_client_offered_and_reports_auth_changes() {
    use acptk_runtime::agent::McpServerSpec;
    for version in VERSIONS {
        let (server, events) = full_server();
        let handler = McpClient::default();
        let updates = handler.updates.clone();
        let client = connect(&server, client(version, true).handler(handler)).await;
        let tools = McpServerSpec::Acp {
            name: "Tools".to_owned(),
            server_id: "tools".to_owned(),
        };
        let session = client
            .open_session(&SessionOptions::new("/work").mcp_servers(vec![tools]))
            .await
            .unwrap();
        client.prompt(&session, "mcp:tools").await.unwrap();
        wait_for(&events, r#"mcp ok:{"result":{"answered":"tools/list"}}"#).await;
        // A server the client never offered: refused before anything is sent.
        client.prompt(&session, "mcp:elsewhere").await.unwrap();
        let refused = events
            .lock()
            .unwrap()
            .iter()
            .any(|event| event.starts_with("mcp error:") && event.contains("`elsewhere`"));
        assert!(refused, "{version}: {:?}", events.lock().unwrap());
        client.prompt(&session, "auth").await.unwrap();
        wait_for(&events, "auth ok").await;
        wait_for_any(&updates).await;
        assert_eq!(*updates.lock().unwrap(), ["unauthenticated"], "{version}");
    }
}

#[tokio::test]
async fn an_agent_that_did_not_advertise_auth_status_sends_no_update() {
    // TestAgent's prompt cannot send updates; use FullAgent's handler through a server whose
    // agent declares nothing unstable.
    struct Quiet(FullAgent);
    impl acptk_runtime::agent::Agent for Quiet {
        async fn prompt(
            &self,
            session: acptk_runtime::agent::Session,
            prompt: acptk_runtime::agent::Prompt,
        ) -> Result<acptk_runtime::agent::StopReason, ErrorObject> {
            self.0.prompt(session, prompt).await
        }
    }
    let agent = Quiet(FullAgent::default());
    let events = agent.0.events.clone();
    let server = AgentServer::new(agent);
    let client = connect(&server, client(ProtocolVersion::V2, true)).await;
    let session = client
        .open_session(&SessionOptions::new("/work"))
        .await
        .unwrap();
    client.prompt(&session, "auth").await.unwrap();
    let events = events.lock().unwrap().clone();
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        events[0].starts_with("auth error:") && events[0].contains("auth.status"),
        "{events:?}"
    );
}
