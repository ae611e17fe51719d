//! Sessions belong to the principal whose connection created them. Another principal's
//! connection does not list them, and every method that names one (every session method of
//! both versions' tables, taken from the reference schema) answers exactly as for an unknown
//! id and changes nothing; the owner still can do everything. A file store keeps the owner
//! across a restart, and the local principal (stdio) and named principals do not see each
//! other's sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod owners_support;

use acptk_runtime::agent::{AgentServer, FileStore, Principal};
use common::wire::Wire;
use owners_support::{SECRET, listed, params, probe, session_methods};
use serde_json::json;
use tokio::sync::mpsc;

#[tokio::test]
async fn every_session_method_answers_another_principals_session_as_an_unknown_one() {
    for version in [1u16, 2] {
        let (started_tx, mut started) = mpsc::unbounded_channel();
        let agent = owners_support::agent();
        *agent.started.lock().unwrap() = Some(started_tx);
        let events = agent.events.clone();
        let setups = agent.setups.clone();
        let server = AgentServer::new(agent);
        let mut alice = Wire::start_as(&server, version, Principal::named("alice")).await;
        let mut bob = Wire::start_as(&server, version, Principal::named("bob")).await;

        let theirs = alice.new_session("/work").await;
        assert_eq!(
            alice.prompt(&theirs, &format!("title:{SECRET}")).await,
            "end_turn"
        );
        let given = setups
            .lock()
            .unwrap()
            .last()
            .unwrap()
            .client
            .info()
            .principal
            .clone();
        assert_eq!(
            given,
            Principal::named("alice"),
            "the agent knows whose it is"
        );
        // A turn of alice's runs while bob tries everything.
        let waiting = alice.start_prompt(&theirs, "wait").await;
        assert_eq!(started.recv().await.unwrap(), theirs);
        let before = (events.lock().unwrap().clone(), setups.lock().unwrap().len());

        let (requests, notifications) = session_methods(version);
        let codes = probe(&mut bob, &theirs, &requests).await;
        for method in &notifications {
            bob.notify(method, params(&theirs)).await;
        }
        let list = bob.ok("session/list", json!({})).await;
        assert!(!listed(&list).contains(&theirs), "v{version}: {list}");
        assert!(!list.to_string().contains("0000"), "v{version}: {list}");
        // Nothing reached the agent's hooks, and the session is as it was.
        assert_eq!(
            (events.lock().unwrap().clone(), setups.lock().unwrap().len()),
            before,
            "v{version}: another principal's requests reached the agent"
        );
        let meta = server.sessions().meta(&theirs).await.unwrap().unwrap();
        assert_eq!(meta.title.as_deref(), Some(SECRET));
        assert_eq!(meta.owner.as_deref(), Some("alice"));
        assert!(!meta.archived);

        // Coverage: the stable session methods were all answered -32002 (close and delete:
        // success, changing nothing), and with every unstable feature nothing was left
        // unanswered (-32601).
        let stable: &[&str] = if version == 1 {
            &["session/load", "session/prompt", "session/set_mode"]
        } else {
            &[
                "session/prompt",
                "session/set_config_option",
                "tool_call/cancel",
            ]
        };
        for method in stable.iter().chain(&["session/resume"]) {
            assert!(
                codes.contains(&((*method).to_owned(), -32002)),
                "v{version}: {method} not covered: {codes:?}"
            );
        }
        for method in ["session/close", "session/delete"] {
            assert!(codes.contains(&(method.to_owned(), 0)), "{codes:?}");
        }
        assert_eq!(notifications, ["session/cancel"]);
        #[cfg(feature = "unstable")]
        {
            assert!(
                codes.iter().all(|(_, code)| *code != -32601),
                "v{version}: {codes:?}"
            );
            assert!(codes.len() >= 12, "v{version}: {codes:?}");
        }

        // Alice's turn was not cancelled by bob; she still has everything.
        alice
            .notify("session/cancel", json!({"sessionId": theirs}))
            .await;
        if version == 1 {
            let answer = alice.response(waiting).await;
            assert_eq!(answer["result"]["stopReason"], "cancelled", "{answer}");
        } else {
            assert_eq!(alice.until_idle(&theirs).await, "cancelled");
        }
        let list = alice.ok("session/list", json!({})).await;
        assert!(list.to_string().contains(SECRET), "v{version}: {list}");
        let mut again = Wire::start_as(&server, version, Principal::named("alice")).await;
        let reopen = if version == 1 {
            params_v1(&theirs)
        } else {
            json!({"sessionId": theirs, "cwd": "/work", "replayFrom": {"type": "start"}})
        };
        let method = if version == 1 {
            "session/load"
        } else {
            "session/resume"
        };
        again.ok(method, reopen).await;
        assert_eq!(again.prompt(&theirs, "still mine").await, "end_turn");
        again
            .ok("session/delete", json!({"sessionId": theirs}))
            .await;
        assert!(server.sessions().meta(&theirs).await.unwrap().is_none());
    }
}

#[tokio::test]
async fn a_restarted_store_keeps_owners_and_the_local_user_is_a_principal_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (mine, local) = {
        let server =
            AgentServer::new(owners_support::agent()).store(FileStore::open(dir.path()).unwrap());
        let mut alice = Wire::start_as(&server, 1, Principal::named("alice")).await;
        let mine = alice.new_session("/work").await;
        alice.prompt(&mine, &format!("title:{SECRET}")).await;
        let (_stdio, local) = Wire::with_session(&server, 1, "/work").await;
        (mine, local)
    };
    // The owned session is written in format 2, the local one stays format 1.
    let file = |id: &str| std::fs::read_to_string(dir.path().join(format!("{id}.json"))).unwrap();
    assert!(file(&mine).contains(r#""format":2"#) && file(&mine).contains(r#""owner":"alice""#));
    assert!(file(&local).contains(r#""format":1"#) && !file(&local).contains("owner"));

    let server =
        AgentServer::new(owners_support::agent()).store(FileStore::open(dir.path()).unwrap());
    let mut bob = Wire::start_as(&server, 1, Principal::named("bob")).await;
    let list = bob.ok("session/list", json!({})).await;
    assert_eq!(list["sessions"], json!([]), "{list}");
    bob.refused("session/load", params_v1(&mine), -32002).await;
    // The local user sees only its own session, alice only hers.
    let (mut stdio, _) = Wire::start(&server, 1, json!({})).await;
    let list = stdio.ok("session/list", json!({})).await;
    assert!(
        listed(&list).contains(&local) && !listed(&list).contains(&mine),
        "{list}"
    );
    stdio
        .refused("session/load", params_v1(&mine), -32002)
        .await;
    let mut alice = Wire::start_as(&server, 1, Principal::named("alice")).await;
    let list = alice.ok("session/list", json!({})).await;
    assert!(
        list.to_string().contains(SECRET) && !listed(&list).contains(&local),
        "{list}"
    );
    alice.ok("session/load", params_v1(&mine)).await;
    alice
        .refused("session/load", params_v1(&local), -32002)
        .await;
}

#[tokio::test]
async fn an_unreadable_session_is_unknown_to_a_named_principal() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let server = AgentServer::new(owners_support::agent()).store(store);
    let mut alice = Wire::start_as(&server, 1, Principal::named("alice")).await;
    let mine = alice.new_session("/work").await;
    std::fs::write(dir.path().join(format!("{mine}.json")), "{ damaged").unwrap();
    // Whose it is cannot be told: unknown (and not deleted) for a named principal ...
    let mut bob = Wire::start_as(&server, 1, Principal::named("bob")).await;
    let message = bob.refused("session/load", params_v1(&mine), -32002).await;
    assert!(!message.contains(".json"), "{message}");
    // (a delete of an unknown session succeeds and deletes nothing)
    bob.ok("session/delete", params_v1(&mine)).await;
    assert!(dir.path().join(format!("{mine}.jsonl")).exists());
    // ... while the local user, whose files these are, hears what is wrong.
    let (mut stdio, _) = Wire::start(&server, 1, json!({})).await;
    stdio
        .refused("session/load", params_v1(&mine), -32603)
        .await;
}

fn params_v1(session: &str) -> serde_json::Value {
    json!({"sessionId": session, "cwd": "/work", "mcpServers": []})
}
