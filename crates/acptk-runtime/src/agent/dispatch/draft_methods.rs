//! Routing of the unstable agent methods (each behind its cargo feature), for both versions.
//!
//! The store answers what it can by itself: `session/fork` copies a stored session's history
//! to a new id, `session/archive` / `session/unarchive` set a flag that `session/list`
//! filters on, `session/set_title` stores the title that `session/list` reports, and
//! `session/status` tells whether a session is in memory. The methods only an agent can
//! answer (`providers/*`, `auth/status`, `session/options`) go to its handlers. The method
//! gate has already refused, with `-32601`, what the offer does not answer.

// Each import serves only some of the unstable features, so which are used depends on
// the features built.
#![allow(unused_imports)]

use std::sync::Arc;

use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::open::stored;
use super::{Initialized, Inner, store_error};
use crate::agent::Agent;
use crate::agent::connected_client::ClientConnection;
use crate::connection::Reply;
use crate::rpc;
use crate::store::{SessionMeta, StoreError};
use crate::version::ByVersion;

/// The archive filter of a `session/list` request, or the `-32602` reply for one this
/// runtime does not know.
#[cfg(feature = "unstable_session_archive")]
pub(super) fn archive_filter(name: Option<&str>) -> Result<crate::agent::ArchiveFilter, Reply> {
    crate::agent::ArchiveFilter::parse(name)
        .map_err(|detail| Reply::error(rpc::invalid_params(detail)))
}

/// The reply to a handler's versioned answer; an answer in the other version is the
/// handler's mistake and becomes `-32603`.
#[allow(dead_code)]
fn versioned<T1: serde::Serialize, T2: serde::Serialize>(
    version: ProtocolVersion,
    answer: Result<ByVersion<T1, T2>, ErrorObject>,
) -> Reply {
    match answer {
        Ok(value) if value.version() != version => Reply::error(rpc::internal(format!(
            "the agent answered in protocol version {} on a v{version} connection",
            value.version()
        ))),
        Ok(ByVersion::V1(value)) => Reply::ok(&value),
        Ok(ByVersion::V2(value)) => Reply::ok(&value),
        Err(error) => Reply::error(error),
    }
}

/// The reply to a handler that answers with an empty object.
#[allow(dead_code)]
fn empty<T: serde::Serialize>(
    answer: Result<(), ErrorObject>,
    response: impl FnOnce() -> T,
) -> Reply {
    match answer {
        Ok(()) => Reply::ok(&response()),
        Err(error) => Reply::error(error),
    }
}

/// Writes the router of one version's unstable requests (`$name`) and notifications
/// (`$notification`): the methods are the same in both versions, and only the types
/// (`$version`), the [`ByVersion`] side (`$side`), the fork and the shapes of two responses
/// (`$status`, `$options`) differ.
macro_rules! unstable_router {
    (
        $name:ident,
        $notification:ident,
        $version:ident,
        $side:ident,
        $fork:ident,
        $status:ident,
        $options:ident
    ) => {
        /// Hands an unstable notification of this version to the agent (others are ignored).
        #[allow(unused_variables)]
        pub(super) async fn $notification<A: Agent>(
            agent: &Arc<A>,
            client: &ClientConnection,
            notification: $version::ClientNotification,
        ) {
            #[cfg(feature = "unstable_mcp_over_acp")]
            if let $version::ClientNotification::McpMessageNotify(message) = notification {
                agent
                    .mcp_notification(client.clone(), ByVersion::$side(message))
                    .await;
            }
        }

        /// Routes an unstable request of this version (any other method answers `-32601`).
        #[allow(unused_variables)]
        pub(super) async fn $name<A: Agent>(
            inner: &Inner<A>,
            init: &Initialized,
            request: $version::ClientRequest,
        ) -> Reply {
            #[allow(unused_imports)]
            use $version::ClientRequest as R;
            #[allow(unused_variables)]
            let version = init.client.protocol_version();
            #[allow(unused_variables)]
            let agent = &inner.agent;
            match request {
                #[cfg(feature = "unstable_llm_providers")]
                R::ProvidersList(request) => versioned(
                    version,
                    agent
                        .list_providers(&init.client, ByVersion::$side(request))
                        .await,
                ),
                #[cfg(feature = "unstable_llm_providers")]
                R::ProvidersSet(request) => empty(
                    agent
                        .set_provider(&init.client, ByVersion::$side(request))
                        .await,
                    $version::SetProviderResponse::new,
                ),
                #[cfg(feature = "unstable_llm_providers")]
                R::ProvidersDisable(request) => empty(
                    agent
                        .disable_provider(&init.client, ByVersion::$side(request))
                        .await,
                    $version::DisableProviderResponse::new,
                ),
                #[cfg(feature = "unstable_auth_status")]
                R::AuthStatus(request) => versioned(
                    version,
                    agent
                        .auth_status(&init.client, ByVersion::$side(request))
                        .await,
                ),
                #[cfg(feature = "unstable_session_archive")]
                R::SessionArchive(request) => {
                    let id = request.session_id.as_str();
                    archive(inner, init, id, true, $version::ArchiveSessionResponse::new).await
                }
                #[cfg(feature = "unstable_session_archive")]
                R::SessionUnarchive(request) => {
                    let id = request.session_id.as_str();
                    archive(
                        inner,
                        init,
                        id,
                        false,
                        $version::UnarchiveSessionResponse::new,
                    )
                    .await
                }
                #[cfg(feature = "unstable_session_set_title")]
                R::SessionSetTitle(request) => {
                    let id = request.session_id.as_str();
                    let response = $version::SetSessionTitleResponse::new;
                    set_title(inner, init, id, &request.title, response).await
                }
                #[cfg(feature = "unstable_session_status")]
                R::SessionStatus(request) => {
                    status(inner, init, request.session_id.as_str(), $status).await
                }
                #[cfg(feature = "unstable_session_fork")]
                R::SessionFork(request) => {
                    #[cfg(feature = "unstable_session_cursors")]
                    if let Some(cursor) = &request.cursor_id {
                        return Reply::error(super::fork::no_cursor(cursor.as_str()));
                    }
                    let fields = super::open::SetupRequest::fields(request);
                    super::fork::fork(inner, init, fields, super::fork::$fork).await
                }
                #[cfg(feature = "unstable_session_options")]
                R::SessionOptions(request) => {
                    let query = crate::agent::OptionsQuery {
                        cwd: request.cwd.as_str().to_owned(),
                        additional_directories: request
                            .additional_directories
                            .iter()
                            .map(|dir| dir.as_str().to_owned())
                            .collect(),
                        session_id: request.session_id.map(|id| id.as_str().to_owned()),
                    };
                    match options(inner, init, &query).await {
                        Ok(config) => Reply::ok(&$options(&config)),
                        Err(reply) => reply,
                    }
                }
                other => Reply::error(rpc::method_not_found(other.method())),
            }
        }
    };
}

unstable_router!(
    v1_request,
    v1_notification,
    v1,
    V1,
    fork_v1,
    status_v1,
    options_v1
);
unstable_router!(
    v2_request,
    v2_notification,
    v2,
    V2,
    fork_v2,
    status_v2,
    options_v2
);

/// The v1 `session/status` answer (v1 reports no turn state).
#[cfg(feature = "unstable_session_status")]
fn status_v1(status: &'static str, _running: Option<bool>) -> v1::SessionStatusResponse {
    v1::SessionStatusResponse::new(status)
}

/// The v2 `session/status` answer, with the turn state of an open session.
#[cfg(feature = "unstable_session_status")]
fn status_v2(status: &'static str, running: Option<bool>) -> v2::SessionStatusResponse {
    let response = v2::SessionStatusResponse::new(status);
    match running {
        Some(true) => response.state(v2::StateUpdate::Running(v2::RunningStateUpdate::new())),
        Some(false) => response.state(v2::StateUpdate::Idle(v2::IdleStateUpdate::new())),
        None => response,
    }
}

/// The v1 `session/options` answer: modes and options.
#[cfg(feature = "unstable_session_options")]
fn options_v1(config: &crate::agent::SessionConfig) -> v1::SessionOptionsResponse {
    let mut response = v1::SessionOptionsResponse::new();
    if let Some(modes) = config.v1_modes() {
        response = response.modes(modes);
    }
    if let Some(options) = config.v1_options() {
        response = response.config_options(options);
    }
    response
}

/// The v2 `session/options` answer: options (the modes among them).
#[cfg(feature = "unstable_session_options")]
fn options_v2(config: &crate::agent::SessionConfig) -> v2::SessionOptionsResponse {
    v2::SessionOptionsResponse::new().config_options(config.v2_options().unwrap_or_default())
}

/// Changes the stored metadata of session `id`: through its open state when a connection has
/// it open (so that state and store agree), else directly in the store.
#[allow(dead_code)]
async fn change_meta<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    id: &str,
    change: impl FnOnce(&mut SessionMeta),
) -> Result<(), Reply> {
    let mut meta = stored(inner, init, id).await?;
    let saved = match inner.owned.state(id) {
        Some(state) => state.update_meta(change).await,
        None => {
            change(&mut meta);
            inner.owned.store().save_meta(&meta).await
        }
    };
    saved.map_err(|error| Reply::error(store_error(&error)))
}

/// `session/archive` and `session/unarchive`. Archiving closes the session on this
/// connection first (as `session/close` does); either call succeeds when the flag is already
/// as asked.
#[cfg(feature = "unstable_session_archive")]
async fn archive<A: Agent, T: serde::Serialize>(
    inner: &Inner<A>,
    init: &Initialized,
    id: &str,
    archived: bool,
    response: impl FnOnce() -> T,
) -> Reply {
    if let Err(reply) = stored(inner, init, id).await {
        return reply;
    }
    if let Err(error) = inner.agent.archive_session(id, archived).await {
        return Reply::error(error);
    }
    if archived {
        super::manage::close(inner, id).await;
    }
    match change_meta(inner, init, id, |meta| meta.archived = archived).await {
        Ok(()) => Reply::ok(&response()),
        Err(reply) => reply,
    }
}

/// `session/set_title`: trimmed, refused when empty, then as the agent normalises it.
#[cfg(feature = "unstable_session_set_title")]
async fn set_title<A: Agent, T: serde::Serialize>(
    inner: &Inner<A>,
    init: &Initialized,
    id: &str,
    title: &str,
    response: impl FnOnce(String) -> T,
) -> Reply {
    if let Err(reply) = stored(inner, init, id).await {
        return reply;
    }
    let trimmed = title.trim();
    if trimmed.is_empty() {
        return Reply::error(rpc::invalid_params(format!(
            "session `{id}` cannot get an empty title"
        )));
    }
    let title = match inner.agent.set_session_title(id, trimmed).await {
        Ok(title) => title,
        Err(error) => return Reply::error(error),
    };
    let stored_title = title.clone();
    match change_meta(inner, init, id, |meta| {
        meta.title = Some(stored_title);
        meta.updated_at = std::time::SystemTime::now();
    })
    .await
    {
        Ok(()) => Reply::ok(&response(title)),
        Err(reply) => reply,
    }
}

/// `session/status`: `open` when some connection has the session in memory (with whether a
/// turn is running), `saved` when only the store has it. Changes nothing.
#[cfg(feature = "unstable_session_status")]
async fn status<A: Agent, T: serde::Serialize>(
    inner: &Inner<A>,
    init: &Initialized,
    id: &str,
    response: impl FnOnce(&'static str, Option<bool>) -> T,
) -> Reply {
    if let Err(reply) = stored(inner, init, id).await {
        return reply;
    }
    match inner.owned.state(id) {
        Some(state) if !state.is_deleted() => {
            Reply::ok(&response("open", Some(state.is_running())))
        }
        _ => Reply::ok(&response("saved", None)),
    }
}

/// `session/options`: for a stored session, it must be known (`-32002`) and of this version.
#[cfg(feature = "unstable_session_options")]
async fn options<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    query: &crate::agent::OptionsQuery,
) -> Result<crate::agent::SessionConfig, Reply> {
    let stored_meta = match &query.session_id {
        Some(id) => Some(stored(inner, init, id).await?),
        None => None,
    };
    let mut config = inner
        .agent
        .session_options(query)
        .await
        .map_err(Reply::error)?;
    if let Some(meta) = stored_meta {
        config.apply_stored(meta.mode.as_deref(), &meta.config);
    }
    Ok(config)
}
