//! Who a connection acts for: the owner of the sessions it creates.

use std::fmt;
use std::sync::Arc;

use crate::store::SessionMeta;

/// The identity a connection acts for, and the owner of the sessions it creates.
///
/// Every connection of an [`AgentServer`](crate::agent::AgentServer) has a principal. A stdio
/// connection (and any connection started without one) is the *local* principal: the user
/// who started the agent. A remote server names the principal from the bearer token a
/// request carries (`ServerOptions::principal` of `transport::remote`, feature `remote`); a
/// remote server without tokens serves the local principal.
///
/// A session belongs to the principal whose connection created it (`session/new`, or
/// `session/fork` of one of its own sessions), and the store keeps that owner
/// ([`SessionMeta::owner`]). A connection sees only its principal's sessions: the others are
/// missing from `session/list`, and every method that names one of them answers exactly as
/// it does for an id no store knows (`-32002`).
///
/// ```
/// use acptk_runtime::agent::Principal;
/// let alice = Principal::named("alice");
/// assert_eq!(alice.name(), Some("alice"));
/// assert!(Principal::local().is_local());
/// assert_ne!(alice, Principal::local());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Principal {
    /// `None` for the local principal.
    name: Option<Arc<str>>,
}

impl Principal {
    /// The local principal: the user who started the agent (stdio connections, and remote
    /// servers that require no token). Its sessions have no owner name
    /// ([`SessionMeta::owner`] is `None`).
    #[must_use]
    pub fn local() -> Self {
        Self { name: None }
    }

    /// A named principal (for example the name a token file gives a bearer token). Its
    /// sessions are stored with `name` as their owner.
    #[must_use]
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: Some(Arc::from(name.into())),
        }
    }

    /// The name, or `None` for the local principal.
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Whether this is the local principal.
    #[must_use]
    pub fn is_local(&self) -> bool {
        self.name.is_none()
    }

    /// The value of [`SessionMeta::owner`] for a session this principal creates.
    #[must_use]
    pub fn owner(&self) -> Option<String> {
        self.name.as_deref().map(str::to_owned)
    }

    /// Whether the session described by `meta` belongs to this principal.
    #[must_use]
    pub fn owns(&self, meta: &SessionMeta) -> bool {
        meta.owner.as_deref() == self.name()
    }
}

impl fmt::Display for Principal {
    /// The name, or `the local user`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "`{name}`"),
            None => f.write_str("the local user"),
        }
    }
}
