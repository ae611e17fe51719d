//! A remote server under a connection flood before any authentication (feature `remote`),
//! on loopback: idle sockets, slowloris headers, slow bodies and Streamable HTTP
//! `initialize` requests never followed up, each at a count above the caps, all at once and
//! reconnecting when closed. A legitimate client (WebSocket, and Streamable HTTP from another
//! loopback address) is served within 1 s throughout; the refusals and evictions are logged
//! (an unused HTTP connection makes way for a new one); the idle sockets are closed by the
//! header timeout and the unused HTTP connections expire.
#![cfg(all(feature = "remote", target_os = "linux"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod remote_support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use acptk_runtime::ConnectionBuilder;
use acptk_runtime::agent::AgentServer;
use acptk_runtime::log::Logger;
use acptk_runtime::transport::remote::ServerOptions;
use common::TestAgent;
use remote_support::{initialize, next, send, serve, status_and_id};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The caps of the server under test, kept low so that a few dozen sockets exceed them.
const MAX_CONNECTIONS: usize = 8;
const MAX_PER_ADDRESS: usize = 3;
/// Attackers of each kind (each above the caps).
const ATTACKERS: usize = 12;

/// A TCP connection to `address` from the loopback address `source`.
async fn connect_from(source: [u8; 4], address: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((source, 0)))?;
    socket.connect(address).await
}

/// A POST of `body` to `/acp` on `stream`: the status line and the `Acp-Connection-Id`.
async fn post_on(mut stream: TcpStream, body: &str) -> std::io::Result<(u16, Option<String>)> {
    let request = format!(
        "POST /acp HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    Ok(status_and_id(&raw))
}

/// Repeats `attack` (which returns when the server closes its connection) until `stop`, a
/// little apart; counts the connections it made.
fn attacker<F, Fut>(stop: &Arc<AtomicBool>, made: &Arc<AtomicUsize>, attack: F)
where
    F: Fn() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let stop = Arc::clone(stop);
    let made = Arc::clone(made);
    tokio::spawn(async move {
        while !stop.load(Ordering::SeqCst) {
            made.fetch_add(1, Ordering::SeqCst);
            attack().await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}

/// Holds a connection that sent `prefix` and then one more byte of `drip` every 200 ms,
/// until the server closes it (or a minute passes).
async fn hold(address: SocketAddr, prefix: &'static str, drip: u8) {
    let Ok(mut stream) = TcpStream::connect(address).await else {
        return;
    };
    if !prefix.is_empty() && stream.write_all(prefix.as_bytes()).await.is_err() {
        return;
    }
    let end = Instant::now() + Duration::from_secs(60);
    while Instant::now() < end {
        let mut byte = [0u8; 1];
        match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut byte)).await {
            // Closed by the server (or an answer: it is over either way).
            Ok(_) => return,
            Err(_) if drip != 0 => {
                if stream.write_all(&[drip]).await.is_err() {
                    return;
                }
            }
            Err(_) => {}
        }
    }
}

/// A legitimate WebSocket client: connect, `initialize`, answer. Retries a connection the
/// server closed under it; the time it took in all.
async fn legitimate_websocket(address: &str) -> Duration {
    let started = Instant::now();
    loop {
        let attempt = async {
            let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{address}/acp"))
                .await
                .ok()?;
            send(&mut socket, initialize()).await;
            let answer = next(&mut socket).await.ok()?;
            let _ = socket.close(None).await;
            Some(answer)
        };
        if let Ok(Some(answer)) = tokio::time::timeout(Duration::from_secs(2), attempt).await {
            assert_eq!(answer["id"], 0, "{answer}");
            return started.elapsed();
        }
        assert!(started.elapsed() < Duration::from_secs(5), "never served");
    }
}

/// A legitimate Streamable HTTP client from 127.0.0.2: its `initialize` is answered 200
/// (the time that took), then it ends the connection.
async fn legitimate_http(address: SocketAddr) -> Duration {
    let started = Instant::now();
    loop {
        if let Ok(stream) = connect_from([127, 0, 0, 2], address).await {
            let answer = tokio::time::timeout(
                Duration::from_secs(2),
                post_on(stream, &initialize().to_string()),
            )
            .await;
            if let Ok(Ok((status, id))) = answer {
                assert_eq!(status, 200);
                let elapsed = started.elapsed();
                // Done with it, as a client is.
                let mut stream = connect_from([127, 0, 0, 2], address).await.unwrap();
                let delete = format!(
                    "DELETE /acp HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAcp-Connection-Id: {}\r\n\r\n",
                    id.unwrap()
                );
                stream.write_all(delete.as_bytes()).await.unwrap();
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer).await;
                assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
                return elapsed;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(5), "never served");
    }
}

#[tokio::test]
async fn a_legitimate_client_is_served_within_a_second_during_a_connection_flood() {
    let logs = Arc::new(Mutex::new(Vec::<String>::new()));
    let logged = Arc::clone(&logs);
    let logger = Logger::new(move |_, message| logged.lock().unwrap().push(message.to_owned()));
    let (agent, _opened) = TestAgent::new();
    let server =
        AgentServer::new(agent).connection_options(ConnectionBuilder::new().logger(logger));
    let options = ServerOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .max_per_address(MAX_PER_ADDRESS)
        .header_timeout(Duration::from_secs(2))
        .body_timeout(Duration::from_secs(2))
        .unused_timeout(Duration::from_millis(1500));
    let (address, remote) = serve(server, options).await;
    let socket_address: SocketAddr = address.parse().unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let made = Arc::new(AtomicUsize::new(0));
    let served_http = Arc::new(AtomicUsize::new(0));
    for _ in 0..ATTACKERS {
        // Idle sockets; slowloris headers; slow bodies.
        attacker(&stop, &made, move || hold(socket_address, "", 0));
        attacker(&stop, &made, move || {
            hold(
                socket_address,
                "GET /acp HTTP/1.1\r\nHost: x\r\nX-a: ",
                b'a',
            )
        });
        attacker(&stop, &made, move || {
            hold(
                socket_address,
                "POST /acp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
                b' ',
            )
        });
        // `initialize` without DELETE, from 127.0.0.1.
        let served = Arc::clone(&served_http);
        attacker(&stop, &made, move || {
            let served = Arc::clone(&served);
            async move {
                let Ok(stream) = TcpStream::connect(socket_address).await else {
                    return;
                };
                // Past the limit per address, the one unused longest makes way.
                if let Ok((200, _)) = post_on(stream, &initialize().to_string()).await {
                    served.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
    }
    // Let the flood build up, then serve legitimate clients while it goes on.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut slowest = Duration::ZERO;
    for _ in 0..6 {
        let websocket = legitimate_websocket(&address).await;
        let http = legitimate_http(socket_address).await;
        println!("served during the flood: WebSocket in {websocket:?}, HTTP in {http:?}");
        slowest = slowest.max(websocket).max(http);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let attacks = made.load(Ordering::SeqCst);
    println!(
        "slowest legitimate client: {slowest:?}; {attacks} hostile connections; {} waiting now",
        remote.waiting_connections()
    );
    assert!(slowest < Duration::from_secs(1), "{slowest:?}");
    assert!(attacks > 4 * ATTACKERS, "{attacks}");
    assert!(remote.waiting_connections() <= MAX_CONNECTIONS);
    assert!(served_http.load(Ordering::SeqCst) > MAX_PER_ADDRESS);
    stop.store(true, Ordering::SeqCst);
    {
        let logs = logs.lock().unwrap().join("\n");
        assert!(logs.contains("waited longest"), "{logs}");
        assert!(logs.contains("evicted HTTP connection"), "{logs}");
        assert!(logs.contains("(the limit per client)"), "{logs}");
    }

    // Alone, an idle socket is closed by the header timeout (2 s), logged.
    let started = Instant::now();
    let mut idle = TcpStream::connect(socket_address).await.unwrap();
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(Duration::from_secs(6), idle.read(&mut byte)).await;
    assert!(matches!(read, Ok(Ok(0) | Err(_))), "{read:?}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(1500), "{waited:?}");
    // The unused HTTP connections have expired: the server holds no connection.
    tokio::time::timeout(Duration::from_secs(5), async {
        while remote.open_connections() > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the unused HTTP connections expire");
    let logs = logs.lock().unwrap().join("\n");
    assert!(logs.contains("(the header timeout)"), "{logs}");
    // (The last unused ones, not evicted since the flood stopped.)
    assert!(
        logs.contains("no event stream and no second request"),
        "{logs}"
    );
}
