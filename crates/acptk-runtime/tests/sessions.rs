//! The session methods the runtime answers from its store, in both versions: ids,
//! `session/load`, `session/resume`, `session/list`, `session/close`, `session/delete`,
//! `session/set_mode`, `session/set_config_option` and titles.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashSet;

use acptk_runtime::agent::{AgentServer, ConfigOption, Modes, SessionConfig};
use common::TestAgent;
use common::wire::Wire;
use serde_json::{Value, json};

fn config() -> SessionConfig {
    SessionConfig::new()
        .modes(
            Modes::new("ask")
                .mode("ask", "Ask")
                .mode("code", "Code")
                .mode("locked", "Locked"),
        )
        .option(ConfigOption::boolean("fast", "Fast", false))
        .option(
            ConfigOption::select("model", "Model", "small")
                .value("small", "Small")
                .value("large", "Large"),
        )
}

fn server() -> AgentServer<TestAgent> {
    AgentServer::new(TestAgent {
        config: Some(config()),
        ..TestAgent::default()
    })
}

fn load_params(version: u16, id: &str, replay: bool) -> (&'static str, Value) {
    if version == 1 {
        if replay {
            (
                "session/load",
                json!({"sessionId": id, "cwd": "/work", "mcpServers": []}),
            )
        } else {
            ("session/resume", json!({"sessionId": id, "cwd": "/work"}))
        }
    } else if replay {
        (
            "session/resume",
            json!({"sessionId": id, "cwd": "/work", "replayFrom": {"type": "start"}}),
        )
    } else {
        ("session/resume", json!({"sessionId": id, "cwd": "/work"}))
    }
}

#[tokio::test]
async fn session_ids_are_random_and_never_repeat() {
    let mut ids = HashSet::new();
    for _ in 0..2 {
        // Two servers with stores of their own, as two processes would be.
        let server = server();
        let (mut wire, _) = Wire::start(&server, 1, json!({})).await;
        for _ in 0..200 {
            let id = wire.new_session("/work").await;
            let hex = id.strip_prefix("sess_").expect("prefixed");
            assert_eq!(hex.len(), 32, "{id}");
            assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
            assert!(ids.insert(id.clone()), "{id} was handed out twice");
        }
    }
}

#[tokio::test]
async fn loading_replays_the_history_and_unknown_sessions_answer_resource_not_found() {
    for version in [1u16, 2] {
        let server = server();
        let (mut first, _) =
            Wire::start(&server, version, json!({"session": {"notices": {}}})).await;
        let id = first.new_session("/work").await;
        first.prompt(&id, "hello").await;
        first.prompt(&id, "title:Greetings").await;

        let (mut second, _) = Wire::start(&server, version, json!({})).await;
        let (method, params) = load_params(version, &id, true);
        let result = second.ok(method, params).await;
        let updates = second.take_updates();
        let kinds = Wire::kinds(&updates);
        let expected: &[&str] = if version == 1 {
            &[
                "user_message_chunk",
                "agent_message_chunk",
                "agent_message_chunk",
                "user_message_chunk",
                "session_info_update",
            ]
        } else {
            &[
                "user_message",
                // A streamed message is announced whole (empty) before its chunks.
                "agent_message",
                "agent_message_chunk",
                "agent_message_chunk",
                "user_message",
                "session_info_update",
                "replay_complete",
                "state_update:idle",
            ]
        };
        assert_eq!(kinds, expected, "v{version}");
        // Message ids are kept: the agent's chunks of one turn share one.
        let chunk = if version == 1 { 1 } else { 2 };
        assert_eq!(updates[chunk]["messageId"], updates[chunk + 1]["messageId"]);
        if version == 2 {
            assert_eq!(updates[1]["messageId"], updates[2]["messageId"]);
            assert_eq!(updates[1]["content"], json!([]));
        }
        // The response carries the session's offer.
        if version == 1 {
            assert_eq!(result["modes"]["currentModeId"], "ask", "{result}");
            assert_eq!(result["configOptions"].as_array().unwrap().len(), 2);
        } else {
            // The modes travel as the first option.
            assert_eq!(result["configOptions"][0]["configId"], "mode", "{result}");
            assert_eq!(result["configOptions"][0]["category"], "mode");
        }

        // An unknown id: -32002, naming it.
        let (method, params) = load_params(version, "sess_nope", true);
        let answer = second.call(method, params).await;
        assert_eq!(answer["error"]["code"], -32002, "{answer}");
        assert_eq!(answer["error"]["data"]["sessionId"], "sess_nope");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("sess_nope")
        );

        // A session of the other version is not opened with this one.
        let other = if version == 1 { 2 } else { 1 };
        let (mut third, _) = Wire::start(&server, other, json!({})).await;
        let (method, params) = load_params(other, &id, false);
        let message = third.refused(method, params, -32602).await;
        assert!(message.contains("protocol version"), "{message}");
    }
}

#[tokio::test]
async fn resume_without_replay_reports_only_the_state_and_unknown_cursors_are_refused() {
    for version in [1u16, 2] {
        let server = server();
        let (mut first, id) = Wire::with_session(&server, version, "/work").await;
        first.prompt(&id, "hello").await;
        let (mut second, _) = Wire::start(&server, version, json!({})).await;
        let (method, params) = load_params(version, &id, false);
        second.ok(method, params).await;
        let kinds = Wire::kinds(&second.take_updates());
        if version == 1 {
            assert!(kinds.is_empty(), "{kinds:?}");
        } else {
            // The current state comes before the response, even without a replay.
            assert_eq!(kinds, ["state_update:idle"]);
        }
        // The session is open on the new connection.
        assert_eq!(second.prompt(&id, "again").await, "end_turn");
        if version == 2 {
            let params = json!({"sessionId": id, "cwd": "/work", "replayFrom": {"type": "_checkpoint", "at": 3}});
            second.refused("session/resume", params, -32602).await;
        }
    }
}

#[tokio::test]
async fn a_prompt_for_a_session_not_open_here_answers_resource_not_found() {
    for version in [1u16, 2] {
        let server = server();
        let (_first, id) = Wire::with_session(&server, version, "/work").await;
        let (mut second, _) = Wire::start(&server, version, json!({})).await;
        let answer = second.call_prompt(&id, "hi").await;
        assert_eq!(answer["error"]["code"], -32002, "{answer}");
    }
}

#[tokio::test]
async fn list_filters_by_directory_pages_with_a_cursor_and_puts_recent_sessions_first() {
    for version in [1u16, 2] {
        let server = server().list_page_size(2);
        let (mut wire, _) = Wire::start(&server, version, json!({})).await;
        let mut created = Vec::new();
        for cwd in ["/a", "/b", "/a/", "/a", "/a"] {
            created.push(wire.new_session(cwd).await);
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        // A session of the other version is never listed.
        let (mut other, _) = Wire::start(&server, 3 - version, json!({})).await;
        other.new_session("/a").await;
        // The oldest becomes the most recent.
        wire.prompt(&created[0], "title:Oldest").await;

        let mut seen = Vec::new();
        let mut cursor = Value::Null;
        loop {
            let mut params = json!({"cwd": "/a"});
            if !cursor.is_null() {
                params["cursor"] = cursor.clone();
            }
            let page = wire.ok("session/list", params).await;
            let sessions = page["sessions"].as_array().unwrap();
            assert!(sessions.len() <= 2, "{page}");
            for session in sessions {
                assert!(session["cwd"].as_str().unwrap().starts_with("/a"));
                let updated = session["updatedAt"].as_str().unwrap();
                assert!(updated.ends_with('Z') && updated.contains('T'), "{updated}");
                seen.push(session["sessionId"].as_str().unwrap().to_owned());
            }
            cursor = page["nextCursor"].clone();
            if cursor.is_null() {
                break;
            }
        }
        let expected = [&created[0], &created[4], &created[3], &created[2]];
        assert_eq!(seen.iter().collect::<Vec<_>>(), expected, "v{version}");
        // The title is listed.
        let all = wire.ok("session/list", json!({})).await;
        assert_eq!(all["sessions"][0]["title"], "Oldest", "{all}");
        // A cursor this agent did not hand out is refused.
        wire.refused("session/list", json!({"cursor": "garbage"}), -32602)
            .await;
    }
}

#[tokio::test]
async fn close_cancels_the_turn_first_and_stops_everything_for_the_session() {
    for version in [1u16, 2] {
        let (agent, _) = TestAgent::new();
        let (started_tx, mut started) = tokio::sync::mpsc::unbounded_channel();
        *agent.started.lock().unwrap() = Some(started_tx);
        let events = agent.events.clone();
        let server = AgentServer::new(agent);
        let (mut wire, _) = Wire::start(&server, version, json!({})).await;
        // Closing an unknown session succeeds.
        wire.ok("session/close", json!({"sessionId": "sess_unknown"}))
            .await;

        let id = wire.new_session("/work").await;
        let prompt = wire.start_prompt(&id, "wait then end").await;
        started.recv().await.unwrap();
        let close = wire
            .request("session/close", json!({"sessionId": id}))
            .await;
        // Everything about the turn comes before the close response.
        let mut order = Vec::new();
        loop {
            let message = wire.next().await;
            if message["id"] == close {
                assert!(message.get("result").is_some(), "{message}");
                order.push("close".to_owned());
                break;
            }
            if message["id"] == prompt {
                order.push(format!("prompt:{}", message["result"]["stopReason"]));
                continue;
            }
            let update = &message["params"]["update"];
            order.push(match update["state"].as_str() {
                Some(state) => format!("state:{state}:{}", update["stopReason"]),
                None => update["sessionUpdate"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            });
        }
        if version == 1 {
            // v1: the prompt answered cancelled (before or after the close answer); the
            // handler's late chunk was refused, not sent.
            assert!(
                !order.contains(&"agent_message_chunk".to_owned()),
                "{order:?}"
            );
            if !order.contains(&"prompt:\"cancelled\"".to_owned()) {
                let answer = wire.response(prompt).await;
                assert_eq!(answer["result"]["stopReason"], "cancelled");
            }
        } else {
            let idle = order.iter().position(|o| o == "state:idle:\"cancelled\"");
            assert!(
                idle.is_some(),
                "v2: the cancelled idle precedes the close answer: {order:?}"
            );
        }
        assert!(events.lock().unwrap().contains(&format!("close:{id}")));
        assert!(
            events
                .lock()
                .unwrap()
                .contains(&"late:cancelled".to_owned()),
            "{:?}",
            events.lock().unwrap()
        );
        // The session is no longer open here.
        let answer = wire.call_prompt(&id, "hi").await;
        assert_eq!(answer["error"]["code"], -32002, "{answer}");
        // Nothing more arrives for it.
        assert!(
            wire.next_within(std::time::Duration::from_millis(100))
                .await
                .is_none()
        );
    }
}

#[tokio::test]
async fn delete_removes_the_session_for_good() {
    for version in [1u16, 2] {
        let server = server();
        let (mut wire, kept) = Wire::with_session(&server, version, "/work").await;
        let gone = wire.new_session("/work").await;
        wire.prompt(&gone, "hello").await;
        wire.ok("session/delete", json!({"sessionId": gone})).await;
        assert_eq!(wire.listed(json!({})).await, [kept.as_str()]);
        let (method, params) = load_params(version, &gone, true);
        let answer = wire.call(method, params).await;
        assert_eq!(answer["error"]["code"], -32002, "{answer}");
        // Deleting it again (or any unknown id) succeeds and changes nothing.
        wire.ok("session/delete", json!({"sessionId": gone})).await;
        wire.ok("session/delete", json!({"sessionId": "sess_never"}))
            .await;
        let answer = wire.call_prompt(&gone, "hi").await;
        assert_eq!(answer["error"]["code"], -32002);
        // The other session is untouched.
        assert_eq!(wire.prompt(&kept, "still here").await, "end_turn");
    }
}

#[tokio::test]
async fn modes_are_checked_kept_and_restored() {
    for version in [1u16, 2] {
        let agent = TestAgent {
            config: Some(config()),
            ..TestAgent::default()
        };
        let events = agent.events.clone();
        let server = AgentServer::new(agent);
        let (mut wire, id) = Wire::with_session(&server, version, "/work").await;
        let set = |mode: &str| {
            if version == 1 {
                ("session/set_mode", json!({"sessionId": id, "modeId": mode}))
            } else {
                (
                    "session/set_config_option",
                    json!({"sessionId": id, "configId": "mode", "type": "id", "value": mode}),
                )
            }
        };
        let (method, params) = set("code");
        let answer = wire.ok(method, params).await;
        if version == 2 {
            assert_eq!(
                answer["configOptions"][0]["currentValue"], "code",
                "{answer}"
            );
        }
        // Not offered: -32602; refused by the agent: its error. Neither changes anything.
        let (method, params) = set("sing");
        assert_eq!(wire.error(method, params).await.0, -32602);
        let (method, params) = set("locked");
        assert_eq!(wire.error(method, params).await.0, -32602);
        assert_eq!(
            *events.lock().unwrap(),
            ["set_mode:code", "set_mode:locked"]
        );
        // Reopened elsewhere, the session is still in the mode it was set to.
        let (mut other, _) = Wire::start(&server, version, json!({})).await;
        let (method, params) = load_params(version, &id, version == 1);
        let result = other.ok(method, params).await;
        if version == 1 {
            assert_eq!(result["modes"]["currentModeId"], "code", "{result}");
        } else {
            assert_eq!(
                result["configOptions"][0]["currentValue"], "code",
                "{result}"
            );
        }
    }
}

#[tokio::test]
async fn config_options_are_checked_answered_in_full_and_restored() {
    for version in [1u16, 2] {
        let server = server();
        let (mut wire, id) = Wire::with_session(&server, version, "/work").await;
        let select = |value: &str| {
            if version == 1 {
                json!({"sessionId": id, "configId": "model", "value": value})
            } else {
                json!({"sessionId": id, "configId": "model", "type": "id", "value": value})
            }
        };
        let options = wire
            .ok(
                "session/set_config_option",
                json!({"sessionId": id, "configId": "fast", "type": "boolean", "value": true}),
            )
            .await["configOptions"]
            .clone();
        let id_key = if version == 1 { "id" } else { "configId" };
        let fast = options
            .as_array()
            .unwrap()
            .iter()
            .find(|option| option[id_key] == "fast")
            .unwrap();
        assert_eq!(fast["currentValue"], true, "{options}");
        // The full list, every time.
        assert_eq!(
            options.as_array().unwrap().len(),
            if version == 1 { 2 } else { 3 }
        );
        wire.ok("session/set_config_option", select("large")).await;
        for bad in [
            select("huge"),
            json!({"sessionId": id, "configId": "nope", "type": "boolean", "value": true}),
            json!({"sessionId": id, "configId": "fast", "type": "id", "value": "x"}),
        ] {
            wire.refused("session/set_config_option", bad, -32602).await;
        }
        let (mut other, _) = Wire::start(&server, version, json!({})).await;
        let (method, params) = load_params(version, &id, false);
        let result = other.ok(method, params).await;
        let options = result["configOptions"].as_array().unwrap();
        let value = |name: &str| {
            options
                .iter()
                .find(|option| option[id_key] == name)
                .map(|option| option["currentValue"].clone())
        };
        assert_eq!(value("fast"), Some(json!(true)), "{result}");
        assert_eq!(value("model"), Some(json!("large")), "{result}");
    }
}
