//! The session methods answered from the store and the session state, for both versions:
//! authentication, `session/list`, `session/close`, `session/delete`, `session/set_mode`,
//! `session/set_config_option`, and v2 `tool_call/cancel` / `terminal/cancel`.

use acptk_schema::jsonrpc::ErrorObject;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::{Initialized, Inner, store_error};
use crate::agent::config::MODE_OPTION_ID;
use crate::agent::listing::{page, rfc3339};
use crate::agent::open_sessions::Cancellable;
use crate::agent::{Agent, ListRequest, SessionConfig, SessionPage};
use crate::connection::Reply;
use crate::lock::lock;
use crate::rpc;
use crate::store::ConfigValue;

/// `authenticate` (v1) / `auth/login` (v2): the method must be one the agent listed.
pub(super) async fn authenticate<A: Agent, T: serde::Serialize>(
    inner: &Inner<A>,
    init: &Initialized,
    method_id: &str,
    response: impl FnOnce() -> T,
) -> Reply {
    let listed = init
        .offer
        .features()
        .auth_methods
        .iter()
        .any(|method| method.id == method_id);
    if !listed {
        return Reply::error(rpc::invalid_params(format!(
            "`{method_id}` is not one of the authentication methods this agent offers"
        )));
    }
    match inner.agent.authenticate(&init.client, method_id).await {
        Ok(()) => Reply::ok(&response()),
        Err(error) => Reply::error(error),
    }
}

/// `logout` (v1) / `auth/logout` (v2).
pub(super) async fn logout<A: Agent, T: serde::Serialize>(
    inner: &Inner<A>,
    init: &Initialized,
    response: impl FnOnce() -> T,
) -> Reply {
    match inner.agent.logout(&init.client).await {
        Ok(()) => Reply::ok(&response()),
        Err(error) => Reply::error(error),
    }
}

/// `session/list`: a page from the store, which the agent may change.
pub(super) async fn list<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    request: ListRequest,
) -> Reply {
    let version = init.client.protocol_version();
    let stored = match inner.owned.list().await {
        Ok(stored) => stored,
        Err(error) => return Reply::error(store_error(&error)),
    };
    let built = match page(stored, version, &request, inner.shared.page_size) {
        Ok(built) => built,
        Err(detail) => return Reply::error(rpc::invalid_params(detail)),
    };
    match inner.agent.list_sessions(&request, built).await {
        Ok(page) => list_response(version, page),
        Err(error) => Reply::error(error),
    }
}

/// The `session/list` answer of `$version` for `$page`: `$directories` and `$cursor`
/// convert the further directories and the next cursor into the version's types.
macro_rules! list_response {
    ($page:expr, $version:ident, $directories:expr, $cursor:expr) => {{
        let page = $page;
        let sessions: Vec<$version::SessionInfo> = page
            .sessions
            .into_iter()
            .map(|summary| {
                let mut info = $version::SessionInfo::new(summary.id, summary.cwd)
                    .additional_directories($directories(summary.additional_directories))
                    .updated_at(rfc3339(summary.updated_at));
                if let Some(title) = summary.title {
                    info = info.title(title);
                }
                #[cfg(feature = "unstable_session_archive")]
                {
                    info = info.archived(summary.archived);
                }
                info
            })
            .collect();
        let mut response = $version::ListSessionsResponse::new(sessions);
        if let Some(cursor) = page.next_cursor {
            response = response.next_cursor($cursor(cursor));
        }
        Reply::ok(&response)
    }};
}

fn list_response(version: ProtocolVersion, page: SessionPage) -> Reply {
    if version == ProtocolVersion::V1 {
        list_response!(page, v1, std::convert::identity, std::convert::identity)
    } else {
        list_response!(page, v2, absolute_paths, v2::SessionListCursor::from)
    }
}

/// Directories as v2 sends them.
fn absolute_paths(directories: Vec<String>) -> Vec<v2::AbsolutePath> {
    directories
        .into_iter()
        .map(v2::AbsolutePath::from)
        .collect()
}

/// `session/close`: cancels the running turn (as `session/cancel` does) and waits until it
/// has ended (in v2 its final updates and idle state have been sent), then stops everything
/// for the session on this connection. A session that is not open here closes successfully.
pub(super) async fn close<A: Agent>(inner: &Inner<A>, id: &str) {
    let Some(session) = inner.session(id) else {
        return;
    };
    let state = session.state().clone();
    state.cancel();
    inner.agent.cancel(session.clone()).await;
    state.idle().await;
    session.mark_closed();
    lock(&inner.sessions).remove(id);
    inner.agent.close_session(session).await;
}

/// `session/delete`: closes the session here, stops it on every other connection, and
/// removes it from the store. An unreadable session can be deleted too. Deleting a session
/// that does not exist succeeds and changes nothing (the protocol asks for that in v2; v1 says
/// nothing of it, and is answered the same way). Another principal's session is one that does
/// not exist here: it is neither touched nor revealed.
pub(super) async fn delete<A: Agent, T: serde::Serialize>(
    inner: &Inner<A>,
    id: &str,
    response: impl FnOnce() -> T,
) -> Reply {
    if let Ok(None) = inner.owned.meta(id).await {
        return Reply::ok(&response());
    }
    if let Err(error) = inner.agent.delete_session(id).await {
        return Reply::error(error);
    }
    close(inner, id).await;
    if let Some(state) = inner.owned.state(id) {
        state.mark_deleted();
    }
    inner.owned.forget(id);
    match inner.owned.store().delete(id).await {
        // Gone meanwhile (another connection deleted it): as asked.
        Ok(_) => Reply::ok(&response()),
        Err(error) => Reply::error(store_error(&error)),
    }
}

/// `session/set_mode` (v1).
pub(super) async fn set_mode<A: Agent>(inner: &Inner<A>, id: &str, mode: &str) -> Reply {
    let session = match inner.open_session(id) {
        Ok(session) => session,
        Err(reply) => return reply,
    };
    let config = session.state().config();
    let Some(modes) = &config.modes else {
        return Reply::error(no_such_method(id, "modes", "session/set_mode"));
    };
    if !modes.contains(mode) {
        return Reply::error(rpc::invalid_params(format!(
            "session `{id}` has no mode `{mode}`"
        )));
    }
    if let Err(error) = inner.agent.set_mode(&session, mode).await {
        return Reply::error(error);
    }
    let changed = session
        .state()
        .update_config(|config| {
            if let Some(modes) = config.modes.as_mut() {
                mode.clone_into(&mut modes.current);
            }
        })
        .await;
    match changed {
        Ok(_) => Reply::ok(&v1::SetSessionModeResponse::new()),
        Err(error) => Reply::error(store_error(&error)),
    }
}

/// `session/set_config_option`: the option and the value must be offered; the answer is the
/// full list. In v2 the option [`MODE_OPTION_ID`] switches the session mode.
pub(super) async fn set_config_option<A: Agent>(
    inner: &Inner<A>,
    id: &str,
    option: &str,
    value: Option<ConfigValue>,
) -> Reply {
    let session = match inner.open_session(id) {
        Ok(session) => session,
        Err(reply) => return reply,
    };
    let version = session.protocol_version();
    let config = session.state().config();
    let modes_as_option = version != ProtocolVersion::V1 && config.modes.is_some();
    if config.options.is_empty() && !modes_as_option {
        return Reply::error(no_such_method(
            id,
            "config options",
            "session/set_config_option",
        ));
    }
    let Some(value) = value else {
        return Reply::error(rpc::invalid_params(format!(
            "the value for config option `{option}` is of a type this agent does not support"
        )));
    };
    let changed = if modes_as_option && option == MODE_OPTION_ID {
        let Some(mode) = value.as_id().filter(|mode| {
            config
                .modes
                .as_ref()
                .is_some_and(|modes| modes.contains(mode))
        }) else {
            return Reply::error(rpc::invalid_params(format!(
                "`{value:?}` is not one of the modes of session `{id}`"
            )));
        };
        if let Err(error) = inner.agent.set_mode(&session, mode).await {
            return Reply::error(error);
        }
        session
            .state()
            .update_config(|config| {
                if let Some(modes) = config.modes.as_mut() {
                    mode.clone_into(&mut modes.current);
                }
            })
            .await
    } else {
        if let Err(detail) = config.check(option, &value) {
            return Reply::error(rpc::invalid_params(detail));
        }
        if let Err(error) = inner
            .agent
            .set_config_option(&session, option, &value)
            .await
        {
            return Reply::error(error);
        }
        session
            .state()
            .update_config(|config| config.set(option, &value))
            .await
    };
    match changed {
        Ok(config) => config_response(version, &config),
        Err(error) => Reply::error(store_error(&error)),
    }
}

fn config_response(version: ProtocolVersion, config: &SessionConfig) -> Reply {
    if version == ProtocolVersion::V1 {
        Reply::ok(&v1::SetSessionConfigOptionResponse::new(
            config.v1_options().unwrap_or_default(),
        ))
    } else {
        Reply::ok(&v2::SetSessionConfigOptionResponse::new(
            config.v2_options().unwrap_or_default(),
        ))
    }
}

/// `-32601` for a per-session method of a session that does not offer it.
fn no_such_method(id: &str, what: &str, method: &str) -> ErrorObject {
    let mut error = rpc::method_not_found(method);
    error.message = format!("method not found: `{method}`: session `{id}` offers no {what}");
    error
}

/// v2 `tool_call/cancel` and `terminal/cancel`: only for an item that currently advertises
/// `capabilities.cancel`.
pub(super) async fn cancel_item<A: Agent, T: serde::Serialize>(
    inner: &Inner<A>,
    id: &str,
    item: Cancellable,
    response: impl FnOnce() -> T,
) -> Reply {
    let session = match inner.open_session(id) {
        Ok(session) => session,
        Err(reply) => return reply,
    };
    if !session.state().cancel_item(&item) {
        let (kind, item_id) = match &item {
            Cancellable::ToolCall(item_id) => ("tool call", item_id),
            Cancellable::Terminal(item_id) => ("terminal", item_id),
        };
        return Reply::error(rpc::invalid_params(format!(
            "{kind} `{item_id}` of session `{id}` is unknown, already final, or not cancellable"
        )));
    }
    let answered = match &item {
        Cancellable::ToolCall(item_id) => inner.agent.cancel_tool_call(session, item_id).await,
        Cancellable::Terminal(item_id) => inner.agent.cancel_terminal(session, item_id).await,
    };
    match answered {
        Ok(()) => Reply::ok(&response()),
        Err(error) => Reply::error(error),
    }
}
