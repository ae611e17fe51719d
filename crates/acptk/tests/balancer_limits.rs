//! The per-client limit of Streamable HTTP connections behind a real HAProxy (Debian's
//! package), on the real binary: a flood of `initialize` requests never followed up, sent
//! through the balancer (so from the balancer's address), does not lock out the next client;
//! and with `--trusted-proxy`, the limit counts the real client addresses that HAProxy names
//! by `option forwardfor` (`X-Forwarded-For`) or `send-proxy` (a PROXY line).
//!
//! Without HAProxy the tests print a skip message and pass, unless a cluster is required
//! (`ACP_CLUSTER_REQUIRED=1`, as `.ci/run` sets).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/listening.rs"]
mod listening;
#[path = "support/scratch.rs"]
mod scratch;

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cluster::{free_port, haproxy, http_status, missing, wait_until};
use listening::{Listening, runtime};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
const NEW: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#;

/// HAProxy in front of agents: frontend `plain` (no forwarding) to `plain`, `forwarded`
/// (`option forwardfor`) and `proxied` (`send-proxy`) both to `trusting`. Ended when dropped.
struct Balancer {
    child: Child,
    plain: String,
    forwarded: String,
    proxied: String,
    _dir: tempfile::TempDir,
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Balancer {
    fn start(test: &str, plain: &str, trusting: &str) -> Option<Balancer> {
        let Some(binary) = haproxy() else {
            return missing(test, "HAProxy is not installed (apt-get install haproxy)");
        };
        let dir = scratch::scratch(test);
        let [p, f, x] = [0; 3].map(|_| format!("127.0.0.1:{}", free_port()));
        let config = format!(
            "global\n    maxconn 4096\n\
             defaults\n    mode http\n    timeout connect 5s\n    timeout http-request 10s\n    timeout client 1m\n    timeout server 1m\n\
             frontend plain\n    bind {p}\n    default_backend plain\n\
             frontend forwarded\n    bind {f}\n    option forwardfor\n    default_backend forwarded\n\
             frontend proxied\n    bind {x}\n    default_backend proxied\n\
             backend plain\n    server a {plain}\n\
             backend forwarded\n    server b {trusting}\n\
             backend proxied\n    server c {trusting} send-proxy\n"
        );
        let path = dir.path().join("haproxy.cfg");
        std::fs::write(&path, config).unwrap();
        let log = std::fs::File::create(dir.path().join("haproxy.log")).unwrap();
        let child = Command::new(binary)
            .args(["-db", "-f"])
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let balancer = Balancer {
            child,
            plain: p,
            forwarded: f,
            proxied: x,
            _dir: dir,
        };
        // (`proxied` answers only once the agent behind it trusts the balancer.)
        for address in [&balancer.plain, &balancer.forwarded] {
            balancer.wait_for(address);
        }
        Some(balancer)
    }

    /// Waits until the frontend at `address` answers `/health` with 200.
    fn wait_for(&self, address: &str) {
        wait_until(&format!("HAProxy at {address}"), || {
            http_status(address, "/health") == 200
        });
    }
}

/// A POST of `body` to `/acp` at `address` from the loopback address `source`, with
/// `connection` as its `Acp-Connection-Id`: the status and the connection id of the answer.
async fn post(
    source: [u8; 4],
    address: &str,
    connection: Option<&str>,
    body: &str,
) -> (u16, Option<String>) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((source, 0))).unwrap();
    let mut stream = socket
        .connect(address.parse().unwrap())
        .await
        .expect("the balancer takes the connection");
    let id = connection
        .map(|id| format!("Acp-Connection-Id: {id}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /acp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\n{id}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    listening::status_and_connection(&String::from_utf8_lossy(&raw))
}

#[test]
fn a_flood_through_the_balancer_does_not_lock_out_the_next_client() {
    let test = "a_flood_through_the_balancer";
    // The defaults: 64 per address, 10 s before an unused connection is closed.
    let agent = Listening::start(&["--ephemeral", "--verbose"], &[]);
    let Some(balancer) = Balancer::start(test, agent.address(), agent.address()) else {
        return;
    };
    runtime().block_on(async {
        let mut served = 0;
        for _ in 0..300 {
            if post([127, 0, 0, 1], &balancer.plain, None, INIT).await.0 == 200 {
                served += 1;
            }
        }
        assert_eq!(served, 300, "every initialize of the flood is served");
        // Another client behind the same balancer, at once.
        let started = Instant::now();
        let (status, id) = post([127, 0, 0, 2], &balancer.plain, None, INIT).await;
        let took = started.elapsed();
        println!("the next client through HAProxy after the flood: {status} in {took:?}");
        assert_eq!(status, 200);
        assert!(took < Duration::from_secs(10), "{took:?}");
        let (status, _) = post([127, 0, 0, 2], &balancer.plain, id.as_deref(), NEW).await;
        assert_eq!(status, 202);
    });
    assert!(
        agent.wait_for("evicted HTTP connection", Duration::from_secs(5)),
        "{:?}",
        agent.stderr()
    );
}

#[test]
fn behind_a_trusted_balancer_the_limit_counts_real_client_addresses() {
    let test = "behind_a_trusted_balancer";
    let agent = Listening::start(
        &[
            "--ephemeral",
            "--max-per-address",
            "1",
            "--trusted-proxy",
            "127.0.0.1",
        ],
        &[],
    );
    let Some(balancer) = Balancer::start(test, agent.address(), agent.address()) else {
        return;
    };
    balancer.wait_for(&balancer.proxied);
    runtime().block_on(async {
        for (frontend, first, second) in [
            (&balancer.forwarded, [127, 0, 0, 2], [127, 0, 0, 3]),
            (&balancer.proxied, [127, 0, 0, 4], [127, 0, 0, 5]),
        ] {
            // The first client's one place, in use.
            let (status, id) = post(first, frontend, None, INIT).await;
            assert_eq!(status, 200, "{frontend}");
            let (status, _) = post(first, frontend, id.as_deref(), NEW).await;
            assert_eq!(status, 202, "{frontend}");
            // The same client again: its place is in use.
            assert_eq!(post(first, frontend, None, INIT).await.0, 503, "{frontend}");
            // Another client through the same balancer counts apart.
            assert_eq!(
                post(second, frontend, None, INIT).await.0,
                200,
                "{frontend}"
            );
        }
    });
}
