//! String identifiers used in both versions.
//!
//! Each is a distinct newtype over a string so that ids of different kinds cannot be mixed up.
//! ACP gives them no inner structure: treat them as opaque and compare them exactly.

#[allow(unused_imports)]
use super::*;

string_newtype! {
    /// Identifies a session (one conversation with the agent). Chosen by the agent when the
    /// session is created and sent with every session request and update.
    SessionId
}

string_newtype! {
    /// Identifies a tool call within a session. Chosen by the agent; later updates for the same
    /// tool call carry the same id.
    ToolCallId
}

string_newtype! {
    /// Identifies a terminal (a running command whose output can be shown) within a session.
    TerminalId
}

string_newtype! {
    /// Identifies one of the choices offered in a permission request; the client answers with
    /// the id of the choice the user picked.
    PermissionOptionId
}

string_newtype! {
    /// Identifies one elicitation (a request for user input), so that its later completion can
    /// be matched to it.
    ElicitationId
}

string_newtype! {
    /// Identifies an authentication method the agent offers in its `initialize` response; the
    /// client names it when authenticating.
    AuthMethodId
}

string_newtype! {
    /// Identifies a session configuration option (such as a model selector).
    SessionConfigId
}

string_newtype! {
    /// Identifies one possible value of a session configuration option.
    SessionConfigValueId
}

string_newtype! {
    /// Identifies a group of values within a session configuration option (for display).
    SessionConfigGroupId
}

string_newtype! {
    /// Identifies a message within a session, so that streamed chunks and later updates can
    /// be attributed to the message they belong to.
    MessageId
}

string_newtype! {
    /// Identifies a plan within a session, so that it can be replaced or removed later.
    PlanId
}

string_newtype! {
    /// Identifies one context compaction run within a session; its progress updates and
    /// summary chunks carry the same id.
    CompactionId
}
