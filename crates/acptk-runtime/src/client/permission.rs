//! Permission requests (`session/request_permission`) in a form shared by both versions, and
//! their answers.

use acptk_schema::{v1, v2};

/// One choice of a permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionChoice {
    /// The option id to answer with.
    pub id: String,
    /// Its label.
    pub name: String,
    /// Its kind as sent (`allow_once`, `allow_always`, `reject_once`, `reject_always`).
    pub kind: String,
}

impl PermissionChoice {
    /// A choice with its option id, label and kind (`allow_once`, `reject_once`, ...).
    pub fn new(id: impl Into<String>, name: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            kind: kind.into(),
        }
    }

    /// Whether the choice allows the action (`allow_once`, `allow_always`).
    pub fn allows(&self) -> bool {
        self.kind.starts_with("allow")
    }
}

/// A permission request from the agent, in either version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// The session it is about.
    pub session_id: String,
    /// What the agent wants to do.
    pub title: String,
    /// The tool call it is about, when the agent named one.
    pub tool_call_id: Option<String>,
    /// The kind of tool call it is about (`read`, `edit`, `execute`, ...): as the request
    /// gives it, else as the tool call was announced in the session; `execute` for a v2
    /// request about a shell command.
    pub tool_kind: Option<String>,
    /// The shell command it is about (a v2 `command` subject).
    pub command: Option<String>,
    /// The choices offered.
    pub options: Vec<PermissionChoice>,
}

/// The options of a permission request of either version as [`PermissionChoice`]s,
/// `$word` naming the kind of each.
macro_rules! choices {
    ($options:expr, |$kind:ident| $word:expr) => {
        $options
            .iter()
            .map(|option| {
                let $kind = &option.kind;
                PermissionChoice::new(option.option_id.as_str(), option.name.as_str(), $word)
            })
            .collect()
    };
}

impl PermissionRequest {
    /// A request about `session_id` titled `title` offering `options`.
    pub fn new(
        session_id: impl Into<String>,
        title: impl Into<String>,
        options: Vec<PermissionChoice>,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            title: title.into(),
            tool_call_id: None,
            tool_kind: None,
            command: None,
            options,
        }
    }

    /// Sets the tool kind.
    #[must_use]
    pub fn tool_kind(mut self, kind: impl Into<String>) -> Self {
        self.tool_kind = Some(kind.into());
        self
    }

    /// The first choice of `kind` (`allow_once`, `reject_once`, ...).
    pub fn choice(&self, kind: &str) -> Option<&PermissionChoice> {
        self.options.iter().find(|option| option.kind == kind)
    }

    /// The title of a request that names nothing the session announced either.
    pub(crate) const UNTITLED: &str = "Allow this action?";

    pub(crate) fn from_v1(request: &v1::RequestPermissionRequest) -> Self {
        Self {
            session_id: request.session_id.as_str().to_owned(),
            // Filled from the tool call as announced in the session when the request names
            // only its id (see `dispatch::with_announced`).
            title: request.tool_call.title.clone().unwrap_or_default(),
            tool_call_id: Some(request.tool_call.tool_call_id.as_str().to_owned()),
            tool_kind: request.tool_call.kind.as_ref().map(json_word),
            command: None,
            options: choices!(request.options, |kind| json_word(kind)),
        }
    }

    pub(crate) fn from_v2(request: &v2::RequestPermissionRequest) -> Self {
        let (tool_call_id, tool_kind, command) = match &request.subject {
            Some(v2::RequestPermissionSubject::ToolCall(subject)) => (
                Some(subject.tool_call.tool_call_id.as_str().to_owned()),
                subject.tool_call.kind.as_set().map(json_word),
                None,
            ),
            Some(v2::RequestPermissionSubject::Command(subject)) => (
                subject
                    .tool_call_id
                    .as_ref()
                    .map(|id| id.as_str().to_owned()),
                Some("execute".to_owned()),
                Some(subject.command.clone()),
            ),
            _ => (None, None, None),
        };
        Self {
            session_id: request.session_id.as_str().to_owned(),
            title: request.title.clone(),
            tool_call_id,
            tool_kind,
            command,
            options: choices!(request.options, |kind| kind.as_str()),
        }
    }
}

/// The answer to a [`PermissionRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionDecision {
    /// The user picked the option with this id.
    Selected(String),
    /// No choice (the turn was cancelled or the user dismissed the question).
    Cancelled,
}

impl PermissionDecision {
    pub(crate) fn to_v1(&self) -> v1::RequestPermissionResponse {
        v1::RequestPermissionResponse::new(match self {
            PermissionDecision::Selected(id) => v1::RequestPermissionOutcome::Selected(
                v1::SelectedPermissionOutcome::new(id.as_str()),
            ),
            PermissionDecision::Cancelled => v1::RequestPermissionOutcome::Cancelled,
        })
    }

    pub(crate) fn to_v2(&self) -> v2::RequestPermissionResponse {
        v2::RequestPermissionResponse::new(match self {
            PermissionDecision::Selected(id) => v2::RequestPermissionOutcome::Selected(
                v2::SelectedPermissionOutcome::new(id.as_str()),
            ),
            PermissionDecision::Cancelled => {
                v2::RequestPermissionOutcome::Cancelled(v2::CancelledPermissionOutcome::new())
            }
        })
    }
}

/// The JSON string form of a serialisable enum value.
pub(crate) fn json_word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(word)) => word,
        _ => "unknown".to_owned(),
    }
}
