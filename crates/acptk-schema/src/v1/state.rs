//! The run state of a session in ACP v1: the stop reasons of a prompt turn and the payloads of
//! each state.

#[allow(unused_imports)]
use super::*;

/// Why the agent ended a prompt turn (the `stopReason` of a prompt response).
///
/// Closed: any other value is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The turn ended normally.
    EndTurn,
    /// The model reached its token limit.
    MaxTokens,
    /// The turn reached the limit of model requests.
    MaxTurnRequests,
    /// The model declined to continue.
    Refusal,
    /// The client cancelled the turn.
    Cancelled,
}

empty_object! {
    /// The fields of the `running` state: the agent is working on a turn.
    RunningStateUpdate, new: "A running state without extra fields."
}

idle_state_update! {
    /// The fields of the `idle` state: the agent finished its turn and waits for the next prompt.
    ///
    /// `stopReason` tells why the turn ended and decides which other fields the object carries
    /// (see [`IdleStopReason`]). A missing, `null` or non-string `stopReason` means none is given.
    ///
    /// ```json
    /// {"state": "idle", "stopReason": "cancelled"}
    /// ```
    new: "An idle state without a stop reason.",
}

empty_object! {
    /// The fields of the `requires_action` state: the agent waits for the user (for example
    /// for an answer to a permission request).
    RequiresActionStateUpdate, new: "A requires-action state without extra fields."
}

empty_object! {
    /// The fields of the `unknown` state: the agent does not know or report what it is doing.
    UnknownStateUpdate, new: "An unknown state without extra fields."
}
