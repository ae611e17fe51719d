//! The run state of a session in ACP v2 (the `state_update` session update): the payload of
//! each state.

#[allow(unused_imports)]
use super::*;

// The states other than `idle` carry the same field: the work that keeps running.
twin_structs! {
    {
        /// Work that keeps running in the background (terminals, tool calls, subagents).
        /// A malformed list is treated as absent.
        #[opt("crate::de::lenient_object")]
        pub background: Option<Vec<BackgroundWork>>,
    }
    /// A state without background work.
    new() { background: None, meta: None }
    setters { opt background: Vec<BackgroundWork> }
    /// The fields of the `running` state: the agent is working on a turn.
    #[derive(Default)]
    RunningStateUpdate;
    /// The fields of the `requires_action` state: the agent waits for the user (for example
    /// for an answer to a permission request).
    #[derive(Default)]
    RequiresActionStateUpdate;
    /// The fields of the `unknown` state: the agent does not know or report what it is doing.
    #[derive(Default)]
    UnknownStateUpdate;
}

/// The `background` field of an idle state: a malformed value is treated as absent.
#[derive(serde::Deserialize)]
struct BackgroundField(
    #[serde(deserialize_with = "crate::de::lenient")] Option<Vec<BackgroundWork>>,
);

idle_state_update! {
    /// The fields of the `idle` state: the agent finished its turn and waits for the next prompt.
    ///
    /// `stopReason` tells why the turn ended and decides which other fields the object carries
    /// (see [`IdleStopReason`]). A missing, `null` or non-string `stopReason` means none is given.
    ///
    /// ```json
    /// {"state": "idle", "stopReason": "end_turn", "background": [{"type": "terminal", "terminalId": "t1"}]}
    /// ```
    new: "An idle state without a stop reason or background work.",
    background: Vec<BackgroundWork> = "background" via BackgroundField,
}
