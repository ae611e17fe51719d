//! An [`AgentServer`] as a [`Service`] of the remote transport (feature `remote`): each
//! WebSocket or Streamable HTTP connection is one ACP connection of the agent.

use std::time::Duration;

use super::{Agent, AgentServer};
use crate::connection::Connection;
use crate::log::Logger;
use crate::principal::Principal;
use crate::transport::remote::{Endpoint, Service};
use crate::transport::{MessageReader, MessageWriter};

/// An [`AgentServer`] served to remote clients: `RemoteServer::new(agent_server, options)`.
pub type RemoteServer<A> = Endpoint<AgentServer<A>>;

impl<A: Agent> Service for AgentServer<A> {
    type Handle = Connection;

    fn start<R: MessageReader, W: MessageWriter>(
        &self,
        reader: R,
        writer: W,
        principal: Principal,
    ) -> Connection {
        self.start_transport_as(reader, writer, principal)
    }

    fn logger(&self) -> Logger {
        self.connection_builder().get_logger().clone()
    }

    async fn drain(&self, grace: Duration) {
        AgentServer::drain(self, grace).await;
    }
}
