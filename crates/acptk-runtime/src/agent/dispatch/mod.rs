//! Routing of incoming messages on an agent connection: `initialize` and version
//! negotiation, the method gate, then the v1 or v2 method table.
//!
//! The work of each method is shared by both versions ([`open`], [`manage`], [`turn`]); the
//! code here only unpacks the version's request and packs the version's response.

mod draft_methods;
mod fields;
#[cfg(feature = "unstable_session_fork")]
mod fork;
mod manage;
mod open;
mod owned;
mod replay;
mod routes;
mod turn;

pub(super) use owned::Owned;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use acptk_schema::jsonrpc::{ErrorObject, Id, RawValue};
use acptk_schema::method::RequestMethod;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::connected_client::{ClientConnection, ConnectedClient};
use super::features::Offer;
use super::{Agent, Session};
use crate::connection::{BoxFuture, Connection, Handler, Reply};
use crate::lock::lock;
use crate::log::Level;
use crate::notice::FallbackPolicy;
use crate::rpc;
pub(super) use crate::rpc::decode_error;
use crate::store::StoreError;
use crate::version::{ByVersion, peek_version};

/// What every connection of one server shares (the sessions through [`Owned`]).
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) versions: Vec<ProtocolVersion>,
    pub(super) fallback: FallbackPolicy,
    pub(super) page_size: usize,
    /// How long a turn's lease on its session runs without renewal.
    pub(super) lease: std::time::Duration,
}

/// The connection handler of an agent.
pub(super) struct AgentHandler<A> {
    inner: Arc<Inner<A>>,
}

/// What `initialize` established.
#[derive(Clone)]
struct Initialized {
    client: ClientConnection,
    offer: Arc<Offer>,
}

struct Inner<A> {
    agent: Arc<A>,
    shared: Shared,
    /// The stored and open sessions, as this connection's principal sees them.
    owned: Owned,
    init: Mutex<Option<Initialized>>,
    /// A request other than `initialize` arrived: `initialize` may no longer be repeated.
    started: AtomicBool,
    /// Sessions open on this connection.
    sessions: Mutex<HashMap<String, Session>>,
}

impl<A: Agent> AgentHandler<A> {
    pub(super) fn new(agent: Arc<A>, shared: Shared, owned: Owned) -> Self {
        Self {
            inner: Arc::new(Inner {
                agent,
                shared,
                owned,
                init: Mutex::new(None),
                started: AtomicBool::new(false),
                sessions: Mutex::new(HashMap::new()),
            }),
        }
    }
}

impl<A: Agent> Handler for AgentHandler<A> {
    fn request(
        &self,
        connection: Connection,
        _id: Id,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<Reply> {
        // Noted as the request is read, before its task runs: a `session/cancel` read after
        // this prompt covers it even if the prompt's task has not started yet.
        let arrival = self.inner.arrival(&method, params.as_deref());
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { inner.request(connection, method, params, arrival).await })
    }

    fn notification(
        &self,
        connection: Connection,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<()> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { inner.notification(connection, method, params).await })
    }
}

/// The JSON-RPC error for a store failure (see [`rpc::store_error`]).
pub(super) fn store_error(error: &StoreError) -> ErrorObject {
    rpc::store_error(error)
}

/// When a prompt arrived: its session's cancellation count at that moment.
#[derive(Debug, Clone, Copy)]
pub(super) struct Arrival {
    epoch: u64,
}

impl<A: Agent> Inner<A> {
    fn initialized(&self) -> Option<Initialized> {
        lock(&self.init).clone()
    }

    /// The arrival of a `session/prompt` for a session open here (reads only `sessionId`).
    fn arrival(&self, method: &str, params: Option<&RawValue>) -> Option<Arrival> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Target<'a> {
            #[serde(borrow)]
            session_id: std::borrow::Cow<'a, str>,
        }
        if method != v1::methods::SessionPrompt::METHOD {
            return None;
        }
        let target: Target<'_> = serde_json::from_str(params?.get()).ok()?;
        let session = self.session(&target.session_id)?;
        Some(Arrival {
            epoch: session.state().epoch(),
        })
    }

    async fn request(
        self: Arc<Self>,
        connection: Connection,
        method: String,
        params: Option<Box<RawValue>>,
        arrival: Option<Arrival>,
    ) -> Reply {
        if method == v1::methods::Initialize::METHOD {
            return self.initialize(connection, params.as_deref());
        }
        let Some(init) = self.initialized() else {
            return Reply::error(rpc::invalid_request(format!(
                "`{method}` before `initialize`: the connection is not initialised yet"
            )));
        };
        self.started.store(true, Ordering::Relaxed);
        match init.client.protocol_version() {
            ProtocolVersion::V1 => self.route_v1(init, &method, params, arrival).await,
            _ => self.route_v2(init, &method, params, arrival).await,
        }
    }

    /// `initialize`: picks the version, records the client, answers with what the agent and
    /// its store offer. It may be repeated until the first other request (the last one
    /// counts).
    fn initialize(&self, connection: Connection, params: Option<&RawValue>) -> Reply {
        if self.started.load(Ordering::Relaxed) {
            return Reply::error(rpc::invalid_request(
                "`initialize` after other requests: the connection is already initialised",
            ));
        }
        let raw = params.map_or("{}", RawValue::get);
        let Some(proposed) = peek_version(raw) else {
            return Reply::error(rpc::invalid_params(
                "`initialize` needs `protocolVersion`, an integer from 0 to 65535",
            ));
        };
        let versions = &self.shared.versions;
        let latest = versions.last().copied().unwrap_or(ProtocolVersion::V1);
        let chosen = if versions.contains(&proposed) {
            proposed
        } else {
            latest
        };
        let info = self.agent.info();
        let offer = Arc::new(Offer::new(
            self.agent.features(),
            self.owned.store().features(),
        ));
        let (client, response) = if chosen == ProtocolVersion::V1 {
            let request = match initialize_request::<v1::methods::Initialize>(raw, proposed, chosen)
            {
                Ok(request) => request,
                Err(reply) => return reply,
            };
            let capabilities = request.as_ref().map(|r| r.client_capabilities.clone());
            let name = request.and_then(|r| r.client_info.map(|info| info.name));
            let client = self.connected(
                chosen,
                ByVersion::V1(capabilities.unwrap_or_default()),
                name,
            );
            let response = v1::InitializeResponse::new(chosen)
                .agent_capabilities(offer.v1_capabilities())
                .auth_methods(offer.v1_auth_methods())
                .agent_info(info.to_v1());
            (client, Reply::result::<v1::methods::Initialize>(&response))
        } else {
            let request = match initialize_request::<v2::methods::Initialize>(raw, proposed, chosen)
            {
                Ok(request) => request,
                Err(reply) => return reply,
            };
            let capabilities = request.as_ref().map(|r| r.capabilities.clone());
            let name = request.map(|r| r.info.name);
            let client = self.connected(
                chosen,
                ByVersion::V2(capabilities.unwrap_or_default()),
                name,
            );
            let response = v2::InitializeResponse::new(chosen.get(), info.to_v2())
                .capabilities(offer.v2_capabilities())
                .auth_methods(offer.v2_auth_methods());
            (client, Reply::result::<v2::methods::Initialize>(&response))
        };
        *lock(&self.init) = Some(Initialized {
            client: ClientConnection::new(Arc::new(client), connection).gated_by(&offer),
            offer,
        });
        response
    }

    /// The client of this connection as its `initialize` introduced it, acting for the
    /// connection's principal.
    fn connected(
        &self,
        version: ProtocolVersion,
        capabilities: ByVersion<v1::ClientCapabilities, v2::ClientCapabilities>,
        name: Option<String>,
    ) -> ConnectedClient {
        ConnectedClient {
            protocol_version: version,
            capabilities,
            name,
            principal: self.owned.principal().clone(),
        }
    }

    /// The session `id` if it is open on this connection.
    fn session(&self, id: &str) -> Option<Session> {
        lock(&self.sessions).get(id).cloned()
    }

    /// The session `id` open on this connection, or the `-32002` reply.
    fn open_session(&self, id: &str) -> Result<Session, Reply> {
        self.session(id).ok_or_else(|| {
            let mut error = rpc::session_not_found(id);
            error.message = format!(
                "session `{id}` is not open on this connection (create, load or resume it first)"
            );
            Reply::error(error)
        })
    }

    async fn notification(
        self: Arc<Self>,
        connection: Connection,
        method: String,
        params: Option<Box<RawValue>>,
    ) {
        let Some(init) = self.initialized() else {
            connection.logger().log(
                Level::Warn,
                format!("ignored the notification `{method}` before `initialize`"),
            );
            return;
        };
        let cancelled = match init.client.protocol_version() {
            ProtocolVersion::V1 => self.notified_v1(&init, &connection, &method, params).await,
            _ => self.notified_v2(&init, &connection, &method, params).await,
        };
        match cancelled {
            Ok(id) => match self.session(&id) {
                Some(session) => {
                    session.state().cancel();
                    self.agent.cancel(session).await;
                }
                None => connection.logger().log(
                    Level::Warn,
                    format!("ignored `session/cancel` for session `{id}`, which is not open here"),
                ),
            },
            Err(Some(extension)) => {
                self.agent
                    .extension_notification(init.client.clone(), extension)
                    .await;
            }
            Err(None) => {}
        }
    }
}

/// The `initialize` request read as the chosen version's type: a request that does not read
/// is refused (`-32602`) when the client proposed that version, and is `None` (the version's
/// defaults) when the client proposed another one and the fields differ.
fn initialize_request<M: RequestMethod>(
    raw: &str,
    proposed: ProtocolVersion,
    chosen: ProtocolVersion,
) -> Result<Option<M::Params>, Reply> {
    match M::decode_params(raw) {
        Ok(request) => Ok(Some(request)),
        Err(error) if proposed == chosen => Err(Reply::error(rpc::invalid_params(format!(
            "initialize: {error}"
        )))),
        Err(_) => Ok(None),
    }
}
