//! Permission requests in v1: before running a tool call the agent may ask the user, through
//! the client, to allow or reject it (`session/request_permission`).

#[allow(unused_imports)]
use super::*;

use serde::de::IgnoredAny;

wire_struct! {
    /// `session/request_permission` parameters: the agent asks the user whether a tool call
    /// may run, offering a set of choices.
    pub struct RequestPermissionRequest {
        /// The session the tool call belongs to.
        pub session_id: SessionId,
        /// The tool call in question, with the details the user needs to decide.
        pub tool_call: ToolCallUpdate,
        /// The choices to offer the user.
        pub options: Vec<PermissionOption>,
    }
}

constructor! {
    /// A permission request for `tool_call` offering `options`.
    RequestPermissionRequest(session_id: impl Into<SessionId>, tool_call: impl Into<ToolCallUpdate>, options: impl Into<Vec<PermissionOption>>)
    { meta: None }
}

/// What choosing a [`PermissionOption`] means, so clients can style it and remember "always"
/// choices. Closed in v1: an unknown kind is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PermissionOptionKind {
    /// Allow this one operation.
    AllowOnce,
    /// Allow this operation now and remember the choice.
    AllowAlways,
    /// Reject this one operation.
    RejectOnce,
    /// Reject this operation now and remember the choice.
    RejectAlways,
}

/// How a permission request ended, tagged by `outcome`.
///
/// ```json
/// {"outcome": "selected", "optionId": "allow-once"}
/// ```
///
/// Closed in v1: an unknown outcome is an error.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RequestPermissionOutcome {
    /// The prompt turn was cancelled before the user chose (the client must answer pending
    /// permission requests this way after `session/cancel`).
    Cancelled,
    /// The user picked one of the offered options.
    Selected(SelectedPermissionOutcome),
}

impl RequestPermissionOutcome {
    /// The name of the JSON field holding the tag.
    pub const TAG_KEY: &'static str = "outcome";

    /// Every tag this union knows, in declaration order.
    pub const TAGS: &'static [&'static str] = &["cancelled", "selected"];

    /// The tag this value is written with.
    pub fn tag(&self) -> &str {
        match self {
            Self::Cancelled => "cancelled",
            Self::Selected(_) => "selected",
        }
    }
}

from_variants!(RequestPermissionOutcome { Selected(SelectedPermissionOutcome) });

map_deserialize!(
    RequestPermissionOutcome,
    "an object tagged by `outcome` (RequestPermissionOutcome)",
    |map| {
        let (tag, payload) = crate::de::tagged::read_tag(map, RequestPermissionOutcome::TAG_KEY)?;
        match &*tag {
            "cancelled" => payload
                .decode::<IgnoredAny>()
                .map(|_| RequestPermissionOutcome::Cancelled),
            "selected" => payload.decode().map(RequestPermissionOutcome::Selected),
            _ => Err(serde::de::Error::unknown_variant(
                &tag,
                RequestPermissionOutcome::TAGS,
            )),
        }
    }
);

schema_impl!(RequestPermissionOutcome, |generator| {
    let tag = Self::TAG_KEY;
    crate::schema_parts::union_schema(
        vec![
            schema_parts::tagged(tag, "cancelled"),
            schema_parts::tagged_payload::<SelectedPermissionOutcome>(generator, tag, "selected"),
        ],
        tag,
        true,
    )
});
