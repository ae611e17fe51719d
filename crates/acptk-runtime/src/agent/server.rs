//! The builder and server of an agent: [`AgentServer`] takes the agent, its session store and
//! its options, and starts connections that serve it.

use std::sync::Arc;
use std::time::Duration;

use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};
use tokio::io::{AsyncRead, AsyncWrite};

use super::{Agent, DEFAULT_PAGE_SIZE, Offer, dispatch, open_sessions};
use crate::connection::{Connection, ConnectionBuilder};
use crate::notice::FallbackPolicy;
use crate::principal::Principal;
use crate::store::{DEFAULT_LEASE, MemoryStore, SessionStore};
use crate::transport::{MessageReader, MessageWriter};
use crate::version::SUPPORTED_VERSIONS;

#[derive(Debug, Clone)]
pub(super) struct Options {
    pub(super) versions: Vec<ProtocolVersion>,
    fallback: FallbackPolicy,
    pub(super) connection: ConnectionBuilder,
    page_size: usize,
    lease: Duration,
}

/// Serves an [`Agent`] on connections. Cheap to clone; clones share the agent, the
/// [`SessionStore`] and the open sessions, so sessions outlive connections (a client can
/// reconnect and load them) and, with a [`FileStore`](crate::store::FileStore), restarts.
/// Each connection acts for a [`Principal`] (stdio: the local user) and sees only that
/// principal's sessions.
///
/// A real agent serves standard input/output (`server.serve_stdio().await?`, see
/// [`Self::serve_stdio`]); any pair of async byte streams works the same way. Here the client
/// end of an in-memory pipe sends `initialize` as a raw JSON-RPC line, to show what the
/// options change on the wire:
///
/// ```
/// use acptk_runtime::prelude::*;
/// use acptk_runtime::{FallbackPolicy, ProtocolVersion};
/// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// struct Quiet;
///
/// impl Agent for Quiet {
///     fn info(&self) -> AgentInfo {
///         AgentInfo::new("quiet-agent", "1.0.0")
///     }
///
///     async fn prompt(&self, _session: Session, _prompt: Prompt) -> Result<StopReason, ErrorObject> {
///         Ok(StopReason::EndTurn)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = AgentServer::new(Quiet)
///     .store(MemoryStore::new().max_entries(10_000))
///     .versions(&[ProtocolVersion::V1])
///     .notice_fallback(FallbackPolicy::Drop);
///
/// let (client_io, agent_io) = tokio::io::duplex(64 * 1024);
/// let (agent_read, agent_write) = tokio::io::split(agent_io);
/// let connection = server.start(agent_read, agent_write);
///
/// let (client_read, mut client_write) = tokio::io::split(client_io);
/// client_write
///     .write_all(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"clientCapabilities":{}}}"#)
///     .await?;
/// client_write.write_all(b"\n").await?;
/// let mut lines = BufReader::new(client_read).lines();
/// let line = lines.next_line().await?.ok_or("the agent closed the connection")?;
/// let answer: serde_json::Value = serde_json::from_str(&line)?;
///
/// // Only v1 is accepted, so the v2 proposal is answered with v1.
/// assert_eq!(answer["result"]["protocolVersion"], 1);
/// assert_eq!(answer["result"]["agentInfo"]["name"], "quiet-agent");
/// // The memory store keeps history, so sessions can be loaded with a replay.
/// assert_eq!(answer["result"]["agentCapabilities"]["loadSession"], true);
///
/// drop((lines, client_write)); // the end of the input ends the connection
/// connection.closed().await;
/// # Ok(())
/// # }
/// ```
pub struct AgentServer<A> {
    pub(super) agent: Arc<A>,
    pub(super) store: Arc<dyn SessionStore>,
    pub(super) registry: Arc<open_sessions::Registry>,
    pub(super) options: Options,
}

impl<A> Clone for AgentServer<A> {
    fn clone(&self) -> Self {
        Self {
            agent: Arc::clone(&self.agent),
            store: Arc::clone(&self.store),
            registry: Arc::clone(&self.registry),
            options: self.options.clone(),
        }
    }
}

impl<A: Agent> AgentServer<A> {
    /// A server for `agent` with a fresh [`MemoryStore`], both protocol versions, and the
    /// [`FallbackPolicy::AgentMessage`] notice fallback.
    pub fn new(agent: A) -> Self {
        Self {
            agent: Arc::new(agent),
            store: Arc::new(MemoryStore::new()),
            registry: Arc::new(open_sessions::Registry::default()),
            options: Options {
                versions: SUPPORTED_VERSIONS.to_vec(),
                fallback: FallbackPolicy::default(),
                connection: ConnectionBuilder::new(),
                page_size: DEFAULT_PAGE_SIZE,
                lease: DEFAULT_LEASE,
            },
        }
    }

    /// Keeps sessions in `store` (for example a [`FileStore`](crate::store::FileStore)).
    #[must_use]
    pub fn store(self, store: impl SessionStore) -> Self {
        self.shared_store(Arc::new(store))
    }

    /// Keeps sessions in a store shared with other servers.
    #[must_use]
    pub fn shared_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.store = store;
        self.registry = Arc::new(open_sessions::Registry::default());
        self
    }

    /// What to do with notices for v1 clients without `session.notices`.
    #[must_use]
    pub fn notice_fallback(mut self, policy: FallbackPolicy) -> Self {
        self.options.fallback = policy;
        self
    }

    /// The protocol versions to accept (default: 1 and 2). Versions the runtime does not
    /// implement are ignored; an empty list keeps the default.
    #[must_use]
    pub fn versions(mut self, versions: &[ProtocolVersion]) -> Self {
        let mut chosen: Vec<ProtocolVersion> = versions
            .iter()
            .copied()
            .filter(|version| SUPPORTED_VERSIONS.contains(version))
            .collect();
        chosen.sort();
        chosen.dedup();
        if !chosen.is_empty() {
            self.options.versions = chosen;
        }
        self
    }

    /// How many sessions one `session/list` page holds (default [`DEFAULT_PAGE_SIZE`]).
    #[must_use]
    pub fn list_page_size(mut self, sessions: usize) -> Self {
        self.options.page_size = sessions.max(1);
        self
    }

    /// How long a turn's lease on its session runs without being renewed (default
    /// [`DEFAULT_LEASE`], at least 100 ms; see [`SessionStore::lease`]). It matters when
    /// several processes share a store: a process that stops during a turn frees the session
    /// for the others after at most this long.
    #[must_use]
    pub fn lease_duration(mut self, duration: Duration) -> Self {
        self.options.lease = duration.max(Duration::from_millis(100));
        self
    }

    /// Connection options (line limit, queue sizes, logger).
    #[must_use]
    pub fn connection_options(mut self, options: ConnectionBuilder) -> Self {
        self.options.connection = options;
        self
    }

    /// The session store.
    pub fn sessions(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// The agent.
    pub fn agent(&self) -> &Arc<A> {
        &self.agent
    }

    /// What this server offers: what `initialize` advertises and which methods it answers.
    pub fn offer(&self) -> Offer {
        Offer::new(self.agent.features(), self.store.features())
    }

    /// The capabilities `initialize` advertises, in the types of `version`.
    pub fn capabilities(
        &self,
        version: ProtocolVersion,
    ) -> crate::version::ByVersion<v1::AgentCapabilities, v2::AgentCapabilities> {
        let offer = self.offer();
        if version == ProtocolVersion::V1 {
            crate::version::ByVersion::V1(offer.v1_capabilities())
        } else {
            crate::version::ByVersion::V2(offer.v2_capabilities())
        }
    }

    /// Starts serving one connection of the local principal on `reader`/`writer`
    /// (newline-delimited JSON, as over stdio) and returns at once.
    pub fn start<R, W>(&self, reader: R, writer: W) -> Connection
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let handler = self.handler(Principal::local());
        self.options
            .connection
            .clone()
            .start(reader, writer, handler)
    }

    /// Starts serving one connection of the local principal on a message transport (a
    /// WebSocket, the channels of an HTTP connection) and returns at once. The connection
    /// shares this server's store and open sessions with every other connection (see
    /// [`Self::start_transport_as`] for another principal).
    pub fn start_transport<R, W>(&self, reader: R, writer: W) -> Connection
    where
        R: MessageReader,
        W: MessageWriter,
    {
        self.start_transport_as(reader, writer, Principal::local())
    }

    /// Starts serving one connection that acts for `principal` on a message transport and
    /// returns at once: it sees, opens and changes only the sessions `principal` owns, and
    /// the sessions it creates are `principal`'s (see [`Principal`]). A remote server
    /// starts each connection this way, with the principal of its bearer token.
    pub fn start_transport_as<R, W>(&self, reader: R, writer: W, principal: Principal) -> Connection
    where
        R: MessageReader,
        W: MessageWriter,
    {
        let handler = self.handler(principal);
        self.options
            .connection
            .clone()
            .start_transport(reader, writer, handler)
    }

    /// Serves one connection on a message transport until it ends (see
    /// [`Self::start_transport`]).
    pub async fn serve_transport<R, W>(
        &self,
        reader: R,
        writer: W,
    ) -> Result<(), crate::error::Error>
    where
        R: MessageReader,
        W: MessageWriter,
    {
        self.start_transport(reader, writer).closed().await;
        Ok(())
    }

    /// The connection options this server starts connections with.
    pub fn connection_builder(&self) -> &ConnectionBuilder {
        &self.options.connection
    }

    /// The handler of one new connection that acts for `principal`.
    fn handler(&self, principal: Principal) -> dispatch::AgentHandler<A> {
        dispatch::AgentHandler::new(
            Arc::clone(&self.agent),
            dispatch::Shared {
                versions: self.options.versions.clone(),
                fallback: self.options.fallback,
                page_size: self.options.page_size,
                lease: self.options.lease,
            },
            dispatch::Owned::new(
                Arc::clone(&self.store),
                Arc::clone(&self.registry),
                principal,
            ),
        )
    }

    /// Serves one connection until the client hangs up.
    pub async fn serve<R, W>(&self, reader: R, writer: W) -> Result<(), crate::error::Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.start(reader, writer).closed().await;
        Ok(())
    }

    /// Serves one connection on standard input/output until the client hangs up.
    pub async fn serve_stdio(&self) -> Result<(), crate::error::Error> {
        let (stdin, stdout) = crate::transport::stdio();
        self.serve(stdin, stdout).await
    }
}
