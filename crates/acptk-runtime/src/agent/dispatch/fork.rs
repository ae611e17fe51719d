//! `session/fork` (cargo feature `unstable_session_fork`), for both versions: a new session
//! under a fresh id whose history is a copy of a stored session's, opened on this connection
//! like a new one. The source is left as it was.
//!
//! The source's history is read whole before anything is created, so a damaged source fails
//! the request cleanly; when the copy cannot be completed (a size limit, a write error) the
//! half-made fork is deleted again and the error is the answer.

use std::sync::Arc;

use acptk_schema::jsonrpc::RawValue;
use acptk_schema::{v1, v2};

use super::open::stored;
use super::open::{Fields, attach, opened};
use super::{Initialized, Inner, store_error};
use crate::agent::ids::fresh_id;
use crate::agent::open_sessions::SessionState;
use crate::agent::{Agent, SessionConfig, SessionOrigin};
use crate::connection::{Reply, to_raw};
use crate::error::Error;
use crate::rpc;
use crate::store::HistoryEntry;

/// The v1 `session/fork` answer for the new session `id`.
pub(super) fn fork_v1(id: &str, config: &SessionConfig) -> Result<Box<RawValue>, Error> {
    let mut response = v1::ForkSessionResponse::new(id);
    if let Some(modes) = config.v1_modes() {
        response = response.modes(modes);
    }
    if let Some(options) = config.v1_options() {
        response = response.config_options(options);
    }
    to_raw(&response)
}

/// The v2 `session/fork` answer for the new session `id`.
pub(super) fn fork_v2(id: &str, config: &SessionConfig) -> Result<Box<RawValue>, Error> {
    to_raw(
        &v2::ForkSessionResponse::new(id).config_options(config.v2_options().unwrap_or_default()),
    )
}

/// The runtime announces no cursors, so every cursor id is one it did not hand out.
#[cfg(feature = "unstable_session_cursors")]
pub(super) fn no_cursor(cursor: &str) -> acptk_schema::jsonrpc::ErrorObject {
    rpc::invalid_params(format!(
        "`{cursor}` is not a cursor this agent announced; fork without `cursorId` to copy the whole session"
    ))
}

/// `session/fork` of either version (a cursor is refused before); `response` writes the
/// version's answer for the new id ([`fork_v1`], [`fork_v2`]).
pub(super) async fn fork<A: Agent>(
    inner: &Inner<A>,
    init: &Initialized,
    fields: Result<Fields, String>,
    response: impl FnOnce(&str, &SessionConfig) -> Result<Box<RawValue>, Error>,
) -> Reply {
    let fields = match fields {
        Ok(fields) => fields,
        Err(detail) => return Reply::error(rpc::invalid_params(detail)),
    };
    let source_id = fields.id().to_owned();
    let source = match stored(inner, init, &source_id).await {
        Ok(meta) => meta,
        Err(reply) => return reply,
    };
    let store = Arc::clone(inner.owned.store());
    let history = match store.history(&source_id).await {
        Ok(history) => history,
        Err(error) => return Reply::error(store_error(&error)),
    };
    let id = fresh_id("sess");
    let setup = match fields.setup(init, id.clone(), SessionOrigin::Forked) {
        Ok(setup) => setup,
        Err(reply) => return reply,
    };
    let mut config = match inner.agent.fork_session(&source_id, &setup).await {
        Ok(config) => config,
        Err(error) => return Reply::error(error),
    };
    config.apply_stored(source.mode.as_deref(), &source.config);
    super::open::apply_initial(init, &setup, &mut config);
    let mut meta = super::open::stored_meta(init, &id, &setup, &config);
    meta.title.clone_from(&source.title);
    let meta = match inner.owned.create(meta).await {
        Ok(meta) => meta,
        Err(error) => {
            return Reply::error(rpc::internal(format!("cannot create the fork: {error}")));
        }
    };
    // Idempotency keys belong to the source's prompts; only the conversation is copied.
    let mut copied = Ok(());
    for entry in history
        .into_iter()
        .filter(|entry| matches!(entry, HistoryEntry::V1(_) | HistoryEntry::V2(_)))
    {
        copied = store.append(&id, entry).await;
        if copied.is_err() {
            break;
        }
    }
    if let Err(error) = copied {
        // Best effort: the fork is useless half-copied; the answer is the copy's error.
        let _ = store.delete(&id).await;
        return Reply::error(store_error(&error));
    }
    let state = SessionState::new(meta, config.clone(), store);
    inner.owned.register(&state);
    let session = attach(inner, init, state);
    opened(inner, response(&id, &config), session, setup)
}
