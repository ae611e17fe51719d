//! A queue of messages bounded by their number and by their total size in bytes: what holds
//! messages on their way to a peer (a connection's outgoing queue, the hops of a remote
//! connection), so that a peer that stops reading holds down a bounded amount of memory
//! however large the messages are.
//!
//! A sender waits while the queue is full. A message larger than the whole byte capacity
//! waits until the queue is empty and then goes alone, so the queue never holds more than
//! its capacity or one message, whichever is larger. The bytes of a message are given back
//! when the receiver takes it out.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// One queued message, with the bytes it holds of the queue's capacity.
struct Item {
    message: Vec<u8>,
    _bytes: OwnedSemaphorePermit,
}

/// The sending half of a [`queue`]. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct QueueSender {
    items: mpsc::Sender<Item>,
    bytes: Arc<Semaphore>,
    capacity: u32,
}

/// The receiving half of a [`queue`]. Dropping it closes the queue: waiting senders fail.
#[derive(Debug)]
pub(crate) struct QueueReceiver {
    items: mpsc::Receiver<Item>,
    bytes: Arc<Semaphore>,
}

impl std::fmt::Debug for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Item")
            .field("len", &self.message.len())
            .finish()
    }
}

/// A queue of at most `messages` messages and `bytes` bytes (each at least 1; a byte
/// capacity beyond 4 GiB counts as 4 GiB).
pub(crate) fn queue(messages: usize, bytes: usize) -> (QueueSender, QueueReceiver) {
    let capacity = u32::try_from(bytes.max(1)).unwrap_or(u32::MAX);
    let (items_tx, items_rx) = mpsc::channel(messages.max(1));
    let bytes = Arc::new(Semaphore::new(capacity as usize));
    (
        QueueSender {
            items: items_tx,
            bytes: Arc::clone(&bytes),
            capacity,
        },
        QueueReceiver {
            items: items_rx,
            bytes,
        },
    )
}

/// The queue was closed: the message comes back.
#[derive(Debug)]
#[cfg_attr(not(feature = "remote"), allow(dead_code))]
pub(crate) struct Closed(pub(crate) Vec<u8>);

/// Why [`QueueSender::try_send`] did not queue a message.
#[derive(Debug)]
#[cfg_attr(not(feature = "remote"), allow(dead_code))]
pub(crate) enum TrySendError {
    /// No room now: the message comes back.
    Full(Vec<u8>),
    /// The receiver is gone (the message is dropped).
    Closed,
}

impl QueueSender {
    /// How many bytes of the capacity `message` takes: its length, at least 1, at most the
    /// whole capacity.
    fn cost(&self, message: &[u8]) -> u32 {
        u32::try_from(message.len())
            .unwrap_or(u32::MAX)
            .clamp(1, self.capacity)
    }

    /// Queues `message`, waiting while the queue is full.
    pub(crate) async fn send(&self, message: Vec<u8>) -> Result<(), Closed> {
        let cost = self.cost(&message);
        let Ok(bytes) = Arc::clone(&self.bytes).acquire_many_owned(cost).await else {
            return Err(Closed(message));
        };
        self.items
            .send(Item {
                message,
                _bytes: bytes,
            })
            .await
            .map_err(|error| Closed(error.0.message))
    }

    /// Queues `message` if there is room now.
    pub(crate) fn try_send(&self, message: Vec<u8>) -> Result<(), TrySendError> {
        let cost = self.cost(&message);
        let bytes = match Arc::clone(&self.bytes).try_acquire_many_owned(cost) {
            Ok(bytes) => bytes,
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                return Err(TrySendError::Full(message));
            }
            Err(tokio::sync::TryAcquireError::Closed) => {
                return Err(TrySendError::Closed);
            }
        };
        self.items
            .try_send(Item {
                message,
                _bytes: bytes,
            })
            .map_err(|error| match error {
                mpsc::error::TrySendError::Full(item) => TrySendError::Full(item.message),
                mpsc::error::TrySendError::Closed(_) => TrySendError::Closed,
            })
    }

    /// Waits until the queue has room for at least one more byte (at once when it has), in
    /// turn with the senders already waiting. Returns at once when the queue is closed.
    pub(crate) async fn room(&self) {
        if self.bytes.available_permits() > 0 && self.items.capacity() > 0 {
            return;
        }
        // Taking one byte and giving it back at once: it comes only after the senders that
        // were waiting before.
        drop(self.bytes.acquire().await);
        let _ = self.items.reserve().await;
    }

    /// Whether the queue holds as many bytes or messages as it may.
    #[cfg(test)]
    fn is_full(&self) -> bool {
        self.bytes.available_permits() == 0 || self.items.capacity() == 0
    }

    /// Whether `other` sends into the same queue.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    pub(crate) fn same_queue(&self, other: &QueueSender) -> bool {
        self.items.same_channel(&other.items)
    }

    /// Whether the receiver is gone.
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    pub(crate) fn is_closed(&self) -> bool {
        self.items.is_closed()
    }
}

impl QueueReceiver {
    /// The next message; `None` once every sender is gone and the queue is empty.
    pub(crate) async fn recv(&mut self) -> Option<Vec<u8>> {
        self.items.recv().await.map(|item| item.message)
    }

    /// The next message if one is queued now.
    pub(crate) fn try_recv(&mut self) -> Option<Vec<u8>> {
        self.items.try_recv().ok().map(|item| item.message)
    }

    /// Closes the queue: senders fail from now on (what is queued can still be taken).
    pub(crate) fn close(&mut self) {
        self.items.close();
        self.bytes.close();
    }
}

impl Drop for QueueReceiver {
    fn drop(&mut self) {
        self.bytes.close();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn bytes_bound_the_queue_and_come_back_when_taken() {
        let (tx, mut rx) = queue(100, 10);
        tx.send(vec![1; 6]).await.expect("room");
        assert!(matches!(
            tx.try_send(vec![2; 5]),
            Err(TrySendError::Full(_))
        ));
        tx.try_send(vec![3; 4]).expect("room for 4");
        assert!(tx.is_full());
        let waiting = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(vec![4; 8]).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        assert_eq!(rx.recv().await, Some(vec![1; 6]));
        // 4 bytes queued, 6 free: the 8-byte message still waits.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        assert_eq!(rx.recv().await, Some(vec![3; 4]));
        waiting.await.expect("joined").expect("queued");
        assert_eq!(rx.recv().await, Some(vec![4; 8]));
    }

    #[tokio::test]
    async fn a_message_over_the_capacity_goes_alone() {
        let (tx, mut rx) = queue(100, 10);
        tx.send(vec![1; 3]).await.expect("room");
        let big = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(vec![2; 1000]).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!big.is_finished());
        assert_eq!(rx.recv().await.map(|m| m.len()), Some(3));
        big.await.expect("joined").expect("queued");
        assert!(tx.is_full());
        assert_eq!(rx.recv().await.map(|m| m.len()), Some(1000));
        assert!(!tx.is_full());
    }

    #[tokio::test]
    async fn the_message_count_bounds_it_too() {
        let (tx, mut rx) = queue(1, 1000);
        tx.send(vec![1]).await.expect("room");
        assert!(tx.is_full());
        assert!(matches!(tx.try_send(vec![2]), Err(TrySendError::Full(_))));
        let room = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.room().await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!room.is_finished());
        rx.recv().await;
        room.await.expect("room came");
    }

    #[tokio::test]
    async fn dropping_the_receiver_fails_waiting_senders() {
        let (tx, rx) = queue(10, 4);
        tx.send(vec![0; 4]).await.expect("room");
        let waiting = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(vec![1; 4]).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(rx);
        let result = waiting.await.expect("joined");
        assert!(matches!(result, Err(Closed(message)) if message == vec![1; 4]));
        assert!(tx.is_closed());
        assert!(matches!(tx.try_send(vec![2]), Err(TrySendError::Closed)));
    }
}
