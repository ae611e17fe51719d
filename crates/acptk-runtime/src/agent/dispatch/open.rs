//! Opening sessions: `session/new`, `session/load` (v1) and `session/resume`, for both
//! versions.
//!
//! A new session gets a fresh random id and is created in the store only once the agent
//! accepted it ([`Agent::new_session`]). A stored session is reopened with the configuration
//! the agent gives ([`Agent::load_session`], [`Agent::resume_session`]) and the current values
//! it had; its history is read whole before anything is sent, so a damaged file fails the
//! request cleanly. Replays hold only recorded history (never a notice); a v2 replay puts the
//! whole-message update with empty content before the first chunk of each message. v2 resume
//! ends with `replay_complete` (when a replay was asked for) and a `state_update` snapshot,
//! then [`Agent::session_opened`] runs, all before the response, so that nothing for the
//! resumed session follows it. Otherwise [`Agent::session_opened`] runs after the response.

use std::sync::Arc;

use acptk_schema::method::NotificationMethod;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

pub(super) use super::fields::{Fields, SetupRequest, apply_initial};
use super::{Initialized, Inner, store_error};
use crate::agent::ids::fresh_id;
use crate::agent::open_sessions::SessionState;
use crate::agent::{Agent, Session, SessionConfig, SessionOrigin, SessionSetup};
use crate::connection::{Reply, to_raw};
use crate::lock::lock;
use crate::log::Level;
use crate::rpc;
use crate::store::{SessionMeta, StoreError, replayed_v1, replayed_v2};

/// The session `state` attached to this connection.
pub(super) fn attach<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    state: Arc<SessionState>,
) -> Session {
    let session = Session::new(state, init.client.clone(), inner.shared.fallback);
    lock(&inner.sessions).insert(session.id().to_owned(), session.clone());
    session
}

/// The reply to a request that opened a session: the response, then the agent's hook.
pub(super) fn opened<A: Agent>(
    inner: &Inner<A>,
    response: Result<Box<acptk_schema::jsonrpc::RawValue>, crate::error::Error>,
    session: Session,
    setup: SessionSetup,
) -> Reply {
    let response = match response {
        Ok(response) => response,
        Err(error) => return Reply::error(rpc::internal(error)),
    };
    let agent = Arc::clone(&inner.agent);
    Reply::new(Ok(response)).then(async move { agent.session_opened(session, setup).await })
}

/// The response to `session/new`, `session/load` or `session/resume` of `version`.
fn response(
    version: ProtocolVersion,
    method: Method,
    id: &str,
    config: &SessionConfig,
) -> Result<Box<acptk_schema::jsonrpc::RawValue>, crate::error::Error> {
    macro_rules! with_v1 {
        ($response:expr) => {{
            let mut response = $response;
            if let Some(modes) = config.v1_modes() {
                response = response.modes(modes);
            }
            if let Some(options) = config.v1_options() {
                response = response.config_options(options);
            }
            to_raw(&response)
        }};
    }
    macro_rules! with_v2 {
        ($response:expr) => {{
            let mut response = $response;
            if let Some(options) = config.v2_options() {
                response = response.config_options(options);
            }
            to_raw(&response)
        }};
    }
    match (version, method) {
        (ProtocolVersion::V1, Method::New) => with_v1!(v1::NewSessionResponse::new(id)),
        (ProtocolVersion::V1, Method::Load) => with_v1!(v1::LoadSessionResponse::new()),
        (ProtocolVersion::V1, Method::Resume) => with_v1!(v1::ResumeSessionResponse::new()),
        (_, Method::New) => with_v2!(v2::NewSessionResponse::new(id)),
        (_, _) => with_v2!(v2::ResumeSessionResponse::new()),
    }
}

#[derive(Clone, Copy)]
enum Method {
    New,
    Load,
    Resume,
}

/// What the store keeps of a session opened as `id` on this connection by `setup` with
/// `config` (a new one, or a fork).
pub(super) fn stored_meta(
    init: &Initialized,
    id: &str,
    setup: &SessionSetup,
    config: &SessionConfig,
) -> SessionMeta {
    let version = init.client.protocol_version();
    let mut meta = SessionMeta::new(id, version, setup.cwd.as_str());
    meta.additional_directories
        .clone_from(&setup.additional_directories);
    meta.mode = config.modes.as_ref().map(|modes| modes.current.clone());
    meta.config = config.values();
    meta
}

/// `session/new`.
pub(super) async fn new_session<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    fields: Result<Fields, String>,
) -> Reply {
    let fields = match fields {
        Ok(fields) => fields,
        Err(detail) => return Reply::error(rpc::invalid_params(detail)),
    };
    let id = fresh_id("sess");
    let setup = match fields.setup(init, id.clone(), SessionOrigin::New) {
        Ok(setup) => setup,
        Err(reply) => return reply,
    };
    let mut config = match inner.agent.new_session(&setup).await {
        Ok(config) => config,
        Err(error) => return Reply::error(error),
    };
    apply_initial(init, &setup, &mut config);
    let meta = stored_meta(init, &id, &setup, &config);
    let meta = match inner.owned.create(meta).await {
        Ok(meta) => meta,
        Err(error) => {
            return Reply::error(rpc::internal(format!("cannot create the session: {error}")));
        }
    };
    let state = SessionState::new(meta, config.clone(), Arc::clone(inner.owned.store()));
    inner.owned.register(&state);
    let session = attach(inner, init, state);
    opened(
        inner,
        response(init.client.protocol_version(), Method::New, &id, &config),
        session,
        setup,
    )
}

/// The stored metadata of session `id` for this connection's version, or the reply: `-32002`
/// for a session the store does not know, `-32602` for one of the other version.
pub(super) async fn stored<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    id: &str,
) -> Result<SessionMeta, Reply> {
    let version = init.client.protocol_version();
    let meta = match inner.owned.meta(id).await {
        Ok(Some(meta)) => meta,
        Ok(None) => return Err(Reply::error(rpc::session_not_found(id))),
        Err(error) => return Err(Reply::error(store_error(&error))),
    };
    if meta.protocol_version != version {
        let error = StoreError::WrongVersion {
            id: id.to_owned(),
            stored: meta.protocol_version,
            requested: version,
        };
        return Err(Reply::error(store_error(&error)));
    }
    Ok(meta)
}

/// The stored session `id` made ready to open: its state (shared with other connections
/// that have it open) with the agent's configuration and the stored current values.
async fn reopen<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    fields: Fields,
    origin: SessionOrigin,
) -> Result<(Arc<SessionState>, SessionSetup), Reply> {
    let id = fields.id.clone();
    let meta = stored(inner, init, &id).await?;
    let setup = fields.setup(init, id.clone(), origin)?;
    let agent = &inner.agent;
    let configured = match origin {
        SessionOrigin::Loaded => agent.load_session(&setup).await,
        _ => agent.resume_session(&setup).await,
    };
    let mut config = configured.map_err(Reply::error)?;
    let state = match inner.owned.state(&id) {
        Some(state) => {
            #[cfg(feature = "unstable_session_options")]
            if !setup.initial_options.is_empty() {
                let applied = state
                    .update_config(|config| apply_initial(init, &setup, config))
                    .await;
                if let Err(error) = applied {
                    return Err(Reply::error(store_error(&error)));
                }
            }
            state
        }
        None => {
            config.apply_stored(meta.mode.as_deref(), &meta.config);
            apply_initial(init, &setup, &mut config);
            let state = SessionState::new(meta, config, Arc::clone(inner.owned.store()));
            inner.owned.register(&state);
            state
        }
    };
    let cwd = setup.cwd.clone();
    let directories = setup.additional_directories.clone();
    if let Err(error) = state
        .update_meta(|meta| {
            meta.cwd = cwd;
            meta.additional_directories = directories;
        })
        .await
    {
        init.client.connection().logger().log(
            Level::Warn,
            format!(
                "session `{}`: could not save its new working directory: {error}",
                state.id
            ),
        );
    }
    Ok((state, setup))
}

/// Sends a replay, one notification `M` an update, in either version; the error answer
/// when the connection closed during it.
async fn send_replay<M: NotificationMethod>(
    init: &Initialized,
    notifications: impl Iterator<Item = M::Params>,
) -> Result<(), Reply> {
    let connection = init.client.connection();
    for params in notifications {
        if connection.notify::<M>(&params).await.is_err() {
            return Err(Reply::error(rpc::internal(
                "the connection closed during the replay",
            )));
        }
    }
    Ok(())
}

/// `session/load` (v1): the whole history is replayed before the response.
pub(super) async fn load_v1<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    request: v1::LoadSessionRequest,
) -> Reply {
    let fields = match request.fields() {
        Ok(fields) => fields,
        Err(detail) => return Reply::error(rpc::invalid_params(detail)),
    };
    let (state, setup) = match reopen(inner, init, fields, SessionOrigin::Loaded).await {
        Ok(opened) => opened,
        Err(reply) => return reply,
    };
    let history = match state.store.history(&state.id).await {
        Ok(history) => history,
        Err(error) => return Reply::error(store_error(&error)),
    };
    let updates =
        replayed_v1(history).map(|update| v1::SessionNotification::new(state.id.as_str(), update));
    if let Err(reply) = send_replay::<v1::methods::SessionUpdate>(init, updates).await {
        return reply;
    }
    let config = state.config();
    let id = state.id.clone();
    let session = attach(inner, init, state);
    opened(
        inner,
        response(ProtocolVersion::V1, Method::Load, &id, &config),
        session,
        setup,
    )
}

/// `session/resume`: v1 never replays (`replay` is `None`); v2 replays when asked, then
/// reports the current state.
pub(super) async fn resume<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    fields: Result<Fields, String>,
    replay: Option<bool>,
) -> Reply {
    let fields = match fields {
        Ok(fields) => fields,
        Err(detail) => return Reply::error(rpc::invalid_params(detail)),
    };
    let replayed = replay == Some(true);
    let origin = SessionOrigin::Resumed { replayed };
    let (state, setup) = match reopen(inner, init, fields, origin).await {
        Ok(opened) => opened,
        Err(reply) => return reply,
    };
    let version = init.client.protocol_version();
    let session = Session::new(
        Arc::clone(&state),
        init.client.clone(),
        inner.shared.fallback,
    );
    if version != ProtocolVersion::V1 {
        if replayed {
            let history = match state.store.history(&state.id).await {
                Ok(history) => history,
                Err(error) => return Reply::error(store_error(&error)),
            };
            let updates = super::replay::primed(replayed_v2(history))
                .chain(std::iter::once(v2::ReplayComplete::new().into()))
                .map(|update| v2::UpdateSessionNotification::new(state.id.as_str(), update));
            if let Err(reply) = send_replay::<v2::methods::SessionUpdate>(init, updates).await {
                return reply;
            }
        }
        let snapshot = if state.is_running() {
            v2::StateUpdate::Running(v2::RunningStateUpdate::new())
        } else {
            v2::StateUpdate::Idle(v2::IdleStateUpdate::new())
        };
        if session.send_state(snapshot).await.is_err() {
            return Reply::error(rpc::internal("the connection closed during the resume"));
        }
    }
    lock(&inner.sessions).insert(session.id().to_owned(), session.clone());
    let config = state.config();
    if version == ProtocolVersion::V1 {
        return opened(
            inner,
            response(version, Method::Resume, &state.id, &config),
            session,
            setup,
        );
    }
    // v2: everything the agent sends for a resumed session comes before the response, the
    // hook's updates included; they follow `replay_complete`, so they are live, not replayed.
    inner.agent.session_opened(session, setup).await;
    match response(version, Method::Resume, &state.id, &config) {
        Ok(response) => Reply::new(Ok(response)),
        Err(error) => Reply::error(rpc::internal(error)),
    }
}
