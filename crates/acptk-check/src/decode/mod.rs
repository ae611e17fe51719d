//! Decoding with the typed schema of one protocol version, reduced to the facts the
//! connection state needs.
//!
//! Every payload is decoded with `acptk_schema`'s routing enums (`decode(method, params)`), so
//! a message is valid here exactly when it is valid for the typed schema. The two versions
//! share the skeleton (`version_decoder!`); each keeps its own fact extraction.

use acptk_schema::Error;
use serde_json::value::RawValue;

use crate::replay::UpdateClass;
use crate::transcript::Side;

#[macro_use]
mod skeleton;
pub(crate) mod one_pass;
mod text_chunk;
mod v1;
mod v2;

pub(crate) use v1::advertises_notices as v1_advertises_notices;

/// An ACP protocol version this checker decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Version {
    /// ACP v1.
    V1,
    /// ACP v2.
    V2,
}

/// Calls the function of the version module (`v1` or `v2`) that `version` names.
macro_rules! by_version {
    ($version:expr, $function:ident($($argument:expr),*)) => {
        match $version {
            Version::V1 => v1::$function($($argument),*),
            Version::V2 => v2::$function($($argument),*),
        }
    };
}

impl Version {
    /// The version number on the wire.
    pub fn number(self) -> u16 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
        }
    }

    /// The version to decode with for a `protocolVersion` number: 2 and above (the newest this
    /// checker knows) decode as v2, anything else as v1.
    pub(crate) fn for_number(number: u64) -> Version {
        if number >= 2 {
            Version::V2
        } else {
            Version::V1
        }
    }

    /// Which side sends `method`, and whether as a request, in this version's tables.
    pub(crate) fn role(self, method: &str) -> Option<Role> {
        by_version!(self, role(method))
    }

    /// Decodes a request from `sender`.
    pub(crate) fn request(
        self,
        sender: Side,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Facts, Error> {
        by_version!(self, request(sender, method, params))
    }

    /// Decodes a notification from `sender`.
    pub(crate) fn notification(
        self,
        sender: Side,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Facts, Error> {
        by_version!(self, notification(sender, method, params))
    }

    /// Decodes a notification from `sender` straight from `deserializer`, positioned at its
    /// params (see [`one_pass`]).
    pub(crate) fn notification_from(
        self,
        sender: Side,
        method: &str,
        deserializer: &mut TextDeserializer<'_>,
    ) -> Result<Facts, serde_json::Error> {
        by_version!(self, notification_from(sender, method, deserializer))
    }

    /// Decodes the result of a response from `responder` to a request for `method`.
    pub(crate) fn response(
        self,
        responder: Side,
        method: &str,
        result: &RawValue,
    ) -> Result<Facts, Error> {
        by_version!(self, response(responder, method, result))
    }
}

/// `serde_json`'s deserializer of text: the one kind the one-pass decoders read from.
pub(crate) type TextDeserializer<'de> = serde_json::Deserializer<serde_json::de::StrRead<'de>>;

/// Who sends a method, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Role {
    /// The sender; `None` for protocol notifications, which either side sends.
    pub(crate) sender: Option<Side>,
    /// Sent as a request (with an id) rather than a notification.
    pub(crate) request: bool,
}

/// What the connection state needs to know about a decoded message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Facts {
    /// Nothing that changes the state.
    Nothing,
    /// An `initialize` request: the proposed version, and (read as v1) whether the client
    /// advertised `session.notices`.
    Initialize { proposed: u16, notices: bool },
    /// The `initialize` result: the negotiated version.
    Initialized { version: u16 },
    /// A `session/load` request (v1): a replay of `session` until the response.
    Load { session: String },
    /// A `session/resume` request (v2): with `replay`, a replay until `replay_complete`.
    Resume { session: String, replay: bool },
    /// A `session/prompt` request (v2): a turn of `session` starts, and runs until the agent
    /// reports the session idle.
    Prompt,
    /// A `session/update` of `session`.
    Update { session: String, kind: UpdateKind },
    /// `$/cancel_request` for the request with this id.
    Cancel,
}

/// The kind of a `session/update`, as far as the rules care.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UpdateKind {
    /// A notice.
    Notice(NoticeView),
    /// A v1 `tool_call` announcing the tool call `id` (history, for the replay windows).
    ToolCall {
        /// The announced id.
        id: String,
    },
    /// Anything else, classed for the replay windows.
    Plain(UpdateClass),
}

/// A decoded notice, version-independent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NoticeView {
    /// The severity as on the wire.
    pub severity: String,
    /// The severity is neither known nor `_`-prefixed.
    pub reserved: bool,
    /// The title (never empty).
    pub title: String,
    /// The description, if any.
    pub description: Option<String>,
}

impl NoticeView {
    /// A notice with `severity`, `title` and an optional description, as an agent sends it.
    pub fn new(severity: &str, title: &str, description: Option<&str>) -> Self {
        Self {
            reserved: acptk_schema::v1::NoticeSeverity::from(severity).is_reserved(),
            severity: severity.to_owned(),
            title: title.to_owned(),
            description: description.map(str::to_owned),
        }
    }
}
