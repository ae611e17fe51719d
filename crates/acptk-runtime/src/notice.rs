//! Notices as the agent side sends them: one version-neutral value, delivered by
//! [`Session::notice`](crate::agent::Session::notice) according to the client's version and
//! capabilities.
//!
//! The severity and the title are the schema's own types ([`NoticeSeverity`],
//! [`NoticeTitle`]), so the known severities and the rule that a title is never empty are
//! written once, in `acptk-schema`.

use acptk_schema::Meta;
use acptk_schema::{v1, v2};

use crate::error::Error;

/// How much attention a notice asks for: `info`, `warning`, `error`, or any other string, kept
/// verbatim (`_`-prefixed values are implementation extensions, other unknown values are
/// reserved for future ACP versions). The schema's type, shared by both versions here.
pub use acptk_schema::v1::NoticeSeverity;

/// The title of a notice: never empty (the schema's type).
pub use acptk_schema::v1::NoticeTitle;

/// A notice to send: a severity, a title that is never empty, an optional description and
/// optional `_meta`.
///
/// Build one with [`Notice::info`], [`Notice::warning`] or [`Notice::error`] (or
/// [`Notice::new`] for any severity); none of them can fail. **An empty title is never
/// sent**: a title that is empty or only white space is replaced by the severity's word
/// (`Info`, `Warning`, `Error`, or `Notice` for any other severity). [`Notice::try_new`]
/// refuses such a title instead, for titles that come from elsewhere and should be checked.
///
/// ```
/// use acptk_runtime::{Notice, NoticeSeverity};
/// let notice = Notice::warning("MCP server db unavailable")
///     .description("spawning `db-mcp` failed: not found");
/// assert_eq!(notice.severity, NoticeSeverity::Warning);
/// assert_eq!(notice.fallback_text(), "Warning: MCP server db unavailable - spawning `db-mcp` failed: not found");
/// // Open severities: an extension of yours, kept verbatim.
/// let quota = Notice::new("_acme_quota", "Quota at 90%");
/// assert!(quota.severity.is_extension());
/// // The replacement rule, and the strict constructor.
/// assert_eq!(Notice::info("").title.as_str(), "Info");
/// assert!(Notice::try_new(NoticeSeverity::Info, "").is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Notice {
    /// The severity as it goes on the wire.
    pub severity: NoticeSeverity,
    /// The title (at least one character).
    pub title: NoticeTitle,
    /// Optional detail.
    pub description: Option<String>,
    /// Optional extension metadata (`_meta`), sent with the notice (not with its v1
    /// fallback message).
    pub meta: Option<Meta>,
}

impl Notice {
    /// A notice of any severity (`NoticeSeverity::Warning`, `"warning"`, `"_acme_quota"`...).
    /// An empty or blank title is replaced by the severity's word (see [`Notice`]).
    pub fn new(severity: impl Into<NoticeSeverity>, title: impl Into<String>) -> Self {
        let severity = severity.into();
        let mut title = title.into();
        if title.trim().is_empty() {
            title.clear();
        }
        let title = NoticeTitle::or_replacement(title, severity_word(&severity));
        Self {
            title,
            severity,
            description: None,
            meta: None,
        }
    }

    /// An `info` notice: something worth knowing.
    pub fn info(title: impl Into<String>) -> Self {
        Self::new(NoticeSeverity::Info, title)
    }

    /// A `warning` notice: something degraded that the user may want to act on.
    pub fn warning(title: impl Into<String>) -> Self {
        Self::new(NoticeSeverity::Warning, title)
    }

    /// An `error` notice: something failed (a presentation hint only: it fails no request).
    pub fn error(title: impl Into<String>) -> Self {
        Self::new(NoticeSeverity::Error, title)
    }

    /// Like [`Notice::new`], but an empty title is refused with [`Error::EmptyNoticeTitle`]
    /// instead of replaced (a title of white space is kept: the protocol allows it).
    pub fn try_new(
        severity: impl Into<NoticeSeverity>,
        title: impl Into<String>,
    ) -> Result<Self, Error> {
        let title = NoticeTitle::new(title).map_err(|_| Error::EmptyNoticeTitle)?;
        Ok(Self {
            severity: severity.into(),
            title,
            description: None,
            meta: None,
        })
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the `_meta` extension object.
    #[must_use]
    pub fn meta(mut self, meta: impl Into<Meta>) -> Self {
        self.meta = Some(meta.into());
        self
    }

    /// The text of the agent message sent instead of the notice to a v1 client without
    /// `session.notices`: `Warning: TITLE - DESCRIPTION` (the severity word capitalised for
    /// the known severities, verbatim otherwise; ` - DESCRIPTION` only when there is one).
    pub fn fallback_text(&self) -> String {
        let word = match self.severity {
            NoticeSeverity::Info | NoticeSeverity::Warning | NoticeSeverity::Error => {
                severity_word(&self.severity)
            }
            _ => self.severity.as_str(),
        };
        match &self.description {
            Some(description) => format!("{word}: {} - {description}", self.title),
            None => format!("{word}: {}", self.title),
        }
    }

    /// The ACP v1 wire notice.
    pub fn to_v1(&self) -> v1::Notice {
        let mut notice = v1::Notice::new(self.severity.clone(), self.title.clone());
        notice.description.clone_from(&self.description);
        notice.meta.clone_from(&self.meta);
        notice
    }

    /// The ACP v2 wire notice.
    pub fn to_v2(&self) -> v2::Notice {
        let title = v2::NoticeTitle::or_replacement(self.title.as_str(), "Notice");
        let mut notice = v2::Notice::new(self.severity.as_str(), title);
        notice.description.clone_from(&self.description);
        notice.meta.clone_from(&self.meta);
        notice
    }
}

/// The word a title is replaced by, and the fallback text starts with.
fn severity_word(severity: &NoticeSeverity) -> &'static str {
    match severity {
        NoticeSeverity::Info => "Info",
        NoticeSeverity::Warning => "Warning",
        NoticeSeverity::Error => "Error",
        _ => "Notice",
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
