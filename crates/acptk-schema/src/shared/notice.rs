//! Session notices: the fire-and-forget `notice` session update.
//!
//! A notice tells the user about a condition the agent ran into ("MCP server unavailable",
//! "falling back to defaults", "model rerouted") without becoming part of the conversation.
//! It has no id and no response; it is never updated or removed by the agent, never replayed,
//! and identical notices are independent events. How long it stays visible, and whether it is
//! shown at all, is the client's choice; dismissal is local to the client.
//!
//! This file is compiled once per protocol version: the wire shape is the same in v1 and v2,
//! but each version has its own distinct types.

use std::fmt;

open_enum! {
    /// How much attention a notice asks for. A presentation hint only: `error` fails no request
    /// and changes no session state.
    ///
    /// The enum is open: any other string is kept verbatim (see [`NoticeSeverity::Other`]) and
    /// written back unchanged. Clients should show an unknown severity in a neutral, generic
    /// style. [`NoticeSeverity::is_extension`] tells an implementation-specific value (leading
    /// `_`) from one reserved for a future ACP version ([`NoticeSeverity::is_reserved`]).
    pub enum NoticeSeverity {
        /// Something worth knowing; typically shown briefly.
        Info = "info",
        /// Something degraded that the user may want to act on.
        Warning = "warning",
        /// Something failed; typically shown prominently. Still advisory.
        Error = "error",
    }
}

/// The title of a notice: plain text with at least one character.
///
/// ACP requires a non-empty title, so this type can only hold one: build it with
/// [`NoticeTitle::new`] (or `TryFrom`), which rejects `""`. Decoding a notice whose title is
/// empty, `null`, not a string or missing fails.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct NoticeTitle(String);

impl NoticeTitle {
    /// Checks that `title` is not empty.
    pub fn new(title: impl Into<String>) -> Result<Self, crate::Error> {
        let title = title.into();
        if title.is_empty() {
            Err(crate::Error::EmptyNoticeTitle)
        } else {
            Ok(Self(title))
        }
    }

    /// `title`, or `replacement` when `title` is empty (or `Notice` when both are): a title
    /// that cannot fail, for callers with a rule of their own for empty titles.
    ///
    /// ```
    /// use acptk_schema::v1::NoticeTitle;
    /// assert_eq!(NoticeTitle::or_replacement("Disk full", "Warning").as_str(), "Disk full");
    /// assert_eq!(NoticeTitle::or_replacement("", "Warning").as_str(), "Warning");
    /// assert_eq!(NoticeTitle::or_replacement("", "").as_str(), "Notice");
    /// ```
    pub fn or_replacement(title: impl Into<String>, replacement: &str) -> Self {
        let title = title.into();
        if !title.is_empty() {
            Self(title)
        } else if !replacement.is_empty() {
            Self(replacement.to_owned())
        } else {
            Self("Notice".to_owned())
        }
    }

    /// The title text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Takes the title text out.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl TryFrom<String> for NoticeTitle {
    type Error = crate::Error;
    fn try_from(title: String) -> Result<Self, Self::Error> {
        Self::new(title)
    }
}

impl TryFrom<&str> for NoticeTitle {
    type Error = crate::Error;
    fn try_from(title: &str) -> Result<Self, Self::Error> {
        Self::new(title)
    }
}

impl AsRef<str> for NoticeTitle {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NoticeTitle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for NoticeTitle {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

schema_impl!(NoticeTitle, inline, |_| {
    schemars::json_schema!({ "type": "string", "minLength": 1 })
});

wire_struct! {
    encoded
    /// Advisory information for the user that is not conversation history (the `notice`
    /// session update).
    ///
    /// On the wire it is a `session/update` whose update is tagged `"sessionUpdate": "notice"`:
    ///
    /// ```json
    /// {"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable",
    ///  "description":"Continuing without it."}
    /// ```
    ///
    /// `description` and `_meta` are optional: `null`, absence and a value of the wrong type
    /// all decode to `None`, and `None` is never written.
    ///
    /// In v1 an agent may send a notice only to a client that advertised
    /// `clientCapabilities.session.notices`; otherwise it may send an ordinary agent message
    /// instead. v2 has no capability: clients keep notices they do not understand.
    ///
    /// # Example
    ///
    /// ```
    /// use acptk_schema::v1::{Notice, NoticeSeverity, NoticeTitle};
    ///
    /// let notice = Notice::new(NoticeSeverity::Warning, NoticeTitle::new("MCP server unavailable")?)
    ///     .description("Continuing without it.");
    /// assert_eq!(
    ///     serde_json::to_string(&notice)?,
    ///     r#"{"severity":"warning","title":"MCP server unavailable","description":"Continuing without it."}"#
    /// );
    /// // The same in one fallible step:
    /// let same = Notice::try_new("warning", "MCP server unavailable")?
    ///     .description("Continuing without it.");
    /// assert_eq!(notice, same);
    /// // An empty title is refused up front.
    /// assert!(Notice::try_new(NoticeSeverity::Info, "").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub struct Notice {
        /// How much attention the notice asks for; a presentation hint.
        pub severity: NoticeSeverity,
        /// A short plain-text line that makes sense on its own.
        pub title: NoticeTitle,
        /// Optional plain-text detail or guidance.
        #[opt("crate::de::lenient_string")]
        pub description: Option<String>,
    }
}

encode_struct!(Notice { req severity, req title, opt description, opt meta = "_meta" });

constructor! {
    /// A notice with the given severity and title and no description.
    Notice(severity: impl Into<NoticeSeverity>, title: NoticeTitle) {
        description: None,
        meta: None,
    }
}

impl Notice {
    /// Like [`Notice::new`], checking the title: fails with
    /// [`crate::Error::EmptyNoticeTitle`] when it is empty.
    pub fn try_new(
        severity: impl Into<NoticeSeverity>,
        title: impl Into<String>,
    ) -> Result<Self, crate::Error> {
        Ok(Self::new(severity, NoticeTitle::new(title)?))
    }
}

setters!(Notice { opt description: String });

encode_as_str!(NoticeTitle);
