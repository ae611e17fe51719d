//! Two `acp agent --listen --store ...` instances behind HAProxy: a session's settings (mode
//! and option values) set through one instance are what the other answers and runs with at
//! its next request, although it already has the session open; and after the instance that
//! set them is killed with SIGKILL, the client that fails over to the other one finds them.
//! On PostgreSQL, and once on a shared SQLite file.
//!
//! Needs PostgreSQL (`eval "$(scripts/test-postgres.sh start)"`) and HAProxy; skipped without
//! them, failing without them when `ACP_CLUSTER_REQUIRED=1` or `ACP_INTEROP_REQUIRED=1`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/json.rs"]
mod json;
#[path = "support/remote_peer.rs"]
mod remote_peer;

use cluster::Cluster;
use json::option;
use remote_peer::Peer;
use serde_json::{Value, json};

/// Answers at once; leases of two seconds.
const FLAGS: &[&str] = &["--delay-ms", "0", "--lease-seconds", "2"];

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The current mode and `shout` value in a session response.
fn settings(result: &Value) -> (Value, Value) {
    let mode = match &result["modes"]["currentModeId"] {
        Value::Null => option(result, "mode"),
        current => current.clone(),
    };
    (mode, option(result, "shout"))
}

/// Sets the mode (v1 `session/set_mode`, v2 the `mode` option) and the `shout` option.
async fn set(peer: &Peer, id: &str, mode: &str, shout: bool) {
    if peer.version == 1 {
        peer.call("session/set_mode", json!({"sessionId": id, "modeId": mode}))
            .await
            .unwrap();
    } else {
        peer.call(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "mode", "type": "id", "value": mode}),
        )
        .await
        .unwrap();
    }
    peer.call(
        "session/set_config_option",
        json!({"sessionId": id, "configId": "shout", "type": "boolean", "value": shout}),
    )
    .await
    .unwrap();
}

/// Runs a prompt through `peer`; the text the agent answered.
async fn answer(peer: &Peer, id: &str, text: &str) -> String {
    let before = peer.updates().len();
    assert_eq!(peer.prompt(id, text).await.unwrap(), "end_turn");
    peer.updates()[before..]
        .iter()
        .filter(|update| update["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|update| update["content"]["text"].as_str())
        .collect()
}

/// Instance 1 has the session open; instance 0 sets the mode to `ask` and `shout` on. Then
/// instance 1 (its open connection, and through the balancer) answers and runs with them; with
/// `kill`, instance 0 is killed with SIGKILL first and the client comes through the balancer.
fn settings_follow(cluster: &mut Cluster, url: &str, version: u16, kill: bool) {
    let label = format!("{url} v{version} kill={kill}");
    runtime().block_on(async {
        let first = Peer::connect(&cluster.direct_url(0), version)
            .await
            .unwrap();
        let second = Peer::connect(&cluster.direct_url(1), version)
            .await
            .unwrap();
        let id = first.new_session().await;
        let opened = second.reopen(&id).await.unwrap();
        assert_eq!(settings(&opened), (json!("code"), json!(false)), "{label}");
        set(&first, &id, "ask", true).await;
        if kill {
            cluster.kill(0);
        }
        let reopened = second.reopen(&id).await.unwrap();
        assert_eq!(
            settings(&reopened),
            (json!("ask"), json!(true)),
            "{label}: the instance that had the session open answers stale settings\n{}",
            cluster.logs()
        );
        // A client through the balancer, whichever instance it reaches.
        let client = Peer::connect_retrying(url, version).await;
        let reopened = client.reopen(&id).await.unwrap();
        assert_eq!(settings(&reopened), (json!("ask"), json!(true)), "{label}");
        assert_eq!(
            answer(&client, &id, "three little words").await,
            "YOUR PROMPT HAD 3 WORDS.",
            "{label}: the turn ran with stale settings\n{}",
            cluster.logs()
        );
        assert_eq!(
            answer(&second, &id, "hi").await,
            "YOUR PROMPT HAD 1 WORDS.",
            "{label}"
        );
    });
}

#[test]
fn settings_set_on_one_postgres_instance_are_current_on_the_other_v1() {
    let Some(mut cluster) = Cluster::postgres("settings-v1", FLAGS) else {
        return;
    };
    let url = cluster.ws_url();
    settings_follow(&mut cluster, &url, 1, false);
}

#[test]
fn settings_set_on_one_postgres_instance_are_current_on_the_other_v2() {
    let Some(mut cluster) = Cluster::postgres("settings-v2", FLAGS) else {
        return;
    };
    let url = cluster.http_url();
    settings_follow(&mut cluster, &url, 2, false);
}

#[test]
fn settings_survive_the_sigkill_of_the_instance_that_set_them_v1() {
    let Some(mut cluster) = Cluster::postgres("settings-kill-v1", FLAGS) else {
        return;
    };
    let url = cluster.ws_url();
    settings_follow(&mut cluster, &url, 1, true);
}

#[test]
fn settings_survive_the_sigkill_of_the_instance_that_set_them_v2() {
    let Some(mut cluster) = Cluster::postgres("settings-kill-v2", FLAGS) else {
        return;
    };
    let url = cluster.http_url();
    settings_follow(&mut cluster, &url, 2, true);
}

#[test]
fn settings_set_in_one_process_on_a_sqlite_file_are_current_in_the_other() {
    let Some(mut cluster) = Cluster::sqlite("settings-sqlite", FLAGS) else {
        return;
    };
    let url = cluster.ws_url();
    settings_follow(&mut cluster, &url, 2, true);
}
