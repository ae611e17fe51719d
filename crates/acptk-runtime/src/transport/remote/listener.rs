//! Binding the TCP listener a [`Endpoint`](super::Endpoint) serves.
//!
//! The kernel holds connections that completed their handshake until the server accepts
//! them, up to the listen backlog; a connection over it has its handshake dropped, and the
//! client tries again only after a second. tokio's `TcpListener::bind` asks for a backlog of
//! 128. That is too few when many clients connect at once: a Streamable HTTP client opens up
//! to four TCP connections, so 50 clients arriving together could already wait a second each.
//! [`bind`] asks for [`LISTEN_BACKLOG`] (the kernel still caps it at
//! `net.core.somaxconn`).

use std::io;
use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket};

/// The listen backlog that [`bind`] asks for.
pub const LISTEN_BACKLOG: u32 = 1024;

/// A TCP listener on `address` with a listen backlog of [`LISTEN_BACKLOG`] (and
/// `SO_REUSEADDR`, as `TcpListener::bind` sets it). Call it within a tokio runtime.
pub fn bind(address: SocketAddr) -> io::Result<TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Connections that the server has not accepted yet: as many as the backlog holds
    /// complete their handshake at once; past it, the kernel drops the handshake and the
    /// client waits a second before it tries again.
    async fn connects_within(listener: &TcpListener, clients: usize, wait: Duration) -> usize {
        let address = listener.local_addr().expect("bound");
        let mut tasks = Vec::new();
        for _ in 0..clients {
            tasks.push(tokio::spawn(async move {
                tokio::time::timeout(wait, tokio::net::TcpStream::connect(address))
                    .await
                    .ok()
                    .and_then(Result::ok)
            }));
        }
        let mut connected = Vec::new();
        for task in tasks {
            if let Some(stream) = task.await.expect("joined") {
                connected.push(stream);
            }
        }
        connected.len()
    }

    /// The kernel's cap on any listen backlog (`net.core.somaxconn`), when it can be read.
    fn somaxconn() -> Option<usize> {
        std::fs::read_to_string("/proc/sys/net/core/somaxconn")
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    #[tokio::test]
    async fn a_burst_of_400_connections_waits_for_nothing() {
        // The kernel caps the backlog at somaxconn (4096 by default since Linux 5.4): the
        // burst is what it lets through, which must still be well over tokio's 128.
        let clients = match somaxconn() {
            Some(cap) if cap < 256 => {
                eprintln!("skipped: net.core.somaxconn is {cap}, too close to 128 to tell");
                return;
            }
            Some(cap) => cap.min(400),
            None => 400,
        };
        let wait = Duration::from_millis(500);
        let listener = bind("127.0.0.1:0".parse().expect("address")).expect("bound");
        // Nothing accepts: only the backlog holds them (with a backlog of 128, about 270 of
        // the 400 would wait a second).
        assert_eq!(connects_within(&listener, clients, wait).await, clients);
    }
}
