//! A peer that stops reading: what the connection holds for it is bounded in bytes, the
//! connection stops reading that peer's messages while its queue is full, and with a stall
//! timeout the peer is disconnected (logged).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acptk_runtime::connection::{BoxFuture, Handler, Reply};
use acptk_runtime::log::Logger;
use acptk_runtime::{Connection, ConnectionBuilder};
use acptk_schema::jsonrpc::RawValue;
use common::RawPeer;
use common::fn_handler::FnHandler;
use serde_json::json;

/// The size of each notification `flood` sends.
const NOTICE_BYTES: usize = 16 * 1024;
/// How many it tries to send.
const FLOOD: usize = 1000;

/// `flood` answers at once and then sends [`FLOOD`] notifications of [`NOTICE_BYTES`],
/// counting those that were queued; `hold` never answers; anything else answers at once;
/// notifications from the peer are counted.
#[derive(Clone, Default)]
struct Flooder {
    queued: Arc<AtomicUsize>,
    seen: Arc<AtomicUsize>,
}

impl Flooder {
    /// The handler that counts into these counters.
    fn handler(&self) -> impl Handler {
        let (queued, seen) = (Arc::clone(&self.queued), Arc::clone(&self.seen));
        FnHandler {
            request: move |connection: Connection,
                           method: String,
                           _params: Option<Box<RawValue>>|
                  -> BoxFuture<Reply> {
                let queued = Arc::clone(&queued);
                Box::pin(async move {
                    if method == "hold" {
                        return std::future::pending().await;
                    }
                    if method != "flood" {
                        return Reply::ok(&json!({}));
                    }
                    Reply::ok(&json!({})).then(async move {
                        let big =
                            serde_json::value::to_raw_value(&"x".repeat(NOTICE_BYTES)).unwrap();
                        for _ in 0..FLOOD {
                            if connection
                                .notify_raw("_big", Some(big.clone()))
                                .await
                                .is_err()
                            {
                                break;
                            }
                            queued.fetch_add(1, Ordering::SeqCst);
                        }
                    })
                })
            },
            notification: move |_method| {
                seen.fetch_add(1, Ordering::SeqCst);
            },
        }
    }
}

/// A connection served by `handler` with `options`, and the peer's end (small pipe buffers,
/// so that what is held is the connection's own).
fn start(options: ConnectionBuilder, handler: Flooder) -> (RawPeer, Connection) {
    let (ours, theirs) = tokio::io::duplex(4096);
    let (read, write) = tokio::io::split(ours);
    (
        RawPeer::new(theirs),
        options.start(read, write, handler.handler()),
    )
}

#[tokio::test]
async fn what_waits_for_a_peer_that_does_not_read_is_bounded_in_bytes() {
    let handler = Flooder::default();
    let options = ConnectionBuilder::new().max_queued_bytes(64 * 1024);
    let (mut peer, _connection) = start(options, handler.clone());
    peer.send_json(json!({"jsonrpc":"2.0","id":1,"method":"flood"}))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let queued = handler.queued.load(Ordering::SeqCst);
    // 64 KiB of queue, the writer's 64 KiB buffer and the pipe: about ten notifications, far
    // from the thousand (a queue of 256 messages would hold 256).
    println!("queued while the peer did not read: {queued} of {FLOOD}");
    assert!((4..=16).contains(&queued), "{queued} notifications queued");
    // While the queue is full, the peer's messages are not read (but for the one whose read
    // had begun before the queue filled).
    for _ in 0..5 {
        peer.send_json(json!({"jsonrpc":"2.0","method":"_seen"}))
            .await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let seen = handler.seen.load(Ordering::SeqCst);
    assert!(seen <= 1, "{seen} of 5 read while the queue was full");
    // Once the peer reads, everything flows again: the flood completes and the
    // notifications are read.
    let mut received = 0;
    while received < FLOOD {
        let message = tokio::time::timeout(Duration::from_secs(10), peer.recv_some())
            .await
            .expect("the flood goes on once the peer reads");
        if message["method"] == "_big" {
            received += 1;
        }
    }
    tokio::time::timeout(Duration::from_secs(10), async {
        while handler.seen.load(Ordering::SeqCst) < 5 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the peer's notifications are read once there is room");
}

#[tokio::test]
async fn a_peer_that_reads_nothing_for_the_stall_timeout_is_disconnected() {
    let handler = Flooder::default();
    let logs = Arc::new(Mutex::new(Vec::<String>::new()));
    let logged = Arc::clone(&logs);
    let options = ConnectionBuilder::new()
        .max_queued_bytes(64 * 1024)
        .stall_timeout(Duration::from_millis(400))
        .logger(Logger::new(move |_, message| {
            logged.lock().unwrap().push(message.to_owned());
        }));
    let (mut peer, connection) = start(options, handler.clone());
    peer.send_json(json!({"jsonrpc":"2.0","id":1,"method":"flood"}))
        .await;
    let started = std::time::Instant::now();
    tokio::time::timeout(Duration::from_secs(10), connection.closed())
        .await
        .expect("the connection ends after the stall timeout");
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(350), "{elapsed:?}");
    let logs = logs.lock().unwrap().join("\n");
    assert!(logs.contains("stall timeout"), "{logs}");
    // The flood's sends fail from then on.
    let queued = handler.queued.load(Ordering::SeqCst);
    assert!(queued < 20, "{queued}");
    drop(peer);
}

#[tokio::test]
async fn requests_in_flight_are_bounded_in_bytes() {
    let options = ConnectionBuilder::new().max_in_flight_bytes(1000);
    let (mut peer, _connection) = start(options, Flooder::default());
    let params = json!({"pad": "p".repeat(600)});
    peer.send_json(json!({"jsonrpc":"2.0","id":1,"method":"hold","params":params}))
        .await;
    // 600 bytes are held: another 600 would be over 1000, a small one is not.
    peer.send_json(json!({"jsonrpc":"2.0","id":2,"method":"hold","params":params}))
        .await;
    let refused = peer.recv_some().await;
    assert_eq!(refused["id"], 2, "{refused}");
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("1000 bytes"), "{message}");
    peer.send_json(json!({"jsonrpc":"2.0","id":3,"method":"small","params":{"pad":"q"}}))
        .await;
    let answered = peer.recv_some().await;
    assert_eq!(answered["id"], 3, "{answered}");
    assert!(answered["result"].is_object(), "{answered}");
}
