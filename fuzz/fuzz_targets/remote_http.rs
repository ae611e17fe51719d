//! Arbitrary bytes as one TCP connection to the remote listener (`acptk-runtime`, feature
//! `remote`): HTTP/1.1 or HTTP/2 requests, WebSocket upgrades and the frames after them,
//! Streamable HTTP posts with any body, all through the same accept path, limits and
//! timeouts as a real listener (`Endpoint::serve_connection` over an in-memory pipe). The
//! client's side of the pipe is closed after the input, and the server must end the
//! connection by itself, within the time the target allows. Nothing may panic.
#![no_main]

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use acptk_runtime::agent::{Agent, AgentServer, Prompt, Session, StopReason};
use acptk_runtime::transport::remote::{RemoteServer, ServerOptions};
use acptk_schema::jsonrpc::ErrorObject;
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Answers every prompt with one text chunk.
struct Echo;

impl Agent for Echo {
    async fn prompt(&self, session: Session, prompt: Prompt) -> Result<StopReason, ErrorObject> {
        let _ = session.send_text(&prompt.text).await;
        Ok(StopReason::EndTurn)
    }
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    server: RemoteServer<Echo>,
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        // Small limits, so that inputs reach them; short timeouts, so that runs are quick.
        let options = ServerOptions::new()
            .max_message_bytes(4096)
            .max_sessions(2)
            .max_total_sessions(4)
            .max_connections(4)
            .max_queued_bytes(8192)
            .header_timeout(Duration::from_millis(200))
            .body_timeout(Duration::from_millis(200))
            .unused_timeout(Duration::from_millis(200))
            .stall_timeout(Duration::from_millis(200))
            .idle_timeout(Duration::from_millis(500));
        let server = runtime.block_on(async { RemoteServer::new(AgentServer::new(Echo), options) });
        Harness { runtime, server }
    })
}

fuzz_target!(|data: &[u8]| {
    let harness = harness();
    harness.runtime.block_on(async {
        let (mut client, server_io) = tokio::io::duplex(64 * 1024);
        let peer = SocketAddr::from(([127, 0, 0, 1], 40000));
        let server = harness.server.clone();
        let serving = tokio::spawn(async move { server.serve_connection(server_io, peer).await });
        let exchange = async {
            let _ = client.write_all(data).await;
            let _ = client.shutdown().await;
            let mut answer = Vec::new();
            let _ = client.read_to_end(&mut answer).await;
        };
        // The server gives up on a connection within its timeouts; this is far beyond them.
        let _ = tokio::time::timeout(Duration::from_secs(5), exchange).await;
        drop(client);
        let _ = tokio::time::timeout(Duration::from_secs(5), serving).await;
    });
});
