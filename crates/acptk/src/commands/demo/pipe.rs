//! An in-memory connection between a client and the in-process agent that the demo can hang
//! up, as a client process exiting would: both sides then read the end of their input and
//! close.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, DuplexStream, ReadBuf, ReadHalf, WriteHalf};

/// The buffer size of each direction of the pipe.
const PIPE_BYTES: usize = 64 * 1024;

/// Shared between a [`HangUp`] handle and the reader it closes.
#[derive(Debug, Default)]
struct Line {
    hung_up: AtomicBool,
    /// The wakers of the two readers (client side, agent side) waiting for data.
    wakers: Mutex<[Option<Waker>; 2]>,
}

/// Ends a pipe made by [`pipe`].
#[derive(Debug, Clone)]
pub struct HangUp(Arc<Line>);

impl HangUp {
    /// Makes both sides read the end of the stream.
    pub fn hang_up(&self) {
        self.0.hung_up.store(true, Ordering::SeqCst);
        let wakers =
            std::mem::take(&mut *self.0.wakers.lock().unwrap_or_else(PoisonError::into_inner));
        for waker in wakers.into_iter().flatten() {
            waker.wake();
        }
    }
}

/// A reader that reports the end of the stream once its line is hung up.
#[derive(Debug)]
pub struct Closable<R> {
    inner: R,
    line: Arc<Line>,
    /// 0 for the client's reader, 1 for the agent's.
    side: usize,
}

impl<R: AsyncRead + Unpin> AsyncRead for Closable<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.line.hung_up.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(()));
        }
        let side = self.side;
        self.line
            .wakers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)[side] = Some(cx.waker().clone());
        // Checked again: a hang-up between the first check and storing the waker.
        if self.line.hung_up.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

/// The two ends of a pipe: the client's reader and writer, the agent's reader and writer.
pub struct Ends {
    /// What the client reads (the agent's output); ends when hung up.
    pub client_read: Closable<ReadHalf<DuplexStream>>,
    /// Where the client writes (the agent's input).
    pub client_write: WriteHalf<DuplexStream>,
    /// What the agent reads; ends when hung up.
    pub agent_read: Closable<ReadHalf<DuplexStream>>,
    /// Where the agent writes.
    pub agent_write: WriteHalf<DuplexStream>,
    /// Hangs the pipe up.
    pub hang_up: HangUp,
}

/// A fresh in-memory pipe.
#[must_use]
pub fn pipe() -> Ends {
    let (client, agent) = tokio::io::duplex(PIPE_BYTES);
    let (client_read, client_write) = tokio::io::split(client);
    let (agent_read, agent_write) = tokio::io::split(agent);
    let line = Arc::new(Line::default());
    Ends {
        client_read: Closable {
            inner: client_read,
            line: Arc::clone(&line),
            side: 0,
        },
        client_write,
        agent_read: Closable {
            inner: agent_read,
            line: Arc::clone(&line),
            side: 1,
        },
        agent_write,
        hang_up: HangUp(line),
    }
}
