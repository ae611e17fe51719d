//! MCP servers between client and agent: every transport the agent supports arrives with its
//! endpoint and settings (one the runtime does not know keeps what it can), a server of a
//! transport the agent did not advertise is left out by the client (with a warning in its
//! log), and a session with a transport the agent does not support is refused with `-32602`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use acptk_runtime::agent::{
    AgentFeatures, AgentServer, McpServerSpec, McpTransports, SessionSetup,
};
use acptk_runtime::log::{Level, Logger};
use acptk_runtime::{ConnectionBuilder, ProtocolVersion};
use common::{TestAgent, client, connect, raw_client_of};
use serde_json::json;

/// The MCP servers of the first session the agent opened (`session_opened` runs right after
/// the response, so this waits for it).
async fn first_setup(setups: &Arc<Mutex<Vec<SessionSetup>>>) -> Vec<McpServerSpec> {
    let wait = async {
        loop {
            if let Some(setup) = setups.lock().unwrap().first() {
                return setup.mcp_servers.clone();
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), wait)
        .await
        .expect("the agent never opened the session")
}

/// A network server of transport `kind`, named and reached after it.
fn remote(kind: &str, headers: Vec<(String, String)>) -> McpServerSpec {
    McpServerSpec::Remote {
        name: format!("{kind}-server"),
        kind: kind.to_owned(),
        url: format!("https://mcp.example/{kind}"),
        headers,
    }
}

#[tokio::test]
async fn mcp_servers_reach_the_agent_with_their_endpoints() {
    let headers = vec![("Authorization".to_owned(), "Bearer t".to_owned())];
    let remote = |kind: &str| remote(kind, headers.clone());
    let stdio = McpServerSpec::Stdio {
        name: "local".to_owned(),
        command: "/usr/bin/mcp-local".to_owned(),
        args: vec!["--fast".to_owned()],
        env: vec![("K".to_owned(), "V".to_owned())],
    };
    let asked = [stdio.clone(), remote("http"), remote("sse")];
    for (version, expected) in [
        (ProtocolVersion::V1, asked.to_vec()),
        // v2 has no SSE transport: left out.
        (ProtocolVersion::V2, vec![stdio.clone(), remote("http")]),
    ] {
        let (mut agent, _opened) = TestAgent::new();
        agent.features =
            Some(AgentFeatures::new().mcp(McpTransports::new().stdio(true).http(true).sse(true)));
        let setups = agent.setups.clone();
        let server = AgentServer::new(agent);
        let client = connect(&server, client(version, true)).await;
        client.new_session("/work", &asked).await.unwrap();
        let got = first_setup(&setups).await;
        assert_eq!(got, expected, "v{version}");
    }
}

#[tokio::test]
async fn the_client_leaves_out_servers_of_transports_the_agent_did_not_advertise() {
    let remote = |kind: &str| remote(kind, Vec::new());
    let stdio = McpServerSpec::Stdio {
        name: "local".to_owned(),
        command: "/usr/bin/mcp-local".to_owned(),
        args: Vec::new(),
        env: Vec::new(),
    };
    let asked = [stdio.clone(), remote("http"), remote("sse")];
    // (version, what the agent takes, what it gets, the transports warned about)
    let cases = [
        (
            ProtocolVersion::V1,
            McpTransports::new(),
            vec![stdio.clone()],
            vec!["http", "sse"],
        ),
        (
            ProtocolVersion::V1,
            McpTransports::new().sse(true),
            vec![stdio.clone(), remote("sse")],
            vec!["http"],
        ),
        // v2 has no SSE transport at all.
        (
            ProtocolVersion::V2,
            McpTransports::new().stdio(true),
            vec![stdio.clone()],
            vec!["http", "sse"],
        ),
        // In v2 even stdio needs the capability.
        (
            ProtocolVersion::V2,
            McpTransports::new().stdio(false).http(true),
            vec![remote("http")],
            vec!["stdio", "sse"],
        ),
    ];
    for (version, transports, expected, warned) in cases {
        let (mut agent, _opened) = TestAgent::new();
        agent.features = Some(AgentFeatures::new().mcp(transports));
        let setups = agent.setups.clone();
        let server = AgentServer::new(agent);
        let warnings = Arc::new(Mutex::new(Vec::<String>::new()));
        let logger = {
            let warnings = Arc::clone(&warnings);
            Logger::new(move |level, message| {
                if level >= Level::Warn && message.contains("MCP server") {
                    warnings.lock().unwrap().push(message.to_owned());
                }
            })
        };
        let builder =
            client(version, true).connection_options(ConnectionBuilder::new().logger(logger));
        let client = connect(&server, builder).await;
        for spec in &asked {
            assert_eq!(
                client.agent().accepts_mcp_server(spec),
                expected.contains(spec),
                "v{version} {}",
                spec.kind()
            );
        }
        client.new_session("/work", &asked).await.unwrap();
        assert_eq!(first_setup(&setups).await, expected, "v{version}");
        let warnings = warnings.lock().unwrap().clone();
        assert_eq!(warnings.len(), warned.len(), "v{version}: {warnings:?}");
        for kind in warned {
            assert!(
                warnings
                    .iter()
                    .any(|w| w.contains(&format!("`{kind}-server`"))
                        || (kind == "stdio" && w.contains("`local`"))),
                "v{version}: no warning about {kind}: {warnings:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_v2_mcp_transport_unknown_to_the_runtime_keeps_its_name_and_url() {
    let (mut agent, _opened) = TestAgent::new();
    agent.features = Some(AgentFeatures::new().mcp(McpTransports::new().other("websocket")));
    let setups = agent.setups.clone();
    let server = AgentServer::new(agent);
    let mut peer = raw_client_of(&server);
    peer.send_json(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"raw","version":"0"}}}))
        .await;
    peer.recv_some().await;
    peer.send_json(json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[{"type":"websocket","name":"ws","url":"wss://mcp.example/ws","protocols":["mcp"]}]}}))
        .await;
    assert!(peer.recv_some().await["result"]["sessionId"].is_string());
    let got = first_setup(&setups).await;
    assert_eq!(
        got,
        [McpServerSpec::Remote {
            name: "ws".to_owned(),
            kind: "websocket".to_owned(),
            url: "wss://mcp.example/ws".to_owned(),
            headers: Vec::new(),
        }]
    );
}

#[tokio::test]
async fn a_transport_the_agent_does_not_support_is_refused() {
    for (version, server_json, kind) in [
        (
            1,
            json!({"type":"http","name":"h","url":"https://x","headers":[]}),
            "http",
        ),
        (
            1,
            json!({"type":"sse","name":"s","url":"https://x","headers":[]}),
            "sse",
        ),
        (
            2,
            json!({"type":"http","name":"h","url":"https://x"}),
            "http",
        ),
        // v2 advertises stdio only when the agent declares it; v1 takes it from every agent.
        (
            2,
            json!({"type":"stdio","name":"l","command":"/bin/mcp","args":[],"env":[]}),
            "stdio",
        ),
        (
            2,
            json!({"type":"websocket","name":"ws","url":"wss://x"}),
            "websocket",
        ),
    ] {
        let (agent, _opened) = TestAgent::new();
        let setups = agent.setups.clone();
        let server = AgentServer::new(agent);
        let mut peer = raw_client_of(&server);
        peer.send_json(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":version,"info":{"name":"raw","version":"0"}}}))
            .await;
        let init = peer.recv_some().await;
        if version == 1 {
            // Not advertised: the baseline only has stdio.
            let mcp = &init["result"]["agentCapabilities"]["mcpCapabilities"];
            assert_eq!(
                (mcp["http"].clone(), mcp["sse"].clone()),
                (json!(false), json!(false))
            );
        } else {
            // Nothing is advertised that the agent did not declare, stdio included.
            let mcp = &init["result"]["capabilities"]["session"]["mcp"];
            assert_eq!(mcp, &json!({}), "{init}");
        }
        peer.send_json(json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[server_json]}}))
            .await;
        let answer = peer.recv_some().await;
        assert_eq!(
            answer["error"]["code"], -32602,
            "v{version} {kind}: {answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(kind), "v{version}: {message}");
        // Nothing was opened or stored.
        assert!(setups.lock().unwrap().is_empty());
        assert!(server.sessions().list().await.unwrap().is_empty());
    }
}
