//! Routing of incoming messages on an agent connection: `initialize` and version
//! negotiation, then the v1 or v2 method table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use acp_schema::jsonrpc::{ErrorObject, Id, RawValue};
use acp_schema::method::NotificationMethod;
use acp_schema::v1::ProtocolVersion;
use acp_schema::{v1, v2};

use super::session::TurnGuard;
use super::{
    Agent, ConnectedClient, McpServerSpec, Prompt, Session, SessionOrigin, SessionSetup,
    SessionStore,
};
use crate::connection::{BoxFuture, Connection, Handler, Reply, lock};
use crate::error::rpc;
use crate::log::Level;
use crate::notice::FallbackPolicy;
use crate::version::{ByVersion, peek_version};

/// The connection handler of an agent.
pub(super) struct AgentHandler<A> {
    inner: Arc<Inner<A>>,
}

struct Inner<A> {
    agent: Arc<A>,
    store: SessionStore,
    versions: Vec<ProtocolVersion>,
    fallback: FallbackPolicy,
    client: OnceLock<Arc<ConnectedClient>>,
    /// Sessions opened on this connection.
    sessions: Mutex<HashMap<String, Session>>,
}

impl<A: Agent> AgentHandler<A> {
    pub(super) fn new(
        agent: Arc<A>,
        store: SessionStore,
        versions: Vec<ProtocolVersion>,
        fallback: FallbackPolicy,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                agent,
                store,
                versions,
                fallback,
                client: OnceLock::new(),
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
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { inner.request(connection, method, params).await })
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

/// The JSON-RPC error for a request whose method or params do not fit the method table.
pub(crate) fn decode_error(error: acp_schema::Error) -> ErrorObject {
    match error {
        acp_schema::Error::UnknownMethod { method } => rpc::method_not_found(&method),
        other => rpc::invalid_params(other),
    }
}

/// Sends a session's history, one update after the other; the error reply when the
/// connection closes on the way.
async fn send_history<M: NotificationMethod>(
    connection: &Connection,
    updates: impl IntoIterator<Item = M::Params>,
) -> Result<(), Reply> {
    for params in updates {
        if connection.notify::<M>(&params).await.is_err() {
            return Err(Reply::error(rpc::internal(
                "the connection closed during the replay",
            )));
        }
    }
    Ok(())
}

fn unknown_session(id: &str) -> ErrorObject {
    rpc::invalid_params(format!("unknown session `{id}`"))
}

impl<A: Agent> Inner<A> {
    async fn request(
        self: Arc<Self>,
        connection: Connection,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> Reply {
        if method == <v1::methods::Initialize as acp_schema::method::RequestMethod>::METHOD {
            return self.initialize(params.as_deref());
        }
        let Some(client) = self.client.get().cloned() else {
            return Reply::error(rpc::invalid_request(format!(
                "`{method}` before `initialize`: the connection is not initialised yet"
            )));
        };
        match client.protocol_version {
            ProtocolVersion::V1 => match v1::ClientRequest::decode(&method, params.as_deref()) {
                Ok(request) => self.v1_request(connection, client, request).await,
                Err(error) => Reply::error(decode_error(error)),
            },
            _ => match v2::ClientRequest::decode(&method, params.as_deref()) {
                Ok(request) => self.v2_request(connection, client, request).await,
                Err(error) => Reply::error(decode_error(error)),
            },
        }
    }

    fn initialize(&self, params: Option<&RawValue>) -> Reply {
        let raw = params.map_or("{}", RawValue::get);
        let Some(proposed) = peek_version(raw) else {
            return Reply::error(rpc::invalid_params(
                "`initialize` needs `protocolVersion`, an integer from 0 to 65535",
            ));
        };
        let latest = self.versions.last().copied().unwrap_or(ProtocolVersion::V1);
        let chosen = if self.versions.contains(&proposed) {
            proposed
        } else {
            latest
        };
        let (name, version) = self.agent.name();
        let (client, response) = if chosen == ProtocolVersion::V1 {
            let request = match serde_json::from_str::<v1::InitializeRequest>(raw) {
                Ok(request) => Some(request),
                Err(error) if proposed == chosen => {
                    return Reply::error(rpc::invalid_params(format!("initialize: {error}")));
                }
                Err(_) => None,
            };
            let client = ConnectedClient {
                protocol_version: chosen,
                capabilities: ByVersion::V1(
                    request
                        .as_ref()
                        .map(|r| r.client_capabilities.clone())
                        .unwrap_or_default(),
                ),
                name: request.and_then(|r| r.client_info.map(|info| info.name)),
            };
            let response = v1::InitializeResponse::new(chosen)
                .agent_capabilities(v1::AgentCapabilities::new().load_session(true))
                .agent_info(v1::Implementation::new(name, version));
            (client, Reply::ok(&response))
        } else {
            let request = match serde_json::from_str::<v2::InitializeRequest>(raw) {
                Ok(request) => Some(request),
                Err(error) if proposed == chosen => {
                    return Reply::error(rpc::invalid_params(format!("initialize: {error}")));
                }
                Err(_) => None,
            };
            let client = ConnectedClient {
                protocol_version: chosen,
                capabilities: ByVersion::V2(
                    request
                        .as_ref()
                        .map(|r| r.capabilities.clone())
                        .unwrap_or_default(),
                ),
                name: request.map(|r| r.info.name),
            };
            let response =
                v2::InitializeResponse::new(chosen.get(), v2::Implementation::new(name, version));
            (client, Reply::ok(&response))
        };
        if self.client.set(Arc::new(client)).is_err() {
            return Reply::error(rpc::invalid_request(
                "`initialize` was already called on this connection",
            ));
        }
        response
    }

    fn open(&self, connection: &Connection, client: &Arc<ConnectedClient>, id: &str) -> Session {
        let session = Session::new(
            id.to_owned(),
            connection.clone(),
            Arc::clone(client),
            self.store.clone(),
            self.fallback,
        );
        lock(&self.sessions).insert(id.to_owned(), session.clone());
        session
    }

    fn session(&self, id: &str) -> Option<Session> {
        lock(&self.sessions).get(id).cloned()
    }

    /// The reply to a request that opened a session: the response, then the agent's hook.
    fn opened<T: serde::Serialize>(
        &self,
        response: &T,
        session: Session,
        setup: SessionSetup,
    ) -> Reply {
        let agent = Arc::clone(&self.agent);
        Reply::ok(response).then(async move { agent.session_opened(session, setup).await })
    }

    /// The open session `id` with its turn started; the error reply when the session is
    /// unknown or a turn is already running in it.
    fn start_turn(&self, id: &str) -> Result<(Session, TurnGuard), Reply> {
        let Some(session) = self.session(id) else {
            return Err(Reply::error(unknown_session(id)));
        };
        let Some(turn) = session.begin_turn() else {
            return Err(Reply::error(rpc::invalid_request(format!(
                "a turn is already running in session `{id}`"
            ))));
        };
        Ok((session, turn))
    }

    /// Checks that `id` is a stored session of `version`.
    fn check_stored(&self, id: &str, version: ProtocolVersion) -> Result<(), ErrorObject> {
        match self.store.version(id) {
            None => Err(unknown_session(id)),
            Some(stored) if stored != version => Err(rpc::invalid_params(format!(
                "session `{id}` was created with protocol version {stored}, not {version}"
            ))),
            Some(_) => Ok(()),
        }
    }

    async fn v1_request(
        &self,
        connection: Connection,
        client: Arc<ConnectedClient>,
        request: v1::ClientRequest,
    ) -> Reply {
        match request {
            v1::ClientRequest::SessionNew(request) => {
                let id = self.store.fresh_id("sess");
                self.store.create(&id, ProtocolVersion::V1, &request.cwd);
                let session = self.open(&connection, &client, &id);
                let setup = SessionSetup::new(
                    SessionOrigin::New,
                    request.cwd,
                    request.mcp_servers.iter().map(McpServerSpec::from_v1),
                );
                self.opened(&v1::NewSessionResponse::new(id), session, setup)
            }
            v1::ClientRequest::SessionLoad(request) => {
                let id = request.session_id.as_str();
                if let Err(error) = self.check_stored(id, ProtocolVersion::V1) {
                    return Reply::error(error);
                }
                let history = self.store.history_v1(id).unwrap_or_default();
                let replayed = history
                    .into_iter()
                    .map(|update| v1::SessionNotification::new(id, update));
                if let Err(reply) =
                    send_history::<v1::methods::SessionUpdate>(&connection, replayed).await
                {
                    return reply;
                }
                self.store.set_cwd(id, &request.cwd);
                let session = self.open(&connection, &client, id);
                let setup = SessionSetup::new(
                    SessionOrigin::Loaded,
                    request.cwd,
                    request.mcp_servers.iter().map(McpServerSpec::from_v1),
                );
                self.opened(&v1::LoadSessionResponse::new(), session, setup)
            }
            v1::ClientRequest::SessionPrompt(request) => {
                let (session, turn) = match self.start_turn(request.session_id.as_str()) {
                    Ok(started) => started,
                    Err(reply) => return reply,
                };
                let user_message = self.store.fresh_id("msg");
                for block in &request.prompt {
                    let chunk =
                        v1::ContentChunk::new(block.clone()).message_id(user_message.as_str());
                    session.record(ByVersion::V1(v1::ReplayableUpdate::UserMessageChunk(chunk)));
                }
                let prompt = Prompt {
                    text: prompt_text(request.prompt.iter().filter_map(v1::ContentBlock::as_text)),
                    request: ByVersion::V1(request),
                };
                let result = self.agent.prompt(session, prompt).await;
                drop(turn);
                match result {
                    Ok(stop) => Reply::ok(&v1::PromptResponse::new(stop.to_v1())),
                    Err(error) => Reply::error(error),
                }
            }
            v1::ClientRequest::Extension(extension) => {
                Reply::new(self.agent.extension_request(client, extension).await)
            }
            other => Reply::new(self.agent.other_request(client, ByVersion::V1(other)).await),
        }
    }

    async fn v2_request(
        &self,
        connection: Connection,
        client: Arc<ConnectedClient>,
        request: v2::ClientRequest,
    ) -> Reply {
        match request {
            v2::ClientRequest::SessionNew(request) => {
                let id = self.store.fresh_id("sess");
                self.store
                    .create(&id, ProtocolVersion::V2, request.cwd.as_str());
                let session = self.open(&connection, &client, &id);
                let setup = SessionSetup::new(
                    SessionOrigin::New,
                    request.cwd.as_str().to_owned(),
                    request.mcp_servers.iter().map(McpServerSpec::from_v2),
                );
                self.opened(&v2::NewSessionResponse::new(id), session, setup)
            }
            v2::ClientRequest::SessionResume(request) => {
                let id = request.session_id.as_str();
                if let Err(error) = self.check_stored(id, ProtocolVersion::V2) {
                    return Reply::error(error);
                }
                let replay = match &request.replay_from {
                    None => false,
                    Some(v2::ReplayFrom::Start(_)) => true,
                    Some(other) => {
                        return Reply::error(rpc::invalid_params(format!(
                            "replayFrom `{}` is not supported; use `start`",
                            other.tag()
                        )));
                    }
                };
                if replay {
                    let history = self.store.history_v2(id).unwrap_or_default();
                    let updates = history
                        .into_iter()
                        .map(v2::SessionUpdate::from)
                        .chain(std::iter::once(v2::ReplayComplete::new().into()));
                    let replayed =
                        updates.map(|update| v2::UpdateSessionNotification::new(id, update));
                    if let Err(reply) =
                        send_history::<v2::methods::SessionUpdate>(&connection, replayed).await
                    {
                        return reply;
                    }
                }
                self.store.set_cwd(id, request.cwd.as_str());
                let session = self.open(&connection, &client, id);
                let setup = SessionSetup::new(
                    SessionOrigin::Resumed { replayed: replay },
                    request.cwd.as_str().to_owned(),
                    request.mcp_servers.iter().map(McpServerSpec::from_v2),
                );
                self.opened(&v2::ResumeSessionResponse::new(), session, setup)
            }
            v2::ClientRequest::SessionPrompt(request) => {
                let (session, turn) = match self.start_turn(request.session_id.as_str()) {
                    Ok(started) => started,
                    Err(reply) => return reply,
                };
                let user_message = self.store.fresh_id("msg");
                session.record(ByVersion::V2(v2::ReplayableUpdate::UserMessage(
                    v2::UserMessage::new(user_message.as_str()).content(request.prompt.clone()),
                )));
                let prompt = Prompt {
                    text: prompt_text(request.prompt.iter().filter_map(v2::ContentBlock::as_text)),
                    request: ByVersion::V2(request),
                };
                let agent = Arc::clone(&self.agent);
                Reply::ok(&v2::PromptResponse::new(user_message)).then(async move {
                    let running = v2::StateUpdate::Running(v2::RunningStateUpdate::new());
                    if session.send_v2(running.into()).await.is_err() {
                        return;
                    }
                    let stop = match agent.prompt(session.clone(), prompt).await {
                        Ok(stop) => stop.to_v2(),
                        Err(error) => v2::IdleStopReason::Error(
                            v2::ErrorStopReason::new()
                                .error(v2::Error::new(error.code, error.message)),
                        ),
                    };
                    drop(turn);
                    let idle = v2::StateUpdate::Idle(v2::IdleStateUpdate::new().stop_reason(stop));
                    let _ = session.send_v2(idle.into()).await;
                })
            }
            v2::ClientRequest::Extension(extension) => {
                Reply::new(self.agent.extension_request(client, extension).await)
            }
            other => Reply::new(self.agent.other_request(client, ByVersion::V2(other)).await),
        }
    }

    async fn notification(
        self: Arc<Self>,
        connection: Connection,
        method: String,
        params: Option<Box<RawValue>>,
    ) {
        let Some(client) = self.client.get().cloned() else {
            connection.logger().log(
                Level::Warn,
                format!("ignored the notification `{method}` before `initialize`"),
            );
            return;
        };
        let cancelled = match client.protocol_version {
            ProtocolVersion::V1 => match v1::ClientNotification::decode(&method, params.as_deref())
            {
                Ok(v1::ClientNotification::SessionCancel(cancel)) => {
                    Ok(cancel.session_id.as_str().to_owned())
                }
                Ok(v1::ClientNotification::Extension(extension)) => Err(Some(extension)),
                Ok(_) => Err(None),
                Err(error) => {
                    connection
                        .logger()
                        .log(Level::Warn, format!("ignored a notification: {error}"));
                    Err(None)
                }
            },
            _ => match v2::ClientNotification::decode(&method, params.as_deref()) {
                Ok(v2::ClientNotification::SessionCancel(cancel)) => {
                    Ok(cancel.session_id.as_str().to_owned())
                }
                Ok(v2::ClientNotification::Extension(extension)) => Err(Some(extension)),
                Ok(_) => Err(None),
                Err(error) => {
                    connection
                        .logger()
                        .log(Level::Warn, format!("ignored a notification: {error}"));
                    Err(None)
                }
            },
        };
        match cancelled {
            Ok(id) => match self.session(&id) {
                Some(session) => {
                    session.cancel_turn();
                    self.agent.cancel(session).await;
                }
                None => connection.logger().log(
                    Level::Warn,
                    format!("ignored `session/cancel` for unknown session `{id}`"),
                ),
            },
            Err(Some(extension)) => self.agent.extension_notification(client, extension).await,
            Err(None) => {}
        }
    }
}

/// The text of a prompt: its text blocks joined with newlines.
fn prompt_text<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    texts.collect::<Vec<_>>().join("\n")
}
