//! What an [`Endpoint`](super::Endpoint) serves: anything that can run one connection on a
//! message transport and hang it up on request. An
//! [`AgentServer`](crate::agent::AgentServer) is one (each connection is an ACP connection of
//! the agent; the agent implements this trait, the transport names no agent type);
//! `acp proxy --listen` is another (each connection is an agent process behind the proxy).

use std::future::Future;
use std::time::Duration;

use crate::log::Logger;
use crate::principal::Principal;
use crate::transport::{MessageReader, MessageWriter};

/// Something a remote server can serve: it starts one connection per accepted WebSocket or
/// Streamable HTTP connection.
pub trait Service: Send + Sync + 'static {
    /// A handle on one running connection.
    type Handle: ServiceHandle;

    /// Starts serving one connection that reads the client's messages from `reader` and
    /// writes to `writer`, and returns at once. The connection acts for `principal` (the
    /// identity of the request's bearer token; the local principal when the server needs no
    /// token): it must see only the sessions that principal owns. The connection ends when
    /// `reader` ends (the client hung up) or when [`ServiceHandle::close`] is called; it
    /// closes `writer` then.
    fn start<R: MessageReader, W: MessageWriter>(
        &self,
        reader: R,
        writer: W,
        principal: Principal,
    ) -> Self::Handle;

    /// Where the server logs refusals and failures (default: nowhere).
    fn logger(&self) -> Logger {
        Logger::none()
    }

    /// The server is stopping: finish or stop the work of every connection within about
    /// `grace` (the connections are closed afterwards). The default does nothing; an agent
    /// server drains its turns
    /// ([`AgentServer::drain`](crate::agent::AgentServer::drain)).
    fn drain(&self, grace: Duration) -> impl Future<Output = ()> + Send {
        let _ = grace;
        async {}
    }
}

/// A handle on one connection started by a [`Service`].
pub trait ServiceHandle: Clone + Send + Sync + 'static {
    /// Asks the connection to end (idempotent): it stops reading, finishes what it must, and
    /// closes its writer.
    fn close(&self);

    /// Waits until the connection has ended and its writer is closed.
    fn closed(&self) -> impl Future<Output = ()> + Send;
}
