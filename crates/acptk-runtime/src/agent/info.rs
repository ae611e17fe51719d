//! Who the agent is, as `initialize` tells the client.

use acptk_schema::{v1, v2};

/// The agent's name, optional display title and version, sent in the `initialize` response
/// (`agentInfo` in v1, `info` in v2). Returned by [`Agent::info`](super::Agent::info).
///
/// ```
/// use acptk_runtime::agent::AgentInfo;
/// let info = AgentInfo::new("word-counter", "1.2.0").title("Word counter");
/// assert_eq!(info.name, "word-counter");
/// assert_eq!(info.title.as_deref(), Some("Word counter"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentInfo {
    /// The name programs know the agent by (for example `word-counter`).
    pub name: String,
    /// A name for people (for example `Word counter`); clients show the name without it.
    pub title: Option<String>,
    /// The agent's version.
    pub version: String,
}

impl AgentInfo {
    /// An agent called `name`, at `version`, without a title.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            version: version.into(),
        }
    }

    /// Sets the title shown to people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    pub(crate) fn to_v1(&self) -> v1::Implementation {
        let info = v1::Implementation::new(self.name.as_str(), self.version.as_str());
        match &self.title {
            Some(title) => info.title(title.as_str()),
            None => info,
        }
    }

    pub(crate) fn to_v2(&self) -> v2::Implementation {
        let info = v2::Implementation::new(self.name.as_str(), self.version.as_str());
        match &self.title {
            Some(title) => info.title(title.as_str()),
            None => info,
        }
    }
}

impl Default for AgentInfo {
    /// `acptk-runtime-agent` at the runtime's version: name your agent with [`AgentInfo::new`].
    fn default() -> Self {
        Self::new("acptk-runtime-agent", env!("CARGO_PKG_VERSION"))
    }
}
