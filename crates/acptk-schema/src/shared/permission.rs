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

constructor! {
    /// A choice `option_id` labelled `name`.
    PermissionOption(
        option_id: impl Into<PermissionOptionId>,
        name: impl Into<String>,
        kind: impl Into<PermissionOptionKind>,
    ) { meta: None }
}

wire_struct! {
    /// The client's answer to `session/request_permission`.
    pub struct RequestPermissionResponse {
        /// What the user decided, or that the request was cancelled.
        pub outcome: RequestPermissionOutcome,
    }
}

constructor! {
    /// A response with the given outcome.
    RequestPermissionResponse(outcome: impl Into<RequestPermissionOutcome>) { meta: None }
}

wire_struct! {
    /// The payload of a `selected` outcome: which option the user picked.
    pub struct SelectedPermissionOutcome {
        /// The [`PermissionOption::option_id`] of the chosen option.
        pub option_id: PermissionOptionId,
    }
}

constructor! {
    /// The user picked `option_id`.
    SelectedPermissionOutcome(option_id: impl Into<PermissionOptionId>) { meta: None }
}
