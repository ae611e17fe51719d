//! Room for a new Streamable HTTP connection: the limit per client and the server's
//! connection limit, and the unused connections that make way for a new one.
//!
//! **Per client.** A client is the principal its bearer token names when the server has
//! tokens, else its address (the TCP peer's, or the one a trusted balancer names: see
//! [`super::forwarded`]). It may have
//! [`ServerOptions::max_per_address`](super::ServerOptions::max_per_address) connections open.
//!
//! **Unused.** A connection is unused from the answer to its `initialize` until its client
//! sends a second request naming it (a `POST` of any message, a `GET` of an event stream, a
//! `DELETE`). An unused connection has no event stream and has had no message after
//! `initialize`, so it has no session, no turn and no stream; a connection whose `initialize`
//! is still being answered is not unused (nor can it be evicted). An unused connection that
//! stays so for [`ServerOptions::unused_timeout`](super::ServerOptions::unused_timeout) is
//! closed.
//!
//! **Eviction.** A new connection past a limit does not get 503 while an unused connection
//! could make way: past the per-client limit, the client's unused connection that has been
//! unused longest is closed (logged) and the new one takes its place; past the server's
//! connection limit, the unused connection of any client that has been unused longest. Only
//! when every connection that counts is used (or still initializing) is the new one refused
//! with 503. A connection used once is never evicted: it ends by `DELETE`, the idle timeout,
//! or its client going away. A WebSocket upgrade past the connection limit makes way the same
//! way.

use std::collections::HashMap;
use std::sync::Arc;

use super::context::Shared;
use super::http_conn::{Client, HttpConnection};
use super::slot::Slot;
use crate::lock::lock;
use crate::log::Level;

/// Why a new connection was refused: the message of its 503.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// Its client has as many connections as allowed, all in use.
    Client,
    /// The server has as many connections as allowed, none unused.
    Server,
}

impl Full {
    /// What the 503 says.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Self::Client => {
                "this client has as many HTTP connections open as the server allows, all in use; close one (DELETE) or try again later"
            }
            Self::Server => {
                "this ACP server has as many connections as it accepts; try again later"
            }
        }
    }
}

type Registry = HashMap<String, Arc<HttpConnection>>;

/// Registers `connection` as `id`, of `client`, making room for it by evicting unused
/// connections where a limit is reached (see the module docs); the evicted ones are closed
/// once the registry is unlocked.
pub(crate) fn admit<S>(
    shared: &Shared<S>,
    connection: &Arc<HttpConnection>,
    id: &str,
    client: &Client,
) -> Result<(), Full> {
    let mut evicted = Vec::new();
    let admitted = {
        let mut registry = lock(&shared.http);
        make_room(shared, &mut registry, client, &mut evicted).map(|slot| {
            connection.hold(slot);
            registry.insert(id.to_owned(), Arc::clone(connection));
        })
    };
    for victim in evicted {
        victim.close();
    }
    admitted
}

/// The slot for a new connection of `client`: its own, or one an evicted connection gave
/// up (pushed onto `evicted`).
fn make_room<S>(
    shared: &Shared<S>,
    registry: &mut Registry,
    client: &Client,
    evicted: &mut Vec<Arc<HttpConnection>>,
) -> Result<Slot, Full> {
    let max = shared.options.max_per_address;
    let mine = registry
        .values()
        .filter(|connection| connection.client() == *client)
        .count();
    let mut slot = None;
    if mine >= max {
        let reason = format!("{client} has {max} open (the limit per client)");
        let Some(victim) = evict(shared, registry, Some(client), &reason) else {
            shared.logger.log(
                Level::Warn,
                format!(
                    "refused an HTTP connection of {client}: it has {max} open, all in use (the limit per client)"
                ),
            );
            return Err(Full::Client);
        };
        slot = victim.release();
        evicted.push(victim);
    }
    if let Some(slot) = slot.or_else(|| shared.admit()) {
        return Ok(slot);
    }
    let reason = format!(
        "the server has {} connections open (the limit)",
        shared.options.connection_limit()
    );
    if let Some(victim) = evict(shared, registry, None, &reason) {
        let slot = victim.release();
        evicted.push(victim);
        if let Some(slot) = slot {
            return Ok(slot);
        }
    }
    shared.logger.log(
        Level::Warn,
        "refused an HTTP connection: the connection limit is reached and no connection is unused",
    );
    Err(Full::Server)
}

/// Takes out of `registry` the connection (of `client`, or of anyone) that has been unused
/// longest, logging why (`reason`); closing it is the caller's.
fn evict<S>(
    shared: &Shared<S>,
    registry: &mut Registry,
    client: Option<&Client>,
    reason: &str,
) -> Option<Arc<HttpConnection>> {
    let (id, since) = registry
        .iter()
        .filter(|(_, connection)| client.is_none_or(|client| connection.client() == *client))
        .filter_map(|(id, connection)| Some((id, connection.unused_since()?)))
        .min_by_key(|(_, since)| *since)
        .map(|(id, since)| (id.clone(), since))?;
    let victim = registry.remove(&id)?;
    shared.logger.log(
        Level::Warn,
        format!(
            "evicted HTTP connection {id} of {}, unused for {:.1} s since its `initialize`, to make room: {reason}",
            victim.client(),
            since.elapsed().as_secs_f64()
        ),
    );
    Some(victim)
}

/// A slot for a WebSocket connection past the connection limit: the one the HTTP connection
/// unused longest gives up (see the module docs), if any.
pub(crate) fn evict_for_socket<S>(shared: &Shared<S>) -> Option<Slot> {
    let victim = {
        let mut registry = lock(&shared.http);
        let reason = format!(
            "the server has {} connections open (the limit)",
            shared.options.connection_limit()
        );
        evict(shared, &mut registry, None, &reason)?
    };
    let slot = victim.release();
    victim.close();
    slot
}
