//! The client's typed calls as they reach the wire: authentication, session controls,
//! session lists, the v2 user echo, v2 turn errors, and a v2 client meeting a v1 agent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use acptk_runtime::agent::AgentServer;
use acptk_runtime::client::transcript::Role;
use acptk_runtime::client::{AuthKind, Client, ClientBuilder, ConfigValue};
use acptk_runtime::{Notice, ProtocolVersion};
use common::{RawPeer, TestAgent, raw_agent_answering, until};
use serde_json::{Value, json};

async fn connect_raw(builder: ClientBuilder, result: Value) -> (Client, RawPeer) {
    let (client, agent, _) = raw_agent_answering(builder, result).await;
    (client, agent)
}

/// A v2 client connected to a raw agent, with the session `s1` (in `/w`) open.
async fn v2_session_s1() -> (Client, RawPeer) {
    let builder = ClientBuilder::new().protocol(ProtocolVersion::V2);
    let (client, mut agent) = connect_raw(builder, common::init_result(2)).await;
    let opening = {
        let client = client.clone();
        tokio::spawn(async move { client.new_session("/w", &[]).await })
    };
    answer(&mut agent, "session/new", json!({"sessionId": "s1"})).await;
    opening.await.unwrap().unwrap();
    (client, agent)
}

/// Answers the next request (which must be `method`) with `result`; returns its params.
async fn answer(agent: &mut RawPeer, method: &str, result: Value) -> Value {
    let request = agent.recv_some().await;
    assert_eq!(request["method"], method, "{request}");
    agent
        .send_json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
        .await;
    request["params"].clone()
}

async fn answer_error(agent: &mut RawPeer, method: &str, error: Value) {
    let request = agent.recv_some().await;
    assert_eq!(request["method"], method, "{request}");
    agent
        .send_json(json!({"jsonrpc": "2.0", "id": request["id"], "error": error}))
        .await;
}

fn v1_init(extra: Value) -> Value {
    let mut result = json!({"protocolVersion": 1});
    result
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    result
}

#[tokio::test]
async fn every_offered_auth_method_is_kept_and_authenticate_is_sent() {
    let methods = json!([
        {"id": "chatgpt", "name": "Login with ChatGPT", "description": "Use your ChatGPT login"},
        {"type": "env_var", "id": "codex-api-key", "name": "Use CODEX_API_KEY", "vars": [{"name": "CODEX_API_KEY"}]},
        {"type": "terminal", "id": "tui", "name": "Log in", "args": ["--login"], "env": {"MODE": "x"}},
        {"type": "_custom", "id": "custom", "name": "Custom"},
        {"id": 7, "name": "no string id"}
    ]);
    let (client, mut agent) = connect_raw(
        ClientBuilder::new(),
        v1_init(json!({"authMethods": methods})),
    )
    .await;
    let offered = client.auth_methods();
    let ids: Vec<&str> = offered.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["chatgpt", "codex-api-key", "tui", "custom"]);
    assert_eq!(
        offered[0].description.as_deref(),
        Some("Use your ChatGPT login")
    );
    assert_eq!(
        offered[1].kind,
        AuthKind::EnvVar {
            vars: vec!["CODEX_API_KEY".to_owned()]
        }
    );
    assert_eq!(
        offered[2].kind,
        AuthKind::Terminal {
            args: vec!["--login".to_owned()],
            env: vec![("MODE".to_owned(), "x".to_owned())]
        }
    );
    assert_eq!(offered[3].kind_word(), "_custom");

    let signing_in = {
        let client = client.clone();
        tokio::spawn(async move { client.authenticate("codex-api-key").await })
    };
    let params = answer(&mut agent, "authenticate", json!({})).await;
    assert_eq!(params, json!({"methodId": "codex-api-key"}));
    signing_in.await.unwrap().unwrap();

    // A terminal method is never sent; without the agent's command it cannot run here.
    let error = client.authenticate("tui").await.unwrap_err().to_string();
    assert!(error.contains("terminal login"), "{error}");
    let error = client.authenticate("nope").await.unwrap_err().to_string();
    assert!(error.contains("no auth method `nope`"), "{error}");
}

#[tokio::test]
async fn v2_signs_in_with_auth_login_and_errors_keep_code_and_data() {
    let (client, mut agent) = connect_raw(
        ClientBuilder::new().protocol(ProtocolVersion::V2),
        json!({"protocolVersion": 2, "info": {"name": "raw", "version": "0"},
               "authMethods": [{"type": "agent", "methodId": "oauth", "name": "Browser"}]}),
    )
    .await;
    assert_eq!(client.auth_methods()[0].id, "oauth");
    let signing_in = {
        let client = client.clone();
        tokio::spawn(async move { client.authenticate("oauth").await })
    };
    answer_error(
        &mut agent,
        "auth/login",
        json!({"code": -32603, "message": "Internal error", "data": {"message": "stream disconnected before completion"}}),
    )
    .await;
    let error = signing_in.await.unwrap().unwrap_err();
    assert_eq!(
        error.to_string(),
        "Internal error (code -32603): stream disconnected before completion"
    );
    assert_eq!(error.rpc().map(|e| e.code), Some(-32603));
}

#[tokio::test]
async fn modes_and_config_options_follow_responses_and_updates() {
    let (client, mut agent) = connect_raw(ClientBuilder::new(), v1_init(json!({}))).await;
    let opening = {
        let client = client.clone();
        tokio::spawn(async move { client.new_session("/w", &[]).await })
    };
    answer(
        &mut agent,
        "session/new",
        json!({
            "sessionId": "s1",
            "modes": {"currentModeId": "ask", "availableModes": [
                {"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code", "description": "Writes code"}]},
            "configOptions": [
                {"id": "model", "name": "Model", "category": "model", "type": "select",
                 "currentValue": "small", "options": [{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}]},
                {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": false}
            ]
        }),
    )
    .await;
    let session = opening.await.unwrap().unwrap();
    let controls = client.session_controls(&session).unwrap();
    assert_eq!(controls.current_mode().as_deref(), Some("Ask"));
    assert_eq!(controls.current_model().as_deref(), Some("Small"));

    let switching = {
        let client = client.clone();
        tokio::spawn(async move { client.set_mode("s1", "code").await })
    };
    let params = answer(&mut agent, "session/set_mode", json!({})).await;
    assert_eq!(params, json!({"sessionId": "s1", "modeId": "code"}));
    switching.await.unwrap().unwrap();
    assert_eq!(
        client
            .session_controls("s1")
            .unwrap()
            .current_mode()
            .as_deref(),
        Some("Code")
    );
    let error = client.set_mode("s1", "fly").await.unwrap_err().to_string();
    assert!(
        error.contains("no mode `fly`") && error.contains("ask, code"),
        "{error}"
    );

    let option = controls.option("model").unwrap();
    let value = option.parse_value("Large").unwrap();
    assert_eq!(value, ConfigValue::Id("large".to_owned()));
    assert!(
        option
            .parse_value("huge")
            .unwrap_err()
            .contains("small, large")
    );
    assert!(
        controls
            .option("fast")
            .unwrap()
            .parse_value("maybe")
            .is_err()
    );
    let setting = {
        let client = client.clone();
        tokio::spawn(async move { client.set_config_option("s1", "model", &value).await })
    };
    let params = answer(
        &mut agent,
        "session/set_config_option",
        json!({"configOptions": [
            {"id": "model", "name": "Model", "category": "model", "type": "select",
             "currentValue": "large", "options": [{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}]}]}),
    )
    .await;
    assert_eq!(
        params,
        json!({"sessionId": "s1", "configId": "model", "value": "large"})
    );
    setting.await.unwrap().unwrap();
    assert_eq!(
        client
            .session_controls("s1")
            .unwrap()
            .current_model()
            .as_deref(),
        Some("Large")
    );

    // The agent switches on its own.
    agent
        .send_json(
            json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
            "update": {"sessionUpdate": "current_mode_update", "currentModeId": "ask"}}}),
        )
        .await;
    until(&client, |client| {
        client
            .session_controls("s1")
            .unwrap()
            .current_mode()
            .as_deref()
            == Some("Ask")
    })
    .await;
}

#[tokio::test]
async fn session_lists_need_the_capability_and_follow_cursors() {
    let (client, _agent) = connect_raw(ClientBuilder::new(), v1_init(json!({}))).await;
    let error = client
        .list_sessions(None, None)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("did not advertise `session/list`"),
        "{error}"
    );
    assert!(client.close_session("s1").await.is_err());
    assert!(client.delete_session("s1").await.is_err());

    let (client, mut agent) = connect_raw(
        ClientBuilder::new(),
        v1_init(json!({"agentCapabilities": {"sessionCapabilities": {"list": {}}}})),
    )
    .await;
    let listing = {
        let client = client.clone();
        tokio::spawn(async move { client.all_sessions(Some("/w"), 10).await })
    };
    let first = answer(
        &mut agent,
        "session/list",
        json!({"sessions": [{"sessionId": "a", "cwd": "/w", "title": "First", "updatedAt": "2025-01-01T00:00:00Z"}], "nextCursor": "c1"}),
    )
    .await;
    assert_eq!(first, json!({"cwd": "/w"}));
    let second = answer(
        &mut agent,
        "session/list",
        json!({"sessions": [{"sessionId": "b", "cwd": "/w"}]}),
    )
    .await;
    assert_eq!(second, json!({"cwd": "/w", "cursor": "c1"}));
    let sessions = listing.await.unwrap().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0].title.as_deref(), Some("First"));
    assert_eq!(sessions[1].updated_at, None);
}

#[tokio::test]
async fn the_v2_echo_of_the_prompt_is_shown_once() {
    for echo_first in [true, false] {
        let (client, mut agent) = v2_session_s1().await;
        let turn = {
            let client = client.clone();
            tokio::spawn(async move { client.prompt("s1", "hello").await })
        };
        let request = agent.recv_some().await;
        let echo = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
            "update": {"sessionUpdate": "user_message", "messageId": "m1", "content": [{"type": "text", "text": "hello"}]}}});
        let response =
            json!({"jsonrpc": "2.0", "id": request["id"], "result": {"messageId": "m1"}});
        if echo_first {
            agent.send_json(echo).await;
            agent.send_json(response).await;
        } else {
            agent.send_json(response).await;
            agent.send_json(echo).await;
        }
        agent
            .send_json(json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
                "update": {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}}}))
            .await;
        turn.await.unwrap().unwrap();
        let transcript = client.session_transcript("s1").unwrap();
        let users: Vec<&str> = transcript
            .messages(Role::User)
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(users, ["hello"], "echo first: {echo_first}");
    }
}

#[tokio::test]
async fn a_v2_turn_error_keeps_its_code_and_data() {
    let (client, mut agent) = v2_session_s1().await;
    let turn = {
        let client = client.clone();
        tokio::spawn(async move { client.prompt("s1", "go").await })
    };
    answer(&mut agent, "session/prompt", json!({"messageId": "m1"})).await;
    agent
        .send_json(json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
            "update": {"sessionUpdate": "state_update", "state": "idle", "stopReason": "error",
                       "error": {"code": -32603, "message": "Internal error", "data": {"message": "stream disconnected"}}}}}))
        .await;
    let error = turn.await.unwrap().unwrap_err();
    assert_eq!(
        error.to_string(),
        "Internal error (code -32603): stream disconnected"
    );
}

#[tokio::test]
async fn a_v1_agent_asked_for_v2_still_learns_about_notices() {
    let (agent, _opened) = TestAgent::new();
    let agent = TestAgent {
        notice_on_open: Some(Notice::warning("Disk almost full")),
        ..agent
    };
    let server = AgentServer::new(agent).versions(&[ProtocolVersion::V1]);
    let client = common::connect(&server, ClientBuilder::new().protocol(ProtocolVersion::V2)).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V1);
    let session = client.new_session("/w", &[]).await.unwrap();
    // The agent's fall-back message, if it believed notices were not advertised, would come
    // instead; wait for either.
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        until(&client, |client| {
            client.with_notice_center(|center| center.entry_count(&session)) == 1
                || client
                    .session_transcript(&session)
                    .is_some_and(|t| t.messages(Role::Agent).count() > 0)
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        client.with_notice_center(|center| center.entry_count(&session)),
        1
    );
    // A notice, not the fall-back agent message.
    let transcript = client.session_transcript(&session).unwrap_or_default();
    assert_eq!(transcript.messages(Role::Agent).count(), 0);
}

/// Records the login commands it is asked to run.
struct Logins(std::sync::Arc<std::sync::Mutex<Vec<acptk_runtime::client::LoginCommand>>>);

impl acptk_runtime::client::TerminalLogin for Logins {
    fn run(
        &self,
        command: acptk_runtime::client::LoginCommand,
    ) -> acptk_runtime::connection::BoxFuture<Result<(), String>> {
        self.0.lock().unwrap().push(command);
        Box::pin(async { Ok(()) })
    }
}

struct WithLogin(Logins);

impl acptk_runtime::client::ClientHandler for WithLogin {
    fn terminal_login(&self) -> Option<&dyn acptk_runtime::client::TerminalLogin> {
        Some(&self.0)
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_terminal_method_runs_the_agents_own_command_and_is_never_sent() {
    use acptk_runtime::transport::AgentCommand;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("login-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("received.log");
    // An agent that offers a terminal login, then logs whatever else it receives.
    let script = r#"IFS= read -r line; printf '%s\n' "$line" >> "$1"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"authMethods":[{"type":"terminal","id":"tui","name":"Log in","args":["--login"],"env":{"MODE":"x"}}]}}'
while IFS= read -r line; do printf '%s\n' "$line" >> "$1"; done"#;
    let command = AgentCommand::new("sh")
        .args(["-c", script, "sh"])
        .arg(&log)
        .env("BASE", "1");
    let logins = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (client, mut process) = ClientBuilder::new()
        .handler(WithLogin(Logins(std::sync::Arc::clone(&logins))))
        .spawn(&command)
        .await
        .unwrap();
    assert!(client.offered().terminal_login);
    client.authenticate("tui").await.unwrap();
    client.close().await;
    process.shutdown().await.unwrap();

    let ran = logins.lock().unwrap().clone();
    assert_eq!(ran.len(), 1);
    assert_eq!(ran[0].program, "sh");
    let args: Vec<String> = ran[0]
        .args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(args[0], "-c");
    assert_eq!(args.last().map(String::as_str), Some("--login"));
    let env: Vec<(String, String)> = ran[0]
        .env
        .iter()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        })
        .collect();
    assert_eq!(
        env,
        [
            ("BASE".to_owned(), "1".to_owned()),
            ("MODE".to_owned(), "x".to_owned())
        ]
    );
    let received = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let init: Value = serde_json::from_str(received.lines().next().unwrap()).unwrap();
    assert_eq!(
        init["params"]["clientCapabilities"]["auth"]["terminal"],
        true
    );
    assert!(!received.contains("authenticate"), "{received}");
}
