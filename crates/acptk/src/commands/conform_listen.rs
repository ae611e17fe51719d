//! `acp conform client --listen ADDR`: the client suite served over WebSocket and Streamable
//! HTTP (the runtime's remote server, as `acp agent --listen`). The first client that connects
//! is judged; the run ends when it disconnects (or on a stop signal), and later connections
//! are closed at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use acptk_conform::client_suite::{ClientOptions, run_client_suite};
use acptk_conform::suite::Report;
use acptk_runtime::agent::Principal;
use acptk_runtime::transport::remote::{Service, ServiceHandle};
use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{Notify, mpsc, watch};

use super::listen::Listen;

/// How many bytes the pipes between the transport and the suite hold.
const PIPE_BYTES: usize = 1 << 16;

/// The client suite as a remote service.
struct ConformService {
    options: ClientOptions,
    /// Where the judged connection's report goes.
    reports: mpsc::UnboundedSender<Report>,
    /// Whether a client was judged already.
    taken: Arc<AtomicBool>,
}

/// A handle on one connection: asks it to stop, and tells when it ended.
#[derive(Clone)]
struct ConformHandle {
    stop: Arc<Notify>,
    done: watch::Receiver<bool>,
}

impl ServiceHandle for ConformHandle {
    fn close(&self) {
        self.stop.notify_one();
    }

    fn closed(&self) -> impl std::future::Future<Output = ()> + Send {
        let mut done = self.done.clone();
        async move {
            let _ = done.wait_for(|d| *d).await;
        }
    }
}

/// Feeds the transport's messages to the suite, one line each.
async fn pump_in<R: MessageReader>(mut reader: R, mut into: DuplexStream) {
    loop {
        let bytes = match reader.read().await {
            Ok(Frame::Message(bytes)) => bytes,
            // Too long for the transport: the suite sees a line that is not JSON.
            Ok(Frame::TooLong { .. }) => b"{\"acp-conform\": \"a message too long\"".to_vec(),
            Ok(_) | Err(_) => return,
        };
        let mut line = bytes;
        line.retain(|b| *b != b'\n');
        line.push(b'\n');
        if into.write_all(&line).await.is_err() {
            return;
        }
    }
}

/// Sends the suite's lines to the transport, then closes it.
async fn pump_out<W: MessageWriter>(from: DuplexStream, mut writer: W) {
    let mut lines = BufReader::new(from).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if writer.write(line.as_bytes()).await.is_err() || writer.flush().await.is_err() {
            break;
        }
    }
    let _ = writer.close().await;
}

impl Service for ConformService {
    type Handle = ConformHandle;

    fn start<R: MessageReader, W: MessageWriter>(
        &self,
        reader: R,
        mut writer: W,
        _principal: Principal,
    ) -> ConformHandle {
        let stop = Arc::new(Notify::new());
        let (finished, done) = watch::channel(false);
        let handle = ConformHandle {
            stop: Arc::clone(&stop),
            done,
        };
        if self.taken.swap(true, Ordering::SeqCst) {
            // One client is judged per run.
            tokio::spawn(async move {
                let _ = writer.close().await;
                let _ = finished.send(true);
            });
            return handle;
        }
        let (suite_in, feed) = tokio::io::duplex(PIPE_BYTES);
        let (suite_out, drain) = tokio::io::duplex(PIPE_BYTES);
        tokio::spawn(pump_in(reader, feed));
        let out = tokio::spawn(pump_out(drain, writer));
        let options = self.options.clone();
        let reports = self.reports.clone();
        tokio::spawn(async move {
            let report = run_client_suite(suite_in, suite_out, &options, async move {
                stop.notified().await
            })
            .await;
            let _ = reports.send(report);
            let _ = out.await;
            let _ = finished.send(true);
        });
        handle
    }
}

/// Serves the suite on `listen` until the judged client disconnects or a stop signal comes;
/// returns its report (a report of no client when none connected).
pub async fn serve(
    options: ClientOptions,
    listen: Listen,
) -> Result<Report, Box<dyn std::error::Error + Send + Sync>> {
    let (reports, mut received) = mpsc::unbounded_channel();
    let service = ConformService {
        options: options.clone(),
        reports,
        taken: Arc::new(AtomicBool::new(false)),
    };
    // Heard from before the URL is printed: whoever reads it may signal at once.
    let mut signals = super::signals::Signals::new()?;
    let (judged, mut stopped) = watch::channel(false);
    // The judged client's report ends the serving; it is kept until the server has stopped
    // (the relay ends when every connection's suite has ended and the service is gone).
    let relay = tokio::spawn(async move {
        let report = received.recv().await;
        let _ = judged.send(true);
        report
    });
    let stop = async move {
        tokio::select! {
            _ = signals.recv() => {}
            _ = stopped.wait_for(|d| *d) => {}
        }
    };
    super::listen::serve(service, listen, "acp conform client", stop).await?;
    let report = relay.await.ok().flatten();
    Ok(match report {
        Some(report) => report,
        None => {
            run_client_suite(
                tokio::io::empty(),
                tokio::io::sink(),
                &options,
                std::future::ready(()),
            )
            .await
        }
    })
}
