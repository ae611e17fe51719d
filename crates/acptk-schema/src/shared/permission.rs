//! Permission request parts whose shape is the same in every protocol version: the offered
//! choices, the response, and the selected outcome.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// One choice offered in a permission request (for example "Allow once").
    pub struct PermissionOption {
        /// Identifies the choice in the response.
        pub option_id: PermissionOptionId,
        /// Label shown to the user.
        pub name: String,
        /// What choosing it means.
        pub kind: PermissionOptionKind,
    }
}

impl PermissionOption {
    /// A choice `option_id` labelled `name`.
    pub fn new(
        option_id: impl Into<PermissionOptionId>,
        name: impl Into<String>,
        kind: impl Into<PermissionOptionKind>,
    ) -> Self {
        Self {
            option_id: option_id.into(),
            name: name.into(),
            kind: kind.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// The client's answer to `session/request_permission`.
    pub struct RequestPermissionResponse {
        /// What the user decided, or that the request was cancelled.
        pub outcome: RequestPermissionOutcome,
    }
}

impl RequestPermissionResponse {
    /// A response with the given outcome.
    pub fn new(outcome: impl Into<RequestPermissionOutcome>) -> Self {
        Self {
            outcome: outcome.into(),
            meta: None,
        }
    }
}

wire_struct! {
    /// The payload of a `selected` outcome: which option the user picked.
    pub struct SelectedPermissionOutcome {
        /// The [`PermissionOption::option_id`] of the chosen option.
        pub option_id: PermissionOptionId,
    }
}

impl SelectedPermissionOutcome {
    /// The user picked `option_id`.
    pub fn new(option_id: impl Into<PermissionOptionId>) -> Self {
        Self {
            option_id: option_id.into(),
            meta: None,
        }
    }
}
