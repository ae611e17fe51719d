//! What an agent advertises is what it answers, in both versions: every method of each
//! version's method table (from `reference/`) is sent to agents of several configurations,
//! and a method answers `-32601` exactly when no advertised capability implies it. Prompt
//! content, MCP transports and session setup fields are accepted exactly as advertised, and
//! per-session methods (modes, config options) exactly for the sessions that offer them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::{
    AgentFeatures, AgentServer, AuthMethodSpec, ConfigOption, FileStore, McpTransports,
    MemoryStore, Modes, PromptContent, SessionConfig, SystemPromptModes,
};
use common::TestAgent;
use common::wire::{Wire, agent_methods_of, assert_allowed};
use serde_json::{Value, json};

/// The agent-side methods of a version's reference method table.
fn agent_methods(version: u16) -> Vec<String> {
    agent_methods_of(match version {
        1 => include_str!("../../../reference/acp-v1.methods.json"),
        _ => include_str!("../../../reference/acp-v2.methods.json"),
    })
}

/// Whether `capabilities` (an `initialize` result) advertise `method`; `None` for methods
/// that are not requests answered per connection (`initialize`, notifications, per-session
/// and per-item methods, tested elsewhere).
fn advertised(version: u16, init: &Value, method: &str) -> Option<bool> {
    let auth = init["authMethods"]
        .as_array()
        .is_some_and(|methods| !methods.is_empty());
    if version == 1 {
        let caps = &init["agentCapabilities"];
        let session = &caps["sessionCapabilities"];
        Some(match method {
            "authenticate" => auth,
            // v1 also names it in `auth.logout`; both must agree.
            "logout" => {
                assert_eq!(auth, caps["auth"]["logout"].is_object(), "{init}");
                auth
            }
            "session/new" | "session/prompt" => true,
            "session/load" => caps["loadSession"] == true,
            "session/list" => session["list"].is_object(),
            "session/close" => session["close"].is_object(),
            "session/resume" => session["resume"].is_object(),
            "session/delete" => session["delete"].is_object(),
            _ => return None,
        })
    } else {
        let caps = &init["capabilities"];
        let session = caps["session"].is_object();
        Some(match method {
            "auth/login" | "auth/logout" => auth,
            "session/new" | "session/prompt" | "session/list" | "session/resume"
            | "session/close" => session,
            "session/delete" => session && caps["session"]["delete"].is_object(),
            // Answered for any session (refused with -32602 for an unknown item).
            "tool_call/cancel" | "terminal/cancel" => session,
            _ => return None,
        })
    }
}

/// Params that make `method` succeed when it is answered (or fail with a specific error
/// that is not `-32601`).
fn params(version: u16, method: &str, session: &str, spare: &str) -> Value {
    let cwd = "/work";
    match method {
        "authenticate" | "auth/login" => json!({"methodId": "token"}),
        "logout" | "auth/logout" => json!({}),
        "session/new" => json!({"cwd": cwd, "mcpServers": []}),
        "session/prompt" => Wire::prompt_params(session, "hello"),
        "session/load" => json!({"sessionId": session, "cwd": cwd, "mcpServers": []}),
        "session/resume" if version == 1 => {
            json!({"sessionId": session, "cwd": cwd, "mcpServers": []})
        }
        "session/resume" => {
            json!({"sessionId": session, "cwd": cwd, "replayFrom": {"type": "start"}})
        }
        "session/list" => json!({}),
        "session/close" => json!({"sessionId": spare}),
        "session/delete" => json!({"sessionId": spare}),
        "tool_call/cancel" => json!({"sessionId": session, "toolCallId": "nope"}),
        "terminal/cancel" => json!({"sessionId": session, "terminalId": "nope"}),
        other => panic!("no params for {other}"),
    }
}

/// The configurations under test: (name, server).
fn servers(scratch: &tempfile::TempDir) -> Vec<(&'static str, AgentServer<TestAgent>)> {
    let everything = AgentFeatures::new()
        .prompt(
            PromptContent::new()
                .image(true)
                .audio(true)
                .embedded_context(true),
        )
        .auth_method(AuthMethodSpec::new("token", "Use a token"))
        .mcp(McpTransports::new().stdio(true))
        .additional_directories(true)
        .system_prompt(SystemPromptModes::new().override_prompt(true));
    let full = TestAgent {
        features: Some(everything),
        ..TestAgent::default()
    };
    vec![
        (
            "baseline, memory store",
            AgentServer::new(TestAgent::default()),
        ),
        (
            "baseline, memory store without history",
            AgentServer::new(TestAgent::default()).store(MemoryStore::without_history()),
        ),
        (
            "baseline, file store",
            AgentServer::new(TestAgent::default())
                .store(FileStore::open(scratch.path().join("baseline")).unwrap()),
        ),
        (
            "every feature, file store",
            AgentServer::new(full).store(FileStore::open(scratch.path().join("full")).unwrap()),
        ),
    ]
}

#[tokio::test]
async fn advertised_implies_answered_and_not_advertised_implies_method_not_found() {
    let scratch = tempfile::tempdir().unwrap();
    for (name, server) in servers(&scratch) {
        for version in [1u16, 2] {
            let (mut wire, init) = Wire::start(&server, version, json!({})).await;
            if version == 2 {
                assert!(
                    init["capabilities"]["session"].is_object(),
                    "{name}: v2 must advertise sessions: {init}"
                );
            }
            let session = wire.new_session("/work").await;
            let mut walked = 0;
            for method in agent_methods(version) {
                let Some(expected) = advertised(version, &init, &method) else {
                    continue;
                };
                walked += 1;
                let spare = wire.new_session("/work").await;
                let answer = wire
                    .call(&method, params(version, &method, &session, &spare))
                    .await;
                let code = answer["error"]["code"].as_i64();
                if expected {
                    assert_ne!(
                        code,
                        Some(-32601),
                        "{name} v{version}: {method} is advertised: {answer}"
                    );
                    let specific =
                        matches!(method.as_str(), "tool_call/cancel" | "terminal/cancel");
                    if specific {
                        assert_eq!(code, Some(-32602), "{name} v{version}: {method}: {answer}");
                    } else {
                        assert!(
                            answer.get("result").is_some(),
                            "{name} v{version}: {method}: {answer}"
                        );
                    }
                } else {
                    assert_eq!(
                        code,
                        Some(-32601),
                        "{name} v{version}: {method} is not advertised: {answer}"
                    );
                }
                if version == 2 && method == "session/prompt" && expected {
                    wire.until_idle(&session).await;
                }
            }
            assert!(
                walked >= 7,
                "{name} v{version}: only {walked} methods walked"
            );
        }
    }
}

#[tokio::test]
async fn what_is_advertised_follows_the_features_and_the_store() {
    let scratch = tempfile::tempdir().unwrap();
    let servers = servers(&scratch);
    let mut v1 = Vec::new();
    for (_, server) in &servers {
        let (_, init) = Wire::start(server, 1, json!({})).await;
        v1.push(init["agentCapabilities"].clone());
    }
    // History makes `loadSession`; a memory store without history does not.
    assert_eq!(v1[0]["loadSession"], true);
    assert_eq!(v1[1]["loadSession"], false);
    assert_eq!(v1[2]["loadSession"], true);
    // The runtime answers list, close, resume and delete from any store.
    for caps in &v1 {
        for method in ["list", "close", "resume", "delete"] {
            assert!(caps["sessionCapabilities"][method].is_object(), "{caps}");
        }
    }
    // The declared features, and nothing more.
    assert_eq!(
        v1[0]["promptCapabilities"],
        json!({"image": false, "audio": false, "embeddedContext": false})
    );
    assert_eq!(
        v1[3]["promptCapabilities"],
        json!({"image": true, "audio": true, "embeddedContext": true})
    );
    assert!(v1[0]["sessionCapabilities"]["systemPrompt"].is_null());
    assert_eq!(
        v1[3]["sessionCapabilities"]["systemPrompt"],
        json!({"mode": {"override": {}}})
    );
    assert!(v1[3]["sessionCapabilities"]["additionalDirectories"].is_object());
    // v2: the same facts in v2's shape.
    let (_, init) = Wire::start(&servers[3].1, 2, json!({})).await;
    let session = &init["capabilities"]["session"];
    assert_eq!(
        session["prompt"],
        json!({"image": {}, "audio": {}, "embeddedContext": {}})
    );
    assert_eq!(session["mcp"], json!({"stdio": {}}));
    assert!(session["delete"].is_object());
    assert_eq!(init["authMethods"][0]["methodId"], "token");
    // The typed view agrees with the wire.
    let typed = servers[3]
        .1
        .capabilities(acptk_runtime::ProtocolVersion::V1);
    assert!(typed.as_v1().unwrap().load_session);
}

#[tokio::test]
async fn authentication_accepts_only_the_advertised_methods() {
    for version in [1u16, 2] {
        let agent = TestAgent {
            features: Some(AgentFeatures::new().auth_method(AuthMethodSpec::new("token", "Token"))),
            ..TestAgent::default()
        };
        let events = agent.events.clone();
        let server = AgentServer::new(agent);
        let (mut wire, init) = Wire::start(&server, version, json!({})).await;
        assert_eq!(init["authMethods"].as_array().unwrap().len(), 1, "{init}");
        let (login, logout) = if version == 1 {
            ("authenticate", "logout")
        } else {
            ("auth/login", "auth/logout")
        };
        wire.ok(login, json!({"methodId": "token"})).await;
        let message = wire
            .refused(login, json!({"methodId": "other"}), -32602)
            .await;
        assert!(message.contains("other"), "{message}");
        wire.ok(logout, json!({})).await;
        assert_eq!(*events.lock().unwrap(), ["authenticate:token", "logout"]);
        // A refusal of the agent is the answer.
        wire.refused(
            "session/new",
            json!({"cwd": "/refused", "mcpServers": []}),
            -32000,
        )
        .await;
        assert!(server.sessions().list().await.unwrap().is_empty());
    }
}

/// A prompt with one block of `kind` for `version`.
fn block(kind: &str) -> Value {
    match kind {
        "image" => json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}),
        "audio" => json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}),
        "resource" => json!({"type": "resource", "resource": {"uri": "file:///a", "text": "x"}}),
        "resource_link" => json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
        _ => json!({"type": "text", "text": "x"}),
    }
}

#[tokio::test]
async fn prompt_content_is_accepted_exactly_as_advertised() {
    for accepted in [false, true] {
        let content = PromptContent::new()
            .image(accepted)
            .audio(accepted)
            .embedded_context(accepted);
        let agent = TestAgent {
            features: Some(AgentFeatures::new().prompt(content)),
            ..TestAgent::default()
        };
        let server = AgentServer::new(agent);
        for version in [1u16, 2] {
            let (mut wire, session) = Wire::with_session(&server, version, "/work").await;
            for kind in ["text", "resource_link", "image", "audio", "resource"] {
                let baseline = matches!(kind, "text" | "resource_link");
                let params = json!({"sessionId": session, "prompt": [block("text"), block(kind)]});
                let answer = wire.call("session/prompt", params).await;
                if baseline || accepted {
                    assert!(
                        answer.get("result").is_some(),
                        "v{version} {kind}: {answer}"
                    );
                    if version == 2 {
                        wire.until_idle(&session).await;
                    }
                } else {
                    assert_eq!(
                        answer["error"]["code"], -32602,
                        "v{version} {kind}: {answer}"
                    );
                    let message = answer["error"]["message"].as_str().unwrap();
                    assert!(message.contains(kind), "{message}");
                }
            }
            // A v2 block of a type nobody knows is refused too.
            if version == 2 {
                let params =
                    json!({"sessionId": session, "prompt": [{"type": "_hologram", "x": 1}]});
                wire.refused("session/prompt", params, -32602).await;
            }
        }
    }
}

#[tokio::test]
async fn session_setup_fields_follow_the_advertised_capabilities() {
    let prompt =
        |mode: &str| json!({"mode": mode, "content": [{"type": "text", "text": "Be brief."}]});
    for features in [
        AgentFeatures::new(),
        AgentFeatures::new()
            .additional_directories(true)
            .system_prompt(SystemPromptModes::new()),
        AgentFeatures::new()
            .additional_directories(true)
            .system_prompt(SystemPromptModes::new().override_prompt(true)),
    ] {
        let directories = features.additional_directories;
        let modes = features.system_prompt;
        let (agent, _opened) = TestAgent::new();
        let agent = TestAgent {
            features: Some(features),
            ..agent
        };
        let setups = agent.setups.clone();
        let server = AgentServer::new(agent);
        for version in [1u16, 2] {
            let (mut wire, _) = Wire::start(&server, version, json!({})).await;
            let with_dirs =
                json!({"cwd": "/work", "mcpServers": [], "additionalDirectories": ["/lib"]});
            let answer = wire.call("session/new", with_dirs).await;
            assert_eq!(
                answer.get("result").is_some(),
                directories,
                "v{version}: {answer}"
            );
            for mode in ["append", "override", "_custom"] {
                let allowed = match mode {
                    "append" => modes.is_some(),
                    "override" => modes.is_some_and(|modes| modes.override_prompt),
                    _ => false,
                };
                let params =
                    json!({"cwd": "/work", "mcpServers": [], "systemPrompt": prompt(mode)});
                let answer = wire.call("session/new", params).await;
                assert_allowed(&answer, allowed, -32602, &format!("v{version} {mode}"));
            }
            // A system prompt with a block that is not text is refused.
            if modes.is_some() {
                let params = json!({"cwd": "/work", "mcpServers": [], "systemPrompt": {"mode": "append", "content": [block("image")]}});
                wire.refused("session/new", params, -32602).await;
            }
        }
        // What was accepted reached the agent.
        tokio::task::yield_now().await;
        let setups = setups.lock().unwrap();
        if modes.is_some() {
            assert!(
                setups.iter().any(|setup| setup
                    .system_prompt
                    .as_ref()
                    .is_some_and(|prompt| prompt.text == "Be brief.")),
                "{setups:?}"
            );
        }
        if directories {
            assert!(
                setups
                    .iter()
                    .any(|setup| setup.additional_directories == ["/lib"])
            );
        }
    }
}

#[tokio::test]
async fn modes_and_options_are_answered_only_for_sessions_that_offer_them() {
    let offered = SessionConfig::new()
        .modes(Modes::new("ask").mode("ask", "Ask").mode("code", "Code"))
        .option(ConfigOption::boolean("fast", "Fast", false));
    for config in [None, Some(offered)] {
        let offers = config.is_some();
        let agent = TestAgent {
            config,
            ..TestAgent::default()
        };
        let server = AgentServer::new(agent);
        for version in [1u16, 2] {
            let (mut wire, _) = Wire::start(&server, version, json!({})).await;
            let created = wire
                .ok("session/new", json!({"cwd": "/work", "mcpServers": []}))
                .await;
            let session = created["sessionId"].as_str().unwrap().to_owned();
            let option =
                json!({"sessionId": session, "configId": "fast", "type": "boolean", "value": true});
            let answer = wire.call("session/set_config_option", option).await;
            if offers {
                assert!(answer.get("result").is_some(), "v{version}: {answer}");
            } else {
                assert_eq!(answer["error"]["code"], -32601, "v{version}: {answer}");
                assert!(created.get("configOptions").is_none(), "{created}");
            }
            if version == 1 {
                let mode = json!({"sessionId": session, "modeId": "code"});
                let answer = wire.call("session/set_mode", mode).await;
                if offers {
                    assert!(answer.get("result").is_some(), "{answer}");
                    assert_eq!(created["modes"]["currentModeId"], "ask");
                } else {
                    assert_eq!(answer["error"]["code"], -32601, "{answer}");
                    assert!(created.get("modes").is_none(), "{created}");
                }
            } else {
                // v2 has no session/set_mode at all.
                let mode = json!({"sessionId": session, "modeId": "code"});
                wire.refused("session/set_mode", mode, -32601).await;
            }
        }
    }
}
