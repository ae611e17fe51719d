//! The engine's input: a notice as received, independent of the protocol version.

use std::borrow::Borrow;
use std::sync::Arc;

use crate::severity::Severity;

/// A notice as it arrived from the agent, borrowed and not yet sanitised.
///
/// Build it from a protocol type (`From<&acptk_schema::v1::Notice>`, and
/// `From<&acptk_schema::v2::Notice>` with the `v2` feature) or by hand:
///
/// ```
/// use acptk_notice_center::{IncomingNotice, Severity};
///
/// let notice = IncomingNotice::new(Severity::Warning, "MCP server unavailable")
///     .with_description("Continuing without it.");
/// assert_eq!(notice.title, "MCP server unavailable");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IncomingNotice<'a> {
    /// The severity the agent gave.
    pub severity: Severity,
    /// The title as sent (may hold anything; the engine sanitises it).
    pub title: &'a str,
    /// The description as sent, if any.
    pub description: Option<&'a str>,
}

impl<'a> IncomingNotice<'a> {
    /// A notice with no description.
    #[must_use]
    pub fn new(severity: Severity, title: &'a str) -> Self {
        Self {
            severity,
            title,
            description: None,
        }
    }

    /// Adds a description.
    #[must_use]
    pub fn with_description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }
}

/// The session a notice belongs to: the ACP session id, as a cheaply cloned string.
///
/// Sessions are ordered by this key wherever the engine lists them, so output never depends
/// on hashing. It deliberately has no `Display`: the id comes from the agent and must be
/// sanitised before it is shown.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey(Arc<str>);

impl SessionKey {
    /// A key for the session id `id`.
    #[must_use]
    pub fn new(id: &str) -> Self {
        Self(Arc::from(id))
    }

    /// The session id as received. It comes from the agent: sanitise it before showing it
    /// (for example with [`crate::sanitize::title`]).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SessionKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SessionKey {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SessionKey {
    fn from(id: &str) -> Self {
        Self::new(id)
    }
}

impl From<String> for SessionKey {
    fn from(id: String) -> Self {
        Self(Arc::from(id))
    }
}
