//! Two `acp agent --listen --store postgres://...` instances behind HAProxy (the repository's
//! `deploy/haproxy.cfg`), driven by our client's connection stack over WebSocket and
//! Streamable HTTP: a session created through the balancer survives the SIGKILL of the
//! instance running its turn (the client reconnects through the balancer and gets every
//! update it had seen, v1 `session/load`, v2 `session/resume`); a prompt for a session whose
//! turn runs on the other instance gets the lease error, and once a crashed instance's lease
//! expires the session goes on; `session/list` shows every session from either instance; a
//! rolling restart (SIGTERM one instance, then the other) loses nothing. One scenario runs on
//! a shared SQLite file too (two processes on one machine).
//!
//! Needs PostgreSQL (`eval "$(scripts/test-postgres.sh start)"`) and HAProxy; skipped without
//! them, failing without them when `ACP_CLUSTER_REQUIRED=1` or `ACP_INTEROP_REQUIRED=1`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/remote_peer.rs"]
mod remote_peer;

use std::time::{Duration, Instant};

use acptk_runtime::rpc;
use cluster::Cluster;
use remote_peer::{Peer, history};
use serde_json::Value;

/// Every agent of these tests: chunks 100 ms apart (a turn streams for about two seconds), a
/// lease of two seconds (a crashed instance frees its sessions quickly), a short drain.
const FLAGS: &[&str] = &[
    "--delay-ms",
    "100",
    "--lease-seconds",
    "2",
    "--drain-seconds",
    "8",
];

/// A prompt that the example agent answers at once, without a tool call: it sends a notice.
const QUICK: &str = "/notice info Still there";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Whether `part` appears in `whole` in order (not necessarily next to each other).
fn in_order(part: &[Value], whole: &[Value]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|wanted| rest.any(|value| value == wanted))
}

/// The JSON-RPC error code of `error`, if the peer answered with one.
fn code(error: &acptk_runtime::Error) -> Option<i32> {
    error.rpc().map(|error| error.code)
}

/// Through the balancer: a turn streams, the instance running it is killed; the client
/// reconnects through the balancer, reopens the session on the other instance and finds
/// everything it had seen; its next prompt gets the lease error until the dead instance's
/// lease expires, then the session goes on.
fn failover(cluster: &mut Cluster, url: &str, version: u16) {
    let label = format!("{url} v{version}");
    let runtime = runtime();
    let (id, seen) = runtime.block_on(async {
        let peer = Peer::connect_retrying(url, version).await;
        let id = peer.new_session().await;
        let turn = peer.start_prompt(&id, "tell me about the failover please");
        peer.wait_for_updates(8).await;
        let running = cluster.running(&id);
        cluster.kill(running);
        // The client sees its connection end (v1: the prompt fails with it).
        let ended = tokio::time::timeout(Duration::from_secs(10), turn).await;
        assert!(
            ended.is_ok(),
            "{label}: the turn did not end with the connection"
        );
        (id, history(&peer.updates()))
    });
    let chunks = seen
        .iter()
        .filter(|update| update["sessionUpdate"] == "agent_message_chunk")
        .count();
    assert!(chunks >= 3, "{label}: {seen:?}");
    runtime.block_on(async {
        let peer = Peer::connect_retrying(url, version).await;
        peer.reopen(&id).await.unwrap();
        let replayed = history(&peer.updates());
        assert!(
            in_order(&seen, &replayed),
            "{label}: the replay lacks updates the client saw\nseen: {seen:?}\nreplayed: {replayed:?}\n{}",
            cluster.logs()
        );
        // The dead instance still holds the lease, for two seconds at most.
        let started = Instant::now();
        let mut refused = 0;
        let stop = loop {
            match peer.prompt(&id, QUICK).await {
                Ok(stop) => break stop,
                Err(error) if code(&error) == Some(rpc::SESSION_BUSY_ELSEWHERE) => {
                    assert!(error.to_string().contains("another agent instance"), "{error}");
                    refused += 1;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(error) => panic!("{label}: {error}\n{}", cluster.logs()),
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{label}: the lease never expired");
        };
        assert_eq!(stop, "end_turn", "{label}");
        assert!(refused > 0, "{label}: the crashed instance's lease was not in the way");
        assert!(started.elapsed() < Duration::from_secs(5), "{label}: {:?}", started.elapsed());
    });
}

#[test]
fn a_killed_instance_loses_nothing_over_websocket_v1() {
    let Some(mut cluster) = Cluster::postgres("failover-ws", FLAGS) else {
        return;
    };
    let url = cluster.ws_url();
    failover(&mut cluster, &url, 1);
}

#[test]
fn a_killed_instance_loses_nothing_over_http_v2() {
    let Some(mut cluster) = Cluster::postgres("failover-http", FLAGS) else {
        return;
    };
    let url = cluster.http_url();
    failover(&mut cluster, &url, 2);
}

#[test]
fn two_processes_on_one_sqlite_file_fail_over_too() {
    let Some(mut cluster) = Cluster::sqlite("failover-sqlite", FLAGS) else {
        return;
    };
    let url = cluster.ws_url();
    failover(&mut cluster, &url, 2);
}

#[test]
fn a_prompt_for_a_turn_running_on_the_other_instance_gets_the_lease_error() {
    let Some(cluster) = Cluster::postgres("lease-error", FLAGS) else {
        return;
    };
    runtime().block_on(async {
        let first = Peer::connect_retrying(&cluster.ws_url(), 1).await;
        let id = first.new_session().await;
        let turn = first.start_prompt(&id, "a long enough turn for the test");
        first.wait_for_updates(2).await;
        let running = cluster.running(&id);
        let other = Peer::connect(&cluster.direct_url(1 - running), 1)
            .await
            .unwrap();
        other.reopen(&id).await.unwrap();
        let error = other.prompt(&id, QUICK).await.unwrap_err();
        assert_eq!(code(&error), Some(rpc::SESSION_BUSY_ELSEWHERE), "{error}");
        let data = error.rpc().unwrap().data.clone().unwrap();
        assert_eq!(data["sessionId"], id.as_str());
        assert!(data["retryAfterMs"].as_u64().unwrap() <= 2000, "{data}");
        // Nothing of the refused prompt was recorded, and the first turn runs on.
        assert_eq!(turn.await.unwrap().unwrap()["stopReason"], "end_turn");
        // Once it ended, the other instance takes the next turn at once.
        assert_eq!(other.prompt(&id, QUICK).await.unwrap(), "end_turn");
        let texts: Vec<String> = history(&other.updates())
            .iter()
            .filter(|update| update["sessionUpdate"] == "user_message_chunk")
            .map(|update| update["content"]["text"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            texts,
            ["a long enough turn for the test"],
            "the refused prompt was recorded"
        );
    });
}

#[test]
fn session_list_shows_every_session_from_either_instance() {
    let Some(cluster) = Cluster::postgres("list", FLAGS) else {
        return;
    };
    runtime().block_on(async {
        let mut created = Vec::new();
        for index in [0, 1, 0, 1] {
            let peer = Peer::connect(&cluster.direct_url(index), 1).await.unwrap();
            created.push(peer.new_session().await);
        }
        created.sort();
        for url in [
            cluster.direct_url(0),
            cluster.direct_url(1),
            cluster.ws_url(),
        ] {
            let peer = Peer::connect(&url, 1).await.unwrap();
            let listed = peer
                .call("session/list", serde_json::json!({}))
                .await
                .unwrap();
            let mut ids: Vec<String> = listed["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|session| session["sessionId"].as_str().unwrap().to_owned())
                .collect();
            ids.sort();
            assert_eq!(ids, created, "{url}");
        }
    });
}

#[test]
fn a_rolling_restart_loses_nothing() {
    let Some(mut cluster) = Cluster::postgres("rolling", FLAGS) else {
        return;
    };
    let runtime = runtime();
    let url = cluster.ws_url();
    // Sessions with history on both instances.
    let mut sessions = Vec::new();
    runtime.block_on(async {
        for index in [0, 1] {
            let peer = Peer::connect(&cluster.direct_url(index), 1).await.unwrap();
            let id = peer.new_session().await;
            assert_eq!(peer.prompt(&id, QUICK).await.unwrap(), "end_turn");
            sessions.push(id);
        }
    });
    for restarted in [0, 1] {
        let (id, seen) = runtime.block_on(async {
            // A turn runs on the instance that is about to stop.
            let peer = Peer::connect(&cluster.direct_url(restarted), 1)
                .await
                .unwrap();
            let id = peer.new_session().await;
            let turn = peer.start_prompt(&id, "a turn during the restart");
            peer.wait_for_updates(2).await;
            cluster.signal_term(restarted);
            // The running turn ends normally: the drain lets it finish.
            let stop = tokio::time::timeout(Duration::from_secs(20), turn)
                .await
                .expect("the turn ended")
                .unwrap()
                .unwrap();
            assert_eq!(stop["stopReason"], "end_turn", "{}", cluster.logs());
            assert_eq!(cluster.wait_exit(restarted), Some(0), "{}", cluster.logs());
            (id, history(&peer.updates()))
        });
        sessions.push(id.clone());
        runtime.block_on(async {
            // Through the balancer, the other instance has it all.
            let peer = Peer::connect_retrying(&url, 1).await;
            peer.reopen(&id).await.unwrap();
            let replayed = history(&peer.updates());
            assert!(in_order(&seen, &replayed), "{seen:?}\n{replayed:?}");
            assert_eq!(peer.prompt(&id, QUICK).await.unwrap(), "end_turn");
        });
        cluster.launch(restarted);
    }
    // Every session, from either instance, with its whole history.
    runtime.block_on(async {
        for index in [0, 1] {
            let peer = Peer::connect(&cluster.direct_url(index), 1).await.unwrap();
            let listed = peer
                .call("session/list", serde_json::json!({}))
                .await
                .unwrap();
            assert_eq!(listed["sessions"].as_array().unwrap().len(), sessions.len());
            for id in &sessions {
                let peer = Peer::connect(&cluster.direct_url(index), 1).await.unwrap();
                peer.reopen(id).await.unwrap();
                assert!(!history(&peer.updates()).is_empty(), "{id}");
            }
        }
    });
}
