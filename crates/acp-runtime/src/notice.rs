//! Notices as the agent side sends them: one version-neutral value, delivered by
//! [`Session::notice`](crate::agent::Session::notice) according to the client's version and
//! capabilities.

use acp_schema::{v1, v2};

use crate::error::Error;

/// A notice to send: severity, title and optional description.
///
/// The severity is an open string: `info`, `warning` and `error` are known to clients; any
/// other value (for example `_acme_quota`) is sent verbatim. The title is never empty.
///
/// ```
/// use acp_runtime::Notice;
/// let notice = Notice::new("warning", "MCP server db unavailable")?
///     .description("spawning `db-mcp` failed: not found");
/// assert_eq!(notice.fallback_text(), "Warning: MCP server db unavailable - spawning `db-mcp` failed: not found");
/// assert!(Notice::new("info", "").is_err());
/// # Ok::<(), acp_runtime::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Notice {
    /// The severity as it goes on the wire.
    pub severity: String,
    /// The title (at least one character).
    pub title: String,
    /// Optional detail.
    pub description: Option<String>,
}

impl Notice {
    /// A notice without a description; fails with [`Error::EmptyNoticeTitle`] for an empty
    /// title.
    pub fn new(severity: impl Into<String>, title: impl Into<String>) -> Result<Self, Error> {
        let title = title.into();
        if title.is_empty() {
            return Err(Error::EmptyNoticeTitle);
        }
        Ok(Self {
            severity: severity.into(),
            title,
            description: None,
        })
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The text of the agent message sent instead of the notice to a v1 client without
    /// `session.notices`: `Warning: TITLE - DESCRIPTION` (the severity word capitalised for
    /// the known severities, verbatim otherwise; ` - DESCRIPTION` only when there is one).
    pub fn fallback_text(&self) -> String {
        let word = match self.severity.as_str() {
            "info" => "Info",
            "warning" => "Warning",
            "error" => "Error",
            other => other,
        };
        match &self.description {
            Some(description) => format!("{word}: {} - {description}", self.title),
            None => format!("{word}: {}", self.title),
        }
    }

    /// The ACP v1 wire notice.
    pub fn to_v1(&self) -> Result<v1::Notice, Error> {
        let notice = v1::Notice::try_new(self.severity.as_str(), self.title.clone())
            .map_err(|_| Error::EmptyNoticeTitle)?;
        Ok(match &self.description {
            Some(description) => notice.description(description.clone()),
            None => notice,
        })
    }

    /// The ACP v2 wire notice.
    pub fn to_v2(&self) -> Result<v2::Notice, Error> {
        let notice = v2::Notice::try_new(self.severity.as_str(), self.title.clone())
            .map_err(|_| Error::EmptyNoticeTitle)?;
        Ok(match &self.description {
            Some(description) => notice.description(description.clone()),
            None => notice,
        })
    }
}

/// What [`Session::notice`](crate::agent::Session::notice) did with a notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoticeDelivery {
    /// Sent as a `notice` session update (v2, or v1 with `session.notices`). Not recorded in
    /// the session's history.
    Sent,
    /// The v1 client did not advertise `session.notices`: an `agent_message_chunk` with
    /// [`Notice::fallback_text`] was sent instead. It is conversation content and is recorded
    /// in the history like any message.
    FellBack,
    /// The v1 client did not advertise `session.notices` and the fallback policy is
    /// [`FallbackPolicy::Drop`]: nothing was sent.
    Dropped,
}

/// What to do with a notice for a v1 client that did not advertise `session.notices`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FallbackPolicy {
    /// Send an ordinary agent message carrying the severity, title and description (default).
    #[default]
    AgentMessage,
    /// Send nothing.
    Drop,
}
