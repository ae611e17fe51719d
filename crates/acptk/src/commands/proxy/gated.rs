//! The session [`Gate`] put on a remote connection's transports: the client's messages pass
//! it on their way to the proxy run (refused ones are answered on the client's writer at
//! once), and the agent's pass it on their way to the client.

use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use acptk_runtime::transport::{Frame, MessageReader, MessageWriter};

use super::gate::Gate;

type Shared<T> = Arc<Mutex<T>>;

fn locked<T>(shared: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Puts `gate` between the client (`reader`, `writer`) and the proxy run; `note` hears what
/// the gate refused or could not record.
pub(super) fn gated<R: MessageReader, W: MessageWriter>(
    gate: Gate,
    reader: R,
    writer: W,
    note: impl Fn(String) + Clone + Send + Sync + 'static,
) -> (GatedReader<R, W>, GatedWriter<W>) {
    let gate = Arc::new(Mutex::new(gate));
    let writer = Arc::new(tokio::sync::Mutex::new(writer));
    (
        GatedReader {
            inner: reader,
            gate: Arc::clone(&gate),
            writer: Arc::clone(&writer),
            note: Box::new(note.clone()),
        },
        GatedWriter {
            inner: writer,
            gate,
            note: Box::new(note),
        },
    )
}

/// The client's messages, as far as the gate lets them through.
pub(super) struct GatedReader<R, W> {
    inner: R,
    gate: Shared<Gate>,
    /// Where refusals are answered: the client's writer.
    writer: Arc<tokio::sync::Mutex<W>>,
    note: Box<dyn Fn(String) + Send + Sync>,
}

impl<R: MessageReader, W: MessageWriter> MessageReader for GatedReader<R, W> {
    async fn read(&mut self) -> io::Result<Frame> {
        loop {
            let frame = self.inner.read().await?;
            let Frame::Message(message) = frame else {
                return Ok(frame);
            };
            let judged = locked(&self.gate).client_message(message);
            if let Some(note) = judged.note {
                (self.note)(note);
            }
            if let Some(reply) = judged.reply {
                let mut writer = self.writer.lock().await;
                // A client that is gone is noticed by the reads.
                if writer.write(&reply).await.is_ok() {
                    let _ = writer.flush().await;
                }
            }
            if let Some(forward) = judged.forward {
                return Ok(Frame::Message(forward));
            }
        }
    }
}

/// The agent's messages to the client, as the gate has them.
pub(super) struct GatedWriter<W> {
    inner: Arc<tokio::sync::Mutex<W>>,
    gate: Shared<Gate>,
    note: Box<dyn Fn(String) + Send + Sync>,
}

impl<W: MessageWriter> MessageWriter for GatedWriter<W> {
    async fn write(&mut self, message: &[u8]) -> io::Result<()> {
        let outbound = locked(&self.gate).agent_message(message);
        if let Some(note) = outbound.note {
            (self.note)(note);
        }
        let mut writer = self.inner.lock().await;
        writer
            .write(outbound.message.as_deref().unwrap_or(message))
            .await?;
        if let Some(after) = outbound.after {
            writer.write(&after).await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.inner.lock().await.flush().await
    }

    async fn close(&mut self) -> io::Result<()> {
        self.inner.lock().await.close().await
    }
}
